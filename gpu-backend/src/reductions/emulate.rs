//! The row kernels replayed on the CPU, operation for operation: the same
//! `f32` operations (never fused), in the same order, with the same
//! roundings to `f16`.

use half::f16;

use super::RowsInput;
use super::{ROW_THREADS, SoftmaxStrategy, SumStrategy};
use crate::element::flush16;
use crate::semantics::Subnormals;

/// `log₂ e` rounded to `f32`.
pub(crate) const LOG2E: f32 = core::f32::consts::LOG2_E;
/// The high part of `ln 2` (Cody–Waite): 9 significant bits, so that
/// `k · LN2_HI` is exact for `|k| < 2¹⁵`.
pub(crate) const LN2_HI: f32 = 0.693_359_4;
/// `ln 2 − LN2_HI` rounded to `f32`.
pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;
/// Below this, [`kernel_exp`] is `0` (keeps every intermediate a normal
/// `f32`: llvmpipe flushes subnormals).
pub(crate) const EXP_LO: f32 = -87.0;
/// Above this, [`kernel_exp`] is `+∞`.
pub(crate) const EXP_HI: f32 = 88.0;
/// Taylor coefficients of `e^r`, highest degree first: `1/7!, …, 1/1!, 1`.
pub(crate) const EXP_C: [f32; 8] = [
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
    1.0,
    1.0,
];

/// The `exp` of the row kernels, in `f32`, exactly as the shaders compute
/// it: `k = ⌊x·log₂e + ½⌋`, `r = (x − k·LN2_HI) − k·LN2_LO` (Cody–Waite:
/// `k·LN2_HI` and the first subtraction are exact), a degree-7 Taylor
/// polynomial in `r` by Horner's rule, times `2ᵏ` built from its bits.
/// `0` below `−87` (so no intermediate is subnormal: llvmpipe flushes
/// them), `+∞` above `88`, NaN for NaN; within `4·10⁻⁷` relative of `eˣ`
/// elsewhere.
///
/// Every operation is a separate `f32` multiply or add, never fused.
/// WGSL's builtin `exp` is the driver's own approximation, and its `fma` is
/// not fused on lavapipe (the compiler splits it into a multiply and an add,
/// then reassociates constants: `fma(k, a, fma(k, b, x))` became
/// `x + k·(a + b)`), so the shader uses neither, and keeps no two constants
/// next to each other (`f32(i32(k))` feeds the second product).
pub fn kernel_exp(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x < EXP_LO {
        return 0.0;
    }
    if x > EXP_HI {
        return f32::INFINITY;
    }
    let k = (x * LOG2E + 0.5).floor();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut q = EXP_C[0];
    for &coef in &EXP_C[1..] {
        q = q * r + coef;
    }
    q * f32::from_bits(((k as i32 + 127) as u32) << 23)
}

/// `v` rounded to `f16` and back.
fn r16(v: f32) -> f32 {
    f16::from_f32(v).to_f32()
}

/// The tree of the row kernels (and the LayerNorm kernels) over
/// [`ROW_THREADS`] slots: at step `h = ROW_THREADS/2, …, 1`, slot `t < h`
/// becomes `op(slot t, slot t + h)`.
pub(crate) fn tree<S: Copy>(mut slots: Vec<S>, op: impl Fn(S, S) -> S) -> S {
    let mut h = ROW_THREADS / 2;
    while h > 0 {
        for t in 0..h {
            slots[t] = op(slots[t], slots[t + h]);
        }
        h /= 2;
    }
    slots[0]
}

/// Per-invocation strided folds: slot `t` folds `f` over elements
/// `t, t + ROW_THREADS, …` starting from `init`.
pub(crate) fn strided<S: Copy>(row: &[f32], init: S, f: impl Fn(S, f32) -> S) -> Vec<S> {
    (0..ROW_THREADS)
        .map(|t| {
            row.iter()
                .skip(t)
                .step_by(ROW_THREADS)
                .fold(init, |a, &v| f(a, v))
        })
        .collect()
}

fn widen(row: &[f16]) -> Vec<f32> {
    row.iter().map(|v| v.to_f32()).collect()
}

/// What [`Gpu::run`](crate::Gpu::run) computes with
/// `strategy`, replayed on the CPU: bit for bit the GPU's result.
pub fn reduce_sum_emulated(x: &RowsInput<f16>, strategy: SumStrategy) -> Vec<f16> {
    reduce_sum_emulated_with(x, strategy, Subnormals::Kept)
}

