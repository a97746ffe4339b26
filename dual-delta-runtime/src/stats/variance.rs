//! Tests of equal spreads: the paired spread test (the stability verdict's
//! test, valid whatever the errors' shape), Pitman-Morgan for the
//! variances of paired samples (normal theory) and Brown-Forsythe
//! (Levene's test with medians).

use super::check_len;
use super::descriptive::{numpy_mean, numpy_median, numpy_sum};
use super::special::{beta_cf, ln_beta_half};
use super::{Alternative, Method, StatsError, TestResult, ZeroMethod, check_finite, check_paired};
use crate::numerics::double_double::DoubleDouble as Dd;

/// The paired spread test: whether `d1` varies more (or less) from one
/// input to another than `d2` does on the same inputs, valid whatever the
/// shape of the samples.
///
/// The inputs are taken two by two in their order (the `k`-th pair is
/// inputs `2k` and `2k + 1`; with an odd `n` the last input is left out),
/// and on each pair the spread of each sample is the distance between its
/// two values, `g1_k = |d1[2k] − d1[2k+1]|` and `g2_k = |d2[2k] −
/// d2[2k+1]|` (the expected value of such a distance is Gini's mean
/// difference, a measure of spread: Gini, C. (1912), *Variabilità e
/// mutabilità*, Bologna: Cuppini). The `⌊n / 2⌋` differences
/// `g1_k − g2_k` are then tested by the Wilcoxon signed-rank test
/// (Wilcoxon, F. (1945), "Individual comparisons by ranking methods",
/// *Biometrics Bulletin* 1(6), 80–83): [`wilcoxon`](super::wilcoxon)`(g1,
/// g2, alternative, ZeroMethod::Wilcox, false)`, SciPy's
/// `scipy.stats.wilcoxon(g1, g2, alternative=...)` with `zero_method =
/// 'wilcox'` and no continuity correction.
///
/// * [`Alternative::Greater`]: `d1` is more spread (the candidate *less
///   stable*);
/// * [`Alternative::Less`]: `d1` is less spread;
/// * [`Alternative::TwoSided`]: the spreads differ.
///
/// **Why it holds its level whatever the shape.** Where each input's pair
/// `(d1[i], d2[i])` is exchangeable (the two implementations err alike on
/// that input, in distribution) and the inputs are independent, swapping
/// `d1` and `d2` on both inputs of a pair leaves the sample's distribution
/// unchanged and turns `g1_k − g2_k` into its negative: the differences are
/// independent and symmetric about 0, which is the signed-rank test's null
/// hypothesis exactly, for skewed, heavy-tailed, tied or discrete errors
/// alike (no variance, moment or centre is estimated). A constant added to
/// every value of one sample changes nothing: the test compares spreads,
/// not locations. Pitman-Morgan ([`pitman_morgan`]) is the normal-theory
/// test of the variances, and holds its level only for normal errors.
///
/// # Differences from SciPy
///
/// Where every `g1_k` equals `g2_k` (for example `d1 = d2 + c`), the spreads
/// show no difference: statistic `0`, `p = 1` ([`Method::Exact`]), where
/// SciPy returns `NaN` for more than 13 pairs. Values beyond `f64::MAX / 4`
/// in magnitude are scaled by `2^-2` first, so that no distance overflows.
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] for samples of different lengths;
/// * [`StatsError::TooFewObservations`] for `n < 2` (no pair of inputs);
/// * [`StatsError::InvalidValue`] for `NaN` or infinities.
///
/// # Complexity
///
/// `O(n log n)` time (the ranks) and `O(n)` memory.
pub fn paired_spread(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
) -> Result<TestResult, StatsError> {
    const TEST: &str = "paired spread";
    check_paired(d1, d2)?;
    check_len(TEST, d1.len(), 2)?;
    check_finite(TEST, d1)?;
    check_finite(TEST, d2)?;
    let largest = d1.iter().chain(d2).fold(0.0f64, |m, v| m.max(v.abs()));
    let scale = if largest > f64::MAX / 4.0 { 0.25 } else { 1.0 };
    let distances = |d: &[f64]| -> Vec<f64> {
        d.chunks_exact(2)
            .map(|p| (p[0] * scale - p[1] * scale).abs())
            .collect()
    };
    let (g1, g2) = (distances(d1), distances(d2));
    if g1 == g2 {
        return Ok(TestResult {
            statistic: 0.0,
            p_value: 1.0,
            method: Method::Exact,
        });
    }
    super::wilcoxon(&g1, &g2, alternative, ZeroMethod::Wilcox, false)
}

