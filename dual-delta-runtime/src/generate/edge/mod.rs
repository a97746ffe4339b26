//! Edge cases: signed zeros, subnormals, the largest finite values, values
//! near powers of two, sums and products that overflow the format, long runs
//! of nearly cancelling terms, constant rows, the smallest normal values.
//!
//! Every value made is a finite value of the format: values that would
//! overflow it are saturated to its largest finite value. Overflow happens
//! only in what the implementations compute from them (products, running
//! sums): there, a plain cast to the format gives `±∞` in `f16`, `bf16`,
//! `f32` and `E5m2`, and NaN in `E4m3`, which has no infinities (see
//! [`crate::fp8`]).
//!
//! The kinds and the [`Edges`] values are here; `values` makes the
//! scattered edge-case values, `rows` the rows and factor pairs whose dot
//! products overflow or cancel.

mod rows;
mod values;

use core::fmt;
use core::marker::PhantomData;

use rand::RngExt;

use self::rows::{
    cancelling_pair, cancelling_row, constant_rows, overflow_product_pair, overflow_sum_pair,
    overflow_sum_row,
};
use self::values::{overflowing_value, scatter, scatter_kind};
use super::{Float, MixValues, Values, check_probability, mix_values};
use crate::rng::TrialRng;

/// A kind of edge case. Each is noted as `edge/<name>`.
///
/// "Scattered" kinds replace a fraction of the base values (the [`Edges`]
/// rate, at least one value per tensor); the others shape whole rows. For a
/// matrix pair `A · B` ([`Values::draw_pair`]) the row kinds are
/// coordinated across the two factors so that they act on the dot products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Scattered `+0` and `-0`.
    Zero,
    /// Scattered subnormals of the format (random sign and significand).
    Subnormal,
    /// Scattered `±` the largest finite value or one of the three values
    /// below it.
    MaxFinite,
    /// Base values moved to the nearest power of two and then up to two
    /// units in the last place either way (scattered): where a binade, and so
    /// the spacing of the format, changes.
    PowerOfTwo,
    /// Rows whose running sums overflow the format while their totals stay
    /// small: a run of large values of one sign, then their negations
    /// (each perturbed by at most one unit in the last place) in shuffled
    /// order. For rows of at least 4 values the running sum exceeds the
    /// largest finite value (by at least 1.5× from 6 values on).
    ///
    /// For a pair, dot products whose running sums overflow: `A`'s rows are
    /// such runs, `B`'s second half of rows repeats its first half (all
    /// positive), each product stays below a quarter of the largest finite
    /// value and the running sum of the products exceeds it (by at least
    /// about 2× for `k ≥ 26`, by a factor drawn from 2× to 8× for
    /// `k ≥ 100`), while every result stays small.
    OverflowSum,
    /// Scattered values of magnitude at least `2·√max`, so that the product
    /// of any two overflows the format.
    ///
    /// For a pair, dot products of adjacent products that overflow the
    /// format and cancel: `A[r, 2q] = x`, `A[r, 2q+1] ≈ -x` (within one
    /// unit in the last place), `B[2q, j] = B[2q+1, j] = y`, with
    /// `2·max ≤ |x·y| ≤ 4·max` (and `A[r, 2q+1] = -x` exactly where
    /// `√(k/2) > 2^(p-4)`, `p` the mantissa bits: there, as in the FP8
    /// formats, the perturbed products would not cancel to a small result).
    /// Accumulated in a wider format the products
    /// cancel; in the format itself the first one is already infinite (NaN
    /// in `E4m3`).
    OverflowProduct,
    /// Ill-conditioned rows: the base values, made one sign, then their
    /// negations (each perturbed by at most one unit in the last place) in
    /// shuffled order, so the running sum climbs and falls back to almost
    /// nothing (an odd last value is the smallest magnitude of the run
    /// scaled by 2^-p, `p` the format's significand bits).
    ///
    /// For a pair, ill-conditioned dot products: the same structure in
    /// `A`'s rows, `B`'s second half of rows repeating its first half (made
    /// positive), so every product of the first run is cancelled by one of
    /// the second.
    Cancelling,
    /// Every row constant (its first base value repeated). For a pair, `A`'s
    /// rows are constant and `B` is the base values.
    ConstantRows,
    /// Scattered `±` the smallest normal value, the normal value just above
    /// it or the largest subnormal just below it: where the spacing of the
    /// format stops being uniform.
    MinNormal,
}

impl EdgeKind {
    /// Every kind, in the order documented.
    pub const ALL: [EdgeKind; 9] = [
        EdgeKind::Zero,
        EdgeKind::Subnormal,
        EdgeKind::MaxFinite,
        EdgeKind::PowerOfTwo,
        EdgeKind::OverflowSum,
        EdgeKind::OverflowProduct,
        EdgeKind::Cancelling,
        EdgeKind::ConstantRows,
        EdgeKind::MinNormal,
    ];

