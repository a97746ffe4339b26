//! Row kernels on `[rows, len]` `f16` tensors: sums over the last axis
//! ([`ReduceStrategy`]) and softmax over the last axis ([`SoftmaxVariant`]),
//! each with the strategies and mistakes real libraries had, and a CPU
//! emulation that gives the GPU's result bit for bit
//! ([`reduce_sum_emulated`], [`softmax_emulated`]).
//!
//! Work decomposition: one workgroup of [`ROW_THREADS`] invocations per row.
//! Invocation `t` visits elements `t, t + ROW_THREADS, …` of its row (a
//! strided slice), and the per-invocation results are combined by a fixed
//! tree in workgroup memory (step `h = ROW_THREADS/2, …, 1`: slot `t < h`
//! combines slots `t` and `t + h`). The emulations replay exactly this.
//!
//! `exp` is [`kernel_exp`], implemented in the shader with multiplies,
//! adds, `floor` and bit operations only, so the CPU reproduces it exactly
//! (the WGSL builtin `exp` is the driver's own approximation). No operation
//! is written as `fma`: lavapipe does not fuse it. Every division is
//! `div_rn`, correctly rounded on any device whose own division is within
//! eight ulps (Vulkan allows 2.5), and every rounding to `f16` is done on
//! the bits (see `crate::wgsl`). Bit-identity is checked on lavapipe; a
//! driver that contracts `a·b + c` into one rounding, or flushes `f32`
//! subnormals, could differ in the last bits of `f32` intermediates (the
//! probe, [`Gpu::semantics`](crate::Gpu::semantics), says which).

mod dispatch;
mod emulate;
pub(crate) mod shader;

use core::fmt;

pub(crate) use self::dispatch::RowPipelines;
pub use self::emulate::{kernel_exp, reduce_sum_emulated, softmax_emulated};
pub(crate) use self::emulate::{strided, tree};

/// Invocations per workgroup (per row) of the row kernels.
pub const ROW_THREADS: usize = 64;

/// The longest row [`Gpu::reduce_sum`](crate::Gpu::reduce_sum) and
/// [`Gpu::softmax`](crate::Gpu::softmax) accept, except for
/// [`ReduceStrategy::F16Serial`] ([`MAX_SERIAL_LEN`]). llvmpipe ends an
/// invocation after 65535 loop iterations in all (its guard against endless
/// loops) and returns what was written so far; each invocation of these
/// kernels iterates at most three times per [`ROW_THREADS`] elements.
pub const MAX_ROW_LEN: usize = 1 << 20;

/// The longest row [`ReduceStrategy::F16Serial`] accepts: its one
/// invocation per row iterates once per element, within llvmpipe's 65535
/// loop iterations (see [`MAX_ROW_LEN`]).
pub const MAX_SERIAL_LEN: usize = 65_000;

/// How [`Gpu::reduce_sum`](crate::Gpu::reduce_sum) sums each row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceStrategy {
    /// One invocation sums the whole row serially, every addition rounded
    /// to `f16`: once the sum reaches `2048`, adding `1` rounds back to
    /// `2048`, so 4096 ones sum to `2048` (candle's CPU `f16` sum had this
    /// bug).
    F16Serial,
    /// Each invocation sums its strided slice in `f16`, then an `f16` tree
    /// over the invocations (`f16` accumulation spread over a workgroup:
    /// shorter serial chains, still `f16` rounding at every step).
    F16,
    /// Each invocation sums its strided slice in `f32`, then an `f32` tree,
    /// rounded once to `f16` (what careful libraries do).
    F32,
    /// A pairwise tree over the whole row in `f32` (with `h = ⌈n/2⌉`,
    /// element `i < n − h` adds element `i + h`, until one is left), rounded
    /// once to `f16`: error growing with `log n` rather than `n`.
    Pairwise,
}

impl ReduceStrategy {
    /// Every strategy.
    pub const ALL: [ReduceStrategy; 4] = [
        ReduceStrategy::F16Serial,
        ReduceStrategy::F16,
        ReduceStrategy::F32,
        ReduceStrategy::Pairwise,
    ];
}

impl fmt::Display for ReduceStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReduceStrategy::F16Serial => "f16 serial",
            ReduceStrategy::F16 => "f16",
            ReduceStrategy::F32 => "f32",
            ReduceStrategy::Pairwise => "pairwise f32",
        })
    }
}

/// How [`Gpu::softmax`](crate::Gpu::softmax) computes
/// `yⱼ = e^{xⱼ} / Σₖ e^{xₖ}` over each row. Every variant rounds each
/// output once to `f16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SoftmaxVariant {
    /// `e^{xⱼ − max}` in `f32`, the denominator summed in `f32` (strided
    /// slices, then a tree), one division per output: the careful one.
    Careful,
    /// No max subtraction: `e^{xⱼ}` rounded to `f16` (the input type), the
    /// denominator in `f32`. In `f16`, `e^{x}` overflows for `x > 11.09`
    /// (`e^{12} ≈ 162755 > 65504`), giving `∞` and then `∞/∞ = NaN`.
    NoMaxSubtraction,
    /// Max subtraction, but `e^{xⱼ − max}` rounded to `f16` and the
    /// denominator accumulated in `f16` (strided slices, then an `f16`
    /// tree).
    F16Denominator,
    /// One-pass (online) statistics in `f32`, as flash attention does: each
    /// invocation keeps a running maximum `m` and a sum `d` rescaled when
    /// the maximum grows (`d ← d·e^{m − m'} + e^{x − m'}`), and the tree
    /// merges pairs `(m, d)` the same way; a second pass writes
    /// `e^{xⱼ − m} / d`.
    Online,
}

impl SoftmaxVariant {
    /// Every variant.
    pub const ALL: [SoftmaxVariant; 4] = [
        SoftmaxVariant::Careful,
        SoftmaxVariant::NoMaxSubtraction,
        SoftmaxVariant::F16Denominator,
        SoftmaxVariant::Online,
    ];
}

impl fmt::Display for SoftmaxVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SoftmaxVariant::Careful => "max-subtracted, f32 denominator",
            SoftmaxVariant::NoMaxSubtraction => "no max subtraction",
            SoftmaxVariant::F16Denominator => "f16 denominator",
            SoftmaxVariant::Online => "online (one-pass) f32",
        })
    }
}
