//! Wilcoxon signed-rank test on paired samples, following
//! `scipy.stats.wilcoxon` (SciPy 1.17, `method='auto'`).

use statrs::distribution::{ContinuousCDF, Normal};

use super::check_len;
use super::rank::average_ranks;
use super::{Alternative, Method, StatsError, TestResult, ZeroMethod, paired_differences};

const TEST: &str = "Wilcoxon signed-rank test";

/// Above this many differences (zeros included) the normal approximation is
/// always used (SciPy: `d.shape[-1] > 50`).
const EXACT_MAX_N: usize = 50;

/// Up to this many differences (zeros included), samples with ties or zeros
/// get an exhaustive sign-flip permutation test: SciPy's default
/// `PermutationMethod()` draws 9999 resamples, and `2^13 = 8192` sign
/// patterns are fewer, so it enumerates them all.
const PERMUTATION_MAX_N: usize = 13;

/// Wilcoxon signed-rank test on the paired differences `d = d1 - d2`.
///
/// Equivalent to `scipy.stats.wilcoxon(d1, d2, zero_method=...,
/// correction=..., alternative=..., method='auto')` from SciPy 1.17, with
/// the differences taken by [`paired_differences`] (two equal infinities
/// give a difference of zero, where SciPy would give `NaN`).
///
/// # Both samples infinite at one index: a deliberate difference
///
/// Such a pair (both implementations failed on that trial) is a zero
/// difference here, handled by the zero method like any other zero. SciPy
/// computes `inf - inf = NaN` and leaves the pair out of the ranks and of
/// the zeros, though not of the sample size that picks the method. So:
///
/// * with [`ZeroMethod::Wilcox`] the statistic is SciPy's, and so is the
///   p-value unless the methods differ: with no other zero or tie, SciPy
///   counts the rest exactly where the zero here picks the permutation
///   test (`n ≤ 13`: the same p-value) or, for `14 ≤ n ≤ 50`, the normal
///   approximation (one reference case: `p = 0.4939` here, `0.5153` in
///   SciPy);
/// * with [`ZeroMethod::Pratt`] and [`ZeroMethod::Zsplit`] the zero is
///   ranked, so statistic and p-value differ from SciPy's.
///
/// The reference cases hold SciPy's result next to this one.
///
/// # Zero differences
///
/// * [`ZeroMethod::Wilcox`]: zeros are dropped before ranking.
/// * [`ZeroMethod::Pratt`]: zeros are ranked with the others, then their
///   ranks dropped; the normal approximation uses Cureton's adjusted mean and
///   variance.
/// * [`ZeroMethod::Zsplit`]: zeros are ranked with the others and half their
///   rank sum is added to each of `T+` and `T-`.
///
/// # Method (SciPy's automatic choice)
///
/// Let `n` be the number of pairs, zeros included.
///
/// * `n > 50`: [`Method::Asymptotic`].
/// * `n ≤ 50`, no zero differences and no ties among `|d|`:
///   [`Method::Exact`], the exact null distribution of `T+` (counts of
///   subsets of `1..=n` by sum, by dynamic programming in integers; tails
///   are summed directly, so they are exact).
/// * `n ≤ 13` with zeros or ties: [`Method::Permutation`], all `2^n` sign
///   flips of the differences, counted exactly.
/// * `14 ≤ n ≤ 50` with zeros or ties: [`Method::Asymptotic`].
///
/// The asymptotic method is the normal approximation to `T+` with the tie
/// correction of the variance (the `zero_method` adjustments above), and,
/// when `correction` is true, a continuity correction of ½ towards the
/// mean (for a two-sided test, towards zero in `z`). Tails are evaluated on
/// the side they lie, so very small p-values keep their relative precision.
/// `correction` is ignored by the exact and permutation methods, as in SciPy.
///
/// # Statistic
///
/// `T+`, the sum of the ranks of the positive differences (with the `zsplit`
/// share of the zeros), for [`Alternative::Less`] and
/// [`Alternative::Greater`]; `min(T+, T-)` for [`Alternative::TwoSided`].
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] if the samples differ in length.
/// * [`StatsError::InvalidValue`] if either sample contains `NaN`
///   (`+inf` and `-inf` are allowed: their differences rank last).
/// * [`StatsError::TooFewObservations`] if there are no pairs; if there is
///   a single pair and its difference is zero (SciPy's permutation test
///   needs two observations); or if every difference is zero, `n ≥ 14` and
///   the zero method is `Wilcox` or `Pratt` (SciPy returns `NaN`). With
///   `n ≤ 13` all-zero differences give `p = 1` by the permutation method,
///   and with `Zsplit` the normal approximation is defined, as in SciPy.
///
/// # Complexity
///
/// O(n log n) for ranking; the exact distribution costs O(n³) for `n ≤ 50`
/// and the permutation count O(n³) for `n ≤ 13`, both negligible.
pub fn wilcoxon(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
    zero_method: ZeroMethod,
    correction: bool,
) -> Result<TestResult, StatsError> {
    let d = paired_differences(d1, d2)?;
    let n = d.len();
    check_len(TEST, n, 1)?;
    let n_zero = d.iter().filter(|&&v| v == 0.0).count();

    // The differences that are ranked: all of them, or the non-zero ones.
    let ranked: Vec<f64> = match zero_method {
        ZeroMethod::Wilcox => d.iter().copied().filter(|&v| v != 0.0).collect(),
        ZeroMethod::Pratt | ZeroMethod::Zsplit => d.clone(),
    };
    let abs: Vec<f64> = ranked.iter().map(|v| v.abs()).collect();
    let ranks = average_ranks(&abs);
    let count = ranked.len();

    let mut r_plus = 0.0;
    let mut r_minus = 0.0;
    let mut r_zero = 0.0;
    for (&v, &r) in ranked.iter().zip(&ranks.ranks) {
        if v > 0.0 {
            r_plus += r;
        } else if v < 0.0 {
            r_minus += r;
        } else {
            r_zero += r;
        }
    }
    if zero_method == ZeroMethod::Zsplit {
        r_plus += r_zero / 2.0;
        r_minus += r_zero / 2.0;
    }
    let statistic = match alternative {
        Alternative::TwoSided => r_plus.min(r_minus),
        Alternative::Less | Alternative::Greater => r_plus,
    };

    let method = if n > EXACT_MAX_N {
        Method::Asymptotic
    } else if !ranks.has_ties() && n_zero == 0 {
        Method::Exact
    } else if n <= PERMUTATION_MAX_N {
        Method::Permutation
    } else {
        Method::Asymptotic
    };

    let p_value = match method {
        Method::Exact => exact_p(count, r_plus, alternative),
        Method::Permutation => {
            check_len(TEST, n, 2)?;
            permutation_p(&ranked, &ranks.ranks, n_zero, alternative)
        }
        Method::Asymptotic => {
            // The tie correction counts every group of equal |d|; with
            // Pratt's method the group of zeros (always the first) is left
            // out, as SciPy does.
            let skip_zero_group = zero_method == ZeroMethod::Pratt && n_zero > 0;
            let tie_term: f64 = ranks
                .tie_sizes
                .iter()
                .skip(usize::from(skip_zero_group))
                .map(|&t| {
                    let t = t as f64;
                    t * t * t - t
                })
                .sum();
            let c = count as f64;
            let mut mean = c * (c + 1.0) * 0.25;
            let mut var24 = c * (c + 1.0) * (2.0 * c + 1.0);
            if zero_method == ZeroMethod::Pratt {
                let z0 = n_zero as f64;
                mean -= z0 * (z0 + 1.0) * 0.25;
                var24 -= z0 * (z0 + 1.0) * (2.0 * z0 + 1.0);
            }
            let se = ((var24 - tie_term / 2.0) / 24.0).sqrt();
            if se.is_nan() || se <= 0.0 {
                // Only when every difference is zero: SciPy's z is 0/0.
                return Err(StatsError::TooFewObservations {
                    test: TEST,
                    needed: 1,
                    got: 0,
                });
            }
            let mut z = (r_plus - mean) / se;
            if correction {
                let sign = match alternative {
                    Alternative::Greater => 1.0,
                    Alternative::Less => -1.0,
                    Alternative::TwoSided if z > 0.0 => 1.0,
                    Alternative::TwoSided if z < 0.0 => -1.0,
                    Alternative::TwoSided => 0.0,
                };
                z -= sign * 0.5 / se;
            }
            normal_p(z, alternative)
        }
        Method::MonteCarlo => unreachable!("never chosen above"),
    };

    Ok(TestResult {
        statistic,
        p_value,
        method,
    })
}

