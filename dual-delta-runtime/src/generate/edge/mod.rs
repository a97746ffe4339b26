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

mod kind;
mod rows;
mod values;

use core::fmt;
use core::marker::PhantomData;

use rand::RngExt;

pub use self::kind::EdgeKind;
use self::rows::{
    cancelling_pair, cancelling_row, constant_rows, overflow_product_pair, overflow_sum_pair,
    overflow_sum_row,
};
use self::values::{overflowing_value, scatter, scatter_kind};
use super::{Float, MixValues, Values, check_probability, mix_values};
use crate::rng::TrialRng;

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
    /// One of [`Edges::kinds`], each equally likely.
    fn pick(&self, rng: &mut TrialRng) -> EdgeKind {
        if self.kinds.len() == 1 {
            self.kinds[0]
        } else {
            self.kinds[rng.random_range(0..self.kinds.len())]
        }
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
        note(kind, rng);
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
        note(kind, rng);
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

/// Notes `edge/<kind>`.
fn note(kind: EdgeKind, rng: &mut TrialRng) {
    rng.note_input_kind("edge");
    rng.note_input_kind(kind.name());
}

impl<E: Float, V: Values<E>> Values<E> for Edges<E, V> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        self.draw_kind(self.pick(rng), rng, rows, cols)
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        self.draw_pair_kind(self.pick(rng), rng, m, k, n)
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