/// The Pitman-Morgan test of equal variances of paired samples: a
/// normal-theory test, whose level holds for bivariate normal samples only
/// (for skewed or heavy-tailed errors it rejects far more often than its
/// level: [`paired_spread`] is the test that holds).
///
/// With `s = d1 + d2` and `t = d1 - d2`, `Cov(s, t) = Var(d1) - Var(d2)`, so
/// the variances are equal exactly when `s` and `t` are uncorrelated. The
/// test computes Pearson's `r = corr(s, t)` and reports the Pitman-Morgan
/// statistic
///
/// ```text
/// statistic = r · sqrt((n - 2) / (1 - r²))
/// ```
///
/// which under the null hypothesis (bivariate normal pairs, equal
/// variances) follows Student's t distribution with `n - 2` degrees of
/// freedom. The p-value is that of `scipy.stats.pearsonr(d1 + d2, d1 - d2,
/// alternative=...)` (the same test, phrased through `r`):
///
/// * [`Alternative::Greater`]: `Var(d1) > Var(d2)` (`r > 0`), the candidate
///   is *less stable*;
/// * [`Alternative::Less`]: `Var(d1) < Var(d2)`;
/// * [`Alternative::TwoSided`]: the variances differ.
///
/// The method is [`Method::Exact`] (the t distribution is the exact null
/// distribution under normality).
///
/// # Accuracy, and where SciPy differs
///
/// `r` and `1 - r²` are computed from `d1` and `d2` in double-double
/// arithmetic (about 32 digits), and the tail from `1 - r²` itself. SciPy
/// computes `r` in `f64` from the rounded `d1 ± d2` and its tail from
/// `(r + 1) / 2`, so near `|r| = 1` the last bits of its `r` decide its
/// p-value: its relative error is about `n · 1e-16 / (1 - r²)` (`1e-3` at
/// `n = 10`, `1 - r² = 1e-12`, p-values near `1e-46`; a factor of 6 at
/// `1 - r² = 1e-15`), and its p-value is `0` once its `r` rounds to `±1`.
/// Here the relative error is about `1e-31 / (1 - r²)` on top of the
/// tail's `1e-12`: below `1e-9` while `1 - r² ≥ 1e-22`. On ordinary data
/// the two agree to about `1e-12` relative up to `n ≈ 20 000`, deep tails
/// included (a few `1e-10` for `n` in the millions). On related samples
/// they differ by design:
///
/// * **Exactly related samples** (`d1` or `d2` constant, or `d1 = ±2^k d2`):
///   `r = ±1`, the statistic is `±inf` and the p-value exactly `0` (or `1`
///   on the other side), the closed form. SciPy returns `0` or a small
///   non-zero value depending on its rounding (`1.1e-16` at `n = 4`,
///   `1.2e-139` at `n = 20` in the reference cases).
/// * **Nearly related samples**: the exact p-value, where SciPy's is off
///   as above or `0`.
///
/// Where `1 - r²` is below about `1e-30` (samples related to within their
/// own rounding, such as `d1 = 3 d2` rounded, or other linear relations
/// `d1 = a + b d2`) it is not resolved either: the p-value is then only
/// known to be tiny, and may be reported as `0`.
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] for samples of different lengths;
/// * [`StatsError::TooFewObservations`] for `n < 3` (no degree of freedom);
/// * [`StatsError::InvalidValue`] for `NaN` or infinities;
/// * [`StatsError::ConstantData`] when `d1 + d2` or `d1 - d2` is constant
///   (for example `d1 == d2`), where `r` is undefined (SciPy: `NaN`).
///
/// # Complexity
///
/// `O(n)` time and memory.
pub fn pitman_morgan(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
) -> Result<TestResult, StatsError> {
    const TEST: &str = "Pitman-Morgan";
    check_paired(d1, d2)?;
    let n = d1.len();
    check_len(TEST, n, 3)?;
    check_finite(TEST, d1)?;
    check_finite(TEST, d2)?;
    let c = correlation(d1, d2).ok_or(StatsError::ConstantData { test: TEST })?;
    let r = c.r;

    let df = (n - 2) as f64;
    let statistic = if c.one_minus_r2 == 0.0 {
        r.signum() * f64::INFINITY
    } else {
        r * (df / c.one_minus_r2).sqrt()
    };
    // P(|T| > |t|) = I_{1 - r²}(df / 2, 1 / 2).
    let (two_sided, complement) = beta_half(df / 2.0, c.one_minus_r2, c.r2);
    let half = 0.5 * two_sided;
    let other = 0.5 + 0.5 * complement;
    let p_value = match alternative {
        Alternative::TwoSided => two_sided,
        Alternative::Greater => {
            if r > 0.0 {
                half
            } else {
                other
            }
        }
        Alternative::Less => {
            if r < 0.0 {
                half
            } else {
                other
            }
        }
    };
    Ok(TestResult {
        statistic,
        p_value: p_value.clamp(0.0, 1.0),
        method: Method::Exact,
    })
}

