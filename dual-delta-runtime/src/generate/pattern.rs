//! Realistic patterns: sparsity masks, activation-like data with outlier
//! channels, tensors with one large-magnitude row.

use core::marker::PhantomData;

use rand::RngExt;
use rand_distr::StandardNormal;

use super::{Float, Values, check_probability, check_scale, saturate};
use crate::rng::TrialRng;

/// Base values with each one kept with probability `density` and otherwise
/// set to `+0`. Kind `sparse/<base kind>`. Made by [`sparse`].
#[derive(Clone, Debug)]
pub struct Sparse<V> {
    density: f64,
    base: V,
}

/// `base` values under a random sparsity mask: each value is kept with
/// probability `density` (independently), otherwise it is `+0`.
///
/// ```
/// use dual_delta_runtime::generate::{normal, sparse, vector};
/// use dual_delta_runtime::TrialRng;
///
/// let x = vector(10_000, sparse(0.1, normal::<f32>(1.0)))(&mut TrialRng::for_trial(0, 0));
/// let nonzero = x.iter().filter(|v| **v != 0.0).count();
/// assert!((850..=1150).contains(&nonzero));
/// ```
///
/// # Panics
///
/// Panics unless `density` is in `[0, 1]`.
#[track_caller]
pub fn sparse<V>(density: f64, base: V) -> Sparse<V> {
    check_probability("a density", density);
    Sparse { density, base }
}

impl<V> Sparse<V> {
    /// The probability that a value is kept.
    pub fn density(&self) -> f64 {
        self.density
    }

    fn mask<E: Float>(&self, x: &mut [E], rng: &mut TrialRng) {
        for v in x {
            if !rng.random_bool(self.density) {
                *v = E::from_f64(0.0);
            }
        }
    }
}

impl<E: Float, V: Values<E>> Values<E> for Sparse<V> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        rng.note_input_kind("sparse");
        let mut x = self.base.draw(rng, rows, cols);
        self.mask(&mut x, rng);
        x
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        rng.note_input_kind("sparse");
        let (mut a, mut b) = self.base.draw_pair(rng, m, k, n);
        self.mask(&mut a, rng);
        self.mask(&mut b, rng);
        (a, b)
    }
}

/// Activation-like data, rows being tokens and columns channels: normal
/// values of standard deviation `scale`, except in a few *outlier channels*
/// (chosen at random per draw) whose values are `factor` times larger, as
/// in the hidden states of large transformers. Kind `activations`. Made by
/// [`activations`].
pub struct Activations<E> {
    scale: f64,
    outlier_fraction: f64,
    outlier_factor: f64,
    format: PhantomData<fn() -> E>,
}

/// Activation-like data with standard deviation `scale` outside the outlier
/// channels: by default 1% of the channels (at least one) are outliers
/// [`Activations::DEFAULT_OUTLIER_FACTOR`] times larger. Columns are
/// channels: a `tokens × channels` matrix, or a vector of one token.
///
/// For a matrix pair `A · B` ([`Values::draw_pair`]), `A` (`m × k`) holds
/// the activations (`k` channels) and `B` plain normal values of the same
/// `scale` (weights).
///
/// ```
/// use dual_delta_runtime::generate::{activations, matrix};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let hidden = activations::<f16>(1.0).outliers(0.02, 50.0);
/// let x = matrix(64, 512, hidden)(&mut TrialRng::for_trial(0, 0));
/// // 10 channels (2% of 512) hold values about 50 times larger.
/// let big = (0..512)
///     .filter(|&c| (0..64).any(|t| x.get(t, c).to_f64().abs() > 10.0))
///     .count();
/// assert!((10..=12).contains(&big));
/// ```
///
/// # Panics
///
/// Panics when `scale` is negative or not finite.
#[track_caller]
pub fn activations<E: Float>(scale: f64) -> Activations<E> {
    check_scale(scale);
    Activations {
        scale,
        outlier_fraction: Activations::<E>::DEFAULT_OUTLIER_FRACTION,
        outlier_factor: Activations::<E>::DEFAULT_OUTLIER_FACTOR,
        format: PhantomData,
    }
}

