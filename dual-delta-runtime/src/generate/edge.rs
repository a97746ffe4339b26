//! Edge cases: signed zeros, subnormals, the largest finite values, values
//! near powers of two, sums and products that overflow the format, long runs
//! of nearly cancelling terms, constant rows.

use core::fmt;
use core::marker::PhantomData;

use rand::RngExt;

use super::{Float, MixValues, Values, check_probability, exp2i, exponent, mix_values, saturate};
use crate::output::NumberFormat;
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
    /// `2·max ≤ |x·y| ≤ 4·max`. Accumulated in a wider format the products
    /// cancel; in the format itself the first one is already infinite.
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
}

impl EdgeKind {
    /// Every kind, in the order documented.
    pub const ALL: [EdgeKind; 8] = [
        EdgeKind::Zero,
        EdgeKind::Subnormal,
        EdgeKind::MaxFinite,
        EdgeKind::PowerOfTwo,
        EdgeKind::OverflowSum,
        EdgeKind::OverflowProduct,
        EdgeKind::Cancelling,
        EdgeKind::ConstantRows,
    ];

    /// The kind's name, as noted after `edge/`: `zero`, `subnormal`,
    /// `max_finite`, `power_of_two`, `overflow_sum`, `overflow_product`,
    /// `cancelling`, `constant_rows`.
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

/// Replaces each value with probability `rate` (at least one, when there
/// are values and the rate is positive) by `make(rng, old)`.
fn scatter<E: Copy>(
    x: &mut [E],
    rate: f64,
    rng: &mut TrialRng,
    mut make: impl FnMut(&mut TrialRng, E) -> E,
) {
    if x.is_empty() || rate <= 0.0 {
        return;
    }
    let mut replaced = false;
    for v in x.iter_mut() {
        if rng.random_bool(rate) {
            *v = make(rng, *v);
            replaced = true;
        }
    }
    if !replaced {
        let i = rng.random_range(0..x.len());
        x[i] = make(rng, x[i]);
    }
}

fn scatter_kind<E: Float>(kind: EdgeKind, x: &mut [E], rate: f64, rng: &mut TrialRng) {
    let format = E::FORMAT;
    match kind {
        EdgeKind::Zero => scatter(x, rate, rng, |rng, _| random_sign(rng, 0.0)),
        EdgeKind::Subnormal => scatter(x, rate, rng, |rng, _| {
            let p = format.mantissa_bits();
            let j = rng.random_range(1..(1u64 << p));
            random_sign(rng, j as f64 * exp2i(format.min_exponent() - p as i32))
        }),
        EdgeKind::MaxFinite => scatter(x, rate, rng, |rng, _| {
            let max = format.max_finite();
            let below = rng.random_range(0..4u32);
            random_sign(rng, max - f64::from(below) * format.ulp(max))
        }),
        EdgeKind::PowerOfTwo => scatter(x, rate, rng, |rng, v| {
            let v = v.to_f64();
            let sign = if v == 0.0 {
                if rng.random() { 1.0 } else { -1.0 }
            } else {
                v.signum()
            };
            E::from_f64(sign * near_power_of_two(rng, format, v))
        }),
        EdgeKind::OverflowProduct => scatter(x, rate, rng, |rng, _| overflowing_value(rng, format)),
        // Row kinds are handled by the callers.
        EdgeKind::OverflowSum | EdgeKind::Cancelling | EdgeKind::ConstantRows => {}
    }
}

fn random_sign<E: Float>(rng: &mut TrialRng, magnitude: f64) -> E {
    if rng.random() {
        E::from_f64(magnitude)
    } else {
        E::from_f64(-magnitude)
    }
}

/// A power of two near `|v|`, moved by up to two units in the last place
/// either way (the spacing below a power of two is half that above).
fn near_power_of_two(rng: &mut TrialRng, format: NumberFormat, v: f64) -> f64 {
    let p = format.mantissa_bits() as i32;
    let emax = exponent(format.max_finite());
    let e = if v == 0.0 || !v.is_finite() {
        0
    } else {
        v.abs().log2().round() as i32
    };
    let e = e.clamp(format.min_exponent() + 1, emax - 1);
    let step = rng.random_range(-2i32..=2);
    let spacing = if step >= 0 {
        exp2i(e - p)
    } else {
        exp2i(e - p - 1)
    };
    exp2i(e) + f64::from(step) * spacing
}

/// A value of random sign and magnitude log-uniform in
/// `[√(2·max), √(4·max)]`: the product of two of them is between 2× and 4×
/// the largest finite value.
fn overflowing_value<E: Float>(rng: &mut TrialRng, format: NumberFormat) -> E {
    let max = format.max_finite();
    let (lo, hi) = ((2.0 * max).sqrt().log2(), (4.0 * max).sqrt().log2());
    let u: f64 = rng.random();
    random_sign(rng, (lo + (hi - lo) * u).exp2())
}

/// `x` moved by `-1`, `0` or `+1` unit in the last place of its format.
fn nudge<E: Float>(rng: &mut TrialRng, x: f64) -> E {
    let step = f64::from(rng.random_range(-1i32..=1));
    E::from_f64(x + step * E::FORMAT.ulp(x))
}

/// `u` uniform in `[1, 1.25)`.
fn jitter(rng: &mut TrialRng) -> f64 {
    1.0 + 0.25 * rng.random::<f64>()
}

/// A row whose running sum overflows and whose total stays small.
fn overflow_sum_row<E: Float>(row: &mut [E], rng: &mut TrialRng) {
    let c = row.len();
    if c == 0 {
        return;
    }
    let format = E::FORMAT;
    let max = format.max_finite();
    let sign = if rng.random() { 1.0 } else { -1.0 };
    let h = c.div_ceil(2);
    let f = log_uniform(rng, 1.5, 4.0);
    let magnitude = (max * f / h as f64).min(max / 2.0);
    for v in row[..h].iter_mut() {
        *v = saturate::<E>(sign * magnitude * jitter(rng));
    }
    let mut order: Vec<usize> = (0..h).collect();
    shuffle(&mut order, rng);
    for (i, &j) in (h..c).zip(&order) {
        row[i] = nudge::<E>(rng, -row[j].to_f64());
    }
}

/// An ill-conditioned row: the base values made one sign, then their
/// nudged negations in shuffled order.
fn cancelling_row<E: Float>(row: &mut [E], rng: &mut TrialRng) {
    let c = row.len();
    let h = c / 2;
    let sign = if rng.random() { 1.0 } else { -1.0 };
    for v in row[..h].iter_mut() {
        *v = E::from_f64(sign * v.to_f64().abs());
    }
    let mut order: Vec<usize> = (0..h).collect();
    shuffle(&mut order, rng);
    for (i, &j) in order.iter().enumerate() {
        row[h + i] = nudge::<E>(rng, -row[j].to_f64());
    }
    if c % 2 == 1 && h > 0 {
        row[c - 1] = leftover::<E>(&row[..h], sign);
    }
}

/// The odd value out of a cancelling row: the smallest magnitude of the
/// first run scaled by 2^-p, so that it is below any perturbation's scale.
fn leftover<E: Float>(run: &[E], sign: f64) -> E {
    let smallest = run
        .iter()
        .map(|v| v.to_f64().abs())
        .fold(f64::INFINITY, f64::min);
    E::from_f64(sign * smallest * exp2i(-(E::FORMAT.mantissa_bits() as i32)))
}

fn constant_rows<E: Copy>(x: &mut [E], cols: usize) {
    if cols == 0 {
        return;
    }
    for row in x.chunks_mut(cols) {
        let first = row[0];
        row.fill(first);
    }
}

/// `A` with ill-conditioned rows, `B` with its first half of rows made
/// positive and repeated as its second half.
fn cancelling_pair<E: Float>(
    a: &mut [E],
    b: &mut [E],
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) {
    let h = k / 2;
    for p in 0..h {
        for j in 0..n {
            let v = E::from_f64(b[p * n + j].to_f64().abs());
            b[p * n + j] = v;
            b[(h + p) * n + j] = v;
        }
    }
    if k % 2 == 1 {
        for v in &mut b[(k - 1) * n..] {
            *v = E::from_f64(v.to_f64().abs());
        }
    }
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        let sign = if rng.random() { 1.0 } else { -1.0 };
        for p in 0..h {
            let x = sign * row[p].to_f64().abs();
            row[p] = E::from_f64(x);
            row[h + p] = nudge::<E>(rng, -x);
        }
        if k % 2 == 1 && h > 0 {
            row[k - 1] = leftover::<E>(&row[..h], sign);
        }
    }
}

