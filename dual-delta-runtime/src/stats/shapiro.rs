//! The Shapiro-Wilk test of normality (Royston's algorithm AS R94).

use super::check_len;
use super::{Method, StatsError, TestResult, check_finite};

/// The Shapiro-Wilk test of normality of one sample.
///
/// Royston's algorithm AS R94 (Applied Statistics 44, 1995), ported from
/// SciPy's `swilk` so that `scipy.stats.shapiro(x)` is reproduced: the
/// statistic `W` and its p-value (exact for `n = 3`, Royston's normalising
/// transformations of `W` for `4 ≤ n ≤ 11` and `n ≥ 12`). As in SciPy the
/// data are sorted and shifted by `x[n / 2]` (the value at that position of
/// the *unsorted* input) before the computation.
///
/// The test is scale invariant; where SciPy gives up on a sample whose
/// range is below `1e-19` (it returns `W = 1, p = 1` with a warning), the
/// sample is first scaled by a power of two, which gives exactly the values
/// SciPy would compute without that cut-off. Samples with magnitudes above
/// `2^1000` are scaled down the same way.
///
/// # Constant samples
///
/// A sample whose values are all equal gives `W = 1, p = 1`, as in SciPy
/// (which also warns that the input has range zero). No normality is shown
/// by that `p`: the statistic is undefined. A caller that needs to tell the
/// two apart checks for a constant sample itself, as the paired t-test's
/// normality check in the verdict does (it falls back to Wilcoxon and says
/// why).
///
/// `statistic` is `W`, `method` is [`Method::Asymptotic`] (the p-value comes
/// from Royston's approximations, except for `n = 3` where it is exact and
/// [`Method::Exact`] is reported).
///
/// # Errors
///
/// * [`StatsError::TooFewObservations`] for `n < 3`;
/// * [`StatsError::TooManyObservations`] for `n > 5000` (the range of the
///   approximation; SciPy only warns);
/// * [`StatsError::InvalidValue`] for `NaN` or infinities.
///
/// # Complexity
///
/// `O(n log n)` time (one sort), `O(n)` memory.
pub fn shapiro_wilk(x: &[f64]) -> Result<TestResult, StatsError> {
    const TEST: &str = "Shapiro-Wilk";
    let n = x.len();
    check_len(TEST, n, 3)?;
    if n > 5000 {
        return Err(StatsError::TooManyObservations {
            test: TEST,
            max: 5000,
            got: n,
        });
    }
    check_finite(TEST, x)?;

    let mut y: Vec<f64> = x.to_vec();
    let largest = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if largest > 2f64.powi(1000) {
        // Exact scaling; keeps `sorted - x[n/2]` and the range finite.
        for v in &mut y {
            *v *= 2f64.powi(-64);
        }
    }
    let shift = y[n / 2];
    y.sort_unstable_by(f64::total_cmp);
    for v in &mut y {
        *v -= shift;
    }
    let method = if n == 3 {
        Method::Exact
    } else {
        Method::Asymptotic
    };
    let mut range = y[n - 1] - y[0];
    if range == 0.0 {
        return Ok(TestResult {
            statistic: 1.0,
            p_value: 1.0,
            method,
        });
    }
    while range < SMALL {
        // Exact power-of-two scaling: `y / range` is unchanged bit for bit.
        for v in &mut y {
            *v *= 2f64.powi(64);
        }
        range = y[n - 1] - y[0];
    }

    let (w, pw) = swilk(&y);
    Ok(TestResult {
        statistic: w,
        p_value: pw,
        method,
    })
}

const SMALL: f64 = 1e-19;