/// [`reduce_sum_emulated`] on a device whose `f16` subnormals are
/// `f16_subnormals` ([`DeviceSemantics::f16_subnormals`](crate::semantics::DeviceSemantics::f16_subnormals)):
/// where they are not [`Subnormals::Kept`], every input value and every sum
/// stored that is an `f16` subnormal is a zero of its sign, as that
/// device's conversions load and store it. The `f16`-accumulating sums
/// round their running sums on the bits, which no device flushes, so those
/// keep their subnormals here too: the GPU's result bit for bit under
/// `DUAL_DELTA_GPU_IMITATE=ftz16`. (`f32` subnormals never arise: every sum
/// of `f16` values is a multiple of `2⁻²⁴`.)
pub fn reduce_sum_emulated_with(
    x: &RowsInput<f16>,
    strategy: SumStrategy,
    f16_subnormals: Subnormals,
) -> Vec<f16> {
    let flush = f16_subnormals != Subnormals::Kept;
    let memory = |h: f16| if flush { flush16(h) } else { h };
    x.row_iter()
        .map(|row| {
            let row: Vec<f32> = row.iter().map(|&v| memory(v).to_f32()).collect();
            let sum = match strategy {
                SumStrategy::F16Serial => row.iter().fold(0.0, |a, &v| r16(a + v)),
                SumStrategy::F16 => tree(strided(&row, 0.0, |a, v| r16(a + v)), |a, b| r16(a + b)),
                SumStrategy::F32 => tree(strided(&row, 0.0, |a, v| a + v), |a, b| a + b),
                SumStrategy::Pairwise => pairwise(row),
            };
            memory(f16::from_f32(sum))
        })
        .collect()
}

/// The pairwise sum of the kernels: while `n > 1`, with `h = ⌈n/2⌉`,
/// element `i < n − h` becomes `sᵢ + sᵢ₊ₕ`, and `n = h`.
fn pairwise(mut s: Vec<f32>) -> f32 {
    let mut n = s.len();
    while n > 1 {
        let h = n.div_ceil(2);
        for i in 0..n - h {
            s[i] += s[i + h];
        }
        n = h;
    }
    s[0]
}

/// What [`Gpu::run`](crate::Gpu::run) computes with `strategy`,
/// replayed on the CPU: bit for bit the GPU's result.
pub fn softmax_emulated(x: &RowsInput<f16>, strategy: SoftmaxStrategy) -> Vec<f16> {
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let row = widen(row);
        let (mx, den) = match strategy {
            SoftmaxStrategy::Online => online_stats(&row),
            _ => {
                let mx = if strategy == SoftmaxStrategy::NoMaxSubtraction {
                    0.0
                } else {
                    tree(strided(&row, f32::NEG_INFINITY, f32::max), f32::max)
                };
                let e = |v: f32| exp_of(strategy, v, mx);
                let den = if strategy == SoftmaxStrategy::F16Denominator {
                    tree(strided(&row, 0.0, |a, v| r16(a + e(v))), |a, b| r16(a + b))
                } else {
                    tree(strided(&row, 0.0, |a, v| a + e(v)), |a, b| a + b)
                };
                (mx, den)
            }
        };
        out.extend(
            row.iter()
                .map(|&v| f16::from_f32(exp_of(strategy, v, mx) / den)),
        );
    }
    out
}

/// The numerator of element `v` of a row with maximum `mx`.
fn exp_of(strategy: SoftmaxStrategy, v: f32, mx: f32) -> f32 {
    match strategy {
        SoftmaxStrategy::Careful | SoftmaxStrategy::Online => kernel_exp(v - mx),
        SoftmaxStrategy::NoMaxSubtraction => r16(kernel_exp(v)),
        SoftmaxStrategy::F16Denominator => r16(kernel_exp(v - mx)),
    }
}

/// The running maximum and rescaled sum of the online softmax, per
/// invocation, then merged by the tree.
fn online_stats(row: &[f32]) -> (f32, f32) {
    let slots = strided(row, (f32::NEG_INFINITY, 0.0f32), |(m, d), v| {
        let mn = m.max(v);
        (mn, d * kernel_exp(m - mn) + kernel_exp(v - mn))
    });
    tree(slots, |(m1, d1), (m2, d2)| {
        let mn = m1.max(m2);
        let dn = if mn == f32::NEG_INFINITY {
            0.0
        } else {
            d1 * kernel_exp(m1 - mn) + d2 * kernel_exp(m2 - mn)
        };
        (mn, dn)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_exp_is_close_to_exp() {
        for i in -8700..=8800 {
            let x = i as f32 / 100.0;
            let (got, want) = (kernel_exp(x) as f64, (x as f64).exp());
            assert!(((got - want) / want).abs() < 4e-7, "{x}: {got} vs {want}");
        }
        assert_eq!(kernel_exp(0.0), 1.0);
        assert_eq!(kernel_exp(-100.0), 0.0);
        assert_eq!(kernel_exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(kernel_exp(100.0), f32::INFINITY);
        assert!(kernel_exp(f32::NAN).is_nan());
    }

    #[test]
    fn f16_serial_sum_of_4096_ones_is_2048() {
        let x = RowsInput::new(1, 4096, vec![f16::ONE; 4096]).unwrap();
        assert_eq!(
            reduce_sum_emulated(&x, SumStrategy::F16Serial)[0],
            f16::from_f32(2048.0)
        );
        for s in [SumStrategy::F16, SumStrategy::F32, SumStrategy::Pairwise] {
            assert_eq!(
                reduce_sum_emulated(&x, s)[0],
                f16::from_f32(4096.0),
                "{s:?}"
            );
        }
    }
}
