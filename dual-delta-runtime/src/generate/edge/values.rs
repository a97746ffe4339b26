//! Scattered edge-case values: signed zeros, subnormals, the largest
//! finite values, values near powers of two, values whose products
//! overflow, the smallest normal values, and the random helpers the rows
//! use as well.

use rand::RngExt;

use super::kind::EdgeKind;
use crate::generate::{Float, saturate};
use crate::numerics::{exp2i, exponent};
use crate::output::NumberFormat;
use crate::rng::TrialRng;

/// Replaces each value with probability `rate` (at least one, when there
/// are values and the rate is positive) by `make(rng, old)`.
pub(super) fn scatter<E: Copy>(
    x: &mut [E],
    rate: f64,
    rng: &mut TrialRng,
    mut make: impl FnMut(&mut TrialRng, E) -> E,
) {
    if x.is_empty() || rate <= 0.0 {
        return;
    }
    let mut replaced = false;
    for v in x.iter_mut() {
        if rng.random_bool(rate) {
            *v = make(rng, *v);
            replaced = true;
        }
    }
    if !replaced {
        let i = rng.random_range(0..x.len());
        x[i] = make(rng, x[i]);
    }
}

pub(super) fn scatter_kind<E: Float>(kind: EdgeKind, x: &mut [E], rate: f64, rng: &mut TrialRng) {
    let format = E::FORMAT;
    match kind {
        EdgeKind::Zero => scatter(x, rate, rng, |rng, _| random_sign(rng, 0.0)),
        EdgeKind::Subnormal => scatter(x, rate, rng, |rng, _| {
            let p = format.mantissa_bits();
            let j = rng.random_range(1..(1u64 << p));
            random_sign(rng, j as f64 * exp2i(format.min_exponent() - p as i32))
        }),
        EdgeKind::MaxFinite => scatter(x, rate, rng, |rng, _| {
            let max = format.max_finite();
            let below = rng.random_range(0..4u32);
            random_sign(rng, max - f64::from(below) * format.ulp(max))
        }),
        EdgeKind::PowerOfTwo => scatter(x, rate, rng, |rng, v| {
            let v = v.to_f64();
            let sign = if v == 0.0 {
                if rng.random() { 1.0 } else { -1.0 }
            } else {
                v.signum()
            };
            E::from_f64(sign * near_power_of_two(rng, format, v))
        }),
        EdgeKind::OverflowProduct => scatter(x, rate, rng, |rng, _| overflowing_value(rng, format)),
        EdgeKind::MinNormal => scatter(x, rate, rng, |rng, _| {
            let min_normal = exp2i(format.min_exponent());
            let step = f64::from(rng.random_range(-1i32..=1));
            random_sign(rng, min_normal + step * format.ulp(min_normal))
        }),
        // Row kinds are handled by the callers.
        EdgeKind::OverflowSum | EdgeKind::Cancelling | EdgeKind::ConstantRows => {}
    }
}

pub(super) fn random_sign<E: Float>(rng: &mut TrialRng, magnitude: f64) -> E {
    if rng.random() {
        E::from_f64(magnitude)
    } else {
        E::from_f64(-magnitude)
    }
}

/// A power of two near `|v|`, moved by up to two units in the last place
/// either way (the spacing below a power of two is half that above).
fn near_power_of_two(rng: &mut TrialRng, format: NumberFormat, v: f64) -> f64 {
    let p = format.mantissa_bits() as i32;
    let emax = exponent(format.max_finite());
    let e = if v == 0.0 || !v.is_finite() {
        0
    } else {
        v.abs().log2().round() as i32
    };
    let e = e.clamp(format.min_exponent() + 1, emax - 1);
    let step = rng.random_range(-2i32..=2);
    let spacing = if step >= 0 {
        exp2i(e - p)
    } else {
        exp2i(e - p - 1)
    };
    exp2i(e) + f64::from(step) * spacing
}

/// A value of random sign and magnitude log-uniform in
/// `[√(2·max), √(4·max)]`: the product of two of them is between 2× and 4×
/// the largest finite value.
pub(super) fn overflowing_value<E: Float>(rng: &mut TrialRng, format: NumberFormat) -> E {
    let max = format.max_finite();
    let (lo, hi) = ((2.0 * max).sqrt().log2(), (4.0 * max).sqrt().log2());
    let u: f64 = rng.random();
    random_sign(rng, (lo + (hi - lo) * u).exp2())
}

/// `x` moved by `-1`, `0` or `+1` unit in the last place of its format,
/// saturating (a step beyond the largest finite value stays on it).
pub(super) fn nudge<E: Float>(rng: &mut TrialRng, x: f64) -> E {
    let step = f64::from(rng.random_range(-1i32..=1));
    saturate::<E>(x + step * E::FORMAT.ulp(x))
}

/// `u` uniform in `[1, 1.25)`.
pub(super) fn jitter(rng: &mut TrialRng) -> f64 {
    1.0 + 0.25 * rng.random::<f64>()
}

pub(super) fn log_uniform(rng: &mut TrialRng, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    (lo.ln() + (hi.ln() - lo.ln()) * u).exp()
}

/// Fisher–Yates, drawing from the trial's generator.
pub(super) fn shuffle<T>(x: &mut [T], rng: &mut TrialRng) {
    for i in (1..x.len()).rev() {
        let j = rng.random_range(0..=i);
        x.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn near_powers_of_two_are_close_to_one() {
        let mut rng = TrialRng::for_trial(5, 1);
        for _ in 0..100 {
            let v = near_power_of_two(&mut rng, NumberFormat::Bf16, 3.0);
            assert_eq!(bf16::from_f64(v).to_f64(), v, "{v} not representable");
            assert!((v / 4.0 - 1.0).abs() <= 2.0 * 2f64.powi(-7), "{v}");
        }
    }
}