/// SciPy's `swilk` (AS R94) for sorted, shifted data with `3 ≤ n ≤ 5000`
/// and range at least `SMALL`, without censoring: returns `(W, p)`.
fn swilk(x: &[f64]) -> (f64, f64) {
    const C1: [f64; 6] = [
        0.0,
        0.221157,
        -0.147981,
        -0.207119e1,
        0.4434685e1,
        -0.2706056e1,
    ];
    const C2: [f64; 6] = [
        0.0,
        0.42981e-1,
        -0.293762,
        -0.1752461e1,
        0.5682633e1,
        -0.3582633e1,
    ];
    const C3: [f64; 4] = [0.5440, -0.39978, 0.25054e-1, -0.6714e-3];
    const C4: [f64; 4] = [0.13822e1, -0.77857, 0.62767e-1, -0.20322e-2];
    const C5: [f64; 4] = [-0.15861e1, -0.31082, -0.83751e-1, 0.38915e-2];
    const C6: [f64; 3] = [-0.4803, -0.82676e-1, 0.30302e-2];
    const G: [f64; 2] = [-0.2273e1, 0.459];
    let sqrth = 2f64.sqrt() / 2.0;
    let pi6 = 6.0 / std::f64::consts::PI;

    let n = x.len();
    let nn2 = n / 2;
    let an = n as f64;
    let mut a = vec![0.0; nn2];

    // Coefficients.
    if n == 3 {
        a[0] = sqrth;
    } else {
        let an25 = an + 0.25;
        let mut summ2 = 0.0;
        for (i, ai) in a.iter_mut().enumerate() {
            let temp = ppnd(((i + 1) as f64 - 0.375) / an25);
            *ai = temp;
            summ2 += temp * temp;
        }
        summ2 *= 2.0;
        let ssumm2 = summ2.sqrt();
        let rsn = 1.0 / an.sqrt();
        let a1 = poly(&C1, rsn) - (a[0] / ssumm2);
        let (i1, fac);
        if n > 5 {
            i1 = 2;
            let a2 = -a[1] / ssumm2 + poly(&C2, rsn);
            fac = ((summ2 - (2.0 * (a[0] * a[0])) - 2.0 * (a[1] * a[1]))
                / (1.0 - (2.0 * (a1 * a1)) - 2.0 * (a2 * a2)))
                .sqrt();
            a[1] = a2;
        } else {
            i1 = 1;
            fac = ((summ2 - 2.0 * (a[0] * a[0])) / (1.0 - 2.0 * (a1 * a1))).sqrt();
        }
        a[0] = a1;
        for ai in &mut a[i1..nn2] {
            *ai *= -1.0 / fac;
        }
    }

    // W.
    let range = x[n - 1] - x[0];
    let mut sx = x[0] / range;
    let mut sa = -a[0];
    let mut ind2 = n as isize - 2;
    for (ind1, &xi) in x.iter().enumerate().skip(1) {
        sx += xi / range;
        let i = ind1 as isize;
        if i != ind2 {
            let sign = if i < ind2 { -1.0 } else { 1.0 };
            sa += sign * a[i.min(ind2) as usize];
        }
        ind2 -= 1;
    }
    sa /= n as f64;
    sx /= n as f64;
    let (mut ssa, mut ssx, mut sax) = (0.0, 0.0, 0.0);
    let mut ind2 = n as isize - 1;
    for (ind1, &xi) in x.iter().enumerate() {
        let i = ind1 as isize;
        let asa = if i != ind2 {
            let sign = if i < ind2 { -1.0 } else { 1.0 };
            sign * a[i.min(ind2) as usize] - sa
        } else {
            -sa
        };
        let xsx = xi / range - sx;
        ssa += asa * asa;
        ssx += xsx * xsx;
        sax += asa * xsx;
        ind2 -= 1;
    }
    let ssassx = (ssa * ssx).sqrt();
    let w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx);
    let w = 1.0 - w1;

    // Significance level (exact for n = 3).
    if n == 3 {
        if w < 0.75 {
            return (0.75, 0.0);
        }
        return (w, 1.0 - pi6 * w.sqrt().acos());
    }
    let mut y = w1.ln();
    let xx = an.ln();
    let (m, s);
    if n <= 11 {
        let gamma = poly(&G, an);
        if y >= gamma {
            return (w, SMALL);
        }
        y = -(gamma - y).ln();
        m = poly(&C3, an);
        s = poly(&C4, an).exp();
    } else {
        m = poly(&C5, xx);
        s = poly(&C6, xx).exp();
    }
    (w, alnorm_upper((y - m) / s))
}

