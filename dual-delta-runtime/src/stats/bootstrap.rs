//! Paired percentile bootstrap of the ratio of mean errors.

use rand::RngExt;

use super::check_len;
use super::descriptive::{numpy_mean, percentile};
use super::{StatsError, check_finite, check_paired};
use crate::rng::TrialRng;

/// The ratio of mean errors `mean(d1) / mean(d2)` with a paired percentile
/// bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct RatioInterval {
    /// The point estimate `mean(d1) / mean(d2)` on the full samples.
    #[serde(with = "crate::json_number")]
    pub ratio: f64,
    /// Lower end of the interval: the `(1 - confidence) / 2` percentile of
    /// the bootstrap ratios.
    #[serde(with = "crate::json_number")]
    pub lower: f64,
    /// Upper end of the interval: the `(1 + confidence) / 2` percentile of
    /// the bootstrap ratios.
    #[serde(with = "crate::json_number")]
    pub upper: f64,
    /// The confidence level, in `(0, 1)`.
    #[serde(with = "crate::json_number")]
    pub confidence: f64,
    /// The number of bootstrap resamples.
    pub resamples: usize,
    /// The seed the resamples were drawn from.
    pub seed: u64,
}

/// The ratio `mean(d1) / mean(d2)` of paired samples and its paired
/// percentile bootstrap interval at level `confidence`.
///
/// Each of the `resamples` resamples draws `n` trial indices uniformly with
/// replacement and uses the *same* indices for `d1` and `d2`, so the pairing
/// (and the correlation between the two errors of a trial) is kept; its
/// statistic is `sum(d1[idx]) / sum(d2[idx])`. The interval holds the
/// `(1 - confidence) / 2` and `(1 + confidence) / 2` percentiles of these
/// ratios, with NumPy's linear interpolation ([`percentile`]). This is the
/// interval `scipy.stats.bootstrap(..., paired=True, method='percentile')`
/// computes, up to its random draws.
///
/// The indices come from [`TrialRng::from_trial_seed`]`(seed)`, so the
/// result is a deterministic function of the data and `seed`. A resample
/// whose `d2` values are all zero has an infinite ratio (`sum(d1[idx]) > 0`)
/// or, when its `d1` values are all zero as well, counts as ratio 1 (both
/// implementations exact on every resampled trial).
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] for samples of different lengths;
/// * [`StatsError::TooFewObservations`] for empty samples;
/// * [`StatsError::InvalidValue`] for a `NaN` or an infinity;
/// * [`StatsError::InvalidParameter`] for `mean(d2) == 0`, a `confidence`
///   outside the open interval `(0, 1)`, or `resamples == 0`.
///
/// # Complexity
///
/// `O(resamples · n)` time (`resamples · n` uniform draws), `O(resamples +
/// n)` memory; about 2 million draws for `n = 1000`, `resamples = 2000`.
pub fn ratio_of_means(
    d1: &[f64],
    d2: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Result<RatioInterval, StatsError> {
    const TEST: &str = "ratio of means";
    check_paired(d1, d2)?;
    check_len(TEST, d1.len(), 1)?;
    check_finite(TEST, d1)?;
    check_finite(TEST, d2)?;
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "confidence",
            reason: format!("must lie strictly between 0 and 1, got {confidence}"),
        });
    }
    if resamples == 0 {
        return Err(StatsError::InvalidParameter {
            name: "resamples",
            reason: "at least one bootstrap resample is needed".to_owned(),
        });
    }
    let mean2 = numpy_mean(d2);
    if mean2 == 0.0 {
        return Err(StatsError::InvalidParameter {
            name: "d2",
            reason: "the mean of the denominator sample is zero".to_owned(),
        });
    }
    let ratio = numpy_mean(d1) / mean2;

    let (lower, upper) = stratified_interval(d1, d2, &[], 0.0, confidence, resamples, seed);
    Ok(RatioInterval {
        ratio,
        lower,
        upper,
        confidence,
        resamples,
        seed,
    })
}

/// The percentile interval at `confidence` of the ratio of sums of a
/// stratified bootstrap: each of the `resamples` resamples draws, with
/// replacement and from [`TrialRng::from_trial_seed`]`(seed)`, first
/// `ties.len()` of the `ties` (each weighted by `tie_weight` and added to
/// both sums), then `d1.len()` of the pairs `(d1[i], d2[i])`. A resample
/// whose two sums are zero counts as ratio 1. With no ties it is the paired
/// bootstrap of [`ratio_of_means`]. The inputs are finite and the strata
/// not both empty (not checked here).
pub(crate) fn stratified_interval(
    d1: &[f64],
    d2: &[f64],
    ties: &[f64],
    tie_weight: f64,
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> (f64, f64) {
    let (n, nt) = (d1.len(), ties.len());
    let mut rng = TrialRng::from_trial_seed(seed);
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut t = 0.0;
            for _ in 0..nt {
                t += ties[rng.random_range(0..nt)];
            }
            let (mut s1, mut s2) = (tie_weight * t, tie_weight * t);
            for _ in 0..n {
                let i = rng.random_range(0..n);
                s1 += d1[i];
                s2 += d2[i];
            }
            if s1 == 0.0 && s2 == 0.0 { 1.0 } else { s1 / s2 }
        })
        .collect();
    ratios.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    (
        percentile(&ratios, 100.0 * tail),
        percentile(&ratios, 100.0 * (1.0 - tail)),
    )
}
