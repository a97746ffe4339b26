//! `num_complex::Complex` as an output (the `num-complex` feature): two
//! elements, the real part then the imaginary part.
//!
//! A complex number is a [`Scalar`] of two elements, so `Vec`s, slices,
//! boxed slices and arrays of them are outputs (their impls are the
//! scalars'), and so are ndarray's arrays and nalgebra's matrices of them
//! with those features. The metric reads `[re₀, im₀, re₁, im₁, …]`: each
//! part is an element of its own.

use ::num_complex::Complex;

use super::{Element, NumberFormat, Output, Scalar};

#[cfg_attr(docsrs, doc(cfg(feature = "num-complex")))]
impl<E: Element> Scalar for Complex<E> {
    const FORMAT: NumberFormat = E::FORMAT;
    const ELEMENTS: usize = 2;
    #[inline]
    fn push_f64(self, out: &mut Vec<f64>) {
        out.push(self.re.to_f64());
        out.push(self.im.to_f64());
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "num-complex")))]
impl<E: Element> Output for Complex<E> {
    fn format(&self) -> NumberFormat {
        E::FORMAT
    }
    fn len(&self) -> usize {
        2
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        self.push_f64(out);
    }
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};

    use super::*;
    use crate::fp8::{E4m3, E5m2};

    use crate::output::widened;

    #[test]
    fn a_complex_number_is_its_real_then_its_imaginary_part() {
        let z = Complex::new(1.5f32, -0.25);
        assert_eq!(widened(&z), [1.5, -0.25]);
        assert_eq!(z.format(), NumberFormat::F32);
        let z = Complex::new(f16::from_f32(0.1), f16::from_f32(-2.0));
        assert_eq!(widened(&z), [f16::from_f32(0.1).to_f64(), -2.0]);
        assert_eq!(z.format(), NumberFormat::F16);
        assert_eq!(
            Complex::new(bf16::ONE, bf16::ZERO).format(),
            NumberFormat::Bf16
        );
        assert_eq!(
            Complex::new(E4m3::ONE, E4m3::MAX).format(),
            NumberFormat::E4m3
        );
        assert_eq!(widened(&Complex::new(E5m2::ONE, E5m2::ONE)), [1.0, 1.0]);
        assert_eq!(widened(&Complex::new(-0.0f64, 3.0)), [-0.0, 3.0]);
    }

    #[test]
    fn sequences_of_complex_numbers_interleave_their_parts() {
        let v = vec![Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0)];
        let flat = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(widened(&v), flat);
        assert_eq!(widened(v.as_slice()), flat);
        assert_eq!(widened(&v.clone().into_boxed_slice()), flat);
        assert_eq!(widened(&[v[0], v[1]]), flat);
        assert_eq!(Output::len(&v), 4);
        assert_eq!(v.format(), NumberFormat::F32);
        let empty: Vec<Complex<f64>> = Vec::new();
        assert!(Output::is_empty(&empty));
    }
}
