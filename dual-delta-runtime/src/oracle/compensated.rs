//! Double-double arithmetic and accurately rounded sums, dot products and
//! matrix products.
//!
//! A [`DoubleDouble`] is an unevaluated sum `hi + lo` of two `f64`s with
//! `|lo| ≤ ulp(hi) / 2`: about 106 significant bits. It is built on two
//! error-free transformations, exact in IEEE 754 binary64 arithmetic with
//! rounding to nearest (absent overflow, and for [`two_prod`] underflow):
//! [`two_sum`] (Knuth) and [`two_prod`] (one fused multiply-add). The
//! algorithms and error bounds are those of Joldes, Muller and Popescu,
//! *Tight and rigorous error bounds for basic building blocks of double-word
//! arithmetic*, ACM TOMS 44(2), 2017.
//!
//! With `u = 2⁻⁵³`:
//!
//! * [`DoubleDouble::add_f64`] has a relative error of at most `2u²`;
//!   [`DoubleDouble::add`] at most `3u²/(1 − 4u)`.
//! * [`sum`], [`dot`] and [`matmul`] accumulate in double-double. For `k`
//!   terms `tᵢ` the accumulated value is within `3k·u²·Σ|tᵢ|` of the exact
//!   sum, and rounding it to `f64` adds at most `u·|exact|`: the result is
//!   the exact value correctly rounded, give or take one unit in the last
//!   place, unless the terms cancel by a factor beyond about `2⁵⁰/k`.
//!
//! Products of two `f16`, `bf16` or `f32` values are exact in `f64` (at most
//! 48 significant bits, exponents well inside `f64`'s range), so for those
//! formats [`matmul`] adds exact products and skips [`two_prod`].
//!
//! The crate implements these few algorithms itself rather than depending on
//! a multiple-precision library: they are short, have published error
//! bounds, run at a few nanoseconds per term, and need no C library (MPFR).

use core::ops::{Add, AddAssign};

use crate::output::{Element, NumberFormat};

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (Knuth's
/// TwoSum; no condition on the magnitudes).
///
/// ```
/// use dual_delta_runtime::oracle::two_sum;
///
/// let (s, e) = two_sum(1.0, 1e-20);
/// assert_eq!((s, e), (1.0, 1e-20));
/// ```
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b`, when `|a| ≥ |b|` or
/// `a = 0` (Dekker's FastTwoSum).
#[inline]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// `(p, e)` with `p = fl(a · b)` and `p + e = a · b` exactly, unless the
/// product underflows (through one fused multiply-add, `f64::mul_add`).
///
/// ```
/// use dual_delta_runtime::oracle::two_prod;
///
/// let x = 1.0 + f64::EPSILON;
/// let (p, e) = two_prod(x, x);
/// assert_eq!((p, e), (1.0 + 2.0 * f64::EPSILON, f64::EPSILON * f64::EPSILON));
/// ```
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

/// A double-double number: the unevaluated sum `hi + lo`, `|lo| ≤
/// ulp(hi)/2`, about 106 significant bits.
///
/// ```
/// use dual_delta_runtime::oracle::DoubleDouble;
///
/// // 1 + 2⁻⁸⁰ - 1: lost in f64, kept in double-double.
/// let x = DoubleDouble::from(1.0) + 2f64.powi(-80) + (-1.0);
/// assert_eq!(x.to_f64(), 2f64.powi(-80));
/// assert_eq!(1.0 + 2f64.powi(-80) - 1.0, 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DoubleDouble {
    hi: f64,
    lo: f64,
}

impl DoubleDouble {
    /// Zero.
    pub const ZERO: DoubleDouble = DoubleDouble { hi: 0.0, lo: 0.0 };

    /// `hi + lo`, normalised.
    pub fn new(hi: f64, lo: f64) -> Self {
        let (hi, lo) = two_sum(hi, lo);
        DoubleDouble { hi, lo }
    }

    /// The leading part: the value rounded to `f64`.
    pub fn hi(self) -> f64 {
        self.hi
    }

    /// The trailing part.
    pub fn lo(self) -> f64 {
        self.lo
    }

    /// The value rounded to the nearest `f64` (the leading part).
    pub fn to_f64(self) -> f64 {
        self.hi
    }

