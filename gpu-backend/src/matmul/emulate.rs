//! The `f16` matmul kernels' arithmetic replayed on the CPU, step for step.

use half::f16;

use super::{Accumulation, MatmulInput};
use crate::element::flush16;
use crate::semantics::Subnormals;

/// The number of products the `f32` kernels sum on their own before adding
/// them to the accumulator: one tensor-core MMA's `k` for `f16` inputs
/// (`mma.m16n8k16`).
pub const K_BLOCK: usize = 16;

/// The GPU kernels' arithmetic on the CPU, step for step: every output
/// element sums its products in increasing `k` order, in the same blocks
/// of [`K_BLOCK`], exactly as the kernel for `accumulation` does (see [`Accumulation`] for the chunking of
/// split-K), so where the device rounds `f32 → f16` to nearest-even the GPU
/// result is identical bit for bit.
///
/// Slower than [`matmul_cpu_f16`](super::matmul_cpu_f16) (no GEMM blocking); meant for checking the
/// kernels and as a CPU stand-in for the GPU strategies.
///
/// # Panics
///
/// Panics on `Accumulation::SplitK { splits: 0 }`.
pub fn matmul_cpu_emulated(input: &MatmulInput, accumulation: Accumulation) -> Vec<f16> {
    matmul_emulated_with(input, accumulation, Subnormals::Kept)
}

/// [`matmul_cpu_emulated`] on a device whose `f16` subnormals are
/// `f16_subnormals` ([`DeviceSemantics::f16_subnormals`](crate::semantics::DeviceSemantics::f16_subnormals)):
/// where they are not [`Subnormals::Kept`], every `f16` the kernels load
/// (`A`, `B`, the split-K partials) or store (the partials, `C`) that is
/// subnormal is a zero of its sign, as such a device's conversions give it.
/// The kernels round to `f16` on the bits everywhere else (the
/// `f16`-accumulating kernel's running sums included), so those keep their
/// subnormals whatever the device does, and so does this emulation: it is
/// the GPU's result bit for bit under `DUAL_DELTA_GPU_IMITATE=ftz16`.
/// (`f32` subnormals never arise here: every product of two `f16` is a
/// multiple of `2⁻⁴⁸`, and so is every sum of them.)
///
/// # Panics
///
/// Panics on `Accumulation::SplitK { splits: 0 }`.
pub fn matmul_emulated_with(
    input: &MatmulInput,
    accumulation: Accumulation,
    f16_subnormals: Subnormals,
) -> Vec<f16> {
    let flush = f16_subnormals != Subnormals::Kept;
    let memory = |h: f16| if flush { flush16(h) } else { h };
    let (m, k, n) = input.shape();
    let b: Vec<f32> = input.b().iter().map(|&h| memory(h).to_f32()).collect();
    let chunk = match accumulation {
        Accumulation::SplitK { splits } => {
            assert!(splits >= 1, "split-K needs at least one split");
            k.div_ceil(splits as usize)
        }
        Accumulation::F32 | Accumulation::F16 => k,
    };
    let round16 = |x: f32| f16::from_f32(x).to_f32();
    let mut out = Vec::with_capacity(m * n);
    let mut acc = vec![0f32; n];
    let mut block = vec![0f32; n];
    let mut total = vec![0f32; n];
    for row in input.a().chunks_exact(k) {
        total.fill(0.0);
        for (c, a_chunk) in row.chunks(chunk).enumerate() {
            acc.fill(0.0);
            if accumulation == Accumulation::F16 {
                for (i, &a) in a_chunk.iter().enumerate() {
                    let kk = c * chunk + i;
                    let a = memory(a).to_f32();
                    let b_row = &b[kk * n..(kk + 1) * n];
                    // a·b is exact in f32, so this is one f32 rounding of the
                    // fused a·b + acc, then the rounding to f16.
                    for (s, &bv) in acc.iter_mut().zip(b_row) {
                        *s = round16(a * bv + *s);
                    }
                }
            } else {
                // Blocks of K_BLOCK products, each summed on its own and
                // then added to the accumulator (see `Accumulation::F32`).
                for (j, a_block) in a_chunk.chunks(K_BLOCK).enumerate() {
                    block.fill(0.0);
                    for (i, &a) in a_block.iter().enumerate() {
                        let kk = c * chunk + j * K_BLOCK + i;
                        let a = memory(a).to_f32();
                        let b_row = &b[kk * n..(kk + 1) * n];
                        for (s, &bv) in block.iter_mut().zip(b_row) {
                            *s += a * bv;
                        }
                    }
                    for (s, &t) in acc.iter_mut().zip(&block) {
                        *s += t;
                    }
                }
            }
            match accumulation {
                Accumulation::SplitK { .. } => {
                    for (t, &s) in total.iter_mut().zip(&acc) {
                        *t += memory(f16::from_f32(s)).to_f32();
                    }
                }
                Accumulation::F32 | Accumulation::F16 => total.copy_from_slice(&acc),
            }
        }
        out.extend(total.iter().map(|&t| memory(f16::from_f32(t))));
    }
    out
}