/// The Brown-Forsythe test of equal variances: Levene's test with the
/// samples' medians as centres, `scipy.stats.levene(d1, d2,
/// center='median')`.
///
/// The absolute deviations `z = |x - median(x)|` of each sample are compared
/// with a one-way ANOVA; `statistic` is the F statistic `W` and the p-value
/// is the upper tail of the F distribution with `1` and `n1 + n2 - 2`
/// degrees of freedom. The test is two-sided in the variances (only
/// large `W` is evidence). It is robust to non-normal errors but ignores the
/// pairing; the samples need not have equal lengths. The method is
/// [`Method::Asymptotic`] (the F distribution is approximate for this
/// statistic). Accuracy against SciPy as for [`pitman_morgan`].
///
/// # Errors
///
/// * [`StatsError::TooFewObservations`] for an empty sample or fewer than
///   three observations in all;
/// * [`StatsError::InvalidValue`] for `NaN` or infinities;
/// * [`StatsError::ConstantData`] when every deviation equals its sample's
///   mean deviation (for example two constant samples), where `W` is
///   undefined.
///
/// # Complexity
///
/// `O(n)` time (median by selection) and memory.
pub fn brown_forsythe(d1: &[f64], d2: &[f64]) -> Result<TestResult, StatsError> {
    const TEST: &str = "Brown-Forsythe";
    let (n1, n2) = (d1.len(), d2.len());
    if n1 == 0 || n2 == 0 {
        return Err(StatsError::TooFewObservations {
            test: TEST,
            needed: 1,
            got: 0,
        });
    }
    check_len(TEST, n1 + n2, 3)?;
    check_finite(TEST, d1)?;
    check_finite(TEST, d2)?;

    let deviations = |x: &[f64]| {
        let m = numpy_median(x);
        x.iter().map(|v| (v - m).abs()).collect::<Vec<f64>>()
    };
    let z1 = deviations(d1);
    let z2 = deviations(d2);
    let zbar1 = numpy_mean(&z1);
    let zbar2 = numpy_mean(&z2);
    let ntot = (n1 + n2) as f64;
    let zbar = (n1 as f64 * zbar1 + n2 as f64 * zbar2) / ntot;
    let dfd = ntot - 2.0;
    let numer = dfd
        * (n1 as f64 * ((zbar1 - zbar) * (zbar1 - zbar))
            + n2 as f64 * ((zbar2 - zbar) * (zbar2 - zbar)));
    let squares = |z: &[f64], m: f64| z.iter().map(|v| (v - m) * (v - m)).collect::<Vec<f64>>();
    let denom = numpy_sum(&squares(&z1, zbar1)) + numpy_sum(&squares(&z2, zbar2));
    if denom == 0.0 {
        return Err(StatsError::ConstantData { test: TEST });
    }
    let w = numer / denom;
    // F(1, dfd) upper tail: I_{dfd / (dfd + W)}(dfd / 2, 1 / 2).
    let (p, _) = beta_half(dfd / 2.0, dfd / (dfd + w), w / (dfd + w));
    Ok(TestResult {
        statistic: w,
        p_value: p.clamp(0.0, 1.0),
        method: Method::Asymptotic,
    })
}

