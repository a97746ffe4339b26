//! Input generators for dual-delta tests: each call draws a fresh input
//! from the trial's generator.

use dual_delta_runtime::TrialRng;

use super::input::{assert_shape, finite};
use super::{DotInput, RowsInput};
use crate::element::KernelElement;

/// A generator of [`RowsInput::random`] (`torch.randn(rows, len)` rounded
/// to `E`). Long rows (`len` in the tens of thousands) are the case where
/// summation order and accumulation precision show.
///
/// ```
/// use dual_delta_runtime::TrialRng;
/// use dual_delta_gpu::reductions::random_rows;
///
/// let x = random_rows::<f32>(2, 3)(&mut TrialRng::for_trial(1, 0));
/// assert_eq!(x.shape(), (2, 3));
/// ```
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_rows<E: KernelElement>(
    rows: usize,
    len: usize,
) -> impl Fn(&mut TrialRng) -> RowsInput<E> + Send + Sync + Clone + 'static {
    assert_shape(rows, len);
    noted("randn", move |rng| RowsInput::random(rows, len, rng))
}

/// A generator of [`RowsInput::random_offset`]: activations
/// `offset + spread · z`.
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_offset_rows<E: KernelElement>(
    rows: usize,
    len: usize,
    offset: f64,
    spread: f64,
) -> impl Fn(&mut TrialRng) -> RowsInput<E> + Send + Sync + Clone + 'static {
    assert_shape(rows, len);
    noted("offset", move |rng| {
        RowsInput::random_offset(rows, len, offset, spread, rng)
    })
}

/// A generator of [`RowsInput::random_with_outliers`]: `torch.randn`
/// logits with `count` entries per row set to `±magnitude`.
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero or `magnitude` overflows
/// `E`.
pub fn random_outlier_rows<E: KernelElement>(
    rows: usize,
    len: usize,
    count: usize,
    magnitude: f64,
) -> impl Fn(&mut TrialRng) -> RowsInput<E> + Send + Sync + Clone + 'static {
    assert_shape(rows, len);
    finite(E::from_f64(magnitude));
    noted("outliers", move |rng| {
        RowsInput::random_with_outliers(rows, len, count, magnitude, rng)
    })
}

/// A generator of [`DotInput::random`].
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_dot_input<E: KernelElement>(
    rows: usize,
    len: usize,
) -> impl Fn(&mut TrialRng) -> DotInput<E> + Send + Sync + Clone + 'static {
    assert_shape(rows, len);
    move |rng: &mut TrialRng| DotInput::random(rows, len, rng)
}

/// `generate`, noting `kind` as the kind of every input it draws.
pub(crate) fn noted<T>(
    kind: &'static str,
    generate: impl Fn(&mut TrialRng) -> T + Send + Sync + Clone + 'static,
) -> impl Fn(&mut TrialRng) -> T + Send + Sync + Clone + 'static {
    move |rng: &mut TrialRng| {
        rng.note_input_kind(kind);
        generate(rng)
    }
}
