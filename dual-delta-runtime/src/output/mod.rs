//! What implementations return: anything viewable as a flat sequence of
//! numbers in a known format.
//!
//! The ecosystem's types are outputs behind features of their own, each in
//! a module here: `num_complex::Complex` (`num-complex`), ndarray's arrays
//! (`ndarray`) and nalgebra's matrices (`nalgebra`).

#[cfg(feature = "nalgebra")]
mod nalgebra;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "num-complex")]
mod num_complex;

use core::fmt;

use half::{bf16, f16};

use crate::fp8::{E4m3, E5m2};
use crate::numerics::{exp2i, exponent};

/// A floating-point format, used to measure errors in units in the last place
/// and to say in reports what an implementation computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NumberFormat {
    /// IEEE 754 binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64.
    F64,
    /// OCP FP8 E4M3 ("E4M3FN"): 3 mantissa bits, no infinities ([`E4m3`]).
    E4m3,
    /// OCP FP8 E5M2: 2 mantissa bits, IEEE 754-like ([`E5m2`]).
    E5m2,
}

impl NumberFormat {
    /// Number of explicitly stored significand bits.
    pub const fn mantissa_bits(self) -> u32 {
        match self {
            NumberFormat::F16 => 10,
            NumberFormat::Bf16 => 7,
            NumberFormat::F32 => 23,
            NumberFormat::F64 => 52,
            NumberFormat::E4m3 => E4m3::MANTISSA_BITS,
            NumberFormat::E5m2 => E5m2::MANTISSA_BITS,
        }
    }

    /// The smallest normal exponent (`emin`).
    pub const fn min_exponent(self) -> i32 {
        match self {
            NumberFormat::F16 => -14,
            NumberFormat::Bf16 | NumberFormat::F32 => -126,
            NumberFormat::F64 => -1022,
            NumberFormat::E4m3 => 1 - E4m3::EXPONENT_BIAS,
            NumberFormat::E5m2 => 1 - E5m2::EXPONENT_BIAS,
        }
    }

    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        match self {
            NumberFormat::F16 => f16::MAX.to_f64(),
            NumberFormat::Bf16 => bf16::MAX.to_f64(),
            NumberFormat::F32 => f64::from(f32::MAX),
            NumberFormat::F64 => f64::MAX,
            NumberFormat::E4m3 => E4m3::MAX.to_f64(),
            NumberFormat::E5m2 => E5m2::MAX.to_f64(),
        }
    }

    /// The spacing of this format's values at magnitude `|x|`: the distance
    /// from `|x|` rounded down to the format to the next larger value,
    /// `2^(max(floor(log2 |x|), emin) - p)` with `p` the
    /// [mantissa bits](Self::mantissa_bits) and `emin` the
    /// [smallest normal exponent](Self::min_exponent). For subnormal
    /// magnitudes (and zero) it is the smallest subnormal. Beyond the
    /// largest finite value the binades go on as if the exponent range were
    /// unbounded: in `e4m3`, whose largest value is 448 (spacing 32),
    /// `ulp(1000)` is 64. An infinite or NaN `x` gives the smallest
    /// subnormal.
    pub fn ulp(self, x: f64) -> f64 {
        let a = x.abs();
        let p = self.mantissa_bits() as i32;
        let emin = self.min_exponent();
        let e = if a == 0.0 || !a.is_finite() {
            emin
        } else {
            (exponent(a)).max(emin)
        };
        exp2i(e - p)
    }

    /// Rounds an `f64` to the nearest value of this format (ties to even)
    /// and widens it back: the plain cast, so values out of range give
    /// infinities, or NaN in `e4m3` (see [`crate::E4m3`]).
    pub fn round(self, x: f64) -> f64 {
        match self {
            NumberFormat::F16 => f16::from_f64(x).to_f64(),
            NumberFormat::Bf16 => bf16::from_f64(x).to_f64(),
            NumberFormat::F32 => f64::from(x as f32),
            NumberFormat::F64 => x,
            NumberFormat::E4m3 => E4m3::from_f64(x).to_f64(),
            NumberFormat::E5m2 => E5m2::from_f64(x).to_f64(),
        }
    }

    /// The format's name as written in reports and in `summary.json`
    /// (`f16`, `bf16`, `f32`, `f64`, `e4m3`, `e5m2`).
    pub const fn name(self) -> &'static str {
        match self {
            NumberFormat::F16 => "f16",
            NumberFormat::Bf16 => "bf16",
            NumberFormat::F32 => "f32",
            NumberFormat::F64 => "f64",
            NumberFormat::E4m3 => "e4m3",
            NumberFormat::E5m2 => "e5m2",
        }
    }
}