    /// The kind's name, as noted after `edge/`: `zero`, `subnormal`,
    /// `max_finite`, `power_of_two`, `overflow_sum`, `overflow_product`,
    /// `cancelling`, `constant_rows`, `min_normal`.
    pub const fn name(self) -> &'static str {
        match self {
            EdgeKind::Zero => "zero",
            EdgeKind::Subnormal => "subnormal",
            EdgeKind::MaxFinite => "max_finite",
            EdgeKind::PowerOfTwo => "power_of_two",
            EdgeKind::OverflowSum => "overflow_sum",
            EdgeKind::OverflowProduct => "overflow_product",
            EdgeKind::Cancelling => "cancelling",
            EdgeKind::ConstantRows => "constant_rows",
            EdgeKind::MinNormal => "min_normal",
        }
    }

    /// Whether the kind replaces a fraction of the base values (the others
    /// shape whole rows).
    pub const fn is_scattered(self) -> bool {
        matches!(
            self,
            EdgeKind::Zero
                | EdgeKind::Subnormal
                | EdgeKind::MaxFinite
                | EdgeKind::PowerOfTwo
                | EdgeKind::OverflowProduct
                | EdgeKind::MinNormal
        )
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Edge-case values built on base values: every draw picks one of its
/// kinds uniformly, notes `edge/<kind>` (followed by the base's kind where
/// base values are used) and makes a tensor of that kind. Made by [`edges`].
pub struct Edges<E, V> {
    base: V,
    kinds: Vec<EdgeKind>,
    rate: f64,
    format: PhantomData<fn() -> E>,
}

/// Edge cases of every [`EdgeKind`] built on `base`, with scattered kinds
/// replacing [`Edges::DEFAULT_RATE`] of the values.
///
/// ```
/// use dual_delta_runtime::generate::{EdgeKind, edges, normal, vector};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let subnormals = edges(normal::<f16>(1.0)).kinds([EdgeKind::Subnormal]).rate(0.5);
/// let mut rng = TrialRng::for_trial(0, 0);
/// let x = vector(1000, subnormals)(&mut rng);
/// assert_eq!(rng.input_kind(), "edge/subnormal/normal");
/// assert!(x.iter().any(|v| v.is_finite() && !v.is_normal() && v.to_f64() != 0.0));
/// ```
pub fn edges<E: Float, V: Values<E>>(base: V) -> Edges<E, V> {
    Edges {
        base,
        kinds: EdgeKind::ALL.to_vec(),
        rate: Edges::<E, V>::DEFAULT_RATE,
        format: PhantomData,
    }
}

/// `base` values, replaced by an edge case ([`edges`] of every kind) with
/// probability `p` per draw: `mix_values(p, edges(base.clone()), base)`.
///
/// ```
/// use dual_delta_runtime::generate::{normal, vector, with_edges};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let input = vector(256, with_edges(0.05, normal::<f16>(1.0)));
/// let edge_trials = (0..1000)
///     .filter(|&i| {
///         let mut rng = TrialRng::for_trial(1, i);
///         input(&mut rng);
///         rng.input_kind().starts_with("edge/")
///     })
///     .count();
/// assert!((20..=80).contains(&edge_trials));
/// ```
///
/// # Panics
///
/// Panics unless `p` is in `[0, 1]`.
#[track_caller]
pub fn with_edges<E: Float, V: Values<E> + Clone>(p: f64, base: V) -> MixValues<Edges<E, V>, V> {
    check_probability("the probability of an edge case", p);
    mix_values(p, edges(base.clone()), base)
}

impl<E, V> Edges<E, V> {
    /// The fraction of values a scattered kind replaces by default: 1/8.
    pub const DEFAULT_RATE: f64 = 0.125;

    /// Only these kinds (each equally likely).
    ///
    /// # Panics
    ///
    /// Panics when `kinds` is empty.
    #[track_caller]
    pub fn kinds(mut self, kinds: impl IntoIterator<Item = EdgeKind>) -> Self {
        let mut kinds: Vec<EdgeKind> = kinds.into_iter().collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert!(!kinds.is_empty(), "edge cases need at least one kind");
        self.kinds = kinds;
        self
    }

    /// The fraction of values a scattered kind replaces, each value
    /// independently with this probability (at least one value per tensor
    /// is replaced).
    ///
    /// # Panics
    ///
    /// Panics unless `rate` is in `[0, 1]`.
    #[track_caller]
    pub fn rate(mut self, rate: f64) -> Self {
        check_probability("the rate of edge values", rate);
        self.rate = rate;
        self
    }

    /// The kinds drawn from.
    pub fn kind_list(&self) -> &[EdgeKind] {
        &self.kinds
    }
}

impl<E: Float, V: Values<E>> Edges<E, V> {
    fn pick(&self, rng: &mut TrialRng) -> EdgeKind {
        let kind = if self.kinds.len() == 1 {
            self.kinds[0]
        } else {
            self.kinds[rng.random_range(0..self.kinds.len())]
        };
        rng.note_input_kind("edge");
        rng.note_input_kind(kind.name());
        kind
    }

    /// A `rows × cols` tensor of edge case `kind` (noted as `edge/<kind>`),
    /// whether or not `kind` is among [`Edges::kinds`].
    pub fn draw_kind(
        &self,
        kind: EdgeKind,
        rng: &mut TrialRng,
        rows: usize,
        cols: usize,
    ) -> Vec<E> {
        rng.note_input_kind("edge");
        rng.note_input_kind(kind.name());
        self.tensor(kind, rng, rows, cols)
    }

    /// The factors `A` (`m × k`) and `B` (`k × n`) of edge case `kind`
    /// (noted as `edge/<kind>`), whether or not `kind` is among
    /// [`Edges::kinds`].
    pub fn draw_pair_kind(
        &self,
        kind: EdgeKind,
        rng: &mut TrialRng,
        m: usize,
        k: usize,
        n: usize,
    ) -> (Vec<E>, Vec<E>) {
        rng.note_input_kind("edge");
        rng.note_input_kind(kind.name());
        self.pair(kind, rng, m, k, n)
    }

    fn tensor(&self, kind: EdgeKind, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        let format = E::FORMAT;
        match kind {
            EdgeKind::OverflowSum => {
                let mut x = vec![E::from_f64(0.0); rows * cols];
                for row in x.chunks_mut(cols.max(1)) {
                    overflow_sum_row(row, rng);
                }
                x
            }
            EdgeKind::OverflowProduct => {
                let mut x = self.base.draw(rng, rows, cols);
                scatter(&mut x, self.rate, rng, |rng, _| {
                    overflowing_value(rng, format)
                });
                x
            }
            EdgeKind::Cancelling => {
                let mut x = self.base.draw(rng, rows, cols);
                for row in x.chunks_mut(cols.max(1)) {
                    cancelling_row(row, rng);
                }
                x
            }
            EdgeKind::ConstantRows => {
                let mut x = self.base.draw(rng, rows, cols);
                constant_rows(&mut x, cols);
                x
            }
            scattered => {
                let mut x = self.base.draw(rng, rows, cols);
                scatter_kind(scattered, &mut x, self.rate, rng);
                x
            }
        }
    }

    fn pair(
        &self,
        kind: EdgeKind,
        rng: &mut TrialRng,
        m: usize,
        k: usize,
        n: usize,
    ) -> (Vec<E>, Vec<E>) {
        match kind {
            EdgeKind::OverflowSum => overflow_sum_pair(rng, m, k, n),
            EdgeKind::OverflowProduct => overflow_product_pair(rng, m, k, n),
            EdgeKind::Cancelling => {
                let (mut a, mut b) = self.base.draw_pair(rng, m, k, n);
                cancelling_pair(&mut a, &mut b, rng, m, k, n);
                (a, b)
            }
            EdgeKind::ConstantRows => {
                let (mut a, b) = self.base.draw_pair(rng, m, k, n);
                constant_rows(&mut a, k);
                (a, b)
            }
            scattered => {
                let (mut a, mut b) = self.base.draw_pair(rng, m, k, n);
                scatter_kind(scattered, &mut a, self.rate, rng);
                scatter_kind(scattered, &mut b, self.rate, rng);
                (a, b)
            }
        }
    }
}

impl<E: Float, V: Values<E>> Values<E> for Edges<E, V> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        let kind = self.pick(rng);
        self.tensor(kind, rng, rows, cols)
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        let kind = self.pick(rng);
        self.pair(kind, rng, m, k, n)
    }
}

impl<E, V: Clone> Clone for Edges<E, V> {
    fn clone(&self) -> Self {
        Edges {
            base: self.base.clone(),
            kinds: self.kinds.clone(),
            rate: self.rate,
            format: PhantomData,
        }
    }
}

impl<E: Float, V: fmt::Debug> fmt::Debug for Edges<E, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Edges")
            .field("format", &E::FORMAT)
            .field("kinds", &self.kinds)
            .field("rate", &self.rate)
            .field("base", &self.base)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::normal;
    use half::f16;

    #[test]
    fn pair_kinds_have_the_right_shapes() {
        let e = edges(normal::<f16>(1.0));
        for kind in EdgeKind::ALL {
            for (m, k, n) in [(1, 1, 1), (2, 3, 4), (3, 8, 2)] {
                let mut rng = TrialRng::for_trial(2, 0);
                let (a, b) = e.draw_pair_kind(kind, &mut rng, m, k, n);
                assert_eq!((a.len(), b.len()), (m * k, k * n), "{kind}");
                assert!(a.iter().chain(&b).all(|v| v.is_finite()), "{kind}");
                assert!(rng.input_kind().starts_with(&format!("edge/{kind}")));
            }
        }
    }
}
