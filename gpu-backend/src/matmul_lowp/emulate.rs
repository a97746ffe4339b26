//! The low-precision kernels replayed on the CPU: the same integer and
//! `f32` operations as the shaders, in the same order, so that the results
//! are identical bit for bit.

use dual_delta_runtime::E4m3;
use half::bf16;

use super::hopper::{Decoded, decode, fused_dot_add};
use super::{Bf16Accumulation, FP8_MMA_K, Fp8Accumulation};
use crate::matmul::MatmulInput;

/// The FP8 kernel for `accumulation`, replayed on the CPU: the result of
/// [`Gpu::run`](crate::Gpu::run) bit for bit (on lavapipe;
/// a driver that reorders `f32` additions would differ for
/// [`Fp8Accumulation::F32`] and in the promotion sums).
///
/// Slow (no blocking, two passes per 32 products): meant for checking the
/// kernels and for small shapes.
pub fn matmul_emulated_fp8(x: &MatmulInput<E4m3>, accumulation: Fp8Accumulation) -> Vec<f32> {
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
/// [`Gpu::run`](crate::Gpu::run) bit for bit on lavapipe.
/// Every step is the exact product plus the accumulator rounded to `f32`
/// (then to `bf16` for [`Bf16Accumulation::Bf16`]), in increasing `k`
/// order.
pub fn matmul_emulated_bf16(x: &MatmulInput<bf16>, accumulation: Bf16Accumulation) -> Vec<bf16> {
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
    use crate::matmul_lowp::e4m3 as e;

    #[test]
    fn strategies_agree_on_exact_sums_and_differ_on_long_ones() {
        // Small integers: every strategy is exact.
        let codes = |v: &[f32]| v.iter().map(|&x| e(x)).collect::<Vec<_>>();
        let x = MatmulInput::scaled(
            (2, 3, 1),
            codes(&[1.0, 2.0, 3.0, -4.0, 5.0, 6.0]),
            codes(&[1.0, 0.5, -2.0]),
            0.5,
            4.0,
        )
        .unwrap();
        for acc in Fp8Accumulation::ALL {
            assert_eq!(matmul_emulated_fp8(&x, acc), vec![-8.0, -27.0], "{acc}");
        }
        // 4096 products of 1 + 2^-3 (1.125² = 1.265625): f32 is exact
        // (5184), the limited accumulation keeps 2^-6 (the products' last
        // bit) only while the accumulator is below 2^8, and ends below.
        let ones = vec![e(1.125); 4096];
        let x = MatmulInput::scaled((1, 4096, 1), ones.clone(), ones, 1.0, 1.0).unwrap();
        assert_eq!(matmul_emulated_fp8(&x, Fp8Accumulation::F32), vec![5184.0]);
        let limited = matmul_emulated_fp8(&x, Fp8Accumulation::Limited)[0];
        let promoted = matmul_emulated_fp8(&x, Fp8Accumulation::PromoteEvery128)[0];
        assert!(limited < 5184.0, "{limited}");
        assert_eq!(promoted, 5184.0, "every 128-chunk sum is exact here");
    }

    #[test]
    fn bf16_accumulation_stalls_at_256() {
        let ones = vec![bf16::ONE; 4096];
        let x = MatmulInput::new(1, 4096, 1, ones.clone(), ones).unwrap();
        assert_eq!(
            matmul_emulated_bf16(&x, Bf16Accumulation::Bf16),
            vec![bf16::from_f32(256.0)]
        );
        assert_eq!(
            matmul_emulated_bf16(&x, Bf16Accumulation::F32),
            vec![bf16::from_f32(4096.0)]
        );
    }
}
