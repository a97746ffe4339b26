//! Reductions over the last axis: sums, means and dot products.

use super::{DotInput, KernelElement, RowsInput, sum_dd, sum_f32, widen_f32, widen_f64};

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
