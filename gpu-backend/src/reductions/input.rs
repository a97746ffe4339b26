//! Inputs of the row-wise references (reductions, softmax, normalisations)
//! and their random generation.

use dual_delta_runtime::TrialRng;
use rand::RngExt;

use crate::element::KernelElement;
use crate::error::GpuError;

/// A `rows × len` tensor, row-major: the input of the reductions
/// ([`sum_f64`](super::sum_f64), [`mean_f64`](super::mean_f64)) and of
/// softmax, each computed over the last axis (one result, or one row of
/// results, per row).
///
/// Invariants (checked by [`RowsInput::new`]): `rows ≥ 1`, `len ≥ 1` and
/// `data.len() == rows · len`.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsInput<E> {
    rows: usize,
    len: usize,
    data: Vec<E>,
}

impl<E: KernelElement> RowsInput<E> {
    /// A tensor from its shape and its values (row-major).
    ///
    /// Fails when a dimension is zero or `data` does not hold `rows · len`
    /// values.
    pub fn new(rows: usize, len: usize, data: Vec<E>) -> Result<Self, GpuError> {
        check_len("data", rows, len, data.len())?;
        Ok(Self { rows, len, data })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The length of every row (the last axis).
    pub fn row_len(&self) -> usize {
        self.len
    }

    /// `(rows, len)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.len)
    }

    /// The values, row-major.
    pub fn data(&self) -> &[E] {
        &self.data
    }

    /// The values, row by row.
    pub fn row_iter(&self) -> impl ExactSizeIterator<Item = &[E]> + '_ {
        self.data.chunks_exact(self.len)
    }

    /// `rows × len` values of `torch.randn(rows, len)` rounded to `E`:
    /// standard normal `f32` samples rounded to nearest, row-major.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    pub fn random(rows: usize, len: usize, rng: &mut TrialRng) -> Self {
        assert_shape(rows, len);
        let data = randn(rows * len, rng);
        Self { rows, len, data }
    }

    /// Activations with a large offset: `offset + spread · z` for standard
    /// normal `z`, computed in `f64` and rounded once to `E`. With
    /// `|offset| ≫ spread` this is the input on which the one-pass variance
    /// `E[x²] − E[x]²` cancels catastrophically.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero or a value overflows `E`.
    pub fn random_offset(
        rows: usize,
        len: usize,
        offset: f64,
        spread: f64,
        rng: &mut TrialRng,
    ) -> Self {
        assert_shape(rows, len);
        let data = crate::randn::map(rows * len, rng, |z| {
            finite(E::from_f64(offset + spread * f64::from(z)))
        });
        Self { rows, len, data }
    }

    /// Logits with outliers: [`RowsInput::random`], then in every row
    /// `count` positions drawn uniformly (with replacement) set to
    /// `±magnitude` (random sign) rounded to `E`. With a large `magnitude`
    /// (say `100` in `f32`, `20` in `f16`) a softmax that skips the max
    /// subtraction overflows.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero or `magnitude` overflows `E`.
    pub fn random_with_outliers(
        rows: usize,
        len: usize,
        count: usize,
        magnitude: f64,
        rng: &mut TrialRng,
    ) -> Self {
        let mut x = Self::random(rows, len, rng);
        let big = finite(E::from_f64(magnitude.abs()));
        let neg = E::from_f64(-magnitude.abs());
        for row in x.data.chunks_exact_mut(len) {
            for _ in 0..count {
                let j = rng.random_range(0..len);
                row[j] = if rng.random_bool(0.5) { big } else { neg };
            }
        }
        x
    }
}

/// Two `rows × len` tensors, row-major: the input of the row-wise dot
/// products [`dot_f64`](super::dot_f64) (`Σⱼ aᵢⱼ bᵢⱼ` for each row `i`).
///
/// Invariants (checked by [`DotInput::new`]): `rows ≥ 1`, `len ≥ 1`,
/// `a.len() == b.len() == rows · len`.
#[derive(Clone, Debug, PartialEq)]
pub struct DotInput<E> {
    rows: usize,
    len: usize,
    a: Vec<E>,
    b: Vec<E>,
}