    /// `self + x`, relative error at most `2u²` (`u = 2⁻⁵³`; JMP17
    /// Algorithm 4, DWPlusFP).
    #[inline]
    pub fn add_f64(self, x: f64) -> Self {
        let (s, e) = two_sum(self.hi, x);
        let (hi, lo) = fast_two_sum(s, e + self.lo);
        DoubleDouble { hi, lo }
    }

    /// `self + y`, relative error at most `3u²/(1 − 4u)` (JMP17 Algorithm
    /// 6, AccurateDWPlusDW).
    #[inline]
    pub fn add_dd(self, y: DoubleDouble) -> Self {
        let (s, t) = two_sum(self.hi, y.hi);
        let (u, v) = two_sum(self.lo, y.lo);
        let (s, t) = fast_two_sum(s, t + u);
        let (hi, lo) = fast_two_sum(s, t + v);
        DoubleDouble { hi, lo }
    }

    /// `self · x`, relative error at most `2u²` (JMP17 Algorithm 9,
    /// DWTimesFP3).
    #[inline]
    pub fn mul_f64(self, x: f64) -> Self {
        let (ch, cl1) = two_prod(self.hi, x);
        let cl3 = self.lo.mul_add(x, cl1);
        let (hi, lo) = fast_two_sum(ch, cl3);
        DoubleDouble { hi, lo }
    }

    /// Whether both parts are finite.
    pub fn is_finite(self) -> bool {
        self.hi.is_finite() && self.lo.is_finite()
    }
}

impl From<f64> for DoubleDouble {
    fn from(x: f64) -> Self {
        DoubleDouble { hi: x, lo: 0.0 }
    }
}

impl Add<f64> for DoubleDouble {
    type Output = DoubleDouble;
    #[inline]
    fn add(self, x: f64) -> DoubleDouble {
        self.add_f64(x)
    }
}

impl Add for DoubleDouble {
    type Output = DoubleDouble;
    #[inline]
    fn add(self, y: DoubleDouble) -> DoubleDouble {
        self.add_dd(y)
    }
}

impl AddAssign<f64> for DoubleDouble {
    #[inline]
    fn add_assign(&mut self, x: f64) {
        *self = self.add_f64(x);
    }
}

impl AddAssign for DoubleDouble {
    #[inline]
    fn add_assign(&mut self, y: DoubleDouble) {
        *self = self.add_dd(y);
    }
}

/// The sum of `values` in double-double: within `2k·u²·Σ|xᵢ|` of the exact
/// sum of `k` values.
///
/// ```
/// use dual_delta_runtime::oracle::sum;
///
/// let x = [1e16, 1.0, -1e16, 1.0];
/// assert_eq!(sum(x).to_f64(), 2.0);
/// assert_eq!(x.iter().sum::<f64>(), 1.0); // naive: one of the ones is lost
/// ```
pub fn sum(values: impl IntoIterator<Item = f64>) -> DoubleDouble {
    values
        .into_iter()
        .fold(DoubleDouble::ZERO, DoubleDouble::add_f64)
}

/// The dot product `Σ aᵢ·bᵢ` in double-double (every product split exactly
/// by [`two_prod`]): within `3k·u²·Σ|aᵢ·bᵢ|` of the exact value for `k`
/// terms, absent underflow.
///
/// # Panics
///
/// Panics when the lengths differ.
///
/// ```
/// use dual_delta_runtime::oracle::dot;
///
/// let a = [1e8, 1.0, -1e8];
/// let b = [1e8, 1e-9, 1e8];
/// assert_eq!(dot(&a, &b).to_f64(), 1e-9);
/// ```
#[track_caller]
pub fn dot(a: &[f64], b: &[f64]) -> DoubleDouble {
    assert_eq!(
        a.len(),
        b.len(),
        "a dot product of vectors of unequal lengths"
    );
    a.iter().zip(b).fold(DoubleDouble::ZERO, |acc, (&x, &y)| {
        let (p, e) = two_prod(x, y);
        acc.add_dd(DoubleDouble { hi: p, lo: e })
    })
}

