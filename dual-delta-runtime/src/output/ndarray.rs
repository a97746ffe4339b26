//! ndarray's arrays as outputs (the `ndarray` feature): `Array`,
//! `ArrayView`, `ArcArray`, `CowArray` (any `ArrayBase<S, D>` whose data
//! can be read) and `ArrayRef`, of any dimension and any [`Scalar`].
//!
//! The elements are read in the array's logical order, the last index
//! varying fastest (row-major for a matrix), whatever the memory layout: a
//! transposed view, a column-major (`.f()`) array and a strided slice give
//! the elements their indices say, so a candidate and an oracle that lay
//! out the same matrix differently still compare element by element.

use ::ndarray::{ArrayBase, ArrayRef, Data, Dimension, LayoutRef};

use super::{NumberFormat, Output, Scalar};

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<A: Scalar, D: Dimension> Output for ArrayRef<A, D> {
    fn format(&self) -> NumberFormat {
        A::FORMAT
    }
    fn len(&self) -> usize {
        LayoutRef::len(self) * A::ELEMENTS
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        out.reserve(Output::len(self));
        for &v in self.iter() {
            v.push_f64(out);
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<A: Scalar, S: Data<Elem = A>, D: Dimension> Output for ArrayBase<S, D> {
    fn format(&self) -> NumberFormat {
        A::FORMAT
    }
    fn len(&self) -> usize {
        Output::len(&**self)
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        (**self).extend_f64(out);
    }
}

#[cfg(test)]
mod tests {
    use ::ndarray::{ArcArray, Array, Array1, Array2, ShapeBuilder, arr2, s};
    use half::f16;

    use super::*;

    use crate::output::widened;

    #[test]
    fn a_matrix_is_read_row_by_row_whatever_its_layout() {
        let rows = arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let by_rows = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(widened(&rows), by_rows);
        // The same matrix stored column by column.
        let mut cols = Array2::<f32>::zeros((2, 3).f());
        cols.assign(&rows);
        assert_eq!(
            cols.as_slice_memory_order().unwrap(),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        assert_eq!(widened(&cols), by_rows);
        // A transposed view: the transpose's rows.
        assert_eq!(widened(&rows.t()), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        // A strided slice, through a view and through `&ArrayRef`.
        let every_other = rows.slice(s![.., ..;2]);
        assert_eq!(widened(&every_other), [1.0, 3.0, 4.0, 6.0]);
        let by_ref: &ArrayRef<f32, _> = &rows;
        assert_eq!(widened(by_ref), by_rows);
        assert_eq!(rows.format(), NumberFormat::F32);
    }

    #[test]
    fn arrays_of_every_dimension_and_ownership() {
        let cube = Array::from_shape_fn((2, 2, 2), |(i, j, k)| {
            f16::from_f32((4 * i + 2 * j + k) as f32)
        });
        assert_eq!(widened(&cube), (0..8).map(f64::from).collect::<Vec<_>>());
        assert_eq!(cube.format(), NumberFormat::F16);
        let shared: ArcArray<f64, _> = Array1::from(vec![0.5, -0.25]).into_shared();
        assert_eq!(widened(&shared), [0.5, -0.25]);
        let dynamic = Array::from_shape_vec(vec![1, 2], vec![7.0f64, 8.0]).unwrap();
        assert_eq!(widened(&dynamic.view()), [7.0, 8.0]);
        let empty = Array2::<f32>::zeros((0, 3));
        assert!(Output::is_empty(&empty));
    }

    #[cfg(feature = "num-complex")]
    #[test]
    fn an_array_of_complex_numbers_interleaves_their_parts() {
        use ::num_complex::Complex;
        let z = arr2(&[[Complex::new(1.0f32, 2.0)], [Complex::new(3.0, 4.0)]]);
        assert_eq!(Output::len(&z), 4);
        assert_eq!(widened(&z.t()), [1.0, 2.0, 3.0, 4.0]);
    }
}
