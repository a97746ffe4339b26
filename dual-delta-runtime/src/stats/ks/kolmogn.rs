//! The distribution function of the one-sample two-sided statistic `D_n`
//! by the algorithms SciPy's `kstwo` selects between (Simard and
//! L'Ecuyer): Stirling's series for `ln(n! / n^n)`, the Durbin matrix,
//! Pomeranz's recursion and the Pelz-Good approximation.

// The coefficients are kept digit for digit as Cephes and SciPy publish them.
#![allow(clippy::excessive_precision)]

use crate::numerics::ldexp;
use crate::stats::descriptive::numpy_sum;

const LOG_2PI: f64 = 1.8378770664093453; // ln(2π)
const E128: i32 = 128;
const EP128: f64 = 3.402823669209385e38; // 2^128
const EM128: f64 = 2.938735877055719e-39; // 2^-128

/// `ln(n! / n^n)` by Stirling's series (SciPy's
/// `_log_nfactorial_div_n_pow_n`).
pub(super) fn log_nfactorial_div_n_pow_n(n: f64) -> f64 {
    const STIRLING: [f64; 8] = [
        -2.955065359477124183e-2,
        6.4102564102564102564e-3,
        -1.9175269175269175269e-3,
        8.4175084175084175084e-4,
        -5.952380952380952381e-4,
        7.9365079365079365079e-4,
        -2.7777777777777777778e-3,
        8.3333333333333333333e-2,
    ];
    let rn = 1.0 / n;
    let x = rn / n;
    let poly = STIRLING.iter().fold(0.0, |y, &c| y * x + c);
    n.ln() / 2.0 - n + LOG_2PI / 2.0 + rn * poly
}

/// `P(D_n ≤ d)` by the Durbin matrix (Marsaglia, Tsang and Wang's
/// formulation, SciPy's `_kolmogn_DMTW`), clipped to `[0, 1]`.
pub(super) fn kolmogn_dmtw_cdf(n: i64, d: f64) -> f64 {
    if d >= 1.0 {
        return 1.0;
    }
    let nd = n as f64 * d;
    if nd <= 0.5 {
        return 0.0;
    }
    let k = nd.ceil() as usize;
    let h = k as f64 - nd;
    let m = 2 * k - 1;

    let mut v: Vec<f64> = (1..=m).map(|j| 1.0 - h.powf(j as f64)).collect();
    let mut w = vec![0.0; m];
    let mut fac = 1.0;
    for j in 1..=m {
        w[j - 1] = fac;
        fac /= j as f64;
        v[j - 1] *= fac;
    }
    let tt = (2.0 * h - 1.0).max(0.0).powf(m as f64) - 2.0 * h.powf(m as f64);
    v[m - 1] = (1.0 + tt) * fac;

    let mut hm = vec![0.0; m * m];
    for i in 1..m {
        for r in (i - 1)..m {
            hm[r * m + i] = w[r - (i - 1)];
        }
    }
    for r in 0..m {
        hm[r * m] = v[r];
    }
    for c in 0..m {
        hm[(m - 1) * m + c] = v[m - 1 - c];
    }

    let mut hpwr = vec![0.0; m * m];
    for i in 0..m {
        hpwr[i * m + i] = 1.0;
    }
    let mut nn = n;
    let mut expnt: i32 = 0;
    let mut hexpnt: i32 = 0;
    while nn > 0 {
        if nn % 2 == 1 {
            hpwr = matmul(&hpwr, &hm, m);
            expnt += hexpnt;
        }
        hm = matmul(&hm, &hm, m);
        hexpnt *= 2;
        if hm[(k - 1) * m + (k - 1)].abs() > EP128 {
            for e in &mut hm {
                *e /= EP128;
            }
            hexpnt += E128;
        }
        nn /= 2;
    }
    let mut p = hpwr[(k - 1) * m + (k - 1)];
    let nf = n as f64;
    for i in 1..=n {
        p = i as f64 * p / nf;
        if p.abs() < EM128 {
            p *= EP128;
            expnt -= E128;
        }
    }
    if expnt != 0 {
        p = ldexp(p, expnt);
    }
    p.clamp(0.0, 1.0)
}

