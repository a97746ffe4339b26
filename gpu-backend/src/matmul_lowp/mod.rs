//! Matmuls below `f16`: [`MatmulInput`](crate::matmul::MatmulInput)s of
//! `bf16` values ([`Bf16Accumulation`]) and of FP8 E4M3 values with
//! per-tensor scales ([`Fp8Accumulation`]), run by
//! [`Gpu::run`](crate::Gpu::run), each with the accumulation strategies of
//! real hardware and a CPU emulation that gives the GPU's
//! result bit for bit on lavapipe ([`matmul_emulated_bf16`],
//! [`matmul_emulated_fp8`]).
//!
//! WGSL has neither `bf16` nor FP8, so both live in `u32` words: two `bf16`
//! per word, widened to `f32` by shifting their bits into the high half;
//! four E4M3 codes per word, decoded exactly with integer operations.
//! Rounding `f32 → bf16` is done on the bits (nearest, ties to even, NaN
//! kept a quiet NaN), the same function as `half::bf16::from_f32`
//! ([`Gpu::round_to_bf16`](crate::Gpu::round_to_bf16) exposes it).
//!
//! Work decomposition: as the `f16` matmul kernels, one invocation per
//! [`LOWP_ROWS`]` × `[`LOWP_COLS`] block of `C` held in registers, loads
//! clamped to the matrix, stores outside `C` skipped. The pipelines are
//! compiled on first use, so [`Gpu::new`](crate::Gpu::new) does not pay
//! for them.

mod dispatch;
mod emulate;
mod hopper;
mod reference;
pub(crate) mod shader;
mod unroll;

pub use self::emulate::{matmul_emulated_bf16, matmul_emulated_fp8};
pub use self::hopper::fp8_fused_dot_add;
pub use self::reference::{matmul_cpu_bf16, matmul_cpu_fp8, matmul_f64_bf16, matmul_f64_fp8};

/// Rows of `C` per invocation of the low-precision kernels: a
/// `LOWP_ROWS × LOWP_COLS` block (32 sums) in registers.
///
/// `4 × 8`, not `8 × 8`: on llvmpipe (2-core AMD EPYC, AVX-512, Mesa 22.3)
/// the `8 × 8` kernels ran `cargo run --release --example fp8` in 0.8× the
/// time (wall medians 31.7 s against 39.1 s, the two builds alternating),
/// but LLVM took 6–11 s to compile each of them against 2–3 s: compiled
/// again for every imitated driver freedom on a machine whose shader cache
/// is empty, they cost the test suite more than they saved.
pub const LOWP_ROWS: usize = 4;

/// Columns of `C` per invocation of the low-precision kernels (see
/// [`LOWP_ROWS`]).
pub const LOWP_COLS: usize = 8;

/// `x` as an E4M3 code, for tests that need exact values.
#[cfg(test)]
fn e4m3(x: f32) -> dual_delta_runtime::E4m3 {
    let v = dual_delta_runtime::E4m3::from_f32(x);
    assert_eq!(v.to_f32(), x, "{x} is not an E4M3 value");
    v
}

/// Products per FP8 tensor-core instruction on Hopper (`wgmma` with E4M3
/// inputs has `k = 32`): the group that [`Fp8Accumulation::Limited`] adds
/// into the accumulator at once.
pub const FP8_MMA_K: usize = 32;

/// Fraction bits kept by Hopper's FP8 accumulation: every term of a fused
/// dot-add is truncated to this many bits below the largest exponent, and
/// the result to this many fraction bits (an `f32` with a 13-bit mantissa).
pub const FP8_ACCUMULATOR_FRACTION_BITS: u32 = 13;

/// The length of the K chunks that [`Fp8Accumulation::PromoteEvery128`]
/// accumulates on the tensor cores before adding them in `f32`.
pub const FP8_PROMOTION_INTERVAL: usize = 128;

strategies! {
    /// How a `bf16` matmul accumulates its products. Every product of two
    /// `bf16` values is exact in `f32` (8 + 8 significant bits).
    pub enum Bf16Accumulation {
        /// In `f32`, each product added in increasing `k` order, rounded once
        /// to `bf16` (what tensor cores and careful CPU kernels do).
        F32 => "f32 accumulation",
        /// In `bf16` throughout: each step `acc ← bf16(a·b + acc)`, the sum
        /// rounded to `f32` and then to `bf16`. Once `|acc|` is large, small
        /// products are lost: the sum of 4096 ones stops at 256.
        Bf16 => "bf16 accumulation",
    }
}