impl<E: KernelElement> DotInput<E> {
    /// The pair from its shape and values (row-major). Fails when a
    /// dimension is zero or a tensor does not hold `rows · len` values.
    pub fn new(rows: usize, len: usize, a: Vec<E>, b: Vec<E>) -> Result<Self, GpuError> {
        check_len("a", rows, len, a.len())?;
        check_len("b", rows, len, b.len())?;
        Ok(Self { rows, len, a, b })
    }

    /// The number of rows (of results).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The length of every dot product.
    pub fn row_len(&self) -> usize {
        self.len
    }

    /// The left operand, row-major.
    pub fn a(&self) -> &[E] {
        &self.a
    }

    /// The right operand, row-major.
    pub fn b(&self) -> &[E] {
        &self.b
    }

    /// The rows of `a` and `b`, paired.
    pub fn row_pairs(&self) -> impl ExactSizeIterator<Item = (&[E], &[E])> + '_ {
        self.a
            .chunks_exact(self.len)
            .zip(self.b.chunks_exact(self.len))
    }

    /// `torch.randn` values rounded to `E`: `a` first, then `b`.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    pub fn random(rows: usize, len: usize, rng: &mut TrialRng) -> Self {
        assert_shape(rows, len);
        let a = randn(rows * len, rng);
        let b = randn(rows * len, rng);
        Self { rows, len, a, b }
    }
}

/// Checks that `name` holds `rows · len` values, both at least 1.
fn check_len(name: &str, rows: usize, len: usize, got: usize) -> Result<(), GpuError> {
    if rows == 0 || len == 0 {
        return Err(GpuError::InvalidInput(format!(
            "every dimension must be at least 1, got rows={rows}, len={len}"
        )));
    }
    match rows.checked_mul(len) {
        Some(want) if want == got => Ok(()),
        Some(want) => Err(GpuError::InvalidInput(format!(
            "{name} must hold rows·len = {rows}·{len} = {want} values, it holds {got}"
        ))),
        None => Err(GpuError::InvalidInput(format!(
            "shape rows={rows}, len={len} overflows"
        ))),
    }
}

/// `n` standard normal `f32` samples ([`crate::randn`]) rounded to `E`,
/// in order.
pub(crate) fn randn<E: KernelElement>(n: usize, rng: &mut TrialRng) -> Vec<E> {
    crate::randn::map(n, rng, E::from_f32)
}

#[track_caller]
pub(crate) fn assert_shape(rows: usize, len: usize) {
    assert!(
        rows > 0 && len > 0,
        "every dimension must be at least 1, got rows={rows}, len={len}"
    );
}

#[track_caller]
pub(crate) fn finite<E: KernelElement>(v: E) -> E {
    assert!(
        v.to_f64().is_finite(),
        "a generated value overflows {}",
        E::FORMAT
    );
    v
}

/// The shape a failing run's loss is cut by: `rows` and `len`, the length
/// of every row.
impl<E: KernelElement> dual_delta_runtime::regions::Coordinates for RowsInput<E> {
    fn coordinates(&self, sink: &mut dual_delta_runtime::regions::Sink<'_>) {
        sink.push("rows", self.rows as f64);
        sink.push("len", self.len as f64);
    }
}

/// The shape a failing run's loss is cut by: `rows` and `len`, the length
/// of every dot product.
impl<E: KernelElement> dual_delta_runtime::regions::Coordinates for DotInput<E> {
    fn coordinates(&self, sink: &mut dual_delta_runtime::regions::Sink<'_>) {
        sink.push("rows", self.rows as f64);
        sink.push("len", self.len as f64);
    }
}
