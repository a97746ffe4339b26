//! Paired t-test, following `scipy.stats.ttest_rel` (SciPy 1.17).

use super::check_len;
use super::descriptive::pairwise_sum;
use super::special::{beta_cf, ln_beta_half};
use super::{Alternative, Method, StatsError, TestResult, check_finite, check_paired};

const TEST: &str = "paired t-test";

/// Paired t-test on the differences `d = d1 - d2`.
///
/// Equivalent to `scipy.stats.ttest_rel(d1, d2, alternative=...)`: the
/// statistic is `t = mean(d) / sqrt(var(d) / n)` with the unbiased variance,
/// and the p-value comes from Student's t distribution with `n - 1` degrees
/// of freedom (upper tail for [`Alternative::Greater`], lower tail for
/// [`Alternative::Less`], twice the upper tail of `|t|` for
/// [`Alternative::TwoSided`]). The method is [`Method::Asymptotic`] (the t
/// distribution is exact only for normal differences).
///
/// Sums are pairwise, like NumPy's, and the differences are scaled by a
/// power of two before squaring (which changes nothing but avoids underflow
/// and overflow). Tails are computed on their own side through the
/// regularized incomplete beta function, so a p-value of `1e-300` keeps its
/// relative precision.
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] if the samples differ in length.
/// * [`StatsError::InvalidValue`] if either sample contains `NaN` or an
///   infinity.
/// * [`StatsError::TooFewObservations`] if there are fewer than 2 pairs.
/// * [`StatsError::ConstantData`] if all differences are equal (SciPy
///   returns `NaN`, or a meaningless rounding-driven value when the computed
///   mean differs from the common value in its last bit).
///
/// # Complexity
///
/// O(n) time and memory.
pub fn paired_t(
    d1: &[f64],
    d2: &[f64],
    alternative: Alternative,
) -> Result<TestResult, StatsError> {
    check_paired(d1, d2)?;
    check_finite(TEST, d1)?;
    check_finite(TEST, d2)?;
    let n = d1.len();
    check_len(TEST, n, 2)?;
    let mut d: Vec<f64> = d1.iter().zip(d2).map(|(a, b)| a - b).collect();
    if d.iter().all(|&v| v == d[0]) {
        return Err(StatsError::ConstantData { test: TEST });
    }
    // The differences of finite values may overflow to an infinity.
    check_finite(TEST, &d)?;

    // Scale by a power of two so that the largest |d| is in [1, 2): exact,
    // and t is scale-invariant.
    let max_abs = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let exponent = (max_abs.log2().floor() as i32).clamp(-1000, 1000);
    if exponent != 0 {
        let scale = 2f64.powi(-exponent);
        for v in &mut d {
            *v *= scale;
        }
    }

    let nf = n as f64;
    let mean = pairwise_sum(&d) / nf;
    let squares: Vec<f64> = d.iter().map(|v| (v - mean) * (v - mean)).collect();
    let var = pairwise_sum(&squares) / nf * (nf / (nf - 1.0));
    let t = mean / (var / nf).sqrt();
    let df = nf - 1.0;
    let p_value = match alternative {
        Alternative::Greater => student_t_sf(t, df),
        Alternative::Less => student_t_sf(-t, df),
        Alternative::TwoSided => 2.0 * student_t_sf(t.abs(), df),
    };
    Ok(TestResult {
        statistic: t,
        p_value,
        method: Method::Asymptotic,
    })
}

/// `P(T > t)` for Student's t with `df` degrees of freedom.
///
/// With `x = df / (df + t²)`, `P(T > |t|) = I_x(df/2, ½) / 2`. The
/// continued fraction is evaluated for whichever of `I_x(df/2, ½)` and
/// `I_{1-x}(½, df/2)` converges quickly, `x` and `1 - x` are both formed
/// without cancellation, and the beta-function prefactor uses an accurate
/// `ln Γ(a + ½) - ln Γ(a)`, so the upper tail has full relative precision
/// for any `df`.
fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    if t < 0.0 {
        return 1.0 - student_t_sf(-t, df);
    }
    if t == f64::INFINITY {
        return 0.0;
    }
    if t == 0.0 {
        return 0.5;
    }
    let a = 0.5 * df;
    let b = 0.5;
    // u = t² / df; ln x = -ln(1 + u), ln(1 - x) = ln u - ln(1 + u).
    let r = t / df.sqrt();
    let (ln_x, ln_y, x, y) = if r > 1e150 {
        let ln_u = 2.0 * r.ln();
        (-ln_u, 0.0, (-ln_u).exp(), 1.0)
    } else {
        let u = r * r;
        let l1p = u.ln_1p();
        (-l1p, u.ln() - l1p, 1.0 / (1.0 + u), u / (1.0 + u))
    };
    let ln_beta = ln_beta_half(a);
    if x < (a + 1.0) / (a + b + 2.0) {
        let front = (a * ln_x + b * ln_y - ln_beta).exp();
        0.5 * front * beta_cf(a, b, x) / a
    } else {
        let front = (b * ln_y + a * ln_x - ln_beta).exp();
        let i = front * beta_cf(b, a, y) / b;
        0.5 - 0.5 * i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_tails_match_closed_forms() {
        // df = 1 is Cauchy: P(T > t) = 1/2 - atan(t)/π.
        for t in [0.1f64, 1.0, 3.0, 1e3] {
            let exact = (1.0 / t).atan() / core::f64::consts::PI;
            let got = student_t_sf(t, 1.0);
            assert!(
                (got - exact).abs() <= 1e-13 * exact,
                "t = {t}: {got} vs {exact}"
            );
        }
        // df = 2: P(T > t) = (1 - t / s) / 2 = 1 / (s (s + t)), s = sqrt(2 + t²).
        for t in [0.5f64, 2.0, 50.0, 1e6] {
            let s = (2.0 + t * t).sqrt();
            let exact = 1.0 / (s * (s + t));
            let got = student_t_sf(t, 2.0);
            assert!(
                (got - exact).abs() <= 1e-13 * exact,
                "t = {t}: {got} vs {exact}"
            );
        }
        assert_eq!(student_t_sf(0.0, 7.0), 0.5);
        assert_eq!(student_t_sf(f64::INFINITY, 7.0), 0.0);
    }

    #[test]
    fn student_t_tails_match_high_precision_references() {
        // P(T > t) from mpmath (40 digits): I_x(df/2, 1/2) / 2, x = df/(df+t²).
        let cases = [
            (1.0, 1e-8, 0.49999999681690116),
            (3.0, 0.5, 0.3257239824240755),
            (10.0, 2.0, 0.03669401738537018),
            (29.0, 40.0, 3.173438664864674e-27),
            (99.0, 8.0, 1.2001519105284342e-12),
            (999.0, 1e-5, 0.499996011575425),
            (999.0, 30.0, 8.364136065585923e-142),
            (9999.0, 1.8, 0.03594538444801177),
            (99999.0, 2.5, 0.006210459604222501),
            (99999.0, 37.0, 5.987590021841563e-298),
            (999_999.0, 1.8, 0.035930469749992325),
            (4999.0, 36.5, 4.217564005795519e-259),
        ];
        for (df, t, want) in cases {
            let got = student_t_sf(t, df);
            let rel = (got - want).abs() / want;
            assert!(
                rel < 1e-10,
                "df = {df}, t = {t}: {got:e} vs {want:e} (rel {rel:.1e})"
            );
        }
    }
}
