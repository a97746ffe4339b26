//! What the margin forgave: a significant difference within it, stated
//! rather than hidden.

/// A difference the margin forgives, stated rather than hidden: a
/// criterion of the claim finds the candidate significantly less accurate
/// at margin 0, yet neither shows it beyond the margin with confidence.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct WithinMargin {
    /// `100 × (R − 1)`, `R` the ratio of mean errors over every input (see
    /// [`crate::decide::claim`]); negative when the candidate's mean error is the
    /// smaller, though it is worse on most inputs.
    #[serde(with = "crate::json_number")]
    pub percent: f64,
    /// `100 × (median of Δ1 / Δ2 − 1)` over every input, ties counting as
    /// a ratio of 1.
    #[serde(with = "crate::json_number", default)]
    pub typical_percent: f64,
    /// The smaller one-sided p-value at margin 0 of a criterion that found
    /// the candidate less accurate.
    #[serde(with = "crate::json_number")]
    pub p_value: f64,
    /// The margin δ.
    #[serde(with = "crate::json_number")]
    pub margin: f64,
    /// `100 × (P99 Δ1 / P99 Δ2 − 1)` when the candidate's tail is heavier
    /// than its mean shift says: at least twice the mean's percentage, and
    /// at least half a percentage point above it.
    pub p99_percent: Option<f64>,
}
