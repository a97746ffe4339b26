//! The two 8-bit floating-point formats of the OCP FP8 specification
//! (*OCP 8-bit Floating Point Specification (OFP8)*, revision 1.0, 2023),
//! as used by FP8 GEMM kernels:
//!
//! | type | exponent bits | bias | mantissa bits | infinities | NaN codes | max finite | min normal | min subnormal |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | [`E4m3`] ("E4M3FN") | 4 | 7 | 3 | none | `S.1111.111` | 448 | 2⁻⁶ | 2⁻⁹ |
//! | [`E5m2`] | 5 | 15 | 2 | `S.11111.00` | `S.11111.{01,10,11}` | 57344 | 2⁻¹⁴ | 2⁻¹⁶ |
//!
//! Both are `u8` newtypes: [`E4m3::from_bits`] and [`E4m3::to_bits`] give
//! the code, every code has a value (`to_f32`, `to_f64`: exact), and
//! conversions from `f32` and `f64` round to nearest, ties to even, from
//! the exact value of the argument (one rounding: `from_f32(x)` is
//! `from_f64(x as f64)`, the widening being exact).
//!
//! # Values out of range
//!
//! A magnitude that rounds (to nearest, ties to even, in the format with
//! its exponent range extended) to more than the largest finite value is
//! *out of range*: above 464 for `E4m3` (the midpoint between 448 and the
//! 480 it lacks ties down to 448), at or above 61440 for `E5m2` (the
//! midpoint between 57344 and 2¹⁶ ties to 2¹⁶, that is, to infinity, as in
//! IEEE 754). Two conversions are provided, as in CUDA's `__nv_cvt_*`
//! intrinsics:
//!
//! * `from_f64` and `from_f32`, the plain cast (`__NV_NOSAT`, and PyTorch's
//!   `.to(torch.float8_e4m3fn)`): out-of-range values and infinities
//!   become NaN in `E4m3`, which has no infinities, and ±∞ in `E5m2`.
//! * `from_f64_saturating` and `from_f32_saturating` (`__NV_SATFINITE`,
//!   the `.satfinite` casts of FP8 GEMM kernels): out-of-range values and
//!   infinities become ± the largest finite value.
//!
//! Both keep NaN a NaN and the sign of zeros and of values that underflow
//! to zero. The generators ([`crate::generate`]) saturate: they never make
//! a NaN or an infinity.

mod codec;
#[cfg(test)]
mod tests;

use core::cmp::Ordering;
use core::fmt;
use core::ops::Neg;

use self::codec::{E4M3, E5M2, encode, table};

