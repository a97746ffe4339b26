//! Input generators: distributions, edge cases, realistic patterns, shapes
//! and combinators, all drawn from the trial's [`TrialRng`].
//!
//! Random inputs alone rarely hit the inputs that cause the worst errors
//! (the paper, §3.2.1): signed zeros, subnormals, values at the edge of the
//! format's range, sums that overflow on the way, long runs of nearly
//! cancelling terms. This module makes ordinary inputs and those rare ones,
//! and says which is which: every generator notes the kind of input it made
//! with [`TrialRng::note_input_kind`], and the harness records it for each
//! trial ([`Outcome::input_kinds`](crate::outcome::Outcome::input_kinds)), so the worst
//! trials of a run can be traced to their kind of input.
//!
//! # Two layers
//!
//! * **Values** ([`Values`]) say what a tensor holds, for a shape given when
//!   drawing: the distributions ([`normal`], [`uniform`], [`log_uniform`],
//!   [`student_t`]), the edge cases ([`edges`], [`with_edges`]), the patterns
//!   ([`sparse`], [`activations`], [`large_row`]) and [`mix_values`]. They
//!   are plain structs with builder methods, generic over the target format
//!   `E` (`f16`, `bf16`, `f32`, `f64`, and the FP8 formats
//!   [`E4m3`] and [`E5m2`]), and every value they
//!   make is already
//!   rounded to `E`, so the oracle sees exactly the values the
//!   implementations see.
//! * **Input generators** are what [`DualDelta`](crate::DualDelta) and
//!   `#[dual_delta_test(input = ...)]` take: values implementing
//!   `Fn(&mut TrialRng) -> T + Send + Sync + Clone`. [`vector`], [`matrix`],
//!   [`matrix_pair`] and [`scalar`] give Values a [`Shape`] (fixed, or drawn
//!   per trial from a list or a range); [`mix`], [`map`], [`zip`] and
//!   [`named`] combine generators. Stable Rust cannot implement `Fn` for a
//!   struct, so these builders return closures (`impl Fn`); any closure of
//!   the same signature is a generator too.
//!
//! ```
//! use dual_delta_runtime::generate::{self, Shape};
//! use dual_delta_runtime::TrialRng;
//! use half::f16;
//!
//! // f16 vectors of 1 to 4096 elements (sizes drawn per trial), standard
//! // normal, with an edge case instead in 10% of the trials.
//! let input = generate::vector(
//!     Shape::range(1..=4096),
//!     generate::with_edges(0.1, generate::normal::<f16>(1.0)),
//! );
//! let mut rng = TrialRng::for_trial(7, 0);
//! let x: Vec<f16> = input(&mut rng);
//! assert!((1..=4096).contains(&x.len()));
//! // `normal`, or `edge/subnormal`, `edge/overflow_sum`, ...
//! assert!(!rng.input_kind().is_empty());
//! ```
//!
//! For matmul-like kernels, [`matrix_pair`] draws `A` (`m × k`) and `B`
//! (`k × n`) together, so that edge cases can be coordinated across the two
//! factors (dot products that cancel, or whose running sums overflow):
//!
//! ```
//! use dual_delta_runtime::generate::{self, EdgeKind};
//! use dual_delta_runtime::TrialRng;
//! use half::f16;
//!
//! let input = generate::matrix_pair(
//!     16, 128, 16,
//!     generate::edges(generate::normal::<f16>(1.0)).kinds([EdgeKind::OverflowSum]),
//! );
//! let mut rng = TrialRng::for_trial(1, 0);
//! let pair = input(&mut rng);
//! assert_eq!(pair.shape(), (16, 128, 16));
//! assert_eq!(rng.input_kind(), "edge/overflow_sum");
//! ```
//!
//! # FP8 inputs
//!
//! Every Values works for the FP8 formats as for the others
//! (`normal::<E4m3>(1.0)`: values rounded to E4M3, saturating at ±448).
//! FP8 GEMMs take their inputs scaled per tensor instead, so that the
//! largest magnitude uses the top of the format's range: [`scaled`]
//! quantizes a tensor to FP8 data and an `f32` scale ([`Scaled`]),
//! [`scaled_matrix_pair`] draws both factors of a product that way
//! ([`ScaledPair`]), and [`map`] makes a generator of scaled vectors:
//!
//! ```
//! use dual_delta_runtime::generate::{Scaled, map, normal, scaled, vector};
//! use dual_delta_runtime::{E4m3, TrialRng};
//!
//! let input = map(vector(256, normal::<f32>(1e-3)), |x| scaled::<E4m3>(&x));
//! let x: Scaled<E4m3> = input(&mut TrialRng::for_trial(0, 0));
//! assert!(x.data().iter().any(|v| v.to_f64().abs() == 448.0));
//! ```
//!
//! # Reproducibility
//!
//! Every random choice, shapes included, is drawn from the trial's
//! [`TrialRng`], so a trial seed replays its input exactly.
//!
//! # Input kinds
//!
//! Kinds are paths joined with `/` (see [`TrialRng::note_input_kind`]):
//! `normal`, `sparse/normal`, `edge/cancelling`, `large_row/student_t`. A
//! combinator adds nothing of its own where the branch it took noted a
//! kind. A built-in Values notes its kind once for a whole
//! [`matrix_pair`]; a user closure used as Values notes whatever it notes,
//! once for `A` and once for `B`.

