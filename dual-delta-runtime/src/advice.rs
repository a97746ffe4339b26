//! Advice on the metric: where the default hybrid metric's absolute branch
//! decided most inputs and the relative errors tell another story, a run
//! says so and names the metric to use.
//!
//! `max_hybrid` is `|y − o| / (1 + |o|)`: where the oracle is below 1 in
//! magnitude it is nearly the absolute error, so a relative error of 10⁴ on
//! a value of 10⁻⁸ reads as a harmless 10⁻⁴. Under a hybrid metric each
//! full trial also measures both errors under `max_relative`; the advice is
//! given where the candidate's worst element has `|fΩ| < 1` on more than
//! half of the inputs measured **and** the ratio of mean relative errors
//! (over the inputs where both are finite) differs from the hybrid ratio by
//! more than the margin, either way. It is advice: the verdict is the
//! metric's.

/// The advice of one run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct MetricAdvice {
    /// The run's metric.
    pub metric: String,
    /// The share of inputs measured on which the absolute branch decided
    /// the candidate's error.
    #[serde(with = "crate::json_number")]
    pub absolute_share: f64,
    /// `mean Δ1 / mean Δ2` under the run's metric, over the same inputs.
    #[serde(with = "crate::json_number")]
    pub ratio: f64,
    /// The same under `max_relative`.
    #[serde(with = "crate::json_number")]
    pub relative_ratio: f64,
    /// The inputs both ratios are over.
    pub inputs: usize,
}

/// One full trial: `(Δ1, Δ2, (Δ1 rel, Δ2 rel, absolute))`.
pub(crate) type Measured = (f64, f64, (f64, f64, bool));

/// The advice for a run with metric `metric` and margin `margin`, from each
/// full trial's errors under it and under `max_relative` (with whether the
/// absolute branch decided the candidate's): `(Δ1, Δ2, (Δ1 rel, Δ2 rel,
/// absolute))`.
pub(crate) fn advise(metric: &str, trials: &[Measured], margin: f64) -> Option<MetricAdvice> {
    let finite: Vec<_> = trials
        .iter()
        .filter(|(a, b, (ra, rb, _))| [a, b, ra, rb].iter().all(|v| v.is_finite()))
        .collect();
    if finite.is_empty() {
        return None;
    }
    let absolute = finite.iter().filter(|t| t.2.2).count();
    let share = absolute as f64 / finite.len() as f64;
    let ratio = |f: fn(&&Measured) -> (f64, f64)| {
        let (s1, s2) = finite
            .iter()
            .map(f)
            .fold((0.0, 0.0), |(x, y), (a, b)| (x + a, y + b));
        if s1 == 0.0 && s2 == 0.0 { 1.0 } else { s1 / s2 }
    };
    let hybrid = ratio(|t| (t.0, t.1));
    let relative = ratio(|t| (t.2.0, t.2.1));
    let apart = relative > (1.0 + margin) * hybrid || hybrid > (1.0 + margin) * relative;
    (share > 0.5 && apart).then(|| MetricAdvice {
        metric: metric.to_owned(),
        absolute_share: share,
        ratio: hybrid,
        relative_ratio: relative,
        inputs: finite.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_loss_under_small_values_is_advised_and_agreement_is_not() {
        // Values near 1e-8: hybrid errors 1e-12 against 1e-12 (×1.0),
        // relative 1e-4 against 1e-8 (×10⁴).
        let hidden = vec![(1.0e-12, 1.0e-12, (1e-4, 1e-8, true)); 100];
        let a = advise("max_hybrid", &hidden, 0.05).unwrap();
        assert_eq!((a.ratio, a.absolute_share, a.inputs), (1.0, 1.0, 100));
        assert_eq!(
            a.sentence(),
            "The absolute branch of max_hybrid decided 100% of the inputs (|oracle| < 1 at the \
             candidate's worst element): under max_relative its mean error is ×10000 the \
             baseline's, not ×1; use metric = max_relative where relative error matters."
        );
        // The same story under both: no advice.
        let agree = vec![(2e-12, 1e-12, (2e-4, 1e-4, true)); 100];
        assert!(advise("max_hybrid", &agree, 0.05).is_none());
        // Large values: the relative branch decided.
        let large = vec![(1.0e-12, 1.0e-12, (1e-4, 1e-8, false)); 100];
        assert!(advise("max_hybrid", &large, 0.05).is_none());
    }
}