fn matmul(a: &[f64], b: &[f64], m: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * m];
    for i in 0..m {
        for k in 0..m {
            let aik = a[i * m + k];
            if aik == 0.0 {
                continue;
            }
            let row = &b[k * m..(k + 1) * m];
            for (cij, &bkj) in c[i * m..(i + 1) * m].iter_mut().zip(row) {
                *cij += aik * bkj;
            }
        }
    }
    c
}

/// `P(D_n ≤ x)` by Pomeranz's recursion (SciPy's `_kolmogn_Pomeranz`),
/// clipped to `[0, 1]`.
pub(super) fn kolmogn_pomeranz_cdf(n: i64, x: f64) -> f64 {
    let nf = n as f64;
    let t = nf * x;
    let ll = t.floor() as i64;
    let f = t - ll as f64;
    let g = f.min(1.0 - f);
    let ceilf = i64::from(f > 0.0);
    let roundf = i64::from(f > 0.5);
    let npwrs = (2 * (ll + 1)) as usize;
    let mut gpower = vec![0.0; npwrs];
    let mut twogpower = vec![0.0; npwrs];
    let mut onem2gpower = vec![0.0; npwrs];
    gpower[0] = 1.0;
    twogpower[0] = 1.0;
    onem2gpower[0] = 1.0;
    let mut expnt: i32 = 0;
    let (g_over_n, two_g_over_n, one_minus_two_g_over_n) =
        (g / nf, 2.0 * g / nf, (1.0 - 2.0 * g) / nf);
    for m in 1..npwrs {
        let mf = m as f64;
        gpower[m] = gpower[m - 1] * g_over_n / mf;
        twogpower[m] = twogpower[m - 1] * two_g_over_n / mf;
        onem2gpower[m] = onem2gpower[m - 1] * one_minus_two_g_over_n / mf;
    }

    let mut v0 = vec![0.0; npwrs];
    let mut v1 = vec![0.0; npwrs];
    v1[0] = 1.0;
    let (mut v0s, mut v1s): (i64, i64) = (0, 0);
    let (mut j1, _) = pomeranz_j1j2(0, n, ll, ceilf, roundf);
    for i in 1..(2 * n + 2) {
        let k1 = j1;
        std::mem::swap(&mut v0, &mut v1);
        std::mem::swap(&mut v0s, &mut v1s);
        v1.fill(0.0);
        let j2;
        (j1, j2) = pomeranz_j1j2(i, n, ll, ceilf, roundf);
        let pwrs = if i == 1 || i == 2 * n + 1 {
            &gpower
        } else if i % 2 == 1 {
            &twogpower
        } else {
            &onem2gpower
        };
        let ln2 = j2 - k1 + 1;
        if ln2 > 0 {
            let start = usize::try_from(k1 - v0s).unwrap_or(npwrs).min(npwrs);
            let end = (start + ln2 as usize).min(npwrs);
            let a = &v0[start..end];
            if a.is_empty() {
                continue;
            }
            let b = &pwrs[..(ln2 as usize).min(npwrs)];
            let conv_start = (j1 - k1) as usize;
            let conv_len = (j2 - j1 + 1).max(0) as usize;
            for (idx, out) in v1.iter_mut().enumerate().take(conv_len) {
                // Full convolution entry conv[conv_start + idx].
                let kk = conv_start + idx;
                let mut s = 0.0;
                let lo = kk.saturating_sub(b.len() - 1);
                let hi = kk.min(a.len() - 1);
                for ia in lo..=hi {
                    s += a[ia] * b[kk - ia];
                }
                *out = s;
            }
            let vmax = v1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if 0.0 < vmax && vmax < EM128 {
                for e in &mut v1 {
                    *e *= EP128;
                }
                expnt -= E128;
            }
            v1s = v0s + j1 - k1;
        }
    }
    let mut ans = v1[(n - v1s) as usize];
    for m in 1..=n {
        if ans.abs() > EP128 {
            ans *= EM128;
            expnt += E128;
        }
        ans *= m as f64;
    }
    if expnt != 0 {
        ans = ldexp(ans, expnt);
    }
    ans.clamp(0.0, 1.0)
}

