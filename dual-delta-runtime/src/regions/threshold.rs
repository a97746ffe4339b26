//! Where a cut puts the worse side, as a reader wants it: at the simplest
//! number between the two sides (`x < 1` rather than `x ≤ 0.9987`).

/// Where a cut puts the worse side.
///
/// Invariant: a bound lies between the last value on one side of the cut
/// and the first on the other, so that the inputs on the worse side are
/// exactly those it describes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "side", rename_all = "snake_case")]
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

/// The simplest number in `[a, b]` (`a ≤ b`, both finite): 0 where the two
/// differ in sign; else the one with a single or two significant digits;
/// else a power of two (a kernel's sizes are); else the one with the
/// fewest significant digits.
pub(crate) fn simplest(a: f64, b: f64) -> f64 {
    debug_assert!(a <= b, "{a} > {b}");
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
/// significant digits.
pub(crate) fn simplicity(t: f64) -> f64 {
    if t == 0.0 {
        return 0.0;
    }
    let digits = (1..=17)
        .find(|&d| format!("{:.*e}", d - 1, t).parse::<f64>() == Ok(t))
        .unwrap_or(17) as f64;
    let power = t.abs().log2();
    if digits > 2.0 && power == power.round() {
        2.5
    } else {
        digits
    }
}

/// The least number `≥ a > 0` with `digits` significant decimal digits.
fn least_with(a: f64, digits: i32) -> Option<f64> {
    let exponent = a.log10().floor() as i32 - digits + 1;
    let scale = 10f64.powi(exponent);
    // `10^e` is inexact for most `e`: a quotient within rounding of a whole
    // number is that number (the check below still holds `t ≥ a`).
    let q = a / scale;
    let mut steps = if (q - q.round()).abs() <= 1e-9 * q {
        q.round()
    } else {
        q.ceil()
    };
    loop {
        // Written and read back, so that `0.3` is `0.3`, not
        // `0.30000000000000004`.
        let t: f64 = format!("{:.*e}", (digits - 1).max(0) as usize, steps * scale)
            .parse()
            .ok()?;
        if t >= a {
            return Some(t);
        }
        steps += 1.0;
    }
}

/// The least power of two `≥ a > 0`.
fn power_of_two(a: f64) -> Option<f64> {
    let mut e = a.log2().ceil() as i32;
    if 2f64.powi(e) < a {
        e += 1;
    }
    let t = 2f64.powi(e);
    t.is_finite().then_some(t)
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