strategies! {
    /// How an FP8 (E4M3 × E4M3) matmul accumulates. Every strategy multiplies
    /// the accumulated sum by the product of the two per-tensor scales once, in
    /// `f32`, at the end (the GEMM's epilogue):
    /// `c = f32(acc · f32(scale_a · scale_b))`.
    ///
    /// # The limited accumulation of Hopper's FP8 tensor cores
    ///
    /// DeepSeek-V3's technical report (arXiv:2412.19437, §3.3.2) found that
    /// Hopper's FP8 GEMMs keep "around 14 bits" of accumulation precision, a
    /// maximum relative error of nearly 2% at `K = 4096`. MMA-Sim (Xie et al.,
    /// *MMA-Sim: Bit-Accurate Reference Model of Tensor Cores and Matrix Cores*,
    /// arXiv:2511.10909, 2025; its reference code's `nv_fused_dot_add`, with 13
    /// fraction bits for FP8 `wgmma` on Hopper) gives the rule bit for bit, and
    /// [`fp8_fused_dot_add`] implements it. One `wgmma` instruction computes
    /// `d = c + Σ₃₂ aᵢ·bᵢ` for a group of [`FP8_MMA_K`] = 32 products:
    ///
    /// 1. Every term is written as a significand and an exponent: the
    ///    accumulator `c` as an `f32` (`1.f × 2^e`, zero with exponent −126),
    ///    each product as `(sa·sb) × 2^(ea + eb)` from the E4M3 factors
    ///    (`sa, sb ∈ [1, 2)`, subnormals `0.f × 2⁻⁶`, zero with exponent −126),
    ///    so a product's significand lies in `[0, 4)`.
    /// 2. `E` is the largest of the 33 exponents (the accumulator's included).
    /// 3. Each term is aligned to `E` and truncated (toward zero) to
    ///    [`FP8_ACCUMULATOR_FRACTION_BITS`] = 13 bits below `2^E`, then the
    ///    truncated terms are summed exactly.
    /// 4. The sum is normalised and truncated (toward zero) to an `f32` with 13
    ///    fraction bits: the new accumulator.
    ///
    /// Truncation always shrinks magnitudes, so the error is biased toward zero
    /// and grows with the number of instructions, `K / 32`.
    ///
    /// Where this may differ from a given GPU: the model is MMA-Sim's, validated
    /// by its authors bit for bit against Hopper's `wgmma`; this crate has no Hopper GPU to
    /// check it on. Only finite inputs are modelled ([`MatmulInput`](crate::matmul::MatmulInput) refuses
    /// NaN codes), and `f32` subnormal accumulators, which these inputs cannot
    /// produce, are not handled as the hardware would.
    pub enum Fp8Accumulation {
        /// Full `f32`, as a tensor core with an `f32` accumulator: the exact
        /// products (4 + 4 significant bits) of each group of [`FP8_MMA_K`]
        /// summed in increasing `k` order, each group's sum added to the
        /// accumulator, every addition rounded to nearest.
        F32 => "f32",
        /// Hopper's FP8 tensor-core accumulation over the whole of `K`: groups
        /// of 32 products added by [`fp8_fused_dot_add`] into one accumulator
        /// with 13 fraction bits (see above).
        Limited => "limited (Hopper)",
        /// DeepSeek-V3's fix (§3.3.2, "promotion to CUDA cores"): `K` is cut
        /// into chunks of [`FP8_PROMOTION_INTERVAL`] = 128 (four instructions),
        /// each chunk accumulated as in [`Fp8Accumulation::Limited`] starting
        /// from zero, and each chunk's result added into an `f32` accumulator
        /// (rounded to nearest), as DeepGEMM does. (DeepGEMM multiplies each
        /// chunk's result by its fine-grained block scales as it adds it; with
        /// per-tensor scales the one product of scales is applied at the end.)
        PromoteEvery128 => "promoted every 128",
    }
}

impl Fp8Accumulation {
    /// The K chunk accumulated with limited precision before promotion to
    /// `f32` (`k` itself for [`Fp8Accumulation::Limited`]); `None` for
    /// [`Fp8Accumulation::F32`].
    pub(crate) fn chunk(self, k: usize) -> Option<usize> {
        match self {
            Fp8Accumulation::F32 => None,
            Fp8Accumulation::Limited => Some(k),
            Fp8Accumulation::PromoteEvery128 => Some(FP8_PROMOTION_INTERVAL),
        }
    }
}
