//! The CPU references of the row kernels, each an `f64` oracle (`*_f64`,
//! sums in double-double, rounded once) and an `f32`-accumulating baseline
//! (`*_cpu`, PyTorch's CPU "opmath" rule, one rounding per output):
//! reductions over the last axis (sums, means, dot products), softmax and
//! log-softmax.

use super::{DotInput, RowsInput};
use crate::element::{KernelElement, sum_dd, sum_f32, widen_f32, widen_f64};

/// The oracle of the row sums: `yᵢ = Σⱼ xᵢⱼ` for each row `i`, the exact
/// input values summed in double-double and rounded once to `f64` (the exact
/// sum correctly rounded, give or take one unit in the last place).
pub fn sum_f64<E: KernelElement>(x: &RowsInput<E>) -> Vec<f64> {
    x.row_iter().map(|row| sum_dd(widen_f64(row))).collect()
}

/// The baseline row sums: `yᵢ = round_E(Σⱼ xᵢⱼ)` with the sum accumulated
/// in `f32` from `j = 0` to `len − 1` and rounded once to `E` (PyTorch's CPU
/// `sum` of half and bfloat16 tensors accumulates in `float`).
pub fn sum_cpu<E: KernelElement>(x: &RowsInput<E>) -> Vec<E> {
    x.row_iter()
        .map(|row| E::from_f32(sum_f32(widen_f32(row))))
        .collect()
}

/// The oracle of the row means: `yᵢ = (Σⱼ xᵢⱼ) / len`, the sum of
/// [`sum_f64`] divided in `f64`.
pub fn mean_f64<E: KernelElement>(x: &RowsInput<E>) -> Vec<f64> {
    let n = x.row_len() as f64;
    x.row_iter().map(|row| sum_dd(widen_f64(row)) / n).collect()
}

/// The baseline row means: `yᵢ = round_E(s / len)` with `s` the `f32` sum
/// of [`sum_cpu`] (before rounding) and `len` converted to `f32`, the
/// division in `f32`.
pub fn mean_cpu<E: KernelElement>(x: &RowsInput<E>) -> Vec<E> {
    let n = x.row_len() as f32;
    x.row_iter()
        .map(|row| E::from_f32(sum_f32(widen_f32(row)) / n))
        .collect()
}

/// The oracle of the row dot products: `yᵢ = Σⱼ aᵢⱼ · bᵢⱼ`. Products of
/// two `f16`, `bf16` or `f32` values are exact in `f64`; they are summed in
/// double-double and rounded once to `f64`.
pub fn dot_f64<E: KernelElement>(x: &DotInput<E>) -> Vec<f64> {
    x.row_pairs()
        .map(|(a, b)| sum_dd(a.iter().zip(b).map(|(&p, &q)| p.to_f64() * q.to_f64())))
        .collect()
}

/// The baseline row dot products: `yᵢ = round_E(Σⱼ aᵢⱼ · bᵢⱼ)`, each
/// product rounded to `f32` and added to an `f32` accumulator from
/// `j = 0` to `len − 1` (no fused multiply-add), the sum rounded once to
/// `E`.
pub fn dot_cpu<E: KernelElement>(x: &DotInput<E>) -> Vec<E> {
    x.row_pairs()
        .map(|(a, b)| {
            let s = sum_f32(a.iter().zip(b).map(|(&p, &q)| p.to_f32() * q.to_f32()));
            E::from_f32(s)
        })
        .collect()
}

// Softmax and log-softmax over the last axis.

/// The softmax oracle over the last axis, in `f64` with max subtraction:
/// for each row `x`, `m = maxⱼ xⱼ`, `eⱼ = exp(xⱼ − m)`, `Z = Σⱼ eⱼ`
/// (double-double, rounded once) and `yⱼ = eⱼ / Z`. The subtraction is
/// exact for `f16` and `bf16` inputs (and for `f32` ones whose exponent is
/// within 29 of the maximum's), so every output has a relative error of a few units of
/// `2⁻⁵³`.
///
/// Returns `rows × len` values, row-major.
pub fn softmax_f64<E: KernelElement>(x: &RowsInput<E>) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let (e, z) = exp_shifted(row);
        out.extend(e.iter().map(|&v| v / z));
    }
    out
}

