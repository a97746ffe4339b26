//! The low-precision kernels replayed on the CPU: the same integer and
//! `f32` operations as the shaders, in the same order, so that the results
//! are identical bit for bit.

use dual_delta_runtime::E4m3;
use half::bf16;

use super::{
    Bf16Accumulation, Bf16MatmulInput, FP8_ACCUMULATOR_FRACTION_BITS, FP8_MMA_K, Fp8Accumulation,
    Fp8MatmulInput,
};

/// An E4M3 value as `sig/8 · 2^exp`: `sig` a signed integer (`|sig| ≤ 15`,
/// below 8 for subnormals), `exp` the value's exponent (−6 for
/// subnormals, −126 for zero, as MMA-Sim writes a zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub(crate) sig: i32,
    pub(crate) exp: i32,
}

/// `v` decoded (the shader's `sig` and `ex`).
pub(crate) fn decode(v: E4m3) -> Decoded {
    let c = u32::from(v.to_bits());
    let (e, m) = ((c >> 3) & 15, c & 7);
    let magnitude = if e == 0 { m } else { m | 8 } as i32;
    let sig = if c >= 128 { -magnitude } else { magnitude };
    let exp = if c & 0x7f == 0 {
        -126
    } else if e == 0 {
        -6
    } else {
        e as i32 - 7
    };
    Decoded { sig, exp }
}

/// `2^e` as an `f32` built from its bits, `e` clamped to `[-126, 127]`.
pub(crate) fn pow2(e: i32) -> f32 {
    f32::from_bits(((e.clamp(-126, 127) + 127) as u32) << 23)
}

/// The exponent of an accumulator `c` (−126 for zero and subnormals).
fn acc_exp(c: f32) -> i32 {
    let biased = (c.to_bits() >> 23) & 255;
    if biased == 0 {
        -126
    } else {
        biased as i32 - 127
    }
}

/// `c` aligned to `2^max_exp` and truncated toward zero to 13 fraction
/// bits: an integer count of `2^(max_exp − 13)`.
fn acc_term(c: f32, max_exp: i32) -> i32 {
    let bits = c.to_bits();
    let hidden = if (bits >> 23) & 255 == 0 {
        0
    } else {
        0x80_0000
    };
    let mantissa = (bits & 0x7f_ffff) | hidden;
    // c = mantissa · 2^(e − 23); in units of 2^(max_exp − 13) that is a
    // right shift by 10 + max_exp − e.
    let shift = (max_exp - acc_exp(c) + 10).min(31) as u32;
    let q = (mantissa >> shift) as i32;
    if bits >> 31 == 1 { -q } else { q }
}

/// The product `x · y` aligned to `2^max_exp` and truncated toward zero to
/// 13 fraction bits, in units of `2^(max_exp − 13)`: the product is
/// `sig_x · sig_y · 2^(e − 6)`, so the count is
/// `(|sig_x · sig_y| << 7) >> (max_exp − e)`.
fn product_term(x: Decoded, y: Decoded, max_exp: i32) -> i32 {
    let p = x.sig * y.sig;
    let shift = (max_exp - (x.exp + y.exp)).min(31) as u32;
    let q = (p.abs() << 7) >> shift;
    if p < 0 { -q } else { q }
}

/// `sum · 2^(max_exp − 13)` truncated toward zero to an `f32` with 13
/// fraction bits (14 significant bits); zero is `+0`.
fn normalise(sum: i32, max_exp: i32) -> f32 {
    if sum == 0 {
        return 0.0;
    }
    let mut u = sum.unsigned_abs();
    let top = 31 - u.leading_zeros();
    if top > FP8_ACCUMULATOR_FRACTION_BITS {
        let drop = top - FP8_ACCUMULATOR_FRACTION_BITS;
        u = (u >> drop) << drop;
    }
    let v = u as f32 * pow2(max_exp - FP8_ACCUMULATOR_FRACTION_BITS as i32);
    if sum < 0 { -v } else { v }
}

/// One fused dot-add on decoded values (see [`fp8_fused_dot_add`]).
pub(crate) fn fused_dot_add(c: f32, x: &[Decoded], y: &[Decoded]) -> f32 {
    let max_exp = x
        .iter()
        .zip(y)
        .map(|(a, b)| a.exp + b.exp)
        .fold(acc_exp(c), i32::max);
    let sum = x.iter().zip(y).fold(acc_term(c, max_exp), |s, (&a, &b)| {
        s + product_term(a, b, max_exp)
    });
    normalise(sum, max_exp)
}

