//! The input of the normalisations, and its random generation.

use dual_delta_runtime::TrialRng;

use crate::element::KernelElement;
use crate::error::GpuError;
use crate::reductions::{RowsInput, assert_shape, noted};

/// The input of the normalisations over the last axis
/// ([`layer_norm_f64`](super::layer_norm_f64),
/// [`rms_norm_f64`](super::rms_norm_f64)): the activations `x`
/// (`rows × len`), an optional elementwise `weight` (γ) and `bias` (β) of
/// length `len`, and `eps`.
///
/// Invariants (checked by [`NormInput::new`]): `weight` and `bias`, where
/// present, hold `len` values; `eps` is finite and `≥ 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct NormInput<E> {
    x: RowsInput<E>,
    weight: Option<Vec<E>>,
    bias: Option<Vec<E>>,
    eps: f64,
}

impl<E: KernelElement> NormInput<E> {
    /// The input from its parts. Fails when `weight` or `bias` does not
    /// hold `x.row_len()` values or `eps` is negative or not finite.
    pub fn new(
        x: RowsInput<E>,
        weight: Option<Vec<E>>,
        bias: Option<Vec<E>>,
        eps: f64,
    ) -> Result<Self, GpuError> {
        for (name, v) in [("weight", &weight), ("bias", &bias)] {
            if let Some(v) = v
                && v.len() != x.row_len()
            {
                return Err(GpuError::InvalidInput(format!(
                    "{name} must hold len = {} values, it holds {}",
                    x.row_len(),
                    v.len()
                )));
            }
        }
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(GpuError::InvalidInput(format!(
                "eps must be finite and at least 0, got {eps}"
            )));
        }
        Ok(Self {
            x,
            weight,
            bias,
            eps,
        })
    }

    /// The activations.
    pub fn x(&self) -> &RowsInput<E> {
        &self.x
    }

    /// The weight γ (length `len`), if any.
    pub fn weight(&self) -> Option<&[E]> {
        self.weight.as_deref()
    }

    /// The bias β (length `len`), if any.
    pub fn bias(&self) -> Option<&[E]> {
        self.bias.as_deref()
    }

    /// The `eps` added to the variance (or mean square).
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// Activations `x` from [`RowsInput::random`]; with `affine`, a weight
    /// `1 + 0.1·z` and a bias `0.1·z` (standard normal `z`, drawn after
    /// `x`, rounded to `E`), else none.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero or `eps` is negative or not finite.
    pub fn random(rows: usize, len: usize, affine: bool, eps: f64, rng: &mut TrialRng) -> Self {
        let x = RowsInput::random(rows, len, rng);
        Self::with_random_affine(x, affine, eps, rng)
    }

    /// Activations with a large offset ([`RowsInput::random_offset`]), and
    /// the weight and bias of [`NormInput::random`].
    ///
    /// # Panics
    ///
    /// As [`RowsInput::random_offset`] and [`NormInput::random`].
    pub fn random_offset(
        rows: usize,
        len: usize,
        offset: f64,
        spread: f64,
        affine: bool,
        eps: f64,
        rng: &mut TrialRng,
    ) -> Self {
        let x = RowsInput::random_offset(rows, len, offset, spread, rng);
        Self::with_random_affine(x, affine, eps, rng)
    }

    fn with_random_affine(x: RowsInput<E>, affine: bool, eps: f64, rng: &mut TrialRng) -> Self {
        let len = x.row_len();
        let (weight, bias) = if affine {
            let mut draw = |shift: f64| -> Vec<E> {
                crate::randn::map(len, rng, |z| E::from_f64(shift + 0.1 * f64::from(z)))
            };
            let w = draw(1.0);
            (Some(w), Some(draw(0.0)))
        } else {
            (None, None)
        };
        Self::new(x, weight, bias, eps).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// A generator of [`NormInput::random`].
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero or `eps` is negative or not
/// finite.
pub fn random_norm_input<E: KernelElement>(
    rows: usize,
    len: usize,
    affine: bool,
    eps: f64,
) -> impl Fn(&mut TrialRng) -> NormInput<E> + Send + Sync + Clone + 'static {
    assert_arguments(rows, len, eps);
    noted("randn", move |rng| {
        NormInput::random(rows, len, affine, eps, rng)
    })
}

/// A generator of [`NormInput::random_offset`]: activations with a large
/// offset, on which one-pass variance fails.
///
/// # Panics
///
/// As [`random_norm_input`].
pub fn random_offset_norm_input<E: KernelElement>(
    rows: usize,
    len: usize,
    offset: f64,
    spread: f64,
    affine: bool,
    eps: f64,
) -> impl Fn(&mut TrialRng) -> NormInput<E> + Send + Sync + Clone + 'static {
    assert_arguments(rows, len, eps);
    noted("offset", move |rng| {
        NormInput::random_offset(rows, len, offset, spread, affine, eps, rng)
    })
}

/// Panics when a dimension is zero or `eps` is negative or not finite.
#[track_caller]
fn assert_arguments(rows: usize, len: usize, eps: f64) {
    assert_shape(rows, len);
    assert!(eps.is_finite() && eps >= 0.0, "eps must be finite and ≥ 0");
}

/// What a failing run's loss is cut by: the activations' shape
/// (`rows`, `len`) and `eps`.
impl<E: KernelElement> dual_delta_runtime::regions::Coordinates for NormInput<E> {
    fn coordinates(&self, sink: &mut dual_delta_runtime::regions::Sink<'_>) {
        dual_delta_runtime::regions::Coordinates::coordinates(&self.x, sink);
        sink.push("eps", self.eps);
    }
}
