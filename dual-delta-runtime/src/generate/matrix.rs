//! Tensors and the generators that give [`Values`] a shape: scalars,
//! vectors, matrices and matrix pairs for matmul-like kernels.

use core::fmt;

use super::{Shape, Values};
use crate::output::{Element, NumberFormat, Output};
use crate::rng::TrialRng;

/// A row-major `rows × cols` matrix.
///
/// It is an [`Output`], so kernels may return it as well as take it.
#[derive(Clone, PartialEq)]
pub struct Matrix<E> {
    rows: usize,
    cols: usize,
    data: Vec<E>,
}

impl<E> Matrix<E> {
    /// A matrix from its row-major values.
    ///
    /// # Panics
    ///
    /// Panics when `data.len() != rows · cols`.
    #[track_caller]
    pub fn new(rows: usize, cols: usize, data: Vec<E>) -> Self {
        assert_eq!(
            Some(data.len()),
            rows.checked_mul(cols),
            "a {rows}×{cols} matrix needs {rows}·{cols} values, got {}",
            data.len()
        );
        Matrix { rows, cols, data }
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The values, row-major.
    pub fn data(&self) -> &[E] {
        &self.data
    }

    /// Row `r`.
    ///
    /// # Panics
    ///
    /// Panics when `r >= rows`.
    #[track_caller]
    pub fn row(&self, r: usize) -> &[E] {
        assert!(r < self.rows, "row {r} of a matrix of {} rows", self.rows);
        &self.data[r * self.cols..(r + 1) * self.cols]
    }

    /// The value at row `r`, column `c`.
    ///
    /// # Panics
    ///
    /// Panics when out of bounds.
    #[track_caller]
    pub fn get(&self, r: usize, c: usize) -> E
    where
        E: Copy,
    {
        assert!(
            r < self.rows && c < self.cols,
            "({r}, {c}) is outside a {}×{} matrix",
            self.rows,
            self.cols
        );
        self.data[r * self.cols + c]
    }

    /// The values, row-major.
    pub fn into_vec(self) -> Vec<E> {
        self.data
    }
}

impl<E: Element> fmt::Debug for Matrix<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Matrix<{}>({}×{}) ", E::FORMAT, self.rows, self.cols)?;
        debug_values(f, &self.data)
    }
}

/// The first eight of `values` as `[1, 0.5, -2, …]`, `…` standing for any
/// more: how tensors show their values in `Debug`.
pub(super) fn debug_values<E: Element>(f: &mut fmt::Formatter<'_>, values: &[E]) -> fmt::Result {
    f.write_str("[")?;
    for (i, v) in values.iter().take(8).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}", v.to_f64())?;
    }
    if values.len() > 8 {
        f.write_str(", …")?;
    }
    f.write_str("]")
}

impl<E: Element> Output for Matrix<E> {
    fn format(&self) -> NumberFormat {
        E::FORMAT
    }
    fn len(&self) -> usize {
        self.data.len()
    }
    fn extend_f64(&self, out: &mut Vec<f64>) {
        self.data.as_slice().extend_f64(out);
    }
}

impl<E> From<Matrix<E>> for Vec<E> {
    fn from(m: Matrix<E>) -> Self {
        m.data
    }
}

/// The two factors of a matrix product `A · B`: `A` is `m × k`, `B` is
/// `k × n`.
#[derive(Clone, PartialEq)]
pub struct MatrixPair<E> {
    a: Matrix<E>,
    b: Matrix<E>,
}

impl<E> MatrixPair<E> {
    /// A pair from its two factors.
    ///
    /// # Panics
    ///
    /// Panics when `a.cols() != b.rows()`.
    #[track_caller]
    pub fn new(a: Matrix<E>, b: Matrix<E>) -> Self {
        assert_eq!(
            a.cols, b.rows,
            "A ({}×{}) and B ({}×{}) do not multiply",
            a.rows, a.cols, b.rows, b.cols
        );
        MatrixPair { a, b }
    }

    /// `A`, `m × k`.
    pub fn a(&self) -> &Matrix<E> {
        &self.a
    }

    /// `B`, `k × n`.
    pub fn b(&self) -> &Matrix<E> {
        &self.b
    }

    /// `(m, k, n)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.a.rows, self.a.cols, self.b.cols)
    }

    /// `(A, B)`.
    pub fn into_parts(self) -> (Matrix<E>, Matrix<E>) {
        (self.a, self.b)
    }
}

impl<E: Element> fmt::Debug for MatrixPair<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatrixPair")
            .field("a", &self.a)
            .field("b", &self.b)
            .finish()
    }
}

/// Vectors of `values`, of a length drawn from `len` per trial (a fixed
/// `usize`, a range, a list: see [`Shape`]). The length is drawn first.
///
/// ```
/// use dual_delta_runtime::generate::{Shape, normal, vector};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let input = vector(Shape::awkward(1024), normal::<f16>(1.0));
/// let x: Vec<f16> = input(&mut TrialRng::for_trial(0, 0));
/// assert!(Shape::awkward(1024).sizes().contains(&x.len()));
/// ```
pub fn vector<E, V: Values<E> + Clone>(
    len: impl Into<Shape>,
    values: V,
) -> impl Fn(&mut TrialRng) -> Vec<E> + Send + Sync + Clone {
    let len: Shape = len.into();
    move |rng: &mut TrialRng| {
        let n = len.draw(rng);
        let x = values.draw(rng, 1, n);
        debug_assert_eq!(x.len(), n);
        x
    }
}

