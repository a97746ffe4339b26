//! LayerNorm and RMSNorm over the last axis.

use super::NormInput;
use crate::element::{KernelElement, sum_dd, sum_f32, widen_f32, widen_f64};

/// The LayerNorm oracle over the last axis, in `f64` with two-pass
/// statistics: for each row `x` of length `n`,
///
/// * `μ = (Σⱼ xⱼ) / n`,
/// * `σ² = (Σⱼ (xⱼ − μ)²) / n` (biased, as `torch.nn.LayerNorm`),
/// * `yⱼ = (xⱼ − μ) / √(σ² + ε) · γⱼ + βⱼ`,
///
/// every sum in double-double, rounded once; `γ` is 1 and `β` 0 where
/// absent. Returns `rows × n` values, row-major.
pub fn layer_norm_f64<E: KernelElement>(input: &NormInput<E>) -> Vec<f64> {
    let x = input.x();
    let n = x.row_len() as f64;
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let mu = sum_dd(widen_f64(row)) / n;
        let var = sum_dd(widen_f64(row).map(|v| (v - mu) * (v - mu))) / n;
        let sd = (var + input.eps()).sqrt();
        out.extend(widen_f64(row).map(|v| (v - mu) / sd));
        let start = out.len() - row.len();
        affine_f64(&mut out[start..], input);
    }
    out
}

/// The RMSNorm oracle over the last axis, in `f64`: for each row `x` of
/// length `n`, `yⱼ = xⱼ / √((Σₖ xₖ²) / n + ε) · γⱼ + βⱼ` (the sum in
/// double-double; `γ` is 1 and `β` 0 where absent).
pub fn rms_norm_f64<E: KernelElement>(input: &NormInput<E>) -> Vec<f64> {
    let x = input.x();
    let n = x.row_len() as f64;
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let ms = sum_dd(widen_f64(row).map(|v| v * v)) / n;
        let rms = (ms + input.eps()).sqrt();
        out.extend(widen_f64(row).map(|v| v / rms));
        let start = out.len() - row.len();
        affine_f64(&mut out[start..], input);
    }
    out
}

/// The LayerNorm baseline, computed in `f32` with two-pass statistics and
/// one rounding to `E`; for each row `x` of length `n`, every operation in
/// `f32` in this order:
///
/// 1. `μ = (x₀ + x₁ + … + x_{n−1}) / n`, summed left to right;
/// 2. `σ² = ((x₀ − μ)² + … + (x_{n−1} − μ)²) / n`, summed left to right;
/// 3. `r = 1 / √(σ² + ε)` with `ε` rounded to `f32`;
/// 4. `yⱼ = round_E(((xⱼ − μ) · r) · γⱼ + βⱼ)`, skipping `· γⱼ` and
///    `+ βⱼ` where absent.
pub fn layer_norm_cpu<E: KernelElement>(input: &NormInput<E>) -> Vec<E> {
    normalise_f32(input, |row, n| {
        let mu = sum_f32(widen_f32(row)) / n;
        let var = sum_f32(widen_f32(row).map(|v| (v - mu) * (v - mu))) / n;
        (mu, var)
    })
}

/// The RMSNorm baseline, in `f32` with one rounding to `E`; for each row
/// `x` of length `n`, every operation in `f32`:
///
/// 1. `s = (x₀² + x₁² + … + x_{n−1}²) / n`, summed left to right;
/// 2. `r = 1 / √(s + ε)` with `ε` rounded to `f32`;
/// 3. `yⱼ = round_E((xⱼ · r) · γⱼ + βⱼ)`, skipping `· γⱼ` and `+ βⱼ` where
///    absent.
pub fn rms_norm_cpu<E: KernelElement>(input: &NormInput<E>) -> Vec<E> {
    // `xⱼ − 0 = xⱼ` exactly, signed zeros and NaN included.
    normalise_f32(input, |row, n| {
        (0.0, sum_f32(widen_f32(row).map(|v| v * v)) / n)
    })
}

/// The `f32` baselines' common part: for each row, `(μ, σ²)` from
/// `stats(row, n)`, `r = 1 / √(σ² + ε)` with `ε` rounded to `f32`, and
/// `yⱼ = round_E(((xⱼ − μ) · r) · γⱼ + βⱼ)`.
fn normalise_f32<E: KernelElement>(
    input: &NormInput<E>,
    stats: impl Fn(&[E], f32) -> (f32, f32),
) -> Vec<E> {
    let x = input.x();
    let n = x.row_len() as f32;
    let eps = input.eps() as f32;
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let (mu, var) = stats(row, n);
        let r = 1.0 / (var + eps).sqrt();
        out.extend(
            widen_f32(row)
                .enumerate()
                .map(|(j, v)| E::from_f32(affine_f32((v - mu) * r, j, input))),
        );
    }
    out
}

/// `yⱼ · γⱼ + βⱼ` in place, in `f64`.
fn affine_f64<E: KernelElement>(y: &mut [f64], input: &NormInput<E>) {
    if let Some(w) = input.weight() {
        for (y, &w) in y.iter_mut().zip(w) {
            *y *= w.to_f64();
        }
    }
    if let Some(b) = input.bias() {
        for (y, &b) in y.iter_mut().zip(b) {
            *y += b.to_f64();
        }
    }
}

/// `y · γⱼ + βⱼ` in `f32`, each term only where present.
#[inline]
fn affine_f32<E: KernelElement>(mut y: f32, j: usize, input: &NormInput<E>) -> f32 {
    if let Some(w) = input.weight() {
        y *= w[j].to_f32();
    }
    if let Some(b) = input.bias() {
        y += b[j].to_f32();
    }
    y
}