impl fmt::Display for NumberFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A floating-point element type that outputs can be made of.
pub trait Element: Copy + Send + Sync + 'static {
    /// The element's format.
    const FORMAT: NumberFormat;
    /// The value widened exactly to `f64`.
    fn to_f64(self) -> f64;
}

/// The narrow formats, which widen themselves to `f64` exactly.
macro_rules! narrow_elements {
    ($($t:ident => $format:ident),*) => {$(
        impl Element for $t {
            const FORMAT: NumberFormat = NumberFormat::$format;
            #[inline]
            fn to_f64(self) -> f64 {
                $t::to_f64(self)
            }
        }
    )*};
}

narrow_elements!(f16 => F16, bf16 => Bf16, E4m3 => E4m3, E5m2 => E5m2);

impl Element for f32 {
    const FORMAT: NumberFormat = NumberFormat::F32;
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Element for f64 {
    const FORMAT: NumberFormat = NumberFormat::F64;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

/// One number of an output, made of a fixed number of [`Element`]s of one
/// format: an element itself, or, with the `num-complex` feature, a
/// `num_complex::Complex` of one (two elements: its real, then its
/// imaginary part).
///
/// Slices, arrays, boxed slices and `Vec`s of scalars are [`Output`]s, and
/// so are ndarray's arrays and nalgebra's matrices of them with those
/// features: the metric reads the elements of every scalar in turn.
pub trait Scalar: Copy + Send + Sync + 'static {
    /// The format of its elements.
    const FORMAT: NumberFormat;
    /// The number of elements it is made of.
    const ELEMENTS: usize;
    /// Appends its elements, widened exactly to `f64`, in order.
    fn push_f64(self, out: &mut Vec<f64>);
}

impl<E: Element> Scalar for E {
    const FORMAT: NumberFormat = E::FORMAT;
    const ELEMENTS: usize = 1;
    #[inline]
    fn push_f64(self, out: &mut Vec<f64>) {
        out.push(self.to_f64());
    }
}

/// The output of an implementation or oracle: a flat sequence of numbers in
/// one format.
///
/// Implemented for the scalars `f16`, `bf16`, `f32`, `f64`, [`E4m3`],
/// [`E5m2`], and for `Vec`s, slices, boxed slices and arrays of any
/// [`Scalar`]. With the crate's features, for the ecosystem's types:
///
/// - `num-complex`: `Complex<E>` of any of those element types, and `Vec`s,
///   slices, boxed slices and arrays of them, each complex number two
///   elements, its real part then its imaginary part;
/// - `ndarray`: arrays and views of any dimension (`ArrayBase<S, D>` with
///   `S: Data`, and `ArrayRef`), in logical order (the last index varying
///   fastest, row-major for a matrix) whatever the memory layout;
/// - `nalgebra`: matrices and vectors of any storage (`Matrix<T, R, C, S>`,
///   views included), in nalgebra's column-major order (the first index
///   varying fastest).
///
/// Implement it for your own output type (a matrix, a tensor) by handing
/// out its elements:
///
/// ```
/// use dual_delta_runtime::{output::NumberFormat, output::Output};
///
/// struct Matrix { rows: usize, cols: usize, data: Vec<f32> }
///
/// impl Output for Matrix {
///     fn format(&self) -> NumberFormat { NumberFormat::F32 }
///     fn len(&self) -> usize { self.data.len() }
///     fn extend_f64(&self, out: &mut Vec<f64>) {
///         out.extend(self.data.iter().map(|&v| f64::from(v)));
///     }
/// }
/// ```
pub trait Output {
    /// The format of the elements.
    fn format(&self) -> NumberFormat;
    /// The number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends every element, widened exactly to `f64`, in order.
    fn extend_f64(&self, out: &mut Vec<f64>);
}

macro_rules! scalar_output {
    ($($t:ty),*) => {$(
        impl Output for $t {
            fn format(&self) -> NumberFormat { <$t as Element>::FORMAT }
            fn len(&self) -> usize { 1 }
            fn extend_f64(&self, out: &mut Vec<f64>) { out.push(Element::to_f64(*self)); }
        }
    )*};
}
scalar_output!(f16, bf16, f32, f64, E4m3, E5m2);

impl<S: Scalar> Output for [S] {
    fn format(&self) -> NumberFormat {
        S::FORMAT
    }
    fn len(&self) -> usize {
        <[S]>::len(self) * S::ELEMENTS
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        out.reserve(Output::len(self));
        for &v in self {
            v.push_f64(out);
        }
    }
}

impl<S: Scalar> Output for Vec<S> {
    fn format(&self) -> NumberFormat {
        S::FORMAT
    }
    fn len(&self) -> usize {
        Output::len(self.as_slice())
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        self.as_slice().extend_f64(out);
    }
}

impl<S: Scalar> Output for Box<[S]> {
    fn format(&self) -> NumberFormat {
        S::FORMAT
    }
    fn len(&self) -> usize {
        Output::len(&**self)
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        (**self).extend_f64(out);
    }
}

impl<S: Scalar, const N: usize> Output for [S; N] {
    fn format(&self) -> NumberFormat {
        S::FORMAT
    }
    fn len(&self) -> usize {
        N * S::ELEMENTS
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        self.as_slice().extend_f64(out);
    }
}

impl<T: Output + ?Sized> Output for &T {
    fn format(&self) -> NumberFormat {
        (**self).format()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        (**self).extend_f64(out);
    }
}

/// `o` widened as a run widens it, its length checked against
/// [`Output::len`]: the `nalgebra` outputs' tests read it.
#[cfg(all(test, feature = "nalgebra"))]
pub(crate) fn widened<O: Output + ?Sized>(o: &O) -> Vec<f64> {
    let mut out = Vec::new();
    o.extend_f64(&mut out);
    assert_eq!(out.len(), o.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_matches_the_formats_spacing() {
        assert_eq!(NumberFormat::F16.ulp(1.0), 2f64.powi(-10));
        assert_eq!(NumberFormat::F16.ulp(1.5), 2f64.powi(-10));
        assert_eq!(NumberFormat::F16.ulp(2.0), 2f64.powi(-9));
        assert_eq!(NumberFormat::F16.ulp(0.0), 2f64.powi(-24));
        assert_eq!(NumberFormat::F16.ulp(1e-7), 2f64.powi(-24));
        assert_eq!(NumberFormat::F32.ulp(1.0), f64::from(f32::EPSILON));
        assert_eq!(NumberFormat::F64.ulp(1.0), f64::EPSILON);
        assert_eq!(NumberFormat::F64.ulp(0.0), f64::from_bits(1));
        assert_eq!(NumberFormat::Bf16.ulp(-3.0), 2f64.powi(-6));
        // f64 subnormal input to a wider format's ulp.
        assert_eq!(NumberFormat::F64.ulp(f64::from_bits(5)), f64::from_bits(1));
        // Next f16 after 1.0 is exactly one ulp away.
        let next = f16::from_bits(f16::ONE.to_bits() + 1).to_f64();
        assert_eq!(next - 1.0, NumberFormat::F16.ulp(1.0));
    }

    /// For every positive finite value `v` but the largest, of codes read
    /// by `value`: `ulp(v)` is the distance to the next code's value, and
    /// `round` keeps `v`.
    fn check_spacing(format: NumberFormat, codes: u32, value: impl Fn(u32) -> f64) {
        for code in 0..codes {
            let (v, next) = (value(code), value(code + 1));
            if !next.is_finite() || next > format.max_finite() {
                break;
            }
            assert_eq!(format.ulp(v), next - v, "{format} code {code:#x}: {v}");
            assert_eq!(format.ulp(-v), next - v);
            assert_eq!(format.round(v).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn ulp_is_the_spacing_of_consecutive_values_in_every_narrow_format() {
        check_spacing(NumberFormat::E4m3, 0x7e, |c| {
            E4m3::from_bits(c as u8).to_f64()
        });
        check_spacing(NumberFormat::E5m2, 0x7b, |c| {
            E5m2::from_bits(c as u8).to_f64()
        });
        check_spacing(NumberFormat::Bf16, 0x7f7f, |c| {
            bf16::from_bits(c as u16).to_f64()
        });
        check_spacing(NumberFormat::F16, 0x7bff, |c| {
            f16::from_bits(c as u16).to_f64()
        });
    }

    #[test]
    fn fp8_ulps_at_the_ends_of_the_range() {
        let (e4, e5) = (NumberFormat::E4m3, NumberFormat::E5m2);
        // Zero and subnormals: the smallest subnormal.
        assert_eq!(e4.ulp(0.0), 2f64.powi(-9));
        assert_eq!(e4.ulp(2f64.powi(-8)), 2f64.powi(-9));
        assert_eq!(e5.ulp(-0.0), 2f64.powi(-16));
        assert_eq!(e5.ulp(3.0 * 2f64.powi(-16)), 2f64.powi(-16));
        // The largest finite values and beyond: the binades go on.
        assert_eq!(e4.ulp(448.0), 32.0);
        assert_eq!(e4.ulp(470.0), 32.0);
        assert_eq!(e4.ulp(1000.0), 64.0);
        assert_eq!(e5.ulp(57344.0), 8192.0);
        assert_eq!(e5.ulp(1e5), 16384.0);
        // The plain cast out of range: NaN in e4m3, ∞ in e5m2.
        assert!(e4.round(500.0).is_nan());
        assert_eq!(e5.round(-1e5), f64::NEG_INFINITY);
    }

    #[test]
    fn every_bf16_widens_exactly() {
        for code in 0..=u16::MAX {
            let x = bf16::from_bits(code);
            let wide = Element::to_f64(x);
            if x.is_nan() {
                assert!(wide.is_nan());
                continue;
            }
            assert_eq!(
                wide.to_bits(),
                f64::from(x.to_f32()).to_bits(),
                "{code:#06x}"
            );
            assert_eq!(bf16::from_f64(wide).to_bits(), code, "{code:#06x}");
        }
    }

    #[test]
    fn formats_describe_themselves() {
        let all = [
            (NumberFormat::F16, "f16", 10, -14, 65504.0),
            (NumberFormat::Bf16, "bf16", 7, -126, bf16::MAX.to_f64()),
            (NumberFormat::E4m3, "e4m3", 3, -6, 448.0),
            (NumberFormat::E5m2, "e5m2", 2, -14, 57344.0),
        ];
        for (format, name, p, emin, max) in all {
            assert_eq!(format.name(), name);
            assert_eq!(format.to_string(), name);
            assert_eq!(
                serde_json::to_string(&format).unwrap(),
                format!("\"{name}\"")
            );
            let back: NumberFormat = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, format);
            assert_eq!(format.mantissa_bits(), p);
            assert_eq!(format.min_exponent(), emin);
            assert_eq!(format.max_finite(), max);
        }
    }

    #[test]
    fn fp8_outputs_widen_exactly() {
        let mut buf = Vec::new();
        E4m3::MAX.extend_f64(&mut buf);
        vec![E5m2::MIN_POSITIVE_SUBNORMAL, E5m2::NEG_INFINITY].extend_f64(&mut buf);
        [E4m3::from_f64(-0.1875); 1].extend_f64(&mut buf);
        assert_eq!(buf, vec![448.0, 2f64.powi(-16), f64::NEG_INFINITY, -0.1875]);
        assert_eq!(E4m3::ONE.format(), NumberFormat::E4m3);
        assert_eq!(vec![E5m2::ONE].format(), NumberFormat::E5m2);
        assert_eq!(Box::<[E4m3]>::from([E4m3::ZERO; 3]).len(), 3);
    }

    #[test]
    fn outputs_flatten_in_order() {
        let mut buf = Vec::new();
        vec![f16::from_f32(1.5), f16::from_f32(-2.0)].extend_f64(&mut buf);
        [0.25f32; 2].extend_f64(&mut buf);
        3.0f64.extend_f64(&mut buf);
        assert_eq!(buf, vec![1.5, -2.0, 0.25, 0.25, 3.0]);
        assert_eq!(vec![bf16::ONE].format(), NumberFormat::Bf16);
        assert_eq!(Output::len(&[1.0f32; 3]), 3);
    }
}
