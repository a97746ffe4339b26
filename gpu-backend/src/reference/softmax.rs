//! Softmax and log-softmax over the last axis.

use super::{KernelElement, RowsInput, sum_dd};

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