/// Pearson's `r = corr(d1 + d2, d1 - d2)` with `1 - r²` (to about `1e-31`
/// absolute) and `r²`.
struct Correlation {
    r: f64,
    one_minus_r2: f64,
    r2: f64,
}

/// The correlation of `s = d1 + d2` and `t = d1 - d2`, or `None` where
/// `scipy.stats.pearsonr` finds `s` or `t` (rounded to `f64`) constant.
///
/// With `a`, `b` the centred `d1`, `d2` (in double-double, after an exact
/// scaling by a power of two), `1 - r² = 4 (Σa² Σb² - (Σab)²) / (Σs² Σt²)`
/// (sums of the centred values). Exactly related samples (`a = c b` with
/// `c` a power of two, or a constant sample) give exactly `0`; elsewhere
/// the double-double sums survive the cancellation near `|r| = 1`.
fn correlation(d1: &[f64], d2: &[f64]) -> Option<Correlation> {
    let constant = |f: fn(f64, f64) -> f64| {
        let first = f(d1[0], d2[0]);
        d1.iter().zip(d2).all(|(&a, &b)| f(a, b) == first)
    };
    if constant(|a, b| a + b) || constant(|a, b| a - b) {
        return None;
    }
    let largest = d1.iter().chain(d2).fold(0.0f64, |m, v| m.max(v.abs()));
    // 2^-e in two exact steps (2^-e alone overflows for subnormal data).
    let e = largest.log2().floor() as i32;
    let scale = |v: f64| Dd::from(v * 2f64.powi(-e / 2) * 2f64.powi(e / 2 - e));
    let n = d1.len() as f64;
    let mean = |x: &[f64]| {
        x.iter()
            .fold(Dd::default(), |m, &v| m + scale(v))
            .div_f64(n)
    };
    let (m1, m2) = (mean(d1), mean(d2));
    let [mut aa, mut bb, mut ab, mut ss, mut tt, mut st] = [Dd::default(); 6];
    for (&x, &y) in d1.iter().zip(d2) {
        let (a, b) = (scale(x).sub_dd(m1), scale(y).sub_dd(m2));
        let (s, t) = (a + b, a.sub_dd(b));
        aa += a.mul_dd(a);
        bb += b.mul_dd(b);
        ab += a.mul_dd(b);
        ss += s.mul_dd(s);
        tt += t.mul_dd(t);
        st += s.mul_dd(t);
    }
    let det = aa.mul_dd(bb).sub_dd(ab.mul_dd(ab)).to_f64().max(0.0);
    let (ss, tt, st) = (ss.to_f64(), tt.to_f64(), st.to_f64());
    let r = if det == 0.0 {
        st.signum()
    } else {
        (st / (ss.sqrt() * tt.sqrt())).clamp(-1.0, 1.0)
    };
    Some(Correlation {
        r,
        one_minus_r2: (4.0 * det / (ss * tt)).min(1.0),
        r2: (st / ss * (st / tt)).min(1.0),
    })
}

