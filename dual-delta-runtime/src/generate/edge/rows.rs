//! Rows and factor pairs of the row kinds: running sums that overflow,
//! nearly cancelling runs, constant rows, and for `A · B` the coordinated
//! factors that make the dot products do the same.

use rand::RngExt;

use super::values::{jitter, log_uniform, nudge, overflowing_value, random_sign, shuffle};
use crate::generate::{Float, saturate};
use crate::numerics::exp2i;
use crate::rng::TrialRng;

/// A row whose running sum overflows and whose total stays small.
pub(super) fn overflow_sum_row<E: Float>(row: &mut [E], rng: &mut TrialRng) {
    let c = row.len();
    if c == 0 {
        return;
    }
    let format = E::FORMAT;
    let max = format.max_finite();
    let sign = if rng.random() { 1.0 } else { -1.0 };
    let h = c.div_ceil(2);
    let f = log_uniform(rng, 1.5, 4.0);
    let magnitude = (max * f / h as f64).min(max / 2.0);
    for v in row[..h].iter_mut() {
        *v = saturate::<E>(sign * magnitude * jitter(rng));
    }
    let mut order: Vec<usize> = (0..h).collect();
    shuffle(&mut order, rng);
    for (i, &j) in (h..c).zip(&order) {
        row[i] = nudge::<E>(rng, -row[j].to_f64());
    }
}

/// An ill-conditioned row: the base values made one sign, then their
/// nudged negations in shuffled order.
pub(super) fn cancelling_row<E: Float>(row: &mut [E], rng: &mut TrialRng) {
    let c = row.len();
    let h = c / 2;
    let sign = if rng.random() { 1.0 } else { -1.0 };
    for v in row[..h].iter_mut() {
        *v = E::from_f64(sign * v.to_f64().abs());
    }
    let mut order: Vec<usize> = (0..h).collect();
    shuffle(&mut order, rng);
    for (i, &j) in order.iter().enumerate() {
        row[h + i] = nudge::<E>(rng, -row[j].to_f64());
    }
    if c % 2 == 1 && h > 0 {
        row[c - 1] = leftover::<E>(&row[..h], sign);
    }
}

/// The odd value out of a cancelling row: the smallest magnitude of the
/// first run scaled by 2^-p, so that it is below any perturbation's scale.
fn leftover<E: Float>(run: &[E], sign: f64) -> E {
    let smallest = run
        .iter()
        .map(|v| v.to_f64().abs())
        .fold(f64::INFINITY, f64::min);
    E::from_f64(sign * smallest * exp2i(-(E::FORMAT.mantissa_bits() as i32)))
}

pub(super) fn constant_rows<E: Copy>(x: &mut [E], cols: usize) {
    if cols == 0 {
        return;
    }
    for row in x.chunks_mut(cols) {
        let first = row[0];
        row.fill(first);
    }
}

/// `A` with ill-conditioned rows, `B` with its first half of rows made
/// positive and repeated as its second half.
pub(super) fn cancelling_pair<E: Float>(
    a: &mut [E],
    b: &mut [E],
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) {
    let h = k / 2;
    for p in 0..h {
        for j in 0..n {
            let v = E::from_f64(b[p * n + j].to_f64().abs());
            b[p * n + j] = v;
            b[(h + p) * n + j] = v;
        }
    }
    if k % 2 == 1 {
        for v in &mut b[(k - 1) * n..] {
            *v = E::from_f64(v.to_f64().abs());
        }
    }
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        let sign = if rng.random() { 1.0 } else { -1.0 };
        for p in 0..h {
            let x = sign * row[p].to_f64().abs();
            row[p] = E::from_f64(x);
            row[h + p] = nudge::<E>(rng, -x);
        }
        if k % 2 == 1 && h > 0 {
            row[k - 1] = leftover::<E>(&row[..h], sign);
        }
    }
}

