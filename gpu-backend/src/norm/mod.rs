//! LayerNorm kernels on [`NormInput<f16>`](crate::norm::NormInput): the one-pass
//! variance that cancels catastrophically, and two careful strategies, each
//! with a CPU emulation that gives the GPU's result bit for bit
//! ([`layer_norm_emulated`]); and RMSNorm kernels, a careful one and one
//! that accumulates the sum of squares in `f16` ([`RmsNormStrategy`],
//! [`rms_norm_emulated`]).
//!
//! RMSNorm, for each row `x` of length `n`: the sum of squares `Σ x²` as
//! the [`RmsNormStrategy`] says (per-invocation strided sums, then the
//! tree), `ms = Σ x² / n`, `r = √(ms + ε)`, and
//! `yⱼ = round_f16((xⱼ / r) · γⱼ + βⱼ)`, every division and the square root
//! correctly rounded.
//!
//! For each row `x` of length `n`, with `ε` rounded to `f32` and every
//! operation in `f32`:
//!
//! * statistics `μ` and `σ²` as the [`LayerNormStrategy`] says;
//! * `σ = √(σ² + ε)` (the correctly rounded square root, and every
//!   division correctly rounded, on any device within eight ulps of it:
//!   `sqrt_rn` and `div_rn` of `crate::wgsl`);
//! * `yⱼ = round_f16(((xⱼ − μ) / σ) · γⱼ + βⱼ)`, skipping `· γⱼ` and `+ βⱼ`
//!   where absent: one rounding to `f16` per output.
//!
//! Work decomposition: that of the row kernels, one workgroup of
//! [`ROW_THREADS`](crate::reductions::ROW_THREADS) invocations per row. Invocation `t`
//! visits elements `t, t + ROW_THREADS, …` (a strided slice) and keeps its
//! partial statistics in registers; a fixed tree in workgroup memory
//! combines them (step `h = ROW_THREADS/2, …, 1`: slot `t < h` combines
//! slots `t` and `t + h`); then each invocation writes the outputs of its
//! slice. The emulation replays exactly this order.

pub(crate) mod dispatch;
mod emulate;
mod input;
mod reference;
pub(crate) mod shader;

pub use self::emulate::{layer_norm_emulated, rms_norm_emulated};
pub use self::input::{NormInput, random_norm_input, random_offset_norm_input};
pub use self::reference::{layer_norm_cpu, layer_norm_f64, rms_norm_cpu, rms_norm_f64};

/// The longest row the normalisation kernels accept.
/// llvmpipe ends an invocation after 65535 loop iterations in all (its
/// guard against endless loops); each invocation iterates at most three
/// times per [`ROW_THREADS`](crate::reductions::ROW_THREADS) elements.
pub const MAX_NORM_LEN: usize = 1 << 20;

strategies! {
    /// How [`Gpu::run`](crate::Gpu::run) computes the mean `μ`
    /// and the (biased) variance `σ²` of each row, all in `f32`.
    pub enum LayerNormStrategy {
        /// The mistake: one pass over the row summing `x` and `x²`
        /// (per-invocation sums, then a tree), `μ = Σx / n` and
        /// `σ² = max(Σx² / n − μ², 0)`. When the mean is large against the
        /// spread, `Σx² / n` and `μ²` agree in most of their 24 bits and the
        /// difference keeps only the rounding errors: with `x ≈ 1000 ± 1`,
        /// `μ² ≈ 10⁶` has a spacing of `2⁻⁴ = 0.0625`, so a variance of `1` is
        /// lost in errors of several units (and clamped to `0` when negative).
        OnePass => "one-pass E[x²] − E[x]²",
        /// Two passes: `μ = Σx / n`, then `σ² = Σ(x − μ)² / n`, each sum over
        /// per-invocation partial sums and a tree.
        TwoPass => "two-pass",
        /// Welford's update per invocation over its slice: with count `c`,
        /// mean `m` and sum of squared deviations `M₂`, for each `x`:
        /// `c ← c + 1`, `δ = x − m`, `m ← m + δ / c`, `M₂ ← M₂ + δ · (x − m)`.
        /// The tree merges two slots `(cₐ, mₐ, Mₐ)` and `(c_b, m_b, M_b)` by
        /// Chan's formula: `c = cₐ + c_b`, `δ = m_b − mₐ`,
        /// `m = mₐ + δ · (c_b / c)`, `M₂ = (Mₐ + M_b) + (δ · δ) · ((cₐ · c_b) / c)`
        /// (a slot with `c_b = 0` leaves the other unchanged). `μ = m`,
        /// `σ² = M₂ / n`.
        Welford => "Welford",
    }
}

strategies! {
    /// How [`Gpu::run`](crate::Gpu::run) sums the squares of each
    /// row.
    pub enum RmsNormStrategy {
        /// In `f32`: each invocation sums the squares of its strided slice,
        /// then an `f32` tree (the careful one).
        F32 => "f32 sum of squares",
        /// In `f16`, as a kernel whose accumulator has the input's type:
        /// `s ← round_f16(s + x²)` (the square, exact, and the sum in `f32`),
        /// per invocation, and `round_f16(a + b)` in the tree. The sum of squares of a row of 1024 `randn` values
        /// is about 1024, where `f16` values are 1 apart, and it overflows to
        /// infinity past 65504 (all outputs then 0).
        F16Accumulation => "f16 sum of squares",
    }
}