/// The regularised incomplete beta function `I_x(a, 1/2)` and its
/// complement `1 - I_x(a, 1/2) = I_y(1/2, a)`, for `a > 0` and `x + y = 1`
/// given separately (so that neither loses precision to cancellation).
///
/// This is Student's t and the F(1, ·) distribution's tail:
/// `P(|T_ν| > t) = I_{ν/(ν+t²)}(ν/2, 1/2)`. The smaller of the two is
/// evaluated directly by its continued fraction (modified Lentz), with the
/// prefactor `x^a y^b / B(a, b)` in logarithms and `ln B(a, 1/2)` from a
/// cancellation-free series. Against SciPy (Boost's `ibeta`) the relative
/// error is about `1e-12` up to `a = 10^4` (20 000 degrees of freedom),
/// deep tails included, growing to a few `1e-10` at `a ~ 10^6` where the
/// continued fraction needs thousands of terms.
fn beta_half(a: f64, x: f64, y: f64) -> (f64, f64) {
    let b = 0.5;
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    if y <= 0.0 {
        return (1.0, 0.0);
    }
    // ln(x^a y^b / B(a, b)).
    let ln_beta = ln_beta_half(a);
    // Each logarithm from the smaller of x, y, which are both accurate.
    let ln_x = if x > 0.5 { (-y).ln_1p() } else { x.ln() };
    let ln_y = if y > 0.5 { (-x).ln_1p() } else { y.ln() };
    let ln_front = a * ln_x + b * ln_y - ln_beta;
    if x < (a + 1.0) / (a + b + 2.0) {
        let lower = (ln_front - a.ln()).exp() * beta_cf(a, b, x);
        (lower, 1.0 - lower)
    } else {
        let upper = (ln_front - b.ln()).exp() * beta_cf(b, a, y);
        (1.0 - upper, upper)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beta_half_closed_form_for_one_degree_of_freedom() {
        // ν = 1 (a = 1/2): P(|T| > t) = 1 - 2 atan(t) / π.
        for &t in &[0.1f64, 1.0, 3.0, 50.0, 1e4] {
            let x = 1.0 / (1.0 + t * t);
            let (p, q) = beta_half(0.5, x, t * t / (1.0 + t * t));
            let want = 2.0 * (1.0 / t).atan() / std::f64::consts::PI;
            assert!((p - want).abs() <= 1e-13 * want, "t={t} p={p} want={want}");
            assert!((p + q - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn exactly_related_samples_give_the_closed_form() {
        // SciPy: |r| = 0.9999999999999998, p = 1.34e-8 (two-sided) for all three.
        let d1 = [0.3, 1.7, 0.9];
        for d2 in [[0.0; 3], [0.6, 3.4, 1.8], [0.25; 3]] {
            let r = pitman_morgan(&d1, &d2, Alternative::TwoSided).unwrap();
            let sign = if d2[0] == 0.6 { -1.0 } else { 1.0 };
            assert_eq!((r.statistic, r.p_value), (sign * f64::INFINITY, 0.0));
            let r = pitman_morgan(&d1, &d2, Alternative::Less).unwrap();
            assert_eq!(r.p_value, if sign > 0.0 { 1.0 } else { 0.0 });
        }
    }

    #[test]
    fn errors() {
        assert!(pitman_morgan(&[1.0, 2.0], &[1.0, 3.0], Alternative::TwoSided).is_err());
        assert!(matches!(
            pitman_morgan(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], Alternative::TwoSided),
            Err(StatsError::ConstantData { .. })
        ));
        assert!(matches!(
            brown_forsythe(&[1.0, 1.0, 1.0], &[2.0, 2.0, 2.0]),
            Err(StatsError::ConstantData { .. })
        ));
        assert!(brown_forsythe(&[1.0, f64::INFINITY], &[1.0, 2.0]).is_err());
    }
}