impl<E> Activations<E> {
    /// The default fraction of outlier channels: 1%.
    pub const DEFAULT_OUTLIER_FRACTION: f64 = 0.01;
    /// How much larger outlier channels are by default: 20×.
    pub const DEFAULT_OUTLIER_FACTOR: f64 = 20.0;

    /// `fraction` of the channels (rounded, at least one unless `fraction`
    /// is 0) are outliers, `factor` times larger than the others.
    ///
    /// # Panics
    ///
    /// Panics unless `fraction` is in `[0, 1]` and `factor` is positive and
    /// finite.
    #[track_caller]
    pub fn outliers(mut self, fraction: f64, factor: f64) -> Self {
        check_probability("the fraction of outlier channels", fraction);
        assert!(
            factor.is_finite() && factor > 0.0,
            "the outliers' factor must be positive and finite, got {factor}"
        );
        self.outlier_fraction = fraction;
        self.outlier_factor = factor;
        self
    }

    /// The number of outlier channels among `channels`.
    pub fn outlier_count(&self, channels: usize) -> usize {
        if self.outlier_fraction == 0.0 || channels == 0 {
            0
        } else {
            ((self.outlier_fraction * channels as f64).round() as usize).clamp(1, channels)
        }
    }
}

impl<E: Float> Activations<E> {
    fn fill(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        let count = self.outlier_count(cols);
        let mut factor = vec![1.0; cols];
        for c in rand::seq::index::sample(rng, cols, count) {
            factor[c] = self.outlier_factor;
        }
        let mut x = Vec::with_capacity(rows * cols);
        for _ in 0..rows {
            for &f in &factor {
                let z: f64 = rng.sample(StandardNormal);
                x.push(saturate::<E>(self.scale * f * z));
            }
        }
        x
    }
}

impl<E: Float> Values<E> for Activations<E> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        rng.note_input_kind("activations");
        self.fill(rng, rows, cols)
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        rng.note_input_kind("activations");
        let a = self.fill(rng, m, k);
        let b = (0..k * n)
            .map(|_| saturate::<E>(self.scale * rng.sample::<f64, _>(StandardNormal)))
            .collect();
        (a, b)
    }
}

clone_copy_debug!(Activations {
    scale,
    outlier_fraction,
    outlier_factor
});

/// Base values with one row, chosen at random, multiplied by `factor`
/// (saturating at the format's largest finite value). Kind
/// `large_row/<base kind>`. Made by [`large_row`].
#[derive(Clone, Debug)]
pub struct LargeRow<V> {
    factor: f64,
    base: V,
}

/// `base` values with one random row `factor` times larger: a token with a
/// huge norm, a badly scaled equation. For a matrix pair, the row is one of
/// `A`'s.
///
/// ```
/// use dual_delta_runtime::generate::{large_row, matrix, normal};
/// use dual_delta_runtime::TrialRng;
///
/// let x = matrix(8, 32, large_row(1000.0, normal::<f32>(1.0)))(&mut TrialRng::for_trial(0, 0));
/// let big_rows = (0..8).filter(|&r| x.row(r).iter().any(|v| v.abs() > 50.0)).count();
/// assert_eq!(big_rows, 1);
/// ```
///
/// # Panics
///
/// Panics unless `factor` is positive and finite.
#[track_caller]
pub fn large_row<V>(factor: f64, base: V) -> LargeRow<V> {
    assert!(
        factor.is_finite() && factor > 0.0,
        "a row's factor must be positive and finite, got {factor}"
    );
    LargeRow { factor, base }
}

impl<V> LargeRow<V> {
    fn amplify<E: Float>(&self, x: &mut [E], rng: &mut TrialRng, rows: usize, cols: usize) {
        if rows == 0 || cols == 0 {
            return;
        }
        let r = rng.random_range(0..rows);
        for v in &mut x[r * cols..(r + 1) * cols] {
            *v = saturate::<E>(v.to_f64() * self.factor);
        }
    }
}

impl<E: Float, V: Values<E>> Values<E> for LargeRow<V> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        rng.note_input_kind("large_row");
        let mut x = self.base.draw(rng, rows, cols);
        self.amplify(&mut x, rng, rows, cols);
        x
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        rng.note_input_kind("large_row");
        let (mut a, b) = self.base.draw_pair(rng, m, k, n);
        self.amplify(&mut a, rng, m, k);
        (a, b)
    }
}
