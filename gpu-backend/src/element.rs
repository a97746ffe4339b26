//! The element types of the row, norm and attention references:
//! [`KernelElement`], and the widening and summing helpers their oracles
//! and baselines share.

use half::{bf16, f16};

use dual_delta_runtime::output::Element;

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

/// `KernelElement` for the `half` types, through their own conversions.
macro_rules! half_element {
    ($($t:ty),+) => {$(
        impl KernelElement for $t {
            #[inline]
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }
            #[inline]
            fn from_f32(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                <$t>::from_f64(x)
            }
        }
    )+};
}

half_element!(f16, bf16);

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
pub(crate) fn widen_f32<E: KernelElement>(xs: &[E]) -> impl Iterator<Item = f32> + '_ {
    xs.iter().map(|&v| v.to_f32())
}

/// `xs` widened to `f64`.
pub(crate) fn widen_f64<E: KernelElement>(xs: &[E]) -> impl Iterator<Item = f64> + '_ {
    xs.iter().map(|&v| v.to_f64())
}

/// `Σ xs` in `f32`, left to right.
pub(crate) fn sum_f32(xs: impl Iterator<Item = f32>) -> f32 {
    xs.fold(0.0f32, |acc, v| acc + v)
}

/// `Σ xs` in double-double, rounded once to `f64`.
pub(crate) fn sum_dd(xs: impl Iterator<Item = f64>) -> f64 {
    dual_delta_runtime::oracle::sum(xs).to_f64()
}

/// `v`, or a zero of its sign where it is an `f16` subnormal: what a device
/// that flushes `f16` subnormals loads or stores.
pub(crate) fn flush16(v: f16) -> f16 {
    if v.to_bits() & 0x7c00 == 0 {
        f16::from_bits(v.to_bits() & 0x8000)
    } else {
        v
    }
}
