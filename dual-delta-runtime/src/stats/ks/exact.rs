//! The exact null distribution of the two-sample statistic (SciPy's
//! `_attempt_exact_2kssamp`): closed forms for equal sizes, Viehmann's
//! "inside" recursion and Hodges' "outside" path count for unequal ones.

use super::cephes::binom;
use crate::stats::Alternative;

/// SciPy's `_attempt_exact_2kssamp`: the statistic rounded to the lattice
/// `h / lcm` and the exact p-value, or `None` when the computation fails.
pub(super) fn exact_2samp(
    n1: u64,
    n2: u64,
    d: f64,
    alternative: Alternative,
) -> (f64, Option<f64>) {
    let g = gcd(n1, n2);
    let lcm = (n1 / g) * n2;
    // `numpy.round`: to the nearest integer, ties to even.
    let h = (d * lcm as f64).round_ties_even() as u64;
    let d = h as f64 / lcm as f64;
    if h == 0 {
        return (d, Some(1.0));
    }
    let prob = match alternative {
        Alternative::TwoSided => {
            if n1 == n2 {
                prob_outside_square(n1, h)
            } else {
                outer_prob_inside_method(n1, n2, g, h)
            }
        }
        Alternative::Greater | Alternative::Less => {
            if n1 == n2 {
                // C(2n, n - h) / C(2n, n) as a product.
                let n = n1 as f64;
                (0..h).fold(1.0, |p, j| {
                    let j = j as f64;
                    p * ((n - j) / (n + j + 1.0))
                })
            } else {
                let bin = binom((n1 + n2) as f64, n1 as f64);
                if !bin.is_finite() {
                    return (d, None);
                }
                let num_paths = count_paths_outside_method(n1, n2, g, h);
                if !num_paths.is_finite() || num_paths > bin {
                    return (d, None);
                }
                num_paths / bin
            }
        }
    };
    if (0.0..=1.0).contains(&prob) {
        (d, Some(prob))
    } else {
        (d, None)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// SciPy's `_compute_prob_outside_square`: `P(D_{n,n} ≥ h / n)` by the
/// alternating reflection sum in Horner form.
fn prob_outside_square(n: u64, h: u64) -> f64 {
    let (nf, hf) = (n as f64, h as f64);
    let mut p = 0.0;
    let mut k = (n / h) as i64;
    while k >= 0 {
        let kf = k as f64;
        let mut p1 = 1.0;
        for j in 0..h {
            let j = j as f64;
            p1 = (nf - kf * hf - j) * p1 / (nf + kf * hf + j + 1.0);
        }
        p = p1 * (1.0 - p);
        k -= 1;
    }
    2.0 * p
}

/// SciPy's `_compute_outer_prob_inside_method`: `1 - P(paths stay strictly
/// inside |x/m - y/n| < h / lcm)`, computed directly (Viehmann's recursion)
/// over a sliding window of one column of the lattice.
fn outer_prob_inside_method(m: u64, n: u64, g: u64, h: u64) -> f64 {
    let (m, n) = if m < n { (n, m) } else { (m, n) };
    let (m, n, g, h) = (m as i64, n as i64, g as i64, h as i64);
    let mg = m / g;
    let ng = n / g;
    let mut minj: i64 = 0;
    let mut maxj: i64 = ((h as f64 / mg as f64).ceil() as i64).min(n + 1);
    let mut curlen = maxj - minj;
    let len_a = (2 * maxj + 2).min(n + 1) as usize;
    let mut a = vec![1.0f64; len_a];
    for v in a.iter_mut().take(maxj as usize) {
        *v = 0.0;
    }
    for i in 1..=m {
        let (lastminj, lastlen) = (minj, curlen);
        minj = ((((ng * i - h) as f64 / mg as f64).floor() as i64) + 1).max(0);
        minj = minj.min(n);
        maxj = (((ng * i + h) as f64 / mg as f64).ceil() as i64).min(n + 1);
        if maxj <= minj {
            return 1.0;
        }
        let mut val = if minj == 0 { 0.0 } else { 1.0 };
        let fi = i as f64;
        for jj in 0..(maxj - minj) {
            let j = jj + minj;
            let prev = a
                .get((jj + minj - lastminj) as usize)
                .copied()
                .unwrap_or(1.0);
            val = (prev * fi + val * j as f64) / (i + j) as f64;
            a[jj as usize] = val;
        }
        curlen = maxj - minj;
        if lastlen > curlen {
            let start = (maxj - minj) as usize;
            let end = (start + (lastlen - curlen) as usize).min(len_a);
            for v in &mut a[start.min(len_a)..end] {
                *v = 1.0;
            }
        }
    }
    a[(maxj - minj - 1) as usize]
}

/// SciPy's `_count_paths_outside_method`: the number of lattice paths from
/// `(0, 0)` to `(m, n)` that reach `m y ≤ n x - h g` (Hodges), as a float;
/// non-finite when an intermediate binomial coefficient overflows.
fn count_paths_outside_method(m: u64, n: u64, g: u64, h: u64) -> f64 {
    let (m, n) = if m < n { (n, m) } else { (m, n) };
    let (m, n, g, h) = (m as i64, n as i64, g as i64, h as i64);
    let mg = m / g;
    let ng = n / g;
    let lxj = n + (mg - h).div_euclid(mg);
    if lxj <= 0 {
        return binom((m + n) as f64, n as f64);
    }
    let lxj = lxj as usize;
    let xj: Vec<i64> = (0..lxj as i64)
        .map(|j| (h + mg * j + ng - 1).div_euclid(ng))
        .collect();
    let mut b = vec![0.0f64; lxj];
    b[0] = 1.0;
    for j in 1..lxj {
        let mut bj = binom((xj[j] + j as i64) as f64, j as f64);
        for i in 0..j {
            let bin = binom((xj[j] - xj[i] + (j - i) as i64) as f64, (j - i) as f64);
            bj -= bin * b[i];
        }
        if !bj.is_finite() {
            return f64::NAN;
        }
        b[j] = bj;
    }
    let mut num_paths = 0.0;
    for (j, &bj) in b.iter().enumerate() {
        let bin = binom(((m - xj[j]) + (n - j as i64)) as f64, (n - j as i64) as f64);
        num_paths += bj * bin;
    }
    num_paths
}