/// `Clone` and `Copy` whatever `E` is, and `Debug` (the format, then the
/// fields listed), for Values of plain parameters, generic over the format
/// `E` they draw only through a marker.
macro_rules! clone_copy_debug {
    ($name:ident { $($field:ident),* }) => {
        impl<E> Clone for $name<E> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<E> Copy for $name<E> {}

        impl<E: $crate::generate::Float> core::fmt::Debug for $name<E> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("format", &E::FORMAT)
                    $(.field(stringify!($field), &self.$field))*
                    .finish()
            }
        }
    };
}

mod combinator;
mod distribution;
mod edge;
mod matrix;
mod pattern;
mod scaled;
mod shape;

use half::{bf16, f16};

use crate::fp8::{E4m3, E5m2};
use crate::output::Element;
use crate::rng::TrialRng;

pub use self::combinator::{MixValues, map, mix, mix_values, named, zip};
pub use self::distribution::{
    LogUniform, Normal, StudentT, Uniform, log_uniform, normal, student_t, uniform,
};
pub use self::edge::{EdgeKind, Edges, edges, with_edges};
pub use self::matrix::{Matrix, MatrixPair, matrix, matrix_pair, matrix_pair_from, scalar, vector};
pub use self::pattern::{Activations, LargeRow, Sparse, activations, large_row, sparse};
pub use self::scaled::{Scaled, ScaledPair, scaled, scaled_matrix_pair};
pub use self::shape::Shape;
pub use crate::rng::{seed_from_name, trial_seed};

/// A floating-point format that generators can round values to.
///
/// Implemented for `f16`, `bf16`, `f32`, `f64`, [`E4m3`] and [`E5m2`].
pub trait Float: Element {
    /// The nearest value of this format to `x` (ties to even): the plain
    /// cast. Values out of range become infinities, as in IEEE 754, or NaN
    /// in [`E4m3`], which has no infinities (see [`crate::E4m3`]); the
    /// generators never ask for those (they saturate first, as the
    /// `satfinite` casts of FP8 kernels do).
    fn from_f64(x: f64) -> Self;
}

/// The narrow formats, which round from `f64` themselves.
macro_rules! narrow_floats {
    ($($t:ident),*) => {$(
        impl Float for $t {
            #[inline]
            fn from_f64(x: f64) -> Self {
                $t::from_f64(x)
            }
        }
    )*};
}

narrow_floats!(E4m3, E5m2, f16, bf16);

impl Float for f32 {
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Float for f64 {
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// What a tensor holds: `rows × cols` values of format `E`, row-major, for a
/// shape given when drawing.
///
/// Implementations note the kind of values they made with
/// [`TrialRng::note_input_kind`]. Any closure
/// `Fn(&mut TrialRng, usize, usize) -> Vec<E> + Send + Sync` is a `Values`:
///
/// ```
/// use dual_delta_runtime::generate::{self, Values};
/// use dual_delta_runtime::TrialRng;
///
/// // Rows that count up: 0, 1, 2, ...
/// let ramp = |rng: &mut TrialRng, rows: usize, cols: usize| {
///     rng.note_input_kind("ramp");
///     (0..rows * cols).map(|i| (i % cols) as f32).collect::<Vec<f32>>()
/// };
/// let x = generate::vector(4, ramp)(&mut TrialRng::for_trial(0, 0));
/// assert_eq!(x, vec![0.0, 1.0, 2.0, 3.0]);
/// ```
pub trait Values<E>: Send + Sync {
    /// `rows × cols` values, row-major.
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E>;

    /// The two factors of a product `A · B`: `A` (`m × k`) and `B`
    /// (`k × n`), both row-major.
    ///
    /// By default `A` and then `B` are drawn with [`Values::draw`]; edge
    /// cases override it to coordinate the two (dot products that cancel, or
    /// whose running sums overflow), and the built-in Values to note their
    /// kind once for the pair.
    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        let a = self.draw(rng, m, k);
        let b = self.draw(rng, k, n);
        (a, b)
    }
}

impl<E, F> Values<E> for F
where
    F: Fn(&mut TrialRng, usize, usize) -> Vec<E> + Send + Sync,
{
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        self(rng, rows, cols)
    }
}

/// `x` rounded to `E`, saturating: magnitudes beyond the largest finite
/// value give the largest finite value, never an infinity or (in `E4m3`) a
/// NaN.
#[inline]
pub(crate) fn saturate<E: Float>(x: f64) -> E {
    let max = E::FORMAT.max_finite();
    E::from_f64(x.clamp(-max, max))
}

/// Panics unless `scale` is finite and non-negative.
#[track_caller]
pub(crate) fn check_scale(scale: f64) {
    assert!(
        scale.is_finite() && scale >= 0.0,
        "a scale must be finite and non-negative, got {scale}"
    );
}

/// Panics unless `p` is a probability.
#[track_caller]
pub(crate) fn check_probability(what: &str, p: f64) {
    assert!(
        (0.0..=1.0).contains(&p),
        "{what} must be a probability in [0, 1], got {p}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation_keeps_values_finite() {
        assert_eq!(saturate::<f16>(1e9), f16::MAX);
        assert_eq!(saturate::<f16>(-1e9), f16::MIN);
        assert_eq!(saturate::<bf16>(1e300), bf16::MAX);
        assert_eq!(saturate::<f32>(1e300), f32::MAX);
        assert_eq!(saturate::<f16>(0.5), f16::from_f32(0.5));
    }
}
