//! The kinds of edge case.

use core::fmt;

/// A kind of edge case. Each is noted as `edge/<name>`.
///
/// "Scattered" kinds replace a fraction of the base values (the [`Edges`](super::Edges)
/// rate, at least one value per tensor); the others shape whole rows. For a
/// matrix pair `A · B` ([`Values::draw_pair`](crate::generate::Values::draw_pair)) the row kinds are
/// coordinated across the two factors so that they act on the dot products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
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
