//! Smirnov's one-sided distribution (Cephes `smirnov`, SciPy's
//! `special.smirnov`), in double-double arithmetic.

// The coefficients are kept digit for digit as Cephes and SciPy publish them.
#![allow(clippy::excessive_precision)]

use super::cephes;
use crate::numerics::double_double::DoubleDouble;
use crate::numerics::ldexp;

/// `a^m` for a double-double `a` (Cephes' `pow_D`).
fn pow_d(a: DoubleDouble, m: i32) -> DoubleDouble {
    if m <= 0 {
        if m == 0 {
            return DoubleDouble::from(1.0);
        }
        return DoubleDouble::from(1.0).div_dd(pow_d(a, -m));
    }
    if a.is_zero() {
        return DoubleDouble::from(0.0);
    }
    let ans = a.hi().powf(f64::from(m));
    let r = a.lo() / a.hi();
    let mut adj = f64::from(m) * r;
    if adj.abs() > 1e-8 {
        if adj.abs() < 1e-4 {
            adj += (f64::from(m) * r) * ((f64::from(m - 1)) / 2.0 * r);
        } else {
            adj = cephes::expm1(f64::from(m) * r.ln_1p());
        }
    }
    DoubleDouble::from(ans).add_f64(ans * adj)
}

fn pow2(a: f64, b: f64, m: i32) -> f64 {
    pow_d(DoubleDouble::from(a).add_f64(b), m).hi()
}

fn next_power_of_2(x: f64) -> f64 {
    let q = ldexp(x, 1 - 53);
    let mut l = (q + x).abs();
    if l == 0.0 {
        l = x.abs();
    } else {
        let lint = l as i32;
        if f64::from(lint) == l {
            l = f64::from(lint);
        }
    }
    l
}

const SM_MAX_EXPONENT: i32 = 960;

/// `a^m = significand · 2^exponent` (Cephes' `pow2Scaled_D`).
fn pow2_scaled_d(a: DoubleDouble, m: i32) -> (DoubleDouble, i32) {
    use std::f64::consts::LN_2;
    if m <= 0 {
        if m == 0 {
            return (DoubleDouble::from(1.0), 0);
        }
        let (ans, ae1) = pow2_scaled_d(a, -m);
        let (ans, ae2) = DoubleDouble::from(1.0).div_dd(ans).frexp();
        return (ans, -ae1 + ae2);
    }
    let (y, ye) = a.frexp();
    if m == 1 {
        return (y, ye);
    }
    let mut max_expt = SM_MAX_EXPONENT;
    if f64::from(m) * (y.hi() - 1.0) / y.hi() < f64::from(-SM_MAX_EXPONENT) * LN_2 {
        let lg2y = y.hi().ln() / LN_2;
        let lg_ans = f64::from(m) * lg2y;
        if lg_ans <= f64::from(-SM_MAX_EXPONENT) {
            max_expt = (next_power_of_2(f64::from(-SM_MAX_EXPONENT) / lg2y + 1.0) / 2.0) as i32;
        }
    }
    if m <= max_expt {
        let ans1 = pow_d(y, m);
        let (ans, mut ans_e) = ans1.frexp();
        ans_e += m * ye;
        return (ans, ans_e);
    }
    let q = m / max_expt;
    let r = m % max_expt;
    let (y2r, y2r_e) = pow2_scaled_d(y, r);
    let (y2m, y2m_e) = pow2_scaled_d(y, max_expt);
    let (y2mq, mut y2mq_e) = pow2_scaled_d(y2m, q);
    let (ans, mut ans_e) = y2r.mul_dd(y2mq).frexp();
    y2mq_e += y2m_e * q;
    ans_e += y2mq_e + y2r_e;
    ans_e += m * ye;
    (ans, ans_e)
}

