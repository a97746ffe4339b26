//! Statistics on error samples: descriptive summaries and the hypothesis
//! tests of Dual-Delta Testing, as free functions on slices.
//!
//! Every test returns a [`TestResult`] (statistic, p-value and the method
//! used) or a [`StatsError`] for input it cannot judge; nothing is silently
//! dropped. The tests follow SciPy 1.17 and are checked against reference
//! values it produced (`scripts/fixtures/`, `tests/fixtures/`), except on
//! the degenerate inputs where a function's docs say it differs by design
//! (equal infinities in [`paired_differences`], Pitman-Morgan on linearly
//! related samples, [`paired_spread`] where the two samples' distances are
//! all equal); the reference cases hold SciPy's value beside ours there.
//!
//! Samples may hold `+inf` (an implementation that produced a non-finite
//! output has the worst possible error): rank-based tests put it last.
//! `NaN` is always an error.

pub(crate) mod bootstrap;
mod descriptive;
mod ks;
mod location;
mod mean_ratio;
mod rank;
mod shapiro;
mod sign;
pub mod sign_flip;
mod special;
mod ttest;
mod variance;
mod wilcoxon;

pub mod sequential;

pub use self::bootstrap::{RatioInterval, ratio_of_means};
pub use self::descriptive::{Summary, describe, percentile};
pub use self::ks::ks_2samp;
pub use self::location::hodges_lehmann;
pub(crate) use self::mean_ratio::PowerOfTwo;
pub use self::mean_ratio::{HORIZON, MeanRatio, TAIL_CONFIDENCE};
pub use self::shapiro::shapiro_wilk;
pub use self::sign::sign_test;
pub(crate) use self::sign::{binom_test_half, median_bound_rank};
pub use self::sign_flip::sign_flip_mean;
pub use self::ttest::paired_t;
pub use self::variance::{brown_forsythe, paired_spread, pitman_morgan};
pub use self::wilcoxon::wilcoxon;

use core::fmt;

/// The alternative hypothesis of a test on paired samples `d1`, `d2`.
///
/// `Greater` means "`d1` tends to be larger than `d2`": for error samples,
/// the candidate is *less* accurate than the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alternative {
    /// `d1` and `d2` differ in either direction.
    TwoSided,
    /// `d1` tends to be smaller than `d2`.
    Less,
    /// `d1` tends to be larger than `d2`.
    Greater,
}

/// How the Wilcoxon signed-rank test treats zero differences (SciPy's
/// `zero_method`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ZeroMethod {
    /// Drop zero differences before ranking (Wilcoxon's original method,
    /// SciPy's default).
    #[default]
    Wilcox,
    /// Rank zero differences with the others, then drop their ranks.
    Pratt,
    /// Rank zero differences with the others and split their ranks evenly
    /// between the positive and negative sums.
    Zsplit,
}

/// How a p-value was computed, where a test has a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Method {
    /// The exact null distribution of the statistic.
    Exact,
    /// Exhaustive enumeration of the sign flips (or permutations) of the data.
    Permutation,
    /// A large-sample approximation (normal, Kolmogorov, or similar).
    Asymptotic,
    /// Random sign flips (or permutations) of the data, the p-value
    /// counting the observed one among them (valid for any number drawn).
    MonteCarlo,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Exact => "exact",
            Method::Permutation => "permutation",
            Method::Asymptotic => "asymptotic",
            Method::MonteCarlo => "Monte Carlo",
        })
    }
}

/// The outcome of a hypothesis test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct TestResult {
    /// The test statistic, as SciPy reports it.
    #[serde(with = "crate::json_number")]
    pub statistic: f64,
    /// The p-value, in `[0, 1]`.
    #[serde(with = "crate::json_number")]
    pub p_value: f64,
    /// How the p-value was computed.
    pub method: Method,
}