/// `C = A · B` for row-major `A` (`m × k`) and `B` (`k × n`), every element
/// accumulated in double-double and rounded once to `f64`: within
/// `u·|c| + 3k·u²·Σₚ|aᵢₚ·bₚⱼ|` of the exact value `c` (`u = 2⁻⁵³`), that
/// is, correctly rounded give or take one unit in the last place unless the
/// products cancel by a factor beyond about `2⁵⁰/k`.
///
/// For `f16`, `bf16` and `f32` elements the products are exact in `f64` and
/// added as they are; for `f64` elements each is split by [`two_prod`].
///
/// # Panics
///
/// Panics when `a.len() != m·k` or `b.len() != k·n`.
///
/// ```
/// use dual_delta_runtime::oracle::matmul;
/// use half::f16;
///
/// let h = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
/// // [1 2] · [3]   = [11]
/// //         [4]
/// assert_eq!(matmul(&h(&[1.0, 2.0]), &h(&[3.0, 4.0]), 1, 2, 1), vec![11.0]);
/// ```
#[track_caller]
pub fn matmul<E: Element>(a: &[E], b: &[E], m: usize, k: usize, n: usize) -> Vec<f64> {
    assert_eq!(a.len(), m * k, "A must hold m·k = {m}·{k} values");
    assert_eq!(b.len(), k * n, "B must hold k·n = {k}·{n} values");
    let b: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
    let exact_products = E::FORMAT != NumberFormat::F64;
    let mut c = Vec::with_capacity(m * n);
    let mut acc = vec![DoubleDouble::ZERO; n];
    for i in 0..m {
        acc.fill(DoubleDouble::ZERO);
        for (p, x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = x.to_f64();
            let row = &b[p * n..(p + 1) * n];
            if exact_products {
                for (s, &y) in acc.iter_mut().zip(row) {
                    *s = s.add_f64(x * y);
                }
            } else {
                for (s, &y) in acc.iter_mut().zip(row) {
                    let (hi, lo) = two_prod(x, y);
                    *s = s.add_dd(DoubleDouble { hi, lo });
                }
            }
        }
        c.extend(acc.iter().map(|s| s.to_f64()));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn error_free_transformations_are_exact() {
        let tiny = 2f64.powi(-60);
        assert_eq!(two_sum(1.0, tiny), (1.0, tiny));
        assert_eq!(two_sum(tiny, 1.0), (1.0, tiny));
        // 0.1 + 0.2 = 0.30000000000000004 - 2^-55 exactly.
        assert_eq!(two_sum(0.1, 0.2), (0.30000000000000004, -(2f64.powi(-55))));
        let (p, e) = two_prod(0.1, 0.3);
        assert_eq!(p, 0.1 * 0.3);
        assert_eq!(e, 0.1f64.mul_add(0.3, -p));
    }

    #[test]
    fn double_double_keeps_what_f64_loses() {
        let tiny = 2f64.powi(-70);
        let x = DoubleDouble::from(1.0) + tiny;
        assert_eq!((x.hi(), x.lo()), (1.0, tiny));
        let y = x + DoubleDouble::from(-1.0);
        assert_eq!(y.to_f64(), tiny);
        let z = x.mul_f64(3.0);
        assert_eq!((z.hi(), z.lo()), (3.0, 3.0 * tiny));
    }

    #[test]
    fn matmul_is_exact_on_cancelling_f16_products() {
        // 1000·1000 + 0.5·0.5 - 1000·1000 in one dot product: f64 keeps it,
        // and so must the reference; with 2^-24 terms it must too.
        let h = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
        let a = h(&[1000.0, 0.5, -1000.0, 2f64.powi(-24)]);
        let b = h(&[1000.0, 0.5, 1000.0, 2f64.powi(-24)]);
        let c = matmul(&a, &b, 1, 4, 1);
        assert_eq!(c, vec![0.25 + 2f64.powi(-48)]);
        // f64 elements take the two_prod path.
        let a64 = [1.0 + f64::EPSILON, -1.0];
        let b64 = [1.0 + f64::EPSILON, 1.0 + 2.0 * f64::EPSILON];
        assert_eq!(
            matmul(&a64, &b64, 1, 2, 1),
            vec![f64::EPSILON * f64::EPSILON]
        );
    }
}