/// The log-softmax oracle over the last axis, in `f64`:
/// `yⱼ = (xⱼ − m) − ln Z` with `m` and `Z` as in [`softmax_f64`]. Both
/// terms are `≤ 0`, so nothing cancels. `ln Z` is computed as
/// `ln_1p(Z − 1)`, `Z − 1` being the double-double sum of the terms other
/// than one maximum's (which is exactly 1), so it stays accurate where one
/// logit dominates and `Z` is close to 1.
pub fn log_softmax_f64<E: KernelElement>(x: &RowsInput<E>) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let m = row_max_f64(row);
        let top = row.iter().position(|&v| v.to_f64() == m).unwrap_or(0);
        let rest = row
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != top)
            .map(|(_, &v)| (v.to_f64() - m).exp());
        let log_z = sum_dd(rest).ln_1p();
        out.extend(row.iter().map(|&v| (v.to_f64() - m) - log_z));
    }
    out
}

/// The softmax baseline over the last axis, computed like PyTorch's CPU
/// softmax of a half or bfloat16 tensor (`f32` "opmath"), for each row:
///
/// 1. `m = maxⱼ xⱼ` in `f32` (exact);
/// 2. `eⱼ = exp(xⱼ − m)` in `f32` (`f32::exp`);
/// 3. `Z = e₀ + e₁ + … + e_{len−1}` in `f32`, left to right;
/// 4. `yⱼ = round_E(eⱼ / Z)`, the division in `f32`, one rounding to `E`.
pub fn softmax_cpu<E: KernelElement>(x: &RowsInput<E>) -> Vec<E> {
    let mut out = Vec::with_capacity(x.data().len());
    let mut e = Vec::with_capacity(x.row_len());
    for row in x.row_iter() {
        let z = exp_shifted_f32(row, &mut e);
        out.extend(e.iter().map(|&v| E::from_f32(v / z)));
    }
    out
}

/// The log-softmax baseline over the last axis, in `f32`: with `m` and `Z`
/// as in [`softmax_cpu`], `yⱼ = round_E((xⱼ − m) − ln Z)`, `ln` being
/// `f32::ln` and each operation in `f32`.
pub fn log_softmax_cpu<E: KernelElement>(x: &RowsInput<E>) -> Vec<E> {
    let mut out = Vec::with_capacity(x.data().len());
    let mut e = Vec::with_capacity(x.row_len());
    for row in x.row_iter() {
        let m = row_max_f32(row);
        let log_z = exp_shifted_f32(row, &mut e).ln();
        out.extend(row.iter().map(|&v| E::from_f32((v.to_f32() - m) - log_z)));
    }
    out
}

/// `maxⱼ xⱼ` in `f64`.
fn row_max_f64<E: KernelElement>(row: &[E]) -> f64 {
    row.iter()
        .map(|&v| v.to_f64())
        .fold(f64::NEG_INFINITY, f64::max)
}

/// `maxⱼ xⱼ` in `f32`.
fn row_max_f32<E: KernelElement>(row: &[E]) -> f32 {
    row.iter()
        .map(|&v| v.to_f32())
        .fold(f32::NEG_INFINITY, f32::max)
}

/// `(eⱼ = exp(xⱼ − m), Z = Σ eⱼ)` in `f64`, `Z` in double-double.
pub(super) fn exp_shifted<E: KernelElement>(row: &[E]) -> (Vec<f64>, f64) {
    let m = row_max_f64(row);
    let e: Vec<f64> = row.iter().map(|&v| (v.to_f64() - m).exp()).collect();
    let z = sum_dd(e.iter().copied());
    (e, z)
}

/// Fills `e` with `exp(xⱼ − m)` in `f32` and returns their `f32` sum, left
/// to right.
fn exp_shifted_f32<E: KernelElement>(row: &[E], e: &mut Vec<f32>) -> f32 {
    let m = row_max_f32(row);
    e.clear();
    e.extend(row.iter().map(|&v| (v.to_f32() - m).exp()));
    e.iter().fold(0.0f32, |acc, &v| acc + v)
}
