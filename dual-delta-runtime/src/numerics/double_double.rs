//! Double-double numbers: the unevaluated sum `hi + lo` of two `f64`s with
//! `|lo| ≤ ulp(hi) / 2`, about 106 significant bits.
//!
//! The type is built on two error-free transformations, exact in IEEE 754
//! binary64 arithmetic with rounding to nearest (absent overflow, and for
//! [`two_prod`] underflow): [`two_sum`] (Knuth) and [`two_prod`] (one fused
//! multiply-add). Additions and the multiplication by an `f64` follow Joldes,
//! Muller and Popescu, *Tight and rigorous error bounds for basic building
//! blocks of double-word arithmetic*, ACM TOMS 44(2), 2017 (JMP17), with
//! `u = 2⁻⁵³`:
//!
//! * [`DoubleDouble::add_f64`] has a relative error of at most `2u²`;
//!   [`DoubleDouble::add_dd`] at most `3u²/(1 − 4u)`;
//! * [`DoubleDouble::mul_f64`] at most `2u²`.
//!
//! The oracles' sums, dot products and matrix products accumulate in it
//! (`oracle::sum`, `oracle::dot`, `oracle::matmul`). The crate-internal operations after those
//! (products and quotients of two double-doubles, `floor`, `frexp`,
//! `ldexp`) are the ones Cephes takes from the QD library for Smirnov's
//! distribution, with QD's algorithms, so that the Kolmogorov-Smirnov
//! p-values round as SciPy's do.

use core::ops::{Add, AddAssign, Neg};

use super::{frexp, ldexp};

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

    /// The exact product `a · b`, split by [`two_prod`] (absent underflow).
    #[inline]
    pub(crate) fn exact_product(a: f64, b: f64) -> Self {
        let (hi, lo) = two_prod(a, b);
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

impl Neg for DoubleDouble {
    type Output = DoubleDouble;
    #[inline]
    fn neg(self) -> DoubleDouble {
        DoubleDouble {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

/// The QD library's operations, as Cephes uses them for Smirnov's
/// distribution (`stats::ks`).
impl DoubleDouble {
    /// `self - y`, as `self + (-y)`.
    pub(crate) fn sub_dd(self, y: DoubleDouble) -> Self {
        self.add_dd(-y)
    }

    /// `self · y` (QD's `dd_mul`: the product of the leading parts split by
    /// [`two_prod`], the cross terms added in `f64`).
    pub(crate) fn mul_dd(self, y: DoubleDouble) -> Self {
        let (p1, p2) = two_prod(self.hi, y.hi);
        let p2 = p2 + (self.hi * y.lo + self.lo * y.hi);
        let (hi, lo) = fast_two_sum(p1, p2);
        DoubleDouble { hi, lo }
    }

    /// `self · x` as Cephes computes it (`dd_mul_d_d`: both parts split by
    /// [`two_prod`]). It rounds differently from [`DoubleDouble::mul_f64`]
    /// when the trailing part is not zero, and is kept for Smirnov's
    /// distribution to round as SciPy's.
    pub(crate) fn mul_f64_cephes(self, x: f64) -> Self {
        let (p1, e1) = two_prod(self.hi, x);
        let (p2, e2) = two_prod(self.lo, x);
        let (hi, lo) = fast_two_sum(p1, e2 + p2 + e1);
        DoubleDouble { hi, lo }
    }

    /// `self / y` (QD's accurate division: three quotient digits).
    pub(crate) fn div_dd(self, y: DoubleDouble) -> Self {
        let q1 = self.hi / y.hi;
        let rem = self.sub_dd(y.mul_f64_cephes(q1));
        let q2 = rem.hi / y.hi;
        let rem = rem.sub_dd(y.mul_f64_cephes(q2));
        let q3 = rem.hi / y.hi;
        let (hi, lo) = fast_two_sum(q1, q2);
        DoubleDouble { hi, lo }.add_f64(q3)
    }

    /// `self / x`.
    pub(crate) fn div_f64(self, x: f64) -> Self {
        self.div_dd(DoubleDouble::from(x))
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(self) -> bool {
        self.hi == 0.0 && self.lo == 0.0
    }

    /// The largest integer not above the value.
    pub(crate) fn floor(self) -> Self {
        let hi = self.hi.floor();
        if hi == self.hi {
            let (hi, lo) = fast_two_sum(hi, self.lo.floor());
            DoubleDouble { hi, lo }
        } else {
            DoubleDouble { hi, lo: 0.0 }
        }
    }

    /// `self · 2^e`, both parts scaled by C's `ldexp`.
    pub(crate) fn ldexp(self, e: i32) -> Self {
        DoubleDouble {
            hi: ldexp(self.hi, e),
            lo: ldexp(self.lo, e),
        }
    }

    /// `(m, e)` with `self = m · 2^e` and `0.5 ≤ |m| < 1` (QD's `frexp`).
    pub(crate) fn frexp(self) -> (Self, i32) {
        let (mut man, mut exponent) = frexp(self.hi);
        let mut b1 = ldexp(self.lo, -exponent);
        if man.abs() == 0.5 && man * b1 < 0.0 {
            man *= 2.0;
            b1 *= 2.0;
            exponent -= 1;
        }
        (DoubleDouble { hi: man, lo: b1 }, exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
