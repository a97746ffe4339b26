//! Scaled-dot-product attention kernels on
//! [`AttentionInput<f16>`](crate::attention::AttentionInput), each with a CPU emulation
//! that gives the GPU's result bit for bit ([`attention_emulated`]).
//!
//! For head `h` and query `i`, over the keys `j` it sees (all, or `j ≤ i`
//! under the causal mask), with `c = 1 / √d` computed in `f32` as the
//! baseline [`attention_cpu`] does:
//!
//! * scores `sⱼ = (qᵢ₀·kⱼ₀ + qᵢ₁·kⱼ₁ + …) · c`, the dot product summed left
//!   to right in `f32`;
//! * `oᵢ = Σⱼ softmax(s)ⱼ · vⱼ`, each output rounded once to `f16`; how the
//!   softmax and the weighted sum are computed is the [`AttentionStrategy`].
//!
//! `exp` is [`kernel_exp`](crate::reductions::kernel_exp); no operation is fused; every
//! division is correctly rounded on any device within eight ulps of it
//! (`div_rn` of `crate::wgsl`), every rounding to `f16` done on the bits.
//!
//! Work decomposition: one invocation per (head, query), workgroups of
//! [`ATTENTION_THREADS`] invocations (one llvmpipe SIMD vector, so a
//! workgroup is eight consecutive queries). Each invocation keeps its query
//! row and its `d_v` output accumulators in registers and walks the keys
//! itself: no workgroup memory, no barriers. The shader is generated for
//! each `(d, d_v)` (up to [`MAX_HEAD_DIM`]) with the loops over them
//! unrolled, and compiled on first use. `Naive` writes its scores row to a storage buffer
//! (`heads · seq_q · seq_k` values, stored as `f32` holding `f16` values);
//! the flash strategies keep a block of [`FLASH_BLOCK`] scores in registers.

mod dispatch;
mod emulate;
mod reference;
pub(crate) mod shader;

pub use self::emulate::attention_emulated;
pub use self::reference::{
    AttentionInput, AttentionShape, attention_cpu, attention_f64, random_attention_input,
};

/// The largest `d` and `d_v` the attention kernels accept.
pub const MAX_HEAD_DIM: usize = 128;

/// The largest `seq_k` the attention kernels accept. llvmpipe ends an
/// invocation after 65535 loop iterations in all (its guard against
/// endless loops); the kernels iterate at most three times per key, and
/// the flash strategies once more per output element (at most
/// [`MAX_HEAD_DIM`]): 49 280 iterations at most.
pub const MAX_KEYS: usize = 16384;

/// Keys per block of the flash strategies.
pub const FLASH_BLOCK: usize = 16;

/// Invocations per workgroup of the attention kernels.
pub const ATTENTION_THREADS: usize = 8;

strategies! {
    /// How [`Gpu::run`](crate::Gpu::run) computes
    /// `softmax(Q Kᵀ / √d) V`.
    pub enum AttentionStrategy {
        /// The scores materialised in `f16`, as an unfused implementation with
        /// `f16` tensors does: `ŝⱼ = round_f16(sⱼ)`; `m = maxⱼ ŝⱼ`;
        /// `eⱼ = exp(ŝⱼ − m)` and `Z = Σⱼ eⱼ` (left to right) in `f32`;
        /// probabilities `pⱼ = round_f16(eⱼ / Z)`; then
        /// `oᵢc = round_f16(p₀·v₀c + p₁·v₁c + …)`, summed left to right in
        /// `f32`. A score keeps 11 significant bits instead of 24.
        Naive => "naive, f16 scores",
        /// Flash-style online softmax over blocks of [`FLASH_BLOCK`] keys, all
        /// state in `f32`: running maximum `m` (from `−∞`), denominator `l` and
        /// accumulators `o_c` (from 0). For each block, with the block's scores
        /// `sⱼ`: `m' = max(m, maxⱼ sⱼ)`, `α = exp(m − m')`, `l ← l·α`,
        /// `o_c ← o_c·α`; then for each key in order `pⱼ = exp(sⱼ − m')`,
        /// `l ← l + pⱼ`, `o_c ← o_c + pⱼ·vⱼc`; `m ← m'`. At the end
        /// `oᵢc = round_f16(o_c / l)`: one division and one rounding.
        Flash => "flash, f32 accumulation",
        /// [`AttentionStrategy::Flash`] with the accumulators `o_c` kept in
        /// `f16`: `o_c ← round_f16(o_c·α)` and `o_c ← round_f16(o_c + pⱼ·vⱼc)`
        /// (the product and sum in `f32`, each update rounded), `m` and `l`
        /// still `f32`. Each of the `seq_k` updates adds a relative error up to
        /// `2⁻¹¹`.
        FlashF16Accumulation => "flash, f16 accumulation",
    }
}
