//! The paired sign-flip permutation test of a mean difference.
//!
//! Under the null hypothesis that each paired difference `d_i = d1_i − d2_i`
//! is symmetric about zero given its magnitude (two implementations whose
//! errors are exchangeable on every input give it, whatever the tails of
//! the errors, infinite variance included), every assignment of signs to
//! `|d_1|, …, |d_n|` is equally likely. The statistic is the sum of the
//! differences; its p-value is the share of sign assignments whose sum is
//! at least as extreme as the one observed. The test is exact for every
//! sample size: by enumeration of all `2^k` assignments of the `k` non-zero
//! differences up to [`EXACT_MAX`], and above that by Monte Carlo with the
//! p-value `(1 + #{b : T_b ≥ T}) / (B + 1)`, which is valid (never below
//! the true level) for any number `B` of resamples (Phipson and Smyth,
//! "Permutation p-values should never be zero", 2010).
//!
//! It agrees with `scipy.stats.permutation_test(..., permutation_type =
//! "samples", statistic = mean of the differences)` where SciPy enumerates
//! (`scripts/fixtures/paired.py`, `sign_flip.json`).

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{Alternative, Method, StatsError, TestResult, check_finite, check_len, check_paired};

const TEST: &str = "sign-flip permutation test";

/// The most non-zero differences whose `2^k` sign assignments are
/// enumerated.
pub const EXACT_MAX: usize = 16;

/// The Monte Carlo resamples above [`EXACT_MAX`]: the smallest p-value is
/// `1 / (RESAMPLES + 1) = 1e-4`.
pub const RESAMPLES: usize = 9999;

/// One-sided (or two-sided) paired sign-flip permutation test of the mean
/// of `d1 − d2`, the Monte Carlo signs drawn from `seed`.
///
/// [`Alternative::Greater`]: `d1` has the larger mean. The statistic is the
/// mean difference. Zero differences carry no sign and change nothing.
///
/// # Errors
///
/// [`StatsError::LengthMismatch`], [`StatsError::InvalidValue`] for a value
/// that is not finite (a mean of infinities has no sign to flip), and
/// [`StatsError::TooFewObservations`] without any pair.
pub fn sign_flip_mean(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
    seed: u64,
) -> Result<TestResult, StatsError> {
    let flips = SignFlips::of(d1, d2, seed)?;
    Ok(TestResult {
        statistic: flips.statistic,
        p_value: flips.p_value(alternative),
        method: flips.method,
    })
}

/// The counts of one run of the test, from which each alternative's
/// p-value follows (the same sign assignments serve all three).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SignFlips {
    /// The mean difference.
    pub(crate) statistic: f64,
    /// Assignments whose sum is at least the observed one.
    at_least: f64,
    /// Assignments whose sum is at most the observed one.
    at_most: f64,
    /// Assignments whose sum is at least as far from zero.
    as_far: f64,
    /// The assignments counted (the observed one included for Monte Carlo).
    total: f64,
    method: Method,
}

impl SignFlips {
    /// The test on `d1 − d2` (see [`sign_flip_mean`] for the errors).
    pub(crate) fn of(d1: &[f64], d2: &[f64], seed: u64) -> Result<SignFlips, StatsError> {
        check_paired(d1, d2)?;
        check_finite(TEST, d1)?;
        check_finite(TEST, d2)?;
        check_len(TEST, d1.len(), 1)?;
        let d: Vec<f64> = d1.iter().zip(d2).map(|(a, b)| a - b).collect();
        let magnitudes: Vec<f64> = d.iter().map(|v| v.abs()).filter(|&v| v > 0.0).collect();
        let observed: f64 = d.iter().filter(|&&v| v != 0.0).sum();
        // SciPy's tolerance for sums of the same terms in another order.
        let gamma = (observed * 100.0 * f64::EPSILON).abs();
        let mut counts = [0usize; 3];
        let mut count = |t: f64| {
            counts[0] += usize::from(t >= observed - gamma);
            counts[1] += usize::from(t <= observed + gamma);
            counts[2] += usize::from(t.abs() >= observed.abs() - gamma);
        };
        let (extra, total, method) = if magnitudes.len() <= EXACT_MAX {
            for signs in 0u32..1 << magnitudes.len() {
                count(
                    magnitudes
                        .iter()
                        .enumerate()
                        .map(|(i, &m)| if signs >> i & 1 == 1 { m } else { -m })
                        .sum(),
                );
            }
            (
                0.0,
                f64::from(1u32 << magnitudes.len()),
                Method::Permutation,
            )
        } else {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for _ in 0..RESAMPLES {
                let mut t = 0.0;
                for chunk in magnitudes.chunks(64) {
                    let bits = rng.next_u64();
                    for (i, &m) in chunk.iter().enumerate() {
                        t += if bits >> i & 1 == 1 { m } else { -m };
                    }
                }
                count(t);
            }
            (1.0, 1.0 + RESAMPLES as f64, Method::MonteCarlo)
        };
        Ok(SignFlips {
            statistic: observed / d.len() as f64,
            at_least: extra + counts[0] as f64,
            at_most: extra + counts[1] as f64,
            as_far: extra + counts[2] as f64,
            total,
            method,
        })
    }

    /// The p-value of `alternative`.
    pub(crate) fn p_value(&self, alternative: Alternative) -> f64 {
        let count = match alternative {
            Alternative::Greater => self.at_least,
            Alternative::Less => self.at_most,
            Alternative::TwoSided => self.as_far,
        };
        (count / self.total).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumeration_counts_every_assignment() {
        // Differences 3, 1, −1 (and a zero): sums of ±3 ±1 ±1 at least 3
        // are 5, 3, 3 of 8.
        let test =
            |alternative| sign_flip_mean(&[4.0, 2.0, 0.0, 1.0], &[1.0; 4], alternative, 0).unwrap();
        let r = test(Alternative::Greater);
        assert_eq!(r.p_value, 3.0 / 8.0);
        assert_eq!(r.statistic, 3.0 / 4.0);
        assert_eq!(test(Alternative::Less).p_value, 7.0 / 8.0);
    }

    #[test]
    fn a_large_mean_shift_reaches_the_smallest_p_value() {
        let d1: Vec<f64> = (0..200).map(|i| 2.0 + f64::from(i % 7)).collect();
        let d2: Vec<f64> = (0..200).map(|i| f64::from(i % 5)).collect();
        let r = sign_flip_mean(&d1, &d2, Alternative::Greater, 1).unwrap();
        assert_eq!(r.p_value, 1.0 / 10_000.0);
        assert_eq!(r.method, Method::MonteCarlo);
    }

    #[test]
    fn infinities_are_refused() {
        assert!(sign_flip_mean(&[f64::INFINITY], &[1.0], Alternative::Greater, 0).is_err());
    }
}