/// One FP8 tensor-core instruction of Hopper as MMA-Sim models it:
/// `c + Σᵢ aᵢ·bᵢ` with every term aligned to the largest exponent and
/// truncated to 13 fraction bits, the exact sum of the truncated terms
/// truncated to an `f32` with 13 fraction bits (the rule is spelt out on
/// [`Fp8Accumulation`]). The hardware takes 32 products at a time; any
/// number is accepted here.
///
/// ```
/// use dual_delta_runtime::E4m3;
/// use gpu_backend::fp8_fused_dot_add;
///
/// let one = E4m3::ONE;
/// // 1 is below the last of the 13 fraction bits kept under 2^20: dropped.
/// assert_eq!(fp8_fused_dot_add(1048576.0, &[one], &[one]), 1048576.0);
/// ```
///
/// # Panics
///
/// Panics when `a` and `b` differ in length, or hold a NaN code.
pub fn fp8_fused_dot_add(c: f32, a: &[E4m3], b: &[E4m3]) -> f32 {
    assert_eq!(a.len(), b.len(), "a and b must have one length");
    assert!(
        !a.iter().chain(b).any(|v| v.is_nan()),
        "FP8 inputs must be finite"
    );
    let x: Vec<Decoded> = a.iter().copied().map(decode).collect();
    let y: Vec<Decoded> = b.iter().copied().map(decode).collect();
    fused_dot_add(c, &x, &y)
}

/// The FP8 kernel for `accumulation`, replayed on the CPU: the result of
/// [`Gpu::fp8_matmul`](crate::Gpu::fp8_matmul) bit for bit (on lavapipe;
/// a driver that reorders `f32` additions would differ for
/// [`Fp8Accumulation::F32`] and in the promotion sums).
///
/// Slow (no blocking, two passes per 32 products): meant for checking the
/// kernels and for small shapes.
pub fn fp8_matmul_emulated(x: &Fp8MatmulInput, accumulation: Fp8Accumulation) -> Vec<f32> {
    let (m, k, n) = x.shape();
    let scale = x.output_scale();
    let Some(chunk) = accumulation.chunk(k) else {
        let b: Vec<f32> = x.b().iter().map(|v| v.to_f32()).collect();
        let mut out = Vec::with_capacity(m * n);
        let (mut acc, mut group) = (vec![0f32; n], vec![0f32; n]);
        for row in x.a().chunks_exact(k) {
            acc.fill(0.0);
            for (g, a_group) in row.chunks(FP8_MMA_K).enumerate() {
                group.fill(0.0);
                for (i, a) in a_group.iter().enumerate() {
                    let (a, kk) = (a.to_f32(), g * FP8_MMA_K + i);
                    for (t, &bv) in group.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                        *t += a * bv;
                    }
                }
                for (s, &t) in acc.iter_mut().zip(&group) {
                    *s += t;
                }
            }
            out.extend(acc.iter().map(|&s| s * scale));
        }
        return out;
    };
    let a: Vec<Decoded> = x.a().iter().copied().map(decode).collect();
    // B transposed, so that every column is contiguous.
    let mut bt = Vec::with_capacity(k * n);
    for j in 0..n {
        bt.extend((0..k).map(|kk| decode(x.b()[kk * n + j])));
    }
    let mut out = Vec::with_capacity(m * n);
    for row in a.chunks_exact(k) {
        for col in bt.chunks_exact(k) {
            let mut total = 0f32;
            for (r, c) in row.chunks(chunk).zip(col.chunks(chunk)) {
                let mut acc = 0f32;
                for (rg, cg) in r.chunks(FP8_MMA_K).zip(c.chunks(FP8_MMA_K)) {
                    acc = fused_dot_add(acc, rg, cg);
                }
                total += acc;
            }
            out.push(total * scale);
        }
    }
    out
}

