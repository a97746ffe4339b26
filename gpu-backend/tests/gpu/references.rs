//! The kernel references of `dual_delta_gpu::reference` against independent
//! values:
//!
//! * `fixtures`: NumPy float64 results (`scripts/fixtures/kernels.py`,
//!   written to `tests/gpu/fixtures/kernels.json`): the oracles agree to a
//!   relative 1e-12, the baselines to a unit in the last place of the
//!   element type plus the `f32` accumulation error;
//! * `closed_forms`: results known exactly (sums of 1..n, softmax of equal
//!   values, LayerNorm of a constant plus a ramp, attention with one key,
//!   ...), and the input constructors;
//! * `bitwise`: the baselines equal, bit for bit, an `f32` computation
//!   written here from their documented order of operations;
//! * `bugs`: the references catch the real bugs (a sum accumulated in
//!   `f16`, softmax without max subtraction, one-pass LayerNorm variance).

mod bitwise;
mod bugs;
mod closed_forms;
mod fixtures;

use dual_delta_gpu::KernelElement;

/// The spacing of `E`'s values at `x`.
fn ulp<E: KernelElement>(x: f64) -> f64 {
    E::FORMAT.ulp(x)
}

/// The unit roundoff of `f32`.
const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// Widens a result to `f64`.
fn wide<E: KernelElement>(v: &[E]) -> Vec<f64> {
    v.iter().map(|&x| x.to_f64()).collect()
}

/// The largest `|a − b| / |b|` (0 where both are 0; infinite where only `b`
/// is).
fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(
            |(&a, &b)| {
                if a == b { 0.0 } else { (a - b).abs() / b.abs() }
            },
        )
        .fold(0.0, f64::max)
}