/// Split-K on the CPU: [`matmul_cpu_emulated`] with
/// [`Accumulation::SplitK`]. `k` is cut into `splits` chunks of `⌈k/splits⌉`
/// products, each accumulated in `f32` and rounded to `f16`, the partials
/// summed in `f32` and the sum rounded once to `f16`.
///
/// # Panics
///
/// Panics when `splits` is 0.
pub fn matmul_cpu_split_k(input: &MatmulInput, splits: u32) -> Vec<f16> {
    matmul_cpu_emulated(input, Accumulation::SplitK { splits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{matmul_cpu_f16, matmul_f64};
    use dual_delta_runtime::TrialRng;

    fn naive_f64(x: &MatmulInput) -> Vec<f64> {
        let (m, k, n) = x.shape();
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k)
                    .map(|kk| x.a()[i * k + kk].to_f64() * x.b()[kk * n + j].to_f64())
                    .sum();
            }
        }
        c
    }

    fn h(v: &[f32]) -> Vec<f16> {
        v.iter().copied().map(f16::from_f32).collect()
    }

    #[test]
    fn references_agree_with_a_naive_product() {
        let x = MatmulInput::random(7, 19, 5, &mut TrialRng::for_trial(1, 2));
        let exact = naive_f64(&x);
        let oracle = matmul_f64(&x);
        for (o, e) in oracle.iter().zip(&exact) {
            assert!((o - e).abs() <= 1e-12 * (1.0 + e.abs()), "{o} vs {e}");
        }
        // f32 accumulation over k = 19: the f32 error is far below half an
        // f16 ulp, so both are the exact product correctly rounded, give or
        // take one ulp at a rounding boundary.
        for c in [
            matmul_cpu_f16(&x),
            matmul_cpu_emulated(&x, Accumulation::F32),
        ] {
            for (y, e) in c.iter().zip(&exact) {
                let ulp = dual_delta_runtime::output::NumberFormat::F16.ulp(*e);
                assert!((y.to_f64() - e).abs() <= ulp, "{y} vs {e}");
            }
        }
    }

    #[test]
    fn small_exact_product() {
        // [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50]
        let x =
            MatmulInput::new(2, 2, 2, h(&[1.0, 2.0, 3.0, 4.0]), h(&[5.0, 6.0, 7.0, 8.0])).unwrap();
        let want = h(&[19.0, 22.0, 43.0, 50.0]);
        assert_eq!(matmul_cpu_f16(&x), want);
        assert_eq!(matmul_f64(&x), vec![19.0, 22.0, 43.0, 50.0]);
        for acc in [
            Accumulation::F32,
            Accumulation::F16,
            Accumulation::SplitK { splits: 1 },
            Accumulation::SplitK { splits: 2 },
            Accumulation::SplitK { splits: 5 },
        ] {
            assert_eq!(matmul_cpu_emulated(&x, acc), want, "{acc}");
        }
    }

    #[test]
    fn split_k_rounds_each_partial_to_f16() {
        // k = 3, splits = 2: chunks [0, 2) and [2, 3).
        // Chunk 0: 1 + 2^-11 (ties to even -> 1.0 in f16); chunk 1: 2^-11.
        // f16 partials 1.0 and 2^-11 sum to 1 + 2^-11 in f32, which rounds
        // to 1.0; F32 accumulation gives 1 + 2^-10 exactly.
        let t = 2f32.powi(-11);
        let x = MatmulInput::new(1, 3, 1, h(&[1.0, t, t]), h(&[1.0, 1.0, 1.0])).unwrap();
        assert_eq!(matmul_cpu_split_k(&x, 2), h(&[1.0]));
        assert_eq!(
            matmul_cpu_emulated(&x, Accumulation::F32),
            h(&[1.0 + 2.0 * t])
        );
        // F16 accumulation: 1 + 2^-11 -> 1.0, then again -> 1.0.
        assert_eq!(matmul_cpu_emulated(&x, Accumulation::F16), h(&[1.0]));
        // More splits than k: empty chunks contribute zero.
        assert_eq!(
            matmul_cpu_split_k(&x, 7),
            matmul_cpu_emulated(&x, Accumulation::F32)
        );
    }

    #[test]
    #[should_panic(expected = "at least one split")]
    fn zero_splits_panics() {
        let x = MatmulInput::new(1, 1, 1, h(&[1.0]), h(&[1.0])).unwrap();
        matmul_cpu_split_k(&x, 0);
    }
}