fn pomeranz_j1j2(i: i64, n: i64, ll: i64, ceilf: i64, roundf: i64) -> (i64, i64) {
    let (j1, j2) = if i == 0 {
        (-ll - ceilf - 1, ll + ceilf - 1)
    } else {
        let (ip1div2, ip1mod2) = ((i + 1) / 2, (i + 1) % 2);
        if ip1mod2 == 0 {
            if ip1div2 == n + 1 {
                (n - ll - ceilf - 1, n + ll + ceilf - 1)
            } else {
                (ip1div2 - 1 - ll - roundf - 1, ip1div2 + ll - 1 + ceilf - 1)
            }
        } else {
            (ip1div2 - 1 - ll - 1, ip1div2 + ll + roundf - 1)
        }
    };
    ((j1 + 2).max(0), j2.min(n))
}

/// `P(D_n ≤ x)` by the Pelz-Good approximation (SciPy's
/// `_kolmogn_PelzGood`).
pub(super) fn kolmogn_pelz_good_cdf(n: i64, x: f64) -> f64 {
    use std::f64::consts::PI;
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let pi2 = PI.powf(2.0);
    let pi4 = PI.powf(4.0);
    let pi6 = PI.powf(6.0);
    let sqrt2pi = (2.0 * PI).sqrt();
    let nf = n as f64;
    let z = nf.sqrt() * x;
    let (zsquared, zthree, zfour, zsix) = (z * z, z.powf(3.0), z.powf(4.0), z.powf(6.0));
    let qlog = -pi2 / 8.0 / zsquared;
    if qlog < -708.0 {
        return 0.0;
    }
    let q = qlog.exp();
    let k1a = -zsquared;
    let k1b = pi2 / 4.0;
    let k2a = 6.0 * zsix + 2.0 * zfour;
    let k2b = (2.0 * zfour - 5.0 * zsquared) * pi2 / 4.0;
    let k2c = pi4 * (1.0 - 2.0 * zsquared) / 16.0;
    let k3d = pi6 * (5.0 - 30.0 * zsquared) / 64.0;
    let k3c = pi4 * (-60.0 * zsquared + 212.0 * zfour) / 16.0;
    let k3b = pi2 * (135.0 * zfour - 96.0 * zsix) / 4.0;
    let k3a = -30.0 * zsix - 90.0 * z.powf(8.0);

    let mut k0to3 = [0.0f64; 4];
    let maxk = (16.0 * z / PI).ceil() as i64;
    for k in (1..=maxk).rev() {
        let m = (2 * k - 1) as f64;
        let (msquared, mfour, msix) = (m * m, m.powi(4), m.powi(6));
        let qpower = q.powf((8 * k) as f64);
        let coeffs = [
            1.0,
            k1a + k1b * msquared,
            k2a + k2b * msquared + k2c * mfour,
            k3a + k3b * msquared + k3c * mfour + k3d * msix,
        ];
        for (acc, c) in k0to3.iter_mut().zip(coeffs) {
            *acc *= qpower;
            *acc += c;
        }
    }
    let divisors = [z, 6.0 * zfour, 72.0 * z.powf(7.0), 6480.0 * z.powf(10.0)];
    for (acc, dv) in k0to3.iter_mut().zip(divisors) {
        *acc *= q;
        *acc *= sqrt2pi;
        *acc /= dv;
    }
    let q = (-pi2 / 2.0 / zsquared).exp();
    let sqrt3z = 3f64.sqrt() * z;
    let mut k2terms = Vec::with_capacity(maxk as usize);
    let mut k3terms = Vec::with_capacity(maxk as usize);
    for k in (1..=maxk).rev() {
        let ksquared = (k * k) as f64;
        let kspi = PI * k as f64;
        let qpwer = q.powf(ksquared);
        k2terms.push(ksquared * qpwer);
        k3terms.push((sqrt3z + kspi) * (sqrt3z - kspi) * ksquared * qpwer);
    }
    let mut k2extra = numpy_sum(&k2terms);
    k2extra *= pi2 * sqrt2pi / (-36.0 * zthree);
    k0to3[2] += k2extra;
    let mut k3extra = numpy_sum(&k3terms);
    k3extra *= pi2 * sqrt2pi / (216.0 * zsix);
    k0to3[3] += k3extra;
    for (i, acc) in k0to3.iter_mut().enumerate() {
        *acc /= nf.powf(i as f64 / 2.0);
    }
    0.0 + k0to3[0] + k0to3[1] + k0to3[2] + k0to3[3]
}