/// p-value of the standard-normal statistic `z`, each tail computed on its
/// own side (`sf` for the upper tail, `cdf` for the lower).
fn normal_p(z: f64, alternative: Alternative) -> f64 {
    let normal = Normal::standard();
    match alternative {
        Alternative::Greater => normal.sf(z),
        Alternative::Less => normal.cdf(z),
        Alternative::TwoSided => 2.0 * normal.sf(z.abs()),
    }
}

/// Exact p-value of `T+ = r_plus` for `n` distinct non-zero differences.
///
/// `counts[s]` is the number of subsets of `{1, …, n}` with sum `s`, so
/// `P(T+ = s) = counts[s] / 2^n` under the null hypothesis. Counts are below
/// `2^50`, so every tail sum and its scaling by `2^-n` are exact, as are
/// SciPy's (its probabilities are the same dyadic fractions).
fn exact_p(n: usize, r_plus: f64, alternative: Alternative) -> f64 {
    let max_sum = n * (n + 1) / 2;
    let mut counts = vec![0u64; max_sum + 1];
    counts[0] = 1;
    for k in 1..=n {
        let top = k * (k + 1) / 2;
        for s in (k..=top).rev() {
            counts[s] += counts[s - k];
        }
    }
    let scale = 0.5f64.powi(n as i32);
    // P(T+ <= k) and P(T+ >= k); SciPy rounds a non-integral statistic up
    // for the lower tail and down for the upper one (it is integral here).
    let cdf = |k: f64| -> f64 {
        if k < 0.0 {
            return 0.0;
        }
        let k = (k as usize).min(max_sum);
        counts[..=k].iter().sum::<u64>() as f64 * scale
    };
    let sf = |k: f64| -> f64 {
        let k = k.max(0.0) as usize;
        if k > max_sum {
            return 0.0;
        }
        counts[k..].iter().sum::<u64>() as f64 * scale
    };
    match alternative {
        Alternative::Less => cdf(r_plus.ceil()),
        Alternative::Greater => sf(r_plus.floor()),
        Alternative::TwoSided => (2.0 * sf(r_plus.floor()).min(cdf(r_plus.ceil()))).min(1.0),
    }
}

