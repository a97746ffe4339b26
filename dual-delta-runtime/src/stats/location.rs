//! Hodges-Lehmann estimate of the shift between paired samples.

use super::check_len;
use super::{StatsError, paired_differences};

const TEST: &str = "Hodges-Lehmann estimator";

/// Hodges-Lehmann estimate of the location of `d = d1 - d2`: the median of
/// the `n(n+1)/2` Walsh averages `(d_i + d_j) / 2`, `i ≤ j` (the pseudo-median
/// that the Wilcoxon signed-rank test is built on). SciPy has no equivalent;
/// it is the classical one-sample estimator, computed exactly. With an even
/// number of Walsh averages the median is the midpoint of the two middle
/// ones.
///
/// Differences are taken by [`paired_differences`] (two equal infinities
/// give zero: by design, where SciPy's `x - y` gives `NaN` and so would a
/// NaN-propagating median). Averages are correctly rounded midpoints (they
/// never overflow).
///
/// # Infinite differences
///
/// An infinite difference is an infinitely large one: the average of `+inf`
/// (or `-inf`) and any finite value is `+inf` (or `-inf`), and the average of
/// `+inf` and `-inf` is taken as `0`, in line with `inf - inf` counting as a
/// zero difference. Walsh averages are then totally ordered, and the estimate
/// is infinite when more than half of them are infinite of one sign (roughly,
/// when more than 29% of the differences are).
///
/// # Algorithm
///
/// The differences are sorted, which makes the Walsh matrix `A[i][j] =
/// (d_i + d_j)/2` non-decreasing along rows and columns. The number of
/// entries `≤ v` is then counted in O(n) by a staircase walk, and the k-th
/// smallest entry is found by bisection over the ordered `f64` values
/// between the smallest and the largest entry: at most 64 counts, each
/// O(n). The entry found is an exact Walsh average, not an approximation.
///
/// # Errors
///
/// * [`StatsError::LengthMismatch`] if the samples differ in length.
/// * [`StatsError::InvalidValue`] if either sample contains `NaN`.
/// * [`StatsError::TooFewObservations`] if the samples are empty.
///
/// # Complexity
///
/// O(n log n) time (the sort, plus at most 64 linear passes per middle
/// value), O(n) memory: `n = 100 000` takes tens of milliseconds.
pub fn hodges_lehmann(d1: &[f64], d2: &[f64]) -> Result<f64, StatsError> {
    let mut d = paired_differences(d1, d2)?;
    let n = d.len();
    check_len(TEST, n, 1)?;
    d.sort_unstable_by(f64::total_cmp);
    let n64 = n as u64;
    let m = n64 * (n64 + 1) / 2;
    let estimate = if m % 2 == 1 {
        kth_walsh(&d, m / 2 + 1, walsh(d[0], d[0]))
    } else {
        let lower = kth_walsh(&d, m / 2, walsh(d[0], d[0]));
        let upper = kth_walsh(&d, m / 2 + 1, lower);
        walsh(lower, upper)
    };
    // Normalise a negative zero.
    Ok(estimate + 0.0)
}

/// The Walsh average of `a` and `b`: their correctly rounded midpoint, with
/// the midpoint of `+inf` and `-inf` defined as zero. Non-decreasing in each
/// argument.
fn walsh(a: f64, b: f64) -> f64 {
    if a.is_infinite() && b.is_infinite() && a != b {
        0.0
    } else {
        a.midpoint(b)
    }
}

/// The number of pairs `i ≤ j` with `walsh(d[i], d[j]) ≤ v`, for sorted `d`.
///
/// For each row `i` the entries `≤ v` are a prefix of `j = i..n`, and the end
/// of that prefix never moves right as `i` grows: one staircase walk, O(n).
fn count_at_most(d: &[f64], v: f64) -> u64 {
    let n = d.len();
    let mut end = n;
    let mut count = 0u64;
    for i in 0..n {
        while end > i && walsh(d[i], d[end - 1]) > v {
            end -= 1;
        }
        if end <= i {
            break;
        }
        count += (end - i) as u64;
    }
    count
}

/// Maps an `f64` (not `NaN`) to an integer key with the same order.
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Inverse of [`key`].
fn from_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// The `k`-th smallest (1-based) Walsh average of sorted `d`, knowing it is
/// at least `floor`: the smallest value `v` with `count_at_most(v) ≥ k`,
/// found by bisection over the ordered `f64` keys (at most 64 steps).
fn kth_walsh(d: &[f64], k: u64, floor: f64) -> f64 {
    let n = d.len();
    let mut lo = key(floor);
    let mut hi = key(walsh(d[n - 1], d[n - 1]));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if count_at_most(d, from_key(mid)) >= k {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    from_key(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_keys_preserve_order_and_round_trip() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
            f64::INFINITY,
        ];
        for w in values.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} vs {}", w[0], w[1]);
        }
        for &v in &values {
            assert_eq!(from_key(key(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn walsh_average_is_monotone_with_opposite_infinities_meeting_at_zero() {
        assert_eq!(walsh(f64::INFINITY, f64::NEG_INFINITY), 0.0);
        assert_eq!(walsh(f64::INFINITY, -3.0), f64::INFINITY);
        assert_eq!(walsh(f64::MAX, f64::MAX), f64::MAX);
        assert_eq!(walsh(1.0, 2.0), 1.5);
    }

    #[test]
    fn count_matches_brute_force() {
        let d = [-2.0, -1.0, -1.0, 0.0, 0.5, 3.0, f64::INFINITY];
        for &v in &[-3.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0, f64::INFINITY] {
            let mut brute = 0;
            for i in 0..d.len() {
                for j in i..d.len() {
                    if walsh(d[i], d[j]) <= v {
                        brute += 1;
                    }
                }
            }
            assert_eq!(count_at_most(&d, v), brute, "v = {v}");
        }
    }
}
