//! The matmuls: `C = A · B` for `f16` inputs ([`Accumulation`], chosen
//! like PyTorch by [`GemmConfig`]), on [`MatmulInput`]s generic over the
//! element type (`bf16` and FP8 inputs run the kernels of
//! [`matmul_lowp`](crate::matmul_lowp)); the CPU baseline [`matmul_cpu_f16`], the
//! oracles [`matmul_f64`] and [`matmul_dd`], matmul inputs from the
//! runtime's generators ([`matmul_input`]), and the emulations of the
//! kernels ([`matmul_cpu_emulated`], [`matmul_cpu_split_k`]). The kernels
//! run through [`Gpu::run`](crate::Gpu::run).

mod dispatch;
mod emulate;
mod input;
mod pool;
mod reference;
pub(crate) mod shader;

use core::fmt;

pub(crate) use self::dispatch::one_shape;
pub use self::emulate::{K_BLOCK, matmul_cpu_emulated, matmul_cpu_split_k, matmul_emulated_with};
pub use self::input::{MatmulElement, MatmulInput, random_matmul_input};
pub(crate) use self::reference::gemm_row_major;
pub use self::reference::{matmul_cpu_f16, matmul_dd, matmul_f64, matmul_input};

/// How the `k` products of each output element are summed. All strategies
/// read `f16` inputs and write `f16` outputs; every product of two `f16`
/// values is exact in `f32`, so the strategies differ only in where sums are
/// rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Accumulation {
    /// Accumulate in `f32` over the whole of `k`, round once to `f16`.
    ///
    /// The products are summed in blocks of [`K_BLOCK`] (16)
    /// consecutive `k`, each block's sum then added to the `f32`
    /// accumulator, as a tensor core does: one `f16` MMA instruction sums
    /// 16 products before adding them to its `f32` accumulator. Summing all
    /// 4096 products one after another instead is measurably less accurate
    /// at `k = 4096` (mean max-hybrid error 1.0003 times the CPU's, Wilcoxon
    /// p ≈ 1e-16 over 1000 trials); with blocks the two are statistically
    /// indistinguishable, as in the paper.
    ///
    /// What cuBLAS does with `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`,
    /// PyTorch on CUDA with
    /// `torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False`,
    /// and PyTorch's CPU half matmul (see [`matmul_cpu_f16`]).
    F32,
    /// Split-K with a reduced-precision reduction, what cuBLAS picks for
    /// FP16 GEMMs with a deep `k` and a small output when PyTorch's default
    /// `allow_fp16_reduced_precision_reduction = True` is in force.
    ///
    /// `k` is cut into `splits` consecutive chunks of `c = ⌈k / splits⌉`
    /// products (chunk `s` covers `[s·c, min((s+1)·c, k))`; when `splits`
    /// does not divide `k` the last non-empty chunk is shorter, and when
    /// `splits > k` the trailing chunks are empty and contribute `0`). Each
    /// chunk is accumulated in `f32` (in blocks, as [`Accumulation::F32`])
    /// and rounded to `f16`, as cuBLAS stores
    /// its split-K partials in the output type; the `f16` partials are then
    /// summed in `f32`, in chunk order, and the sum rounded once to `f16`.
    ///
    /// With `splits = 8` at `128×4096 @ 4096×128` this reproduces the
    /// paper's GPU error (mean max-hybrid error 3.106e-2, std 5.46e-3); a
    /// reduction that sums the partials in `f16` instead gives errors about
    /// twice as large. `splits` must be at least 1 (`1` is the same as
    /// [`Accumulation::F32`]).
    SplitK {
        /// The number of chunks `k` is cut into (see
        /// [`Accumulation::DEFAULT_SPLITS`]).
        splits: u32,
    },
    /// Accumulate in `f16` throughout: every step `acc ← fma(a, b, acc)`
    /// is rounded to `f16` (cuBLAS's `CUBLAS_COMPUTE_16F`, or HGEMM on
    /// hardware whose tensor cores accumulate in half precision). Errors are
    /// of order 1 at `k = 4096`; here for contrast.
    F16,
}

impl Accumulation {
    /// The number of split-K chunks used by [`Accumulation::split_k`] and by
    /// [`GemmConfig::strategy_for`].
    pub const DEFAULT_SPLITS: u32 = 8;

    /// [`Accumulation::SplitK`] with [`Accumulation::DEFAULT_SPLITS`] chunks.
    pub const fn split_k() -> Self {
        Accumulation::SplitK {
            splits: Self::DEFAULT_SPLITS,
        }
    }