/// Dot products whose running sums overflow the format: products below a
/// quarter of the largest finite value, a first run of them summing to 2×
/// to 8× it, then their nudged negations.
fn overflow_sum_pair<E: Float>(
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) -> (Vec<E>, Vec<E>) {
    let max = E::FORMAT.max_finite();
    let h = k / 2;
    let f = log_uniform(rng, 2.0, 8.0);
    // (1.25 s)² ≤ max / 4.
    let s = (f * max / h.max(1) as f64).sqrt().min(max.sqrt() / 2.5);
    let tiny = exp2i(-(E::FORMAT.mantissa_bits() as i32));
    let mut b = vec![E::from_f64(0.0); k * n];
    for p in 0..h {
        for j in 0..n {
            let v = saturate::<E>(s * jitter(rng));
            b[p * n + j] = v;
            b[(h + p) * n + j] = v;
        }
    }
    if k % 2 == 1 {
        for j in 0..n {
            b[(k - 1) * n + j] = saturate::<E>(s * jitter(rng));
        }
    }
    let mut a = vec![E::from_f64(0.0); m * k];
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        let sign = if rng.random() { 1.0 } else { -1.0 };
        for p in 0..h {
            let x = saturate::<E>(sign * s * jitter(rng));
            row[p] = x;
            row[h + p] = nudge::<E>(rng, -x.to_f64());
        }
        if k % 2 == 1 {
            row[k - 1] = saturate::<E>(sign * s * jitter(rng) * tiny);
        }
    }
    (a, b)
}