/// p-value of the exhaustive sign-flip permutation test (SciPy's
/// `permutation_test(..., permutation_type='samples')` with every one of the
/// `2^n` sign patterns).
///
/// Flipping signs leaves `|d|` and so the ranks unchanged: the statistic of
/// a pattern is the rank sum of the differences made positive. Zeros stay
/// zero whatever their sign, so each doubles the multiplicity of every
/// pattern, and the `zsplit` share of their ranks is the same constant in
/// every pattern and in the observed statistic. Ranks are multiples of ½,
/// so the null distribution of the doubled rank sum is counted exactly in
/// integers.
fn permutation_p(ranked: &[f64], ranks: &[f64], n_zero: usize, alternative: Alternative) -> f64 {
    let nonzero: Vec<(bool, usize)> = ranked
        .iter()
        .zip(ranks)
        .filter(|&(&v, _)| v != 0.0)
        .map(|(&v, &r)| (v > 0.0, (2.0 * r) as usize))
        .collect();
    let total: usize = nonzero.iter().map(|&(_, r2)| r2).sum();
    let observed: usize = nonzero
        .iter()
        .filter(|&&(positive, _)| positive)
        .map(|&(_, r2)| r2)
        .sum();
    let mut counts = vec![0u64; total + 1];
    counts[0] = 1;
    let mut reach = 0;
    for &(_, r2) in &nonzero {
        reach += r2;
        for s in (r2..=reach).rev() {
            counts[s] += counts[s - r2];
        }
    }
    let n = nonzero.len() + n_zero;
    // Each zero doubles every count; dividing by 2^n leaves 2^-(n - n_zero).
    let scale = 0.5f64.powi((n - n_zero) as i32);
    let less = counts[..=observed].iter().sum::<u64>() as f64 * scale;
    let greater = counts[observed..].iter().sum::<u64>() as f64 * scale;
    match alternative {
        Alternative::Less => less,
        Alternative::Greater => greater,
        Alternative::TwoSided => (2.0 * less.min(greater)).min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_distribution_small_n_matches_hand_counts() {
        // n = 3: subset sums of {1,2,3}: 0,1,2,3,3,4,5,6 -> P(T+ >= 5) = 2/8.
        assert_eq!(exact_p(3, 5.0, Alternative::Greater), 0.25);
        assert_eq!(exact_p(3, 5.0, Alternative::Less), 7.0 / 8.0);
        assert_eq!(exact_p(3, 5.0, Alternative::TwoSided), 0.5);
        assert_eq!(exact_p(3, 3.0, Alternative::TwoSided), 1.0);
    }

    #[test]
    fn permutation_counts_zeros_as_doubling_patterns() {
        // d = [0, 1, -1] with pratt: ranks of |d| = [1, 2.5, 2.5]; flips of
        // the two non-zero differences give doubled sums 0, 5, 5, 10, each
        // twice; observed 5 -> P(>= 5) = 3/4, P(<= 5) = 3/4.
        let d = [0.0, 1.0, -1.0];
        let p = permutation_p(&d, &[1.0, 2.5, 2.5], 1, Alternative::Greater);
        assert_eq!(p, 0.75);
        let p = permutation_p(&d, &[1.0, 2.5, 2.5], 1, Alternative::TwoSided);
        assert_eq!(p, 1.0);
    }
}
