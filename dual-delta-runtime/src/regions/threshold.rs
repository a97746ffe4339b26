//! Where a cut puts the worse side, as a reader wants it: at the simplest
//! number between the two sides (`x < 1` rather than `x ≤ 0.9987`).

/// Where a cut puts the worse side.
///
/// Invariant: a bound lies between the last value on one side of the cut
/// and the first on the other, so that the inputs on the worse side are
/// exactly those it describes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "side", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Side {
    /// The inputs whose value is below `bound` (or equal to it, where
    /// `inclusive`).
    Below {
        /// The bound.
        #[serde(with = "crate::json_number")]
        bound: f64,
        /// Whether the bound itself is on the worse side.
        inclusive: bool,
    },
    /// The inputs whose value is above `bound` (or equal to it, where
    /// `inclusive`).
    Above {
        /// The bound.
        #[serde(with = "crate::json_number")]
        bound: f64,
        /// Whether the bound itself is on the worse side.
        inclusive: bool,
    },
    /// The inputs labelled `label`.
    Is {
        /// The label.
        label: String,
    },
}

impl Side {
    /// The worse side of a cut between the values `a < b`: at or below `a`
    /// (`below`), else at or above `b`, its bound the simplest number in
    /// `[a, b]` ([`simplest`]).
    pub(crate) fn between(a: f64, b: f64, below: bool) -> Side {
        let t = simplest(a, b);
        match (below, t == a) {
            (true, true) => Side::Below {
                bound: a,
                inclusive: true,
            },
            (true, false) => Side::Below {
                bound: t,
                inclusive: false,
            },
            (false, true) => Side::Above {
                bound: a,
                inclusive: false,
            },
            (false, false) => Side::Above {
                bound: t,
                inclusive: true,
            },
        }
    }

    /// The cut's value, for a cut of numbers.
    pub fn bound(&self) -> Option<f64> {
        match self {
            Side::Below { bound, .. } | Side::Above { bound, .. } => Some(*bound),
            Side::Is { .. } => None,
        }
    }
}

/// The simplest number in `[a, b]` (`a ≤ b`; `a` itself where either is
/// not finite), at any magnitude, subnormal included: 0 where the two
/// differ in sign; else the one with a single or two significant digits;
/// else a power of two (a kernel's sizes are); else the one with the
/// fewest significant digits.
pub(crate) fn simplest(a: f64, b: f64) -> f64 {
    debug_assert!(
        a.partial_cmp(&b) != Some(std::cmp::Ordering::Greater),
        "{a} > {b}"
    );
    if !(a.is_finite() && b.is_finite()) || a == b {
        return a;
    }
    if a <= 0.0 && b >= 0.0 {
        return 0.0;
    }
    if b < 0.0 {
        return -simplest(-b, -a);
    }
    let decimal = |digits| (least_with(a, digits)).filter(|&t| t <= b);
    (1..=2)
        .find_map(decimal)
        .or_else(|| power_of_two(a).filter(|&t| t <= b))
        .or_else(|| (3..=17).find_map(decimal))
        .unwrap_or(a)
}

/// How simple `t` reads, the order [`simplest`] prefers: 0 for zero, its
/// significant digits where one or two, 2.5 for a power of two, else its
/// significant digits; infinity, the least simple, where not finite.
pub(crate) fn simplicity(t: f64) -> f64 {
    if t == 0.0 {
        return 0.0;
    }
    if !t.is_finite() {
        return f64::INFINITY;
    }
    let digits = (1..=17)
        .find(|&d| format!("{:.*e}", d - 1, t).parse::<f64>() == Ok(t))
        .unwrap_or(17) as f64;
    // On the bits: `log2` of a double just below a power of two may round
    // to a whole number.
    let power = exp2(t.abs().log2().round() as i32) == t.abs();
    if digits > 2.0 && power { 2.5 } else { digits }
}

/// The least number `≥ a > 0` with `digits` significant decimal digits, at
/// any magnitude (subnormal or near the largest double).
///
/// The work is on the decimal digits as written, never on a power of ten
/// (`10^e` underflows to 0 below `1e-308` and overflows above `1e308`):
/// `a` rounded to `digits` digits is the least such decimal or the one
/// below it, so the least one reads back from the first of the two
/// decimals (or, where reading back rounds, the third) that is not below
/// `a`; `None` where none is (the caller then keeps `a`).
fn least_with(a: f64, digits: i32) -> Option<f64> {
    let digits = usize::try_from(digits)
        .ok()
        .filter(|d| (1..=17).contains(d))?;
    let written = format!("{:.*e}", digits - 1, a);
    let (mantissa, exponent) = written.split_once('e')?;
    // The decimal is `steps × 10^(exponent − digits + 1)`.
    let steps: u64 = mantissa.replace('.', "").parse().ok()?;
    let exponent = exponent.parse::<i32>().ok()? - (digits as i32 - 1);
    (steps..steps + 3).find_map(|steps| {
        // Written and read back, so that `0.3` is `0.3`, not
        // `0.30000000000000004`.
        let t: f64 = format!("{steps}e{exponent}").parse().ok()?;
        (t >= a).then_some(t)
    })
}

