//! Exact sign test on paired samples, following `scipy.stats.binomtest`
//! (SciPy 1.17) applied to the signs of the differences.

use super::check_len;
use super::{Alternative, Method, StatsError, TestResult, paired_differences};

const TEST: &str = "sign test";

/// Exact sign test on the paired differences `d = d1 - d2`.
///
/// Zero differences are dropped (two equal infinities count as a zero, see
/// [`paired_differences`]); of the `n` remaining, `k` are positive. Under the
/// null hypothesis `k ~ Binomial(n, ½)`, and the p-value is exactly
/// `scipy.stats.binomtest(k, n, 0.5, alternative).pvalue`:
///
/// * [`Alternative::Greater`]: `P(X ≥ k)`;
/// * [`Alternative::Less`]: `P(X ≤ k)`;
/// * [`Alternative::TwoSided`]: SciPy's rule, the total probability of the
///   outcomes no more likely than `k` (relative tolerance `1e-7` on the
///   probabilities), capped at 1; it is 1 when `k = n/2`.
///
/// The statistic is `k`, the number of positive differences; the method is
/// always [`Method::Exact`]. Binomial probabilities are computed with
/// Loader's saddle-point formula and tails are summed from the tail's end,
/// so tiny p-values keep full relative precision.
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] if the samples differ in length.
/// * [`StatsError::InvalidValue`] if either sample contains `NaN`.
/// * [`StatsError::TooFewObservations`] if no difference is non-zero.
///
/// # Complexity
///
/// O(n) to count signs; the tail sums take O(min(k, n − k)) terms at most
/// and usually O(√n).
pub fn sign_test(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
) -> Result<TestResult, StatsError> {
    let d = paired_differences(d1, d2)?;
    let positive = d.iter().filter(|&&v| v > 0.0).count() as u64;
    let negative = d.iter().filter(|&&v| v < 0.0).count() as u64;
    let n = positive + negative;
    check_len(TEST, n as usize, 1)?;
    Ok(TestResult {
        statistic: positive as f64,
        p_value: binom_test_half(positive, n, alternative),
        method: Method::Exact,
    })
}