/// `((a + b) / (c + d))^m` (Cephes' `pow4_D`).
fn pow4_d(a: f64, b: f64, c: f64, d: f64, m: i32) -> DoubleDouble {
    if m <= 0 {
        if m == 0 {
            return DoubleDouble::from(1.0);
        }
        return pow4_d(c, d, a, b, -m);
    }
    let big_a = DoubleDouble::from(a).add_f64(b);
    let big_c = DoubleDouble::from(c).add_f64(d);
    if big_a.is_zero() {
        return if big_c.is_zero() {
            DoubleDouble::from(f64::NAN)
        } else {
            DoubleDouble::from(0.0)
        };
    }
    if big_c.is_zero() {
        return DoubleDouble::from(if big_a.hi() < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    pow_d(big_a.div_dd(big_c), m)
}

/// `Smirnov`'s survival function `P(D+_n > x)` (Cephes' `smirnov`, SciPy's
/// `special.smirnov`).
pub(super) fn smirnov(n: i64, x: f64) -> f64 {
    if !(n > 0 && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if n == 1 {
        return 1.0 - x;
    }
    if x == 0.0 {
        return 1.0;
    }
    if x == 1.0 {
        return 0.0;
    }
    let n32 = n as i32;
    let nf = n as f64;

    // modNX: floor(n x) and its remainder, exactly.
    let nxd = DoubleDouble::from(x).mul_f64_cephes(nf);
    let nxfloord = nxd.floor();
    let alphad = nxd.sub_dd(nxfloord);
    let mut alpha = alphad.hi();
    let mut nxfl = nxfloord.hi() as i32;
    if alpha == 1.0 {
        nxfl += 1;
        alpha = 0.0;
    }

    let mut n1mxfl = n32 - nxfl - if alpha == 0.0 { 0 } else { 1 };
    let mut n1mxceil = n32 - nxfl;
    if alpha == 0.0 {
        n1mxfl -= 1;
        n1mxceil += 1;
    }

    // x <= 1/n.
    if nxfl == 0 || (nxfl == 1 && alpha == 0.0) {
        let t = pow2(1.0, x, n32 - 1);
        let cdf = x * t;
        return (1.0 - cdf).clamp(0.0, 1.0);
    }
    // The survival function underflows.
    if -2.0 * nf * x * x < -7.451332191019412076235245305675398106812E2 {
        return 0.0;
    }
    // x >= 1 - 1/n.
    if nxfl >= n32 - 1 {
        return pow2(1.0, -x, n32);
    }
    if n > 1_000_000 {
        let logp = -(6.0 * nf * x + 1.0).powf(2.0) / 18.0 / nf;
        let sf = if logp < -std::f64::consts::LN_2 {
            logp.exp()
        } else {
            1.0 - (-cephes::expm1(logp))
        };
        return sf.clamp(0.0, 1.0);
    }

    let n_upper_terms = n32 - n1mxceil + 1;
    let use_upper = (n_upper_terms <= 1 && x < 0.5)
        || (n32 >= 10 && n_upper_terms <= 3 && x <= 0.5 / nf.sqrt());

    let (start, step, n_terms);
    let mut aj_sum = DoubleDouble::from(0.0);
    let mut cman = DoubleDouble::from(1.0);
    let mut cexpt: i32 = 0;
    let vmid = n32 / 2;
    let aj = if use_upper {
        start = n32;
        step = -1;
        n_terms = n32 - n1mxceil + 1;
        pow4_d(1.0, x, 1.0, 0.0, n32 - 1)
    } else {
        start = 0;
        step = 1;
        n_terms = n1mxfl + 1;
        pow4_d(1.0, -x, 1.0, 0.0, n32).div_f64(x)
    };
    aj_sum = aj_sum.add_dd(aj);
    update_binomial(&mut cman, &mut cexpt, n32, 0);
    for j in 1..n_terms {
        let v = start + j * step;
        let aj = compute_av(n32, x, v, cman, cexpt);
        if aj.hi().is_finite() && !aj.is_zero() {
            aj_sum = aj_sum.add_dd(aj);
        }
        if !aj.is_zero() {
            if (4.0 * f64::from(n_terms - j) * aj.hi().abs()) < (f64::EPSILON * aj_sum.hi())
                && j != n_terms - 1
            {
                break;
            }
        } else if j > vmid {
            break;
        }
        update_binomial(&mut cman, &mut cexpt, n32, j);
    }
    let prob = aj_sum.mul_f64_cephes(x).hi();
    let sf = if step < 0 { 1.0 - prob } else { prob };
    sf.clamp(0.0, 1.0)
}

fn update_binomial(cman: &mut DoubleDouble, cexpt: &mut i32, n: i32, j: i32) {
    let rat = DoubleDouble::from(f64::from(n - j)).div_f64(f64::from(j) + 1.0);
    let (man2, expt) = cman.mul_dd(rat).frexp();
    *cexpt += expt;
    *cman = man2;
}

/// One term `C(n, v) (1 - x - v/n)^(n - v) (x + v/n)^(v - 1)`.
fn compute_av(n: i32, x: f64, v: i32, cman: DoubleDouble, cexpt: i32) -> DoubleDouble {
    let nf = f64::from(n);
    let t2x = DoubleDouble::from(f64::from(n - v)).div_f64(nf).add_f64(-x);
    let (t2, t2e) = pow2_scaled_d(t2x, n - v);
    let t1x = DoubleDouble::from(f64::from(v)).div_f64(nf).add_f64(x);
    let (t1, t1e) = pow2_scaled_d(t1x, v - 1);
    let ans = t1.mul_dd(t2).mul_dd(cman);
    ans.ldexp(cexpt + t1e + t2e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smirnov_simple_values() {
        // n = 1: P(D+ > x) = 1 - x.
        assert_eq!(smirnov(1, 0.3), 0.7);
        // P(D+_n > x) for x >= 1 - 1/n is (1 - x)^n.
        assert!((smirnov(5, 0.9) - 0.1f64.powi(5)).abs() < 1e-18);
    }
}