/// Dot products whose running sums overflow the format: products below a
/// quarter of the largest finite value, a first run of them summing to 2×
/// to 8× it, then their nudged negations.
pub(super) fn overflow_sum_pair<E: Float>(
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) -> (Vec<E>, Vec<E>) {
    let max = E::FORMAT.max_finite();
    let h = k / 2;
    let f = log_uniform(rng, 2.0, 8.0);
    // (1.25 s)² ≤ max / 4.
    let s = (f * max / h.max(1) as f64).sqrt().min(max.sqrt() / 2.5);
    let tiny = exp2i(-(E::FORMAT.mantissa_bits() as i32));
    let mut b = vec![E::from_f64(0.0); k * n];
    for p in 0..h {
        for j in 0..n {
            let v = saturate::<E>(s * jitter(rng));
            b[p * n + j] = v;
            b[(h + p) * n + j] = v;
        }
    }
    if k % 2 == 1 {
        for j in 0..n {
            b[(k - 1) * n + j] = saturate::<E>(s * jitter(rng));
        }
    }
    let mut a = vec![E::from_f64(0.0); m * k];
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        let sign = if rng.random() { 1.0 } else { -1.0 };
        for p in 0..h {
            let x = saturate::<E>(sign * s * jitter(rng));
            row[p] = x;
            row[h + p] = nudge::<E>(rng, -x.to_f64());
        }
        if k % 2 == 1 {
            row[k - 1] = saturate::<E>(sign * s * jitter(rng) * tiny);
        }
    }
    (a, b)
}

/// Dot products of adjacent, cancelling products that each overflow the
/// format.
pub(super) fn overflow_product_pair<E: Float>(
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) -> (Vec<E>, Vec<E>) {
    let format = E::FORMAT;
    let mut b = vec![E::from_f64(0.0); k * n];
    for q in 0..k / 2 {
        for j in 0..n {
            let y: E = overflowing_value(rng, format);
            b[2 * q * n + j] = y;
            b[(2 * q + 1) * n + j] = y;
        }
    }
    if k % 2 == 1 {
        for j in 0..n {
            b[(k - 1) * n + j] = overflowing_value(rng, format);
        }
    }
    // Each perturbed pair leaves up to 2^-p of a product of 2× to 4× the
    // largest value; k/2 of them (random signs) stay small only when
    // √(k/2) ≤ 2^(p-4). Otherwise (FP8, few mantissa bits) the pairs
    // cancel exactly.
    let p = format.mantissa_bits() as i32;
    let perturb = (k as f64 / 2.0).sqrt() <= exp2i(p - 4);
    let mut a = vec![E::from_f64(0.0); m * k];
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        for q in 0..k / 2 {
            let x: E = overflowing_value(rng, format);
            row[2 * q] = x;
            row[2 * q + 1] = if perturb {
                nudge::<E>(rng, -x.to_f64())
            } else {
                E::from_f64(-x.to_f64())
            };
        }
        if k % 2 == 1 {
            row[k - 1] = {
                let u = jitter(rng);
                random_sign(rng, u)
            };
        }
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    fn running_max<E: Float>(row: &[E]) -> (f64, f64) {
        let (mut s, mut peak) = (0.0f64, 0.0f64);
        for v in row {
            s += v.to_f64();
            peak = peak.max(s.abs());
        }
        (peak, s)
    }

    #[test]
    fn overflow_sum_rows_overflow_on_the_way_only() {
        let mut rng = TrialRng::for_trial(5, 0);
        for c in [4usize, 5, 6, 9, 64, 1001] {
            let mut row = vec![f16::ZERO; c];
            overflow_sum_row(&mut row, &mut rng);
            let (peak, total) = running_max(&row);
            assert!(peak > 65504.0, "c={c} peak={peak}");
            assert!(total.abs() <= 65504.0 * 0.7, "c={c} total={total}");
            assert!(row.iter().all(|v| v.is_finite()));
        }
    }
}