/// The smallest `m` with `P(X ≥ m) ≤ level` for `X ~ Binomial(n, ½)`, or
/// `None` where even `P(X = n) = 2^-n` exceeds `level`.
///
/// It places distribution-free confidence bounds on a median: of `n`
/// independent values whose median is `θ`, at least `m` exceed `θ` with
/// probability at most `level`, so the `(n − m + 1)`-th smallest is a
/// one-sided `1 − level` lower bound on `θ` (and the `m`-th smallest an
/// upper one).
pub(crate) fn median_bound_rank(n: u64, level: f64) -> Option<u64> {
    let b = HalfBinomial::new(n);
    // P(X ≥ m) = sf(m − 1), decreasing in m.
    let tail = |m: u64| b.sf(m as i64 - 1);
    if n == 0 || tail(n) > level {
        return None;
    }
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if tail(mid) <= level {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// `scipy.stats.binomtest(k, n, 0.5, alternative).pvalue`.
pub(crate) fn binom_test_half(k: u64, n: u64, alternative: Alternative) -> f64 {
    let b = HalfBinomial::new(n);
    let k = k as i64;
    let n_i = n as i64;
    match alternative {
        Alternative::Less => b.cdf(k),
        Alternative::Greater => b.sf(k - 1),
        Alternative::TwoSided => {
            let d = b.pmf(k);
            let rerr = 1.0 + 1e-7;
            let half = n as f64 * 0.5;
            let pval = if k as f64 == half {
                1.0
            } else if (k as f64) < half {
                // The first outcome above the mode whose probability is at
                // most d * rerr.
                let ix = binary_search(|x| -b.pmf(x), -d * rerr, half.ceil() as i64, n_i);
                let y = n_i - ix + i64::from(d * rerr == b.pmf(ix));
                b.cdf(k) + b.sf(n_i - y)
            } else {
                let ix = binary_search(|x| b.pmf(x), d * rerr, 0, half.floor() as i64);
                let y = ix + 1;
                b.cdf(y - 1) + b.sf(k - 1)
            };
            pval.min(1.0)
        }
    }
}

/// SciPy's `_binary_search_for_binom_tst`: for `a` ascending on `lo..=hi`,
/// the index `i` with `a(i) <= d < a(i + 1)` (possibly `lo - 1`).
fn binary_search(a: impl Fn(i64) -> f64, d: f64, mut lo: i64, mut hi: i64) -> i64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let midval = a(mid);
        if midval < d {
            lo = mid + 1;
        } else if midval > d {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    if a(lo) <= d { lo } else { lo - 1 }
}

/// The binomial distribution with `n` trials and success probability ½.
struct HalfBinomial {
    n: u64,
    /// For `n ≤ EXACT_MAX_N`, the binomial coefficients `C(n, 0..=n)`:
    /// probabilities and tails are then integer sums scaled by `2^-n`,
    /// rounded once.
    exact: Option<Vec<u128>>,
}

/// Largest `n` whose binomial coefficients (and their sums, `2^n`) fit in
/// `u128` with room to spare and whose `2^-n` is a normal `f64`.
const EXACT_MAX_N: u64 = 120;

impl HalfBinomial {
    fn new(n: u64) -> Self {
        let exact = (n <= EXACT_MAX_N).then(|| {
            let mut row = vec![1u128];
            for _ in 0..n {
                let mut next = vec![1u128; row.len() + 1];
                for (i, pair) in row.windows(2).enumerate() {
                    next[i + 1] = pair[0] + pair[1];
                }
                row = next;
            }
            row
        });
        HalfBinomial { n, exact }
    }

    /// `Σ C(n, i)` over `range`, times `2^-n` (exact path only).
    fn exact_sum(row: &[u128], range: core::ops::RangeInclusive<usize>, n: u64) -> f64 {
        row[range].iter().sum::<u128>() as f64 * 0.5f64.powi(n as i32)
    }

    /// `P(X = x)`: exact for small `n`, otherwise to nearly full relative
    /// precision by Loader's saddle-point formula ("Fast and accurate
    /// computation of binomial probabilities", 2000).
    fn pmf(&self, x: i64) -> f64 {
        let n = self.n as i64;
        if x < 0 || x > n {
            return 0.0;
        }
        if let Some(row) = &self.exact {
            return Self::exact_sum(row, x as usize..=x as usize, self.n);
        }
        if x == 0 || x == n {
            // 2^-n, exact (and zero below the smallest subnormal).
            return if self.n > 1100 {
                0.0
            } else {
                0.5f64.powi(self.n as i32)
            };
        }
        let nf = n as f64;
        let xf = x as f64;
        let half = nf * 0.5;
        let lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(xf, half) - bd0(nf - xf, half);
        let lf = core::f64::consts::TAU.ln() + xf.ln() + (-xf / nf).ln_1p();
        (lc - 0.5 * lf).exp()
    }

    /// `P(X ≤ k)`.
    fn cdf(&self, k: i64) -> f64 {
        let n = self.n as i64;
        if k < 0 {
            0.0
        } else if k >= n {
            1.0
        } else if let Some(row) = &self.exact {
            Self::exact_sum(row, 0..=k as usize, self.n)
        } else if 2 * k <= n {
            self.lower_tail(k)
        } else {
            // The upper tail beyond k is the smaller one: sum it instead.
            1.0 - self.lower_tail(n - k - 1)
        }
    }

    /// `P(X > k)`, which is `P(X ≤ n - k - 1)` by symmetry.
    fn sf(&self, k: i64) -> f64 {
        self.cdf(self.n as i64 - k - 1)
    }

    /// `P(X ≤ k)` for `0 ≤ k ≤ n/2` (rounded up), summed from `k` downwards:
    /// the terms only decrease, `pmf(i - 1) = pmf(i) · i / (n - i + 1)`.
    fn lower_tail(&self, k: i64) -> f64 {
        let n = self.n as f64;
        let mut term = self.pmf(k);
        let mut sum = term;
        let mut i = k;
        while i > 0 && term > sum * 1e-17 {
            let fi = i as f64;
            term *= fi / (n - fi + 1.0);
            sum += term;
            i -= 1;
        }
        sum
    }
}

/// `ln(x!) - ((x + ½) ln x - x + ½ ln 2π)`, the error of Stirling's formula.
fn stirlerr(x: i64) -> f64 {
    // ln(k!) - Stirling for k = 0..=15 (the integer entries of R's table,
    // rounded to f64).
    const TABLE: [f64; 16] = [
        0.0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ];
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if x <= 15 {
        return TABLE[x as usize];
    }
    let n = x as f64;
    let nn = n * n;
    if x > 500 {
        (S0 - S1 / nn) / n
    } else if x > 80 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if x > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// `x ln(x / m) + m - x`, the deviance term, computed without cancellation
/// when `x` is close to `m` (Loader's `bd0`).
fn bd0(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let mut v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * (x / m).ln() + m - x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ln_factorial(k: i64) -> f64 {
        (1..=k).map(|i| (i as f64).ln()).sum()
    }

    #[test]
    fn stirlerr_table_agrees_with_its_definition() {
        for x in 1..=40 {
            let direct = ln_factorial(x)
                - ((x as f64 + 0.5) * (x as f64).ln() - x as f64)
                - 0.5 * core::f64::consts::TAU.ln();
            assert!((stirlerr(x) - direct).abs() < 1e-13, "x = {x}");
        }
    }

    #[test]
    fn pmf_and_tails_match_exact_small_binomials() {
        // n = 10: C(10, k) / 1024.
        let c = [1u32, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1];
        let b = HalfBinomial::new(10);
        for (k, &ck) in c.iter().enumerate() {
            let exact = f64::from(ck) / 1024.0;
            assert!((b.pmf(k as i64) - exact).abs() <= 1e-15 * exact, "k = {k}");
            let cdf: u32 = c[..=k].iter().sum();
            let exact_cdf = f64::from(cdf) / 1024.0;
            assert!((b.cdf(k as i64) - exact_cdf).abs() <= 1e-15 * exact_cdf);
            let exact_sf = 1.0 - exact_cdf;
            assert!((b.sf(k as i64) - exact_sf).abs() <= 1e-15);
        }
    }

    #[test]
    fn saddle_point_path_agrees_with_exact_path() {
        let exact = HalfBinomial::new(120);
        let approx = HalfBinomial {
            n: 120,
            exact: None,
        };
        for k in 0..=120 {
            let (e, a) = (exact.pmf(k), approx.pmf(k));
            assert!((e - a).abs() <= 1e-12 * e, "pmf({k}): {e} vs {a}");
            let (e, a) = (exact.cdf(k), approx.cdf(k));
            assert!((e - a).abs() <= 1e-12 * e, "cdf({k}): {e} vs {a}");
            let (e, a) = (exact.sf(k), approx.sf(k));
            assert!((e - a).abs() <= 1e-12 * e, "sf({k}): {e} vs {a}");
        }
    }

    #[test]
    fn two_sided_is_twice_the_smaller_tail_for_half() {
        // binomtest(3, 10).pvalue = 0.34375 = 2 * 176 / 1024.
        assert_eq!(binom_test_half(3, 10, Alternative::TwoSided), 0.34375);
        assert_eq!(binom_test_half(7, 10, Alternative::TwoSided), 0.34375);
        assert_eq!(binom_test_half(5, 10, Alternative::TwoSided), 1.0);
        assert_eq!(binom_test_half(0, 1, Alternative::TwoSided), 1.0);
    }
}