/// The `bf16` kernel for `accumulation`, replayed on the CPU: the result of
/// [`Gpu::bf16_matmul`](crate::Gpu::bf16_matmul) bit for bit on lavapipe.
/// Every step is the exact product plus the accumulator rounded to `f32`
/// (then to `bf16` for [`Bf16Accumulation::Bf16`]), in increasing `k`
/// order.
pub fn bf16_matmul_emulated(x: &Bf16MatmulInput, accumulation: Bf16Accumulation) -> Vec<bf16> {
    let (_, k, n) = x.shape();
    let b: Vec<f32> = x.b().iter().map(|v| v.to_f32()).collect();
    let mut out = Vec::with_capacity(x.a().len() / k * n);
    let mut acc = vec![0f32; n];
    for row in x.a().chunks_exact(k) {
        acc.fill(0.0);
        for (kk, a) in row.iter().enumerate() {
            let a = a.to_f32();
            let b_row = &b[kk * n..(kk + 1) * n];
            match accumulation {
                Bf16Accumulation::F32 => {
                    for (s, &bv) in acc.iter_mut().zip(b_row) {
                        *s += a * bv;
                    }
                }
                Bf16Accumulation::Bf16 => {
                    for (s, &bv) in acc.iter_mut().zip(b_row) {
                        *s = bf16::from_f32(a * bv + *s).to_f32();
                    }
                }
            }
        }
        out.extend(acc.iter().map(|&s| bf16::from_f32(s)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(x: f32) -> E4m3 {
        let v = E4m3::from_f32(x);
        assert_eq!(v.to_f32(), x, "{x} is not an E4M3 value");
        v
    }

    #[test]
    fn decoding_gives_every_finite_value() {
        for bits in 0..=255u8 {
            let v = E4m3::from_bits(bits);
            if v.is_nan() {
                continue;
            }
            let d = decode(v);
            let value = f64::from(d.sig) / 8.0 * 2f64.powi(d.exp.max(-6));
            assert_eq!(value, v.to_f64(), "code {bits:#04x}");
        }
    }

    #[test]
    fn aligned_terms_are_truncated_toward_zero() {
        // 1.875² = 3.515625 sets the largest exponent (0), so units are
        // 2^-13. 1.125·2^-3 · 1.125·2^-4 = 81·2^-13 is kept whole; the sum,
        // 28881·2^-13, has 15 significant bits and loses its last one.
        let got = fp8_fused_dot_add(
            0.0,
            &[e(1.875), e(1.125 / 8.0)],
            &[e(1.875), e(1.125 / 16.0)],
        );
        assert_eq!(got, 28880.0 / 8192.0);
        // 1 − 1.265625·2^-12: the negative term is 2.53 units of 2^-13,
        // truncated to 2.
        let got = fp8_fused_dot_add(0.0, &[e(1.0), e(-1.125 / 64.0)], &[e(1.0), e(1.125 / 64.0)]);
        assert_eq!(got, 1.0 - 2.0 / 8192.0);
        // Under an accumulator of 2^20, units are 2^7: a product of 100 is
        // dropped, one of 448·448 = 200704 = 1568·2^7 is kept.
        assert_eq!(
            fp8_fused_dot_add(1048576.0, &[e(10.0)], &[e(10.0)]),
            1048576.0
        );
        assert_eq!(
            fp8_fused_dot_add(1048576.0, &[e(448.0)], &[e(448.0)]),
            1048576.0 + 200704.0
        );
        // An empty group truncates the accumulator to 13 fraction bits.
        assert_eq!(fp8_fused_dot_add(1.0 + 2f32.powi(-20), &[], &[]), 1.0);
        assert_eq!(fp8_fused_dot_add(-0.0, &[e(0.0)], &[e(-2.0)]), 0.0);
    }

    #[test]
    fn strategies_agree_on_exact_sums_and_differ_on_long_ones() {
        // Small integers: every strategy is exact.
        let codes = |v: &[f32]| v.iter().map(|&x| e(x)).collect::<Vec<_>>();
        let x = Fp8MatmulInput::new(
            (2, 3, 1),
            codes(&[1.0, 2.0, 3.0, -4.0, 5.0, 6.0]),
            codes(&[1.0, 0.5, -2.0]),
            0.5,
            4.0,
        )
        .unwrap();
        for acc in Fp8Accumulation::ALL {
            assert_eq!(fp8_matmul_emulated(&x, acc), vec![-8.0, -27.0], "{acc}");
        }
        // 4096 products of 1 + 2^-3 (1.125² = 1.265625): f32 is exact
        // (5184), the limited accumulation keeps 2^-6 (the products' last
        // bit) only while the accumulator is below 2^8, and ends below.
        let ones = vec![e(1.125); 4096];
        let x = Fp8MatmulInput::new((1, 4096, 1), ones.clone(), ones, 1.0, 1.0).unwrap();
        assert_eq!(fp8_matmul_emulated(&x, Fp8Accumulation::F32), vec![5184.0]);
        let limited = fp8_matmul_emulated(&x, Fp8Accumulation::Limited)[0];
        let promoted = fp8_matmul_emulated(&x, Fp8Accumulation::PromoteEvery128)[0];
        assert!(limited < 5184.0, "{limited}");
        assert_eq!(promoted, 5184.0, "every 128-chunk sum is exact here");
    }

    #[test]
    fn bf16_accumulation_stalls_at_256() {
        let ones = vec![bf16::ONE; 4096];
        let x = Bf16MatmulInput::new(1, 4096, 1, ones.clone(), ones).unwrap();
        assert_eq!(
            bf16_matmul_emulated(&x, Bf16Accumulation::Bf16),
            vec![bf16::from_f32(256.0)]
        );
        assert_eq!(
            bf16_matmul_emulated(&x, Bf16Accumulation::F32),
            vec![bf16::from_f32(4096.0)]
        );
    }
}
