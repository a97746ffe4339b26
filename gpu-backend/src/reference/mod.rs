//! CPU references for the kernels shipped beyond matmul: reductions,
//! softmax, normalisation and attention, each as an `f64` oracle and as a
//! CPU baseline computed the way a careful framework does it.
//!
//! Every operation comes in two versions:
//!
//! * **The oracle**, `*_f64`: the input values widened exactly to `f64`,
//!   every sum accumulated in double-double
//!   ([`dual_delta_runtime::oracle::sum`] and
//!   [`dual_delta_runtime::oracle::dot`]) and rounded once to `f64`, the
//!   statistics of normalisations in two passes. Its errors are a few `f64`
//!   units in the last place, far below any effect of a 16- or 32-bit
//!   format.
//! * **The baseline**, `*_cpu`: PyTorch's CPU "opmath" rule. The inputs
//!   (of any [`KernelElement`]: `f16`, `bf16` or `f32`) are widened to
//!   `f32`, everything is computed in `f32` and each output element is
//!   rounded once to the input's format. Sums run left to right in index
//!   order, so the result is specified bit for bit by the formula documented
//!   on each function (`exp` and `ln` are those of Rust's `f32`).
//!
//! | operation | oracle | baseline | input |
//! |-----------|--------|----------|-------|
//! | row sums `Σⱼ xᵢⱼ` | [`sum_f64`] | [`sum_cpu`] | [`RowsInput`] |
//! | row means `Σⱼ xᵢⱼ / len` | [`mean_f64`] | [`mean_cpu`] | [`RowsInput`] |
//! | row dot products `Σⱼ aᵢⱼ bᵢⱼ` | [`dot_f64`] | [`dot_cpu`] | [`DotInput`] |
//! | softmax over the last axis | [`softmax_f64`] | [`softmax_cpu`] | [`RowsInput`] |
//! | log-softmax over the last axis | [`log_softmax_f64`] | [`log_softmax_cpu`] | [`RowsInput`] |
//! | LayerNorm over the last axis | [`layer_norm_f64`] | [`layer_norm_cpu`] | [`NormInput`] |
//! | RMSNorm over the last axis | [`rms_norm_f64`] | [`rms_norm_cpu`] | [`NormInput`] |
//! | scaled-dot-product attention | [`attention_f64`] | [`attention_cpu`] | [`AttentionInput`] |
//! | matmul `A · B` (`f16`) | [`matmul_f64`](crate::matmul::matmul_f64) | [`matmul_cpu_f16`](crate::matmul::matmul_cpu_f16) | [`MatmulInput`](crate::matmul::MatmulInput) |
//!
//! Tensors are row-major with explicit shapes. Each input type checks its
//! shape when it is made and has random generators for dual-delta tests
//! (`torch.randn(...)` rounded to the element type, and the inputs on which
//! careless kernels fail: activations with a large offset for the
//! normalisations, long rows and outliers for softmax).
//!
//! ```
//! use dual_delta_runtime::{DualDelta, TrialRng};
//! use dual_delta_gpu::f16;
//! use dual_delta_gpu::reference::{RowsInput, random_rows, sum_cpu, sum_f64};
//!
//! /// A sum that accumulates in f16: what a careless kernel does.
//! fn sum_f16_acc(x: &RowsInput<f16>) -> Vec<f16> {
//!     x.row_iter()
//!         .map(|row| row.iter().fold(f16::ZERO, |acc, &v| acc + v))
//!         .collect()
//! }
//!
//! let outcome = DualDelta::new(sum_f16_acc, sum_cpu, sum_f64, random_rows::<f16>(4, 1024))
//!     .n(50)
//!     .run()
//!     .unwrap();
//! assert!(!outcome.passed());
//! ```

use half::{bf16, f16};

use dual_delta_runtime::Element;

mod attention;
mod generate;
mod input;
mod norm;
mod reduce;
mod softmax;

pub use self::attention::{
    AttentionInput, AttentionShape, attention_cpu, attention_f64, random_attention_input,
};
pub use self::generate::{
    random_dot_input, random_norm_input, random_offset_norm_input, random_offset_rows,
    random_outlier_rows, random_rows,
};
pub use self::input::{DotInput, NormInput, RowsInput};
pub use self::norm::{layer_norm_cpu, layer_norm_f64, rms_norm_cpu, rms_norm_f64};
pub use self::reduce::{dot_cpu, dot_f64, mean_cpu, mean_f64, sum_cpu, sum_f64};
pub use self::softmax::{log_softmax_cpu, log_softmax_f64, softmax_cpu, softmax_f64};

/// An element type the references take and the baselines return: `f16`,
/// `bf16` or `f32` (sealed).
///
/// Widening to `f32` ([`KernelElement::to_f32`]) and to `f64`
/// ([`Element::to_f64`]) is exact; narrowing rounds to nearest, ties to
/// even, once.
pub trait KernelElement: Element + Default + PartialEq + core::fmt::Debug + sealed::Sealed {
    /// The value widened exactly to `f32`.
    fn to_f32(self) -> f32;
    /// `x` rounded to the nearest value of this type (ties to even).
    fn from_f32(x: f32) -> Self;
    /// `x` rounded once to the nearest value of this type (ties to even).
    fn from_f64(x: f64) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for f32 {}
}

impl KernelElement for f16 {
    #[inline]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[inline]
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
}

impl KernelElement for bf16 {
    #[inline]
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    #[inline]
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
}

impl KernelElement for f32 {
    #[inline]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline]
    fn from_f32(x: f32) -> Self {
        x
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

/// `xs` widened to `f32`.
fn widen_f32<E: KernelElement>(xs: &[E]) -> impl Iterator<Item = f32> + '_ {
    xs.iter().map(|&v| v.to_f32())
}

/// `xs` widened to `f64`.
fn widen_f64<E: KernelElement>(xs: &[E]) -> impl Iterator<Item = f64> + '_ {
    xs.iter().map(|&v| v.to_f64())
}

/// `Σ xs` in `f32`, left to right.
fn sum_f32(xs: impl Iterator<Item = f32>) -> f32 {
    xs.fold(0.0f32, |acc, v| acc + v)
}

/// `Σ xs` in double-double, rounded once to `f64`.
fn sum_dd(xs: impl Iterator<Item = f64>) -> f64 {
    dual_delta_runtime::oracle::sum(xs).to_f64()
}
