//! Row kernels on `[rows, len]` `f16` tensors: sums over the last axis
//! ([`SumStrategy`]) and softmax over the last axis ([`SoftmaxStrategy`]),
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
mod generate;
mod input;
mod reference;
pub(crate) mod shader;

pub use self::emulate::{
    kernel_exp, reduce_sum_emulated, reduce_sum_emulated_with, softmax_emulated,
};
pub(crate) use self::emulate::{strided, tree};
pub(crate) use self::generate::noted;
pub use self::generate::{random_dot_input, random_offset_rows, random_outlier_rows, random_rows};
pub use self::input::{DotInput, RowsInput};
pub(crate) use self::input::{assert_shape, randn};
pub use self::reference::{
    dot_cpu, dot_f64, log_softmax_cpu, log_softmax_f64, mean_cpu, mean_f64, softmax_cpu,
    softmax_f64, sum_cpu, sum_f64,
};

/// Invocations per workgroup (per row) of the row kernels.
pub const ROW_THREADS: usize = 64;

/// The longest row the sums ([`SumStrategy`]) and the softmaxes
/// ([`SoftmaxStrategy`]) accept, except for
/// [`SumStrategy::F16Serial`] ([`MAX_SERIAL_LEN`]). llvmpipe ends an
/// invocation after 65535 loop iterations in all (its guard against endless
/// loops) and returns what was written so far; each invocation of these
/// kernels iterates at most three times per [`ROW_THREADS`] elements.
pub const MAX_ROW_LEN: usize = 1 << 20;

/// The longest row [`SumStrategy::F16Serial`] accepts: its one
/// invocation per row iterates once per element, within llvmpipe's 65535
/// loop iterations (see [`MAX_ROW_LEN`]).
pub const MAX_SERIAL_LEN: usize = 65_000;

strategies! {
    /// How a row sum kernel ([`Gpu::run`](crate::Gpu::run) on a
    /// [`RowsInput<f16>`]) sums each row.
    pub enum SumStrategy {
        /// One invocation sums the whole row serially, every addition rounded
        /// to `f16`: once the sum reaches `2048`, adding `1` rounds back to
        /// `2048`, so 4096 ones sum to `2048` (candle's CPU `f16` sum had this
        /// bug).
        F16Serial => "f16 serial",
        /// Each invocation sums its strided slice in `f16`, then an `f16` tree
        /// over the invocations (`f16` accumulation spread over a workgroup:
        /// shorter serial chains, still `f16` rounding at every step).
        F16 => "f16",
        /// Each invocation sums its strided slice in `f32`, then an `f32` tree,
        /// rounded once to `f16` (what careful libraries do).
        F32 => "f32",
        /// A pairwise tree over the whole row in `f32` (with `h = ⌈n/2⌉`,
        /// element `i < n − h` adds element `i + h`, until one is left), rounded
        /// once to `f16`: error growing with `log n` rather than `n`.
        Pairwise => "pairwise f32",
    }
}

strategies! {
    /// How a softmax kernel ([`Gpu::run`](crate::Gpu::run) on a
    /// [`RowsInput<f16>`]) computes
    /// `yⱼ = e^{xⱼ} / Σₖ e^{xₖ}` over each row. Every strategy rounds each
    /// output once to `f16`.
    pub enum SoftmaxStrategy {
        /// `e^{xⱼ − max}` in `f32`, the denominator summed in `f32` (strided
        /// slices, then a tree), one division per output: the careful one.
        Careful => "max-subtracted, f32 denominator",
        /// No max subtraction: `e^{xⱼ}` rounded to `f16` (the input type), the
        /// denominator in `f32`. In `f16`, `e^{x}` overflows for `x > 11.09`
        /// (`e^{12} ≈ 162755 > 65504`), giving `∞` and then `∞/∞ = NaN`.
        NoMaxSubtraction => "no max subtraction",
        /// Max subtraction, but `e^{xⱼ − max}` rounded to `f16` and the
        /// denominator accumulated in `f16` (strided slices, then an `f16`
        /// tree).
        F16Denominator => "f16 denominator",
        /// One-pass (online) statistics in `f32`, as flash attention does: each
        /// invocation keeps a running maximum `m` and a sum `d` rescaled when
        /// the maximum grows (`d ← d·e^{m − m'} + e^{x − m'}`), and the tree
        /// merges pairs `(m, d)` the same way; a second pass writes
        /// `e^{xⱼ − m} / d`.
        Online => "online (one-pass) f32",
    }
}