/// Why a statistic could not be computed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StatsError {
    /// Too few observations for the test (after dropping zeros or ties, where
    /// the test drops them).
    TooFewObservations {
        /// The test's name.
        test: &'static str,
        /// The minimum number of observations.
        needed: usize,
        /// The number available.
        got: usize,
    },
    /// Too many observations for the test.
    TooManyObservations {
        /// The test's name.
        test: &'static str,
        /// The maximum number of observations.
        max: usize,
        /// The number given.
        got: usize,
    },
    /// Paired samples of different lengths.
    LengthMismatch {
        /// Length of the first sample.
        left: usize,
        /// Length of the second sample.
        right: usize,
    },
    /// A value the test cannot use: `NaN` anywhere, or an infinity where the
    /// test needs finite values.
    InvalidValue {
        /// The test's name.
        test: &'static str,
        /// Index of the first offending value.
        index: usize,
        /// The value.
        value: f64,
    },
    /// All values are equal, so the statistic is undefined.
    ConstantData {
        /// The test's name.
        test: &'static str,
    },
    /// A parameter outside its valid range.
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Why it is invalid.
        reason: String,
    },
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatsError::TooFewObservations { test, needed, got } => write!(
                f,
                "{test} needs at least {needed} usable {}, got {got}",
                if *needed == 1 {
                    "observation"
                } else {
                    "observations"
                }
            ),
            StatsError::TooManyObservations { test, max, got } => {
                write!(f, "{test} accepts at most {max} observations, got {got}")
            }
            StatsError::LengthMismatch { left, right } => write!(
                f,
                "paired samples must have equal lengths, got {left} and {right}"
            ),
            StatsError::InvalidValue { test, index, value } => {
                write!(f, "{test} cannot use the value {value} at index {index}")
            }
            StatsError::ConstantData { test } => {
                write!(f, "{test} is undefined: all values are equal")
            }
            StatsError::InvalidParameter { name, reason } => {
                write!(f, "invalid parameter `{name}`: {reason}")
            }
        }
    }
}

impl std::error::Error for StatsError {}

/// Requires at least `needed` observations of the `got` given.
pub(crate) fn check_len(test: &'static str, got: usize, needed: usize) -> Result<(), StatsError> {
    if got < needed {
        return Err(StatsError::TooFewObservations { test, needed, got });
    }
    Ok(())
}

/// Checks that paired samples have equal lengths.
pub(crate) fn check_paired(d1: &[f64], d2: &[f64]) -> Result<(), StatsError> {
    if d1.len() == d2.len() {
        Ok(())
    } else {
        Err(StatsError::LengthMismatch {
            left: d1.len(),
            right: d2.len(),
        })
    }
}

/// Rejects `NaN` anywhere in `x`.
pub(crate) fn check_no_nan(test: &'static str, x: &[f64]) -> Result<(), StatsError> {
    match x.iter().position(|v| v.is_nan()) {
        None => Ok(()),
        Some(index) => Err(StatsError::InvalidValue {
            test,
            index,
            value: x[index],
        }),
    }
}

/// Rejects `NaN` and infinities anywhere in `x`.
pub(crate) fn check_finite(test: &'static str, x: &[f64]) -> Result<(), StatsError> {
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(StatsError::InvalidValue {
            test,
            index,
            value: x[index],
        }),
    }
}

/// The paired differences `d1[i] - d2[i]`, where two equal infinities
/// (both implementations failed on the same trial) count as a difference of
/// zero rather than `NaN`.
///
/// That trial is no evidence either way, like any tie, so the sign test,
/// Wilcoxon's test and the Hodges-Lehmann estimate count it as one. This is
/// a deliberate difference from SciPy, whose `x - y` is `NaN` there (see
/// [`wilcoxon`] for what SciPy then does).
pub fn paired_differences(d1: &[f64], d2: &[f64]) -> Result<Vec<f64>, StatsError> {
    check_paired(d1, d2)?;
    check_no_nan("paired differences", d1)?;
    check_no_nan("paired differences", d2)?;
    Ok(d1
        .iter()
        .zip(d2)
        .map(|(&a, &b)| if a == b { 0.0 } else { a - b })
        .collect())
}