/// Dot products of adjacent, cancelling products that each overflow the
/// format.
fn overflow_product_pair<E: Float>(
    rng: &mut TrialRng,
    m: usize,
    k: usize,
    n: usize,
) -> (Vec<E>, Vec<E>) {
    let format = E::FORMAT;
    let mut b = vec![E::from_f64(0.0); k * n];
    for q in 0..k / 2 {
        for j in 0..n {
            let y: E = overflowing_value(rng, format);
            b[2 * q * n + j] = y;
            b[(2 * q + 1) * n + j] = y;
        }
    }
    if k % 2 == 1 {
        for j in 0..n {
            b[(k - 1) * n + j] = overflowing_value(rng, format);
        }
    }
    let mut a = vec![E::from_f64(0.0); m * k];
    for r in 0..m {
        let row = &mut a[r * k..(r + 1) * k];
        for q in 0..k / 2 {
            let x: E = overflowing_value(rng, format);
            row[2 * q] = x;
            row[2 * q + 1] = nudge::<E>(rng, -x.to_f64());
        }
        if k % 2 == 1 {
            row[k - 1] = {
                let u = jitter(rng);
                random_sign(rng, u)
            };
        }
    }
    (a, b)
}

fn log_uniform(rng: &mut TrialRng, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    (lo.ln() + (hi.ln() - lo.ln()) * u).exp()
}

/// Fisher–Yates, drawing from the trial's generator.
fn shuffle<T>(x: &mut [T], rng: &mut TrialRng) {
    for i in (1..x.len()).rev() {
        let j = rng.random_range(0..=i);
        x.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::normal;
    use half::{bf16, f16};

    fn running_max<E: Float>(row: &[E]) -> (f64, f64) {
        let (mut s, mut peak) = (0.0f64, 0.0f64);
        for v in row {
            s += v.to_f64();
            peak = peak.max(s.abs());
        }
        (peak, s)
    }

    #[test]
    fn overflow_sum_rows_overflow_on_the_way_only() {
        let mut rng = TrialRng::for_trial(5, 0);
        for c in [4usize, 5, 6, 9, 64, 1001] {
            let mut row = vec![f16::ZERO; c];
            overflow_sum_row(&mut row, &mut rng);
            let (peak, total) = running_max(&row);
            assert!(peak > 65504.0, "c={c} peak={peak}");
            assert!(total.abs() <= 65504.0 * 0.7, "c={c} total={total}");
            assert!(row.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn near_powers_of_two_are_close_to_one() {
        let mut rng = TrialRng::for_trial(5, 1);
        for _ in 0..100 {
            let v = near_power_of_two(&mut rng, NumberFormat::Bf16, 3.0);
            assert_eq!(bf16::from_f64(v).to_f64(), v, "{v} not representable");
            assert!((v / 4.0 - 1.0).abs() <= 2.0 * 2f64.powi(-7), "{v}");
        }
    }

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
