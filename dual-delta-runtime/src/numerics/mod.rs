//! Floating-point building blocks shared by the oracles and the statistics:
//! double-double arithmetic, exact powers of two and exponents, and C's
//! `ldexp` and `frexp` with their exact rounding.

pub(crate) mod double_double;

/// `2^e`, exact for every `e` in `[-1074, 1023]` (clamped outside it: `0`
/// below, `2^1023` above).
pub(crate) fn exp2i(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e.min(1023) + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074).max(0))
    }
}

/// `floor(log2 |x|)` for a finite non-zero `x`, exact (subnormals
/// included).
pub(crate) fn exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        let mant = bits & ((1u64 << 52) - 1);
        (63 - mant.leading_zeros() as i32) - 1074
    } else {
        biased - 1023
    }
}

/// C's `ldexp` (musl's `scalbn`): `x · 2^e` with a single rounding.
pub(crate) fn ldexp(x: f64, e: i32) -> f64 {
    let mut y = x;
    let mut n = e;
    let p1023 = f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
    let pm969 = f64::from_bits(0x0360_0000_0000_0000); // 2^-1022 · 2^53
    if n > 1023 {
        y *= p1023;
        n -= 1023;
        if n > 1023 {
            y *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        y *= pm969;
        n += 1022 - 53;
        if n < -1022 {
            y *= pm969;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

/// C's `frexp`: `(m, e)` with `x = m · 2^e`, `0.5 ≤ |m| < 1`.
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let ee = ((bits >> 52) & 0x7ff) as i32;
    if ee == 0 {
        if x != 0.0 {
            let (m, e) = frexp(x * f64::from_bits(0x43f0_0000_0000_0000)); // 2^64
            return (m, e - 64);
        }
        return (x, 0);
    }
    if ee == 0x7ff {
        return (x, 0);
    }
    let e = ee - 0x3fe;
    let bits = (bits & 0x800f_ffff_ffff_ffff) | 0x3fe0_0000_0000_0000;
    (f64::from_bits(bits), e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_and_exponents_are_exact() {
        assert_eq!(exp2i(0), 1.0);
        assert_eq!(exp2i(-1074), f64::from_bits(1));
        assert_eq!(exp2i(-1022), f64::MIN_POSITIVE);
        assert_eq!(exp2i(1023), 2f64.powi(1023));
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(-3.0), 1);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
        assert_eq!(exponent(65504.0), 15);
    }

    #[test]
    fn frexp_ldexp_round_trip() {
        for &x in &[1.0, 0.75, -3.5, 1e-310, 6.02e23] {
            let (m, e) = frexp(x);
            assert!((0.5..1.0).contains(&m.abs()));
            assert_eq!(ldexp(m, e), x);
        }
    }
}
