//! CPU references: PyTorch's CPU half matmul, the `f64` oracle, and a
//! step-for-step emulation of the GPU kernels.
//!
//! The two GEMM-based references use the [`gemm`] crate's `f32` and `f64`
//! kernels, single-threaded (dual-delta already runs trials on every core).
//! `gemm` was chosen over `matrixmultiply` because its `f64` kernel was the
//! faster of the two at `128×4096 @ 4096×128` (3.3 ms against 4.0 ms on an
//! AVX2 core; the `f32` kernels were on par), and the oracle is the hot path
//! of every dual-delta matmul test. Its `x86-v4` kernels are enabled: where
//! the processor has AVX-512 (checked at run time), the `f64` oracle takes
//! 2.4 ms instead of 3.8 ms at that shape. The inputs are widened with `half`'s vectorised
//! slice conversions into per-thread buffers that are reused from call to
//! call. Its own `f16`
//! path is *not* used (the crate is built without it): it rounds the
//! accumulator to `f16` between K blocks of 512, which is not what PyTorch's
//! CPU matmul does and gives errors of 4.6e-2 at `k = 4096`.

use std::cell::RefCell;

use half::f16;
use half::slice::HalfFloatSliceExt as _;

use crate::matmul::{Accumulation, MatmulInput};

/// `C = A · B` computed like PyTorch's CPU half matmul: the `f16` inputs are
/// widened to `f32`, the products accumulated in `f32` (aten
/// `native/cpu/BlasKernel.cpp` uses `opmath_t = float` for `Half`), and each
/// result rounded once to `f16`.
///
/// The summation order is the GEMM kernel's, so results may differ from
/// [`Accumulation::F32`] on the GPU by one `f16` ulp where the `f32` sums
/// fall on either side of an `f16` rounding boundary.
pub fn matmul_cpu_f16(input: &MatmulInput) -> Vec<f16> {
    let c = SCRATCH_F32.with_borrow_mut(|(a, b)| {
        widen(input.a(), a);
        widen(input.b(), b);
        gemm_row_major(input.shape(), a, b)
    });
    let mut out = vec![f16::ZERO; c.len()];
    out.convert_from_f32_slice(&c);
    out
}

/// The oracle `C = A · B` in `f64`, on the exact `f16` input values widened
/// to `f64`. Each output carries only the `f64` rounding errors of its sum
/// (relative error about `k · 2⁻⁵³` at worst), far below any `f16` effect.
pub fn matmul_f64(input: &MatmulInput) -> Vec<f64> {
    SCRATCH_F64.with_borrow_mut(|(a, b)| {
        widen(input.a(), a);
        widen(input.b(), b);
        gemm_row_major(input.shape(), a, b)
    })
}

thread_local! {
    /// Per-thread buffers for the inputs widened to `f32` and `f64`, reused
    /// from call to call: allocating them afresh (zeroed pages from the
    /// operating system) cost more than the GEMM itself at
    /// `128×4096 @ 4096×128`.
    static SCRATCH_F32: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    static SCRATCH_F64: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Widens `src` into `dst` (resized to fit), exactly. Every element is
/// overwritten, so a buffer that already has the right length is not
/// cleared first (zeroing it cost 8% of a `128×4096 @ 4096×128` trial).
fn widen<T: Widen>(src: &[f16], dst: &mut Vec<T>) {
    dst.resize(src.len(), T::default());
    T::convert(src, dst);
}

/// `f32` or `f64`, converted from `f16` slices with `half`'s vectorised
/// conversions.
pub(crate) trait Widen: Copy + Default + From<f32> + 'static {
    fn convert(src: &[f16], dst: &mut [Self]);
    /// The `gemm` kernel for this type (chosen for the processor once).
    fn gemm_fn() -> GemmFn<Self>;
}

impl Widen for f32 {
    fn convert(src: &[f16], dst: &mut [f32]) {
        src.convert_to_f32_slice(dst);
    }
    fn gemm_fn() -> GemmFn<f32> {
        gemm_f32::gemm::f32::get_gemm_fn()
    }
}

impl Widen for f64 {
    fn convert(src: &[f16], dst: &mut [f64]) {
        src.convert_to_f64_slice(dst);
    }
    fn gemm_fn() -> GemmFn<f64> {
        gemm_f64::gemm::f64::get_gemm_fn()
    }
}

/// `C = A · B` for row-major `A` (`m × k`) and `B` (`k × n`) through the
/// `gemm` crate's kernels, called as `gemm::gemm` calls them for row-major
/// operands: transposed, `Cᵀ = Bᵀ · Aᵀ` with column-major strides; `T` is
/// `f32` or `f64`.
pub(crate) fn gemm_row_major<T: Widen>(
    (m, k, n): (usize, usize, usize),
    a: &[T],
    b: &[T],
) -> Vec<T> {
    assert_eq!(a.len(), m * k);
    assert_eq!(b.len(), k * n);
    let mut c = vec![T::default(); m * n];
    // SAFETY: `a`, `b` and `c` hold `m·k`, `k·n` and `m·n` elements (checked
    // above). Seen column-major, `c` is the `n × m` matrix `Cᵀ` (column
    // stride `n`, row stride 1), `b` the `n × k` matrix `Bᵀ` and `a` the
    // `k × m` matrix `Aᵀ`, every element addressed inside its buffer; `c`
    // does not alias the inputs.
    unsafe {
        T::gemm_fn()(
            n,
            m,
            k,
            c.as_mut_ptr(),
            n as isize,
            1,
            false,
            b.as_ptr(),
            n as isize,
            1,
            a.as_ptr(),
            k as isize,
            1,
            T::from(0.0),
            T::from(1.0),
            false,
            false,
            false,
            gemm_common::Parallelism::None,
        );
    }
    c
}

/// The signature of the `gemm` crate's kernels for `T`.
type GemmFn<T> = unsafe fn(
    usize,
    usize,
    usize,
    *mut T,
    isize,
    isize,
    bool,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    T,
    bool,
    bool,
    bool,
    gemm_common::Parallelism,
);

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
/// Slower than [`matmul_cpu_f16`] (no GEMM blocking); meant for checking the
/// kernels and as a CPU stand-in for the GPU strategies.
///
/// # Panics
///
/// Panics on `Accumulation::SplitK { splits: 0 }`.
pub fn matmul_cpu_emulated(input: &MatmulInput, accumulation: Accumulation) -> Vec<f16> {
    let (m, k, n) = input.shape();
    let mut b = vec![0f32; k * n];
    input.b().convert_to_f32_slice(&mut b);
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
                    let a = a.to_f32();
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
                        let a = a.to_f32();
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
                        *t += round16(s);
                    }
                }
                Accumulation::F32 | Accumulation::F16 => total.copy_from_slice(&acc),
            }
        }
        out.extend(total.iter().map(|&t| f16::from_f32(t)));
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
                let ulp = dual_delta_runtime::NumberFormat::F16.ulp(*e);
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
