//! Double-double arithmetic: a value held as the unevaluated sum `hi + lo`
//! of two `f64`s, with about 106 bits of precision, for sums whose
//! cancellation one `f64` cannot survive (Pitman-Morgan's `1 - r²`).
//!
//! The algorithms are the classical error-free transformations (Knuth's
//! two-sum, the fused multiply-add product) as in Hida, Li and Bailey's QD
//! library; each operation is accurate to a few units of `2^-104`.

use core::ops::{Add, Mul, Neg, Sub};

/// `hi + lo`, with `|lo| ≤ ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    /// The value `x`, exactly.
    pub(super) const fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// The nearest `f64`.
    pub(super) fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    /// `self / b`.
    pub(super) fn div_f64(self, b: f64) -> Dd {
        let q1 = self.hi / b;
        // self - q1 b, with q1 b = p + e exactly.
        let p = q1 * b;
        let e = q1.mul_add(b, -p);
        let r = two_sum(self.hi, -p);
        let q2 = (r.hi + (r.lo - e + self.lo)) / b;
        quick_two_sum(q1, q2)
    }
}

/// `a + b` exactly, for any `a`, `b`.
fn two_sum(a: f64, b: f64) -> Dd {
    let hi = a + b;
    let bb = hi - a;
    Dd {
        hi,
        lo: (a - (hi - bb)) + (b - bb),
    }
}

/// `a + b` exactly, for `|a| ≥ |b|`.
fn quick_two_sum(a: f64, b: f64) -> Dd {
    let hi = a + b;
    Dd {
        hi,
        lo: b - (hi - a),
    }
}

impl Add for Dd {
    type Output = Dd;

    fn add(self, o: Dd) -> Dd {
        let s = two_sum(self.hi, o.hi);
        let t = two_sum(self.lo, o.lo);
        let s = quick_two_sum(s.hi, s.lo + t.hi);
        quick_two_sum(s.hi, s.lo + t.lo)
    }
}

impl Neg for Dd {
    type Output = Dd;

    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl Sub for Dd {
    type Output = Dd;

    fn sub(self, o: Dd) -> Dd {
        self + -o
    }
}

impl Mul for Dd {
    type Output = Dd;

    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        quick_two_sum(p, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_one_f64_loses() {
        // (1 + 2^-60) - 1 = 2^-60, which f64 rounds away.
        let tiny = 2f64.powi(-60);
        let x = Dd::new(1.0) + Dd::new(tiny);
        assert_eq!((x - Dd::new(1.0)).to_f64(), tiny);
        // (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60.
        let y = Dd::new(1.0 + 2f64.powi(-30));
        assert_eq!((y * y - Dd::new(1.0)).to_f64(), 2f64.powi(-29) + tiny);
        // 1/3 · 3 = 1 to 2^-104.
        let third = Dd::new(1.0).div_f64(3.0);
        let err = (third * Dd::new(3.0) - Dd::new(1.0)).to_f64();
        assert!(err.abs() < 2f64.powi(-104), "{err}");
        // A mean of equal values is exact.
        let sum = (0..7).fold(Dd::default(), |s, _| s + Dd::new(0.1));
        assert_eq!(sum.div_f64(7.0), Dd::new(0.1));
    }
}
