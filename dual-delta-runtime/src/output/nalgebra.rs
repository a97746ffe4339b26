//! nalgebra's matrices and vectors as outputs (the `nalgebra` feature):
//! `Matrix<T, R, C, S>` of any [`Scalar`], any dimensions (static or
//! dynamic) and any storage (owned, `VecStorage`, views).
//!
//! The elements are read in nalgebra's own order, column-major: the first
//! (row) index varies fastest, as `Matrix::iter` and `as_slice` give them.
//! A `DMatrix` and an ndarray `Array2` of the same matrix are therefore
//! read in different orders; compare a candidate and an oracle that return
//! the same type (or the transpose of one), and the metric pairs the
//! elements they mean.

use ::nalgebra::{Dim, Matrix, RawStorage};

use super::{NumberFormat, Output, Scalar};

#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, R: Dim, C: Dim, S: RawStorage<T, R, C>> Output for Matrix<T, R, C, S> {
    fn format(&self) -> NumberFormat {
        T::FORMAT
    }
    fn len(&self) -> usize {
        Matrix::len(self) * T::ELEMENTS
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        out.reserve(Output::len(self));
        for &v in self.iter() {
            v.push_f64(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use ::nalgebra::{DMatrix, DVector, Matrix2x3, SVector};
    use half::bf16;

    use super::*;

    use crate::output::widened;

    #[test]
    fn a_matrix_is_read_column_by_column() {
        let m = Matrix2x3::new(1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0);
        assert_eq!(widened(&m), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(m.format(), NumberFormat::F32);
        let d = DMatrix::from_row_slice(2, 3, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(widened(&d), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        // A view of the last two columns, and of the second row.
        assert_eq!(widened(&d.columns(1, 2)), [2.0, 5.0, 3.0, 6.0]);
        assert_eq!(widened(&d.row(1)), [4.0, 5.0, 6.0]);
        assert_eq!(widened(&d.transpose()), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn vectors_static_and_dynamic() {
        let v = DVector::from_vec(vec![bf16::ONE, bf16::from_f32(-0.5)]);
        assert_eq!(widened(&v), [1.0, -0.5]);
        assert_eq!(v.format(), NumberFormat::Bf16);
        let s = SVector::<f64, 3>::new(0.25, 0.5, 0.75);
        assert_eq!(widened(&s), [0.25, 0.5, 0.75]);
        assert!(Output::is_empty(&DVector::<f32>::zeros(0)));
    }

    #[test]
    fn a_complex_matrix_interleaves_the_parts_of_each_element() {
        use ::num_complex::Complex;
        let m = DMatrix::from_row_slice(1, 2, &[Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0)]);
        assert_eq!(Output::len(&m), 4);
        assert_eq!(widened(&m), [1.0, 2.0, 3.0, 4.0]);
    }
}