/// The least power of two `≥ a > 0`, where one is finite.
fn power_of_two(a: f64) -> Option<f64> {
    let mut e = a.log2().ceil() as i32;
    if exp2(e) < a {
        e += 1;
    }
    let t = exp2(e);
    t.is_finite().then_some(t)
}

/// `2^e`, exactly for every `e` whose power is a double (subnormal
/// included: `2f64.powi(-1030)` is `1 / 2^1030 = 0`), else 0 or infinity.
fn exp2(e: i32) -> f64 {
    2f64.powi(e / 2) * 2f64.powi(e - e / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simplest_number_between_two_values() {
        assert_eq!(simplest(0.9987, 1.0023), 1.0);
        assert_eq!(simplest(2032.0, 2048.0), 2048.0);
        assert_eq!(simplest(2048.0, 2049.0), 2048.0);
        assert_eq!(simplest(5.4109, 5.4130), 5.411);
        assert_eq!(simplest(-0.2, 0.3), 0.0);
        assert_eq!(simplest(-5.413, -5.4109), -5.411);
        assert_eq!(simplest(0.28, 0.31), 0.3);
        assert_eq!(simplest(1e-300, 1.3e-300), 1e-300);
        assert_eq!(simplest(1.5, 1.5), 1.5);
    }

    #[test]
    fn the_simplest_number_at_any_magnitude() {
        let tiny = f64::from_bits(1);
        assert_eq!(simplest(1e-310, 1.3e-310), 1e-310);
        assert_eq!(simplest(1.04e-310, 1.3e-310), 1.1e-310);
        assert_eq!(simplest(1.041e-310, 1.06e-310), 1.05e-310);
        assert_eq!(simplest(-1.3e-310, -1.04e-310), -1.1e-310);
        assert_eq!(simplest(tiny, 3.0 * tiny), tiny);
        assert_eq!(simplest(3.11e-320, 3.3e-320), 3.2e-320);
        // A power of two among subnormals: 2^-1052.
        let p = f64::from_bits(1 << 22);
        assert_eq!(simplest(p * 0.999_999, p * 1.000_001), p);
        assert_eq!(simplest(1.21e308, 1.7e308), 1.3e308);
        assert_eq!(simplest(1.751e308, f64::MAX), 1.76e308);
        assert_eq!(simplest(f64::MAX, f64::MAX), f64::MAX);
        assert_eq!(simplest(0.0, tiny), 0.0);
        assert_eq!(simplest(1.0, f64::INFINITY), 1.0);
        assert_eq!(simplest(f64::NEG_INFINITY, -1.0), f64::NEG_INFINITY);
        assert!(simplest(f64::NAN, 1.0).is_nan());
        let below_max = f64::from_bits(f64::MAX.to_bits() - 1);
        for (a, b) in [
            (1e-310, 1.3e-310),
            (tiny, 7.0 * tiny),
            (1.75e308, f64::MAX),
            (below_max, f64::MAX),
        ] {
            let t = simplest(a, b);
            assert!(a <= t && t <= b, "{t:e} outside [{a:e}, {b:e}]");
        }
    }

    #[test]
    fn simplicity_at_any_magnitude() {
        assert_eq!(simplicity(1e-310), 1.0);
        assert_eq!(simplicity(f64::from_bits(1 << 22)), 2.5);
        assert_eq!(simplicity(f64::MAX), 17.0);
        assert_eq!(simplicity(f64::INFINITY), f64::INFINITY);
        assert_eq!(simplicity(f64::NAN), f64::INFINITY);
    }

    #[test]
    fn simplicity_ranks_as_simplest_picks() {
        let order = [
            0.0, 1.0, 0.3, 2000.0, 25.0, 2048.0, 0.125, 5.16, 2049.0, 5.4163,
        ];
        let ranks: Vec<f64> = order.iter().map(|&t| simplicity(t)).collect();
        assert_eq!(ranks, [0.0, 1.0, 1.0, 1.0, 2.0, 2.5, 2.5, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn a_side_reads_as_the_inputs_it_holds() {
        assert_eq!(
            Side::between(0.9987, 1.0023, true),
            Side::Below {
                bound: 1.0,
                inclusive: false
            }
        );
        assert_eq!(
            Side::between(2048.0, 2049.0, false),
            Side::Above {
                bound: 2048.0,
                inclusive: false
            }
        );
        assert_eq!(
            Side::between(2032.0, 2048.0, false),
            Side::Above {
                bound: 2048.0,
                inclusive: true
            }
        );
        assert_eq!(
            Side::between(2048.0, 2049.0, true),
            Side::Below {
                bound: 2048.0,
                inclusive: true
            }
        );
    }
}