/// Upper tail of the standard normal distribution (AS 66, with SciPy's
/// extended range `utzero = 38`).
fn alnorm_upper(x: f64) -> f64 {
    const A1: f64 = 0.398942280444;
    const A2: f64 = 0.399903438504;
    const A3: f64 = 5.75885480458;
    const A4: f64 = 29.8213557808;
    const A5: f64 = 2.62433121679;
    const A6: f64 = 48.6959930692;
    const A7: f64 = 5.92885724438;
    const B1: f64 = 0.398942280385;
    const B2: f64 = 3.8052e-8;
    const B3: f64 = 1.00000615302;
    const B4: f64 = 3.98064794e-4;
    const B5: f64 = 1.98615381364;
    const B6: f64 = 0.151679116635;
    const B7: f64 = 5.29330324926;
    const B8: f64 = 4.8385912808;
    const B9: f64 = 15.1508972451;
    const B10: f64 = 0.742380924027;
    const B11: f64 = 30.789933034;
    const B12: f64 = 3.99019417011;
    const LTONE: f64 = 7.0;
    const UTZERO: f64 = 38.0;
    const CON: f64 = 1.28;

    let mut upper = true;
    let mut z = x;
    if z.is_nan() || z <= 0.0 {
        upper = false;
        z = -z;
    }
    if !((z <= LTONE) || (upper && z <= UTZERO)) {
        return if upper { 0.0 } else { 1.0 };
    }
    let y = 0.5 * z * z;
    let temp = if z <= CON {
        0.5 - z * (A1 - A2 * y / (y + A3 - A4 / (y + A5 + A6 / (y + A7))))
    } else {
        B1 * (-y).exp()
            / (z - B2
                + B3 / (z + B4 + B5 / (z - B6 + B7 / (z + B8 - B9 / (z + B10 + B11 / (z + B12))))))
    };
    if upper { temp } else { 1.0 - temp }
}

/// Normal quantile (AS 111, as in SciPy's `swilk`).
fn ppnd(p: f64) -> f64 {
    const A0: f64 = 2.50662823884;
    const A1: f64 = -18.61500062529;
    const A2: f64 = 41.39119773534;
    const A3: f64 = -25.44106049637;
    const B1: f64 = -8.47351093090;
    const B2: f64 = 23.08336743743;
    const B3: f64 = -21.06224101826;
    const B4: f64 = 3.13082909833;
    const C0: f64 = -2.78718931138;
    const C1: f64 = -2.29796479134;
    const C2: f64 = 4.85014127135;
    const C3: f64 = 2.32121276858;
    const D1: f64 = 3.54388924762;
    const D2: f64 = 1.63706781897;
    const SPLIT: f64 = 0.42;

    let q = p - 0.5;
    if q.abs() <= SPLIT {
        let r = q * q;
        let temp = q * (((A3 * r + A2) * r + A1) * r + A0);
        return temp / ((((B4 * r + B3) * r + B2) * r + B1) * r + 1.0);
    }
    let mut r = if q > 0.0 { 1.0 - p } else { p };
    if r > 0.0 {
        r = (-r.ln()).sqrt();
    } else {
        return 0.0;
    }
    let temp = ((C3 * r + C2) * r + C1) * r + C0;
    let temp = temp / ((D2 * r + D1) * r + 1.0);
    if q < 0.0 { -temp } else { temp }
}

/// SciPy's `_poly`: coefficients `[c0, c1, ..., c_{k-1}]` of
/// `c0 + c1 x + ... + c_{k-1} x^{k-1}`, evaluated in SciPy's order.
fn poly(c: &[f64], x: f64) -> f64 {
    let nord = c.len();
    let res = c[0];
    if nord == 1 {
        return res;
    }
    let mut p = x * c[nord - 1];
    if nord == 2 {
        return res + p;
    }
    for &ci in c[1..nord - 1].iter().rev() {
        p = (p + ci) * x;
    }
    res + p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            shapiro_wilk(&[1.0, 2.0]),
            Err(StatsError::TooFewObservations { .. })
        ));
        assert!(matches!(
            shapiro_wilk(&[1.0; 5001]),
            Err(StatsError::TooManyObservations { .. })
        ));
        assert!(matches!(
            shapiro_wilk(&[1.0, 2.0, f64::INFINITY]),
            Err(StatsError::InvalidValue { .. })
        ));
    }

    #[test]
    fn constant_samples_give_w_one_and_p_one_as_in_scipy() {
        let r = shapiro_wilk(&[2.0; 10]).unwrap();
        assert_eq!(
            (r.statistic, r.p_value, r.method),
            (1.0, 1.0, Method::Asymptotic)
        );
        let r = shapiro_wilk(&[-0.5; 3]).unwrap();
        assert_eq!(
            (r.statistic, r.p_value, r.method),
            (1.0, 1.0, Method::Exact)
        );
    }

    #[test]
    fn scale_invariant_for_tiny_ranges() {
        let x = [0.3, -1.2, 0.8, 2.5, -0.1, 0.05, 1.7, -0.6];
        let tiny: Vec<f64> = x.iter().map(|v| v * 2f64.powi(-80)).collect();
        assert_eq!(shapiro_wilk(&x).unwrap(), shapiro_wilk(&tiny).unwrap());
    }
}