/// Single values.
///
/// ```
/// use dual_delta_runtime::generate::{log_uniform, scalar};
/// use dual_delta_runtime::TrialRng;
///
/// let x: f32 = scalar(log_uniform::<f32>(1e-6, 1e6))(&mut TrialRng::for_trial(0, 0));
/// assert!((1e-6..=1e6).contains(&x.abs()));
/// ```
pub fn scalar<E, V: Values<E> + Clone>(
    values: V,
) -> impl Fn(&mut TrialRng) -> E + Send + Sync + Clone {
    move |rng: &mut TrialRng| {
        values
            .draw(rng, 1, 1)
            .into_iter()
            .next()
            .expect("Values drew no value for a 1×1 shape")
    }
}

/// Matrices of `values`, `rows × cols` drawn per trial (rows first).
///
/// ```
/// use dual_delta_runtime::generate::{matrix, normal};
/// use dual_delta_runtime::TrialRng;
///
/// let input = matrix(1..=4, [3, 5], normal::<f32>(1.0));
/// let m = input(&mut TrialRng::for_trial(0, 0));
/// assert!((1..=4).contains(&m.rows()) && [3, 5].contains(&m.cols()));
/// ```
pub fn matrix<E, V: Values<E> + Clone>(
    rows: impl Into<Shape>,
    cols: impl Into<Shape>,
    values: V,
) -> impl Fn(&mut TrialRng) -> Matrix<E> + Send + Sync + Clone {
    let (rows, cols): (Shape, Shape) = (rows.into(), cols.into());
    move |rng: &mut TrialRng| {
        let r = rows.draw(rng);
        let c = cols.draw(rng);
        Matrix::new(r, c, values.draw(rng, r, c))
    }
}

/// The factors `A` (`m × k`) and `B` (`k × n`) of a matrix product, for
/// matmul-like kernels, both from `values` through [`Values::draw_pair`]
/// (so edge cases can coordinate the two factors). `m`, `k` and `n` are
/// drawn per trial, in that order.
///
/// ```
/// use dual_delta_runtime::generate::{matrix_pair, normal};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// // The paper's second case, `torch.randn(128, 4096).half() @ torch.randn(4096, 128).half()`.
/// let input = matrix_pair(128, 4096, 128, normal::<f16>(1.0));
/// let mut rng = TrialRng::for_trial(0, 0);
/// let pair = input(&mut rng);
/// assert_eq!(pair.shape(), (128, 4096, 128));
/// assert_eq!(rng.input_kind(), "normal");
/// ```
pub fn matrix_pair<E, V: Values<E> + Clone>(
    m: impl Into<Shape>,
    k: impl Into<Shape>,
    n: impl Into<Shape>,
    values: V,
) -> impl Fn(&mut TrialRng) -> MatrixPair<E> + Send + Sync + Clone {
    let (m, k, n): (Shape, Shape, Shape) = (m.into(), k.into(), n.into());
    move |rng: &mut TrialRng| {
        let (m, k, n) = (m.draw(rng), k.draw(rng), n.draw(rng));
        let (a, b) = values.draw_pair(rng, m, k, n);
        MatrixPair::new(Matrix::new(m, k, a), Matrix::new(k, n, b))
    }
}

/// Like [`matrix_pair`], with `A` from `a_values` and `B` from `b_values`
/// drawn independently (their kinds noted in that order).
///
/// ```
/// use dual_delta_runtime::generate::{activations, matrix_pair_from, normal};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let input = matrix_pair_from(32, 256, 64, activations::<f16>(1.0), normal::<f16>(0.05));
/// let mut rng = TrialRng::for_trial(0, 0);
/// assert_eq!(input(&mut rng).shape(), (32, 256, 64));
/// assert_eq!(rng.input_kind(), "activations/normal");
/// ```
pub fn matrix_pair_from<E, VA: Values<E> + Clone, VB: Values<E> + Clone>(
    m: impl Into<Shape>,
    k: impl Into<Shape>,
    n: impl Into<Shape>,
    a_values: VA,
    b_values: VB,
) -> impl Fn(&mut TrialRng) -> MatrixPair<E> + Send + Sync + Clone {
    let (m, k, n): (Shape, Shape, Shape) = (m.into(), k.into(), n.into());
    move |rng: &mut TrialRng| {
        let (m, k, n) = (m.draw(rng), k.draw(rng), n.draw(rng));
        let a = a_values.draw(rng, m, k);
        let b = b_values.draw(rng, k, n);
        MatrixPair::new(Matrix::new(m, k, a), Matrix::new(k, n, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn matrices_are_outputs() {
        let m = Matrix::new(2, 2, vec![f16::ONE, f16::ZERO, f16::NEG_ONE, f16::MAX]);
        assert_eq!(m.format(), NumberFormat::F16);
        let mut out = Vec::new();
        m.extend_f64(&mut out);
        assert_eq!(out, vec![1.0, 0.0, -1.0, 65504.0]);
        assert_eq!(m.row(1), &[f16::NEG_ONE, f16::MAX]);
        assert!(format!("{m:?}").starts_with("Matrix<f16>(2×2) [1, 0, -1, 65504"));
    }

    #[test]
    #[should_panic(expected = "do not multiply")]
    fn pairs_must_multiply() {
        let _ = MatrixPair::new(
            Matrix::new(1, 2, vec![0.0f32; 2]),
            Matrix::new(3, 1, vec![0.0; 3]),
        );
    }
}