    /// The strategy's name in reports: `f32`, `split_k(S)`, `f16`.
    pub fn name(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Accumulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Accumulation::F32 => f.write_str("f32"),
            Accumulation::SplitK { splits } => write!(f, "split_k({splits})"),
            Accumulation::F16 => f.write_str("f16"),
        }
    }
}

/// A GEMM configuration mirroring PyTorch's
/// `torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction`.
///
/// ```
/// use dual_delta_gpu::matmul::{Accumulation, GemmConfig};
///
/// let pytorch = GemmConfig::default();
/// assert_eq!(pytorch.strategy_for(128, 128, 128), Accumulation::F32);
/// assert_eq!(pytorch.strategy_for(128, 4096, 128), Accumulation::split_k());
///
/// let strict = GemmConfig { allow_fp16_reduced_precision_reduction: false };
/// assert_eq!(strict.strategy_for(128, 4096, 128), Accumulation::F32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmConfig {
    /// Whether a reduced-precision (split-K, `f16` partials) reduction may
    /// be used. `true` by default, as in PyTorch.
    pub allow_fp16_reduced_precision_reduction: bool,
}

impl Default for GemmConfig {
    fn default() -> Self {
        Self {
            allow_fp16_reduced_precision_reduction: true,
        }
    }
}

impl GemmConfig {
    /// `k` must be at least this many times the output's larger side for
    /// [`GemmConfig::strategy_for`] to split.
    pub const SPLIT_K_DEPTH_RATIO: usize = 8;

    /// `k` must be at least this deep for [`GemmConfig::strategy_for`] to
    /// split: eight chunks of one 128-deep K tile each.
    pub const SPLIT_K_MIN_DEPTH: usize = 1024;

    /// The accumulation a cuBLAS-like library would use for an
    /// `m × k @ k × n` FP16 GEMM under this configuration.
    ///
    /// When reduced-precision reductions are allowed, split-K (with
    /// [`Accumulation::DEFAULT_SPLITS`] chunks) is chosen when `k` is large
    /// against the output, the situation in which an output-tiled kernel
    /// leaves most of a GPU idle and cuBLAS's heuristics split the
    /// reduction instead:
    ///
    /// `k ≥ SPLIT_K_MIN_DEPTH (1024)` and `k ≥ SPLIT_K_DEPTH_RATIO (8) · max(m, n)`.
    ///
    /// So `128×128 @ 128×128` does not split and `128×4096 @ 4096×128` does.
    /// Otherwise, and always when reduced-precision reductions are
    /// disallowed, the result is [`Accumulation::F32`].
    pub fn strategy_for(&self, m: usize, k: usize, n: usize) -> Accumulation {
        let deep =
            k >= Self::SPLIT_K_MIN_DEPTH && k >= Self::SPLIT_K_DEPTH_RATIO.saturating_mul(m.max(n));
        if self.allow_fp16_reduced_precision_reduction && deep {
            Accumulation::split_k()
        } else {
            Accumulation::F32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_matches_the_paper_cases() {
        let allowed = GemmConfig::default();
        assert!(allowed.allow_fp16_reduced_precision_reduction);
        let disallowed = GemmConfig {
            allow_fp16_reduced_precision_reduction: false,
        };
        // Case 1: equal.
        assert_eq!(allowed.strategy_for(128, 128, 128), Accumulation::F32);
        // Case 2: split.
        assert_eq!(
            allowed.strategy_for(128, 4096, 128),
            Accumulation::SplitK { splits: 8 }
        );
        // Case 3: the flag turned off.
        assert_eq!(disallowed.strategy_for(128, 4096, 128), Accumulation::F32);
        // Small shapes never split; deep but wide outputs do not either.
        assert_eq!(allowed.strategy_for(1, 1, 1), Accumulation::F32);
        assert_eq!(allowed.strategy_for(17, 33, 65), Accumulation::F32);
        assert_eq!(allowed.strategy_for(1, 512, 1), Accumulation::F32);
        assert_eq!(allowed.strategy_for(1024, 4096, 128), Accumulation::F32);
        assert_eq!(
            allowed.strategy_for(512, 4096, 128),
            Accumulation::split_k()
        );
    }

    #[test]
    fn names() {
        assert_eq!(Accumulation::F32.name(), "f32");
        assert_eq!(Accumulation::split_k().name(), "split_k(8)");
        assert_eq!(Accumulation::F16.to_string(), "f16");
    }
}