macro_rules! fp8_type {
    ($name:ident, $spec:ident, $table:ident, $overflow:literal) => {
        static $table: [f32; 256] = table($spec);

        impl $name {
            /// Explicitly stored mantissa (significand) bits.
            pub const MANTISSA_BITS: u32 = $spec.mantissa_bits;
            /// The exponent bias: a normal code with exponent field `e`
            /// is `1.m × 2^(e - bias)`, a subnormal one `0.m × 2^(1 - bias)`.
            pub const EXPONENT_BIAS: i32 = $spec.bias;
            /// `+0`.
            pub const ZERO: Self = Self(0x00);
            /// `-0`.
            pub const NEG_ZERO: Self = Self(0x80);
            /// `1`.
            pub const ONE: Self = Self(($spec.bias as u8) << $spec.mantissa_bits);
            /// `-1`.
            pub const NEG_ONE: Self = Self(0x80 | Self::ONE.0);
            /// The largest finite value.
            pub const MAX: Self = Self($spec.max);
            /// The most negative finite value, `-MAX`.
            pub const MIN: Self = Self(0x80 | $spec.max);
            /// The smallest positive normal value, `2^(1 - bias)`.
            pub const MIN_POSITIVE: Self = Self(1 << $spec.mantissa_bits);
            /// The smallest positive subnormal value, `2^(1 - bias - mantissa_bits)`.
            pub const MIN_POSITIVE_SUBNORMAL: Self = Self(0x01);
            /// A NaN (the one that conversions return for a positive NaN).
            pub const NAN: Self = Self($spec.nan);

            /// The value with code `bits`.
            #[inline]
            pub const fn from_bits(bits: u8) -> Self {
                Self(bits)
            }

            /// The code.
            #[inline]
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The nearest value to `x` (ties to even), the plain cast: values
            /// out of range (see [`E4m3`](crate::E4m3)) and infinities become
            #[doc = $overflow]
            #[inline]
            pub fn from_f64(x: f64) -> Self {
                Self(encode(x, $spec, false))
            }

            /// The nearest value to `x` (ties to even); out of range and
            /// infinities, ± [`MAX`](Self::MAX) (the `satfinite` cast). A NaN
            /// stays a NaN.
            #[inline]
            pub fn from_f64_saturating(x: f64) -> Self {
                Self(encode(x, $spec, true))
            }

            /// [`from_f64`](Self::from_f64) of `x` widened (exactly) to `f64`.
            #[inline]
            pub fn from_f32(x: f32) -> Self {
                Self::from_f64(f64::from(x))
            }

            /// [`from_f64_saturating`](Self::from_f64_saturating) of `x`
            /// widened (exactly) to `f64`.
            #[inline]
            pub fn from_f32_saturating(x: f32) -> Self {
                Self::from_f64_saturating(f64::from(x))
            }

            /// The value, exactly.
            #[inline]
            pub fn to_f32(self) -> f32 {
                $table[usize::from(self.0)]
            }

            /// The value, exactly.
            #[inline]
            pub fn to_f64(self) -> f64 {
                f64::from(self.to_f32())
            }

            /// Whether the value is a NaN.
            #[inline]
            pub const fn is_nan(self) -> bool {
                $spec.is_nan(self.0)
            }

            /// Whether the value is `±∞`.
            #[inline]
            pub const fn is_infinite(self) -> bool {
                $spec.is_infinite(self.0)
            }

            /// Whether the value is neither a NaN nor infinite.
            #[inline]
            pub const fn is_finite(self) -> bool {
                (self.0 & 0x7f) <= $spec.max
            }

            /// Whether the sign bit is set (`-0` and negative NaNs included).
            #[inline]
            pub const fn is_sign_negative(self) -> bool {
                self.0 & 0x80 != 0
            }
        }

        impl Default for $name {
            /// `+0`.
            fn default() -> Self {
                Self::ZERO
            }
        }

        impl PartialEq for $name {
            /// IEEE 754 equality: NaNs equal nothing, `+0 == -0`.
            fn eq(&self, other: &Self) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $name {
            /// The IEEE 754 order of the values.
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl Neg for $name {
            type Output = Self;
            /// Flips the sign bit.
            fn neg(self) -> Self {
                Self(self.0 ^ 0x80)
            }
        }

        impl From<$name> for f32 {
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            fn from(x: $name) -> f64 {
                x.to_f64()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
}

/// OCP FP8 E4M3 ("E4M3FN"): 1 sign, 4 exponent (bias 7) and 3 mantissa
/// bits; no infinities, NaN is `S.1111.111`; largest finite value 448,
/// smallest normal 2⁻⁶, smallest subnormal 2⁻⁹.
///
/// Invariant: none beyond the code; all 256 codes are valid (254 numbers,
/// two NaNs). Equality and order are those of the values (IEEE 754).
///
/// ```
/// use dual_delta_runtime::E4m3;
///
/// assert_eq!(E4m3::from_f64(1.0625).to_f64(), 1.0); // a tie, to even
/// assert_eq!(E4m3::from_f64(1.1875).to_f64(), 1.25); // a tie, to even
/// assert!(E4m3::from_f64(500.0).is_nan()); // out of range: NaN
/// assert_eq!(E4m3::from_f64_saturating(500.0), E4m3::MAX); // 448
/// ```
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct E4m3(u8);

/// OCP FP8 E5M2: 1 sign, 5 exponent (bias 15) and 2 mantissa bits, IEEE
/// 754-like: `±∞` are `S.11111.00`, NaNs `S.11111.{01,10,11}`; largest
/// finite value 57344, smallest normal 2⁻¹⁴, smallest subnormal 2⁻¹⁶.
///
/// Invariant: none beyond the code; all 256 codes are valid (248 numbers,
/// two infinities, six NaNs). Equality and order are those of the values
/// (IEEE 754).
///
/// ```
/// use dual_delta_runtime::E5m2;
///
/// assert_eq!(E5m2::from_f64(1.125).to_f64(), 1.0); // a tie, to even
/// assert_eq!(E5m2::from_f64(70000.0), E5m2::INFINITY); // out of range: ∞
/// assert_eq!(E5m2::from_f64_saturating(70000.0), E5m2::MAX); // 57344
/// ```
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct E5m2(u8);

fp8_type!(E4m3, E4M3, E4M3_VALUES, "NaN (`E4m3` has no infinities).");
fp8_type!(E5m2, E5M2, E5M2_VALUES, "`±∞`.");

impl E5m2 {
    /// `+∞`.
    pub const INFINITY: Self = Self(0x7c);
    /// `-∞`.
    pub const NEG_INFINITY: Self = Self(0xfc);
}
