//! Descriptive statistics of one error sample, with NumPy's numerics.
//!
//! Sums follow NumPy's pairwise summation and percentiles NumPy's default
//! (`method='linear'`) interpolation, so that finite samples give the values
//! `numpy.mean`, `numpy.std(ddof=1)`, `numpy.median` and
//! `numpy.percentile` give, to the last bit or nearly.

use super::check_len;
use super::{StatsError, check_no_nan};

/// Descriptive statistics of one sample (Δ1, Δ2 or their differences).
///
/// Samples may hold infinities (a trial whose output was not finite has an
/// infinite error). They are counted in [`non_finite`](Self::non_finite)
/// and kept in every statistic, which then reports the infinite spread
/// rather than hiding it: see each field for what an infinity does to it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Summary {
    /// Number of observations.
    pub n: usize,
    /// Number of infinite observations (`+inf` or `-inf`).
    pub non_finite: usize,
    /// Arithmetic mean (`numpy.mean`: pairwise sum divided by `n`). `+inf`
    /// (or `-inf`) when the sample holds infinities of one sign, `NaN` when
    /// it holds both.
    #[serde(with = "crate::json_number")]
    pub mean: f64,
    /// Median (`numpy.median`): the middle order statistic, or the average
    /// `(a + b) / 2` of the two middle ones for even `n`. The average of a
    /// finite value and an infinity is that infinity; of `-inf` and `+inf`,
    /// `NaN`.
    #[serde(with = "crate::json_number")]
    pub median: f64,
    /// Sample standard deviation with `ddof = 1` (`numpy.std(x, ddof=1)`).
    /// `NaN` for `n = 1` (undefined, as in NumPy); `+inf` when the sample
    /// holds an infinity (where NumPy gives `NaN`): the spread is unbounded.
    #[serde(with = "crate::json_number")]
    pub std: f64,
    /// Smallest value.
    #[serde(with = "crate::json_number")]
    pub min: f64,
    /// 50th percentile with linear interpolation (`numpy.percentile(x, 50)`);
    /// equal to [`median`](Self::median) up to rounding.
    #[serde(with = "crate::json_number")]
    pub p50: f64,
    /// 90th percentile (see [`percentile`]).
    #[serde(with = "crate::json_number")]
    pub p90: f64,
    /// 95th percentile (see [`percentile`]).
    #[serde(with = "crate::json_number")]
    pub p95: f64,
    /// 99th percentile (see [`percentile`]).
    #[serde(with = "crate::json_number")]
    pub p99: f64,
    /// Largest value.
    #[serde(with = "crate::json_number")]
    pub max: f64,
}

/// Summarises a sample: count, infinities, mean, median, standard deviation
/// (`ddof = 1`), minimum, 50th/90th/95th/99th percentiles and maximum.
///
/// For finite samples every value is what NumPy gives (`numpy.mean`,
/// `numpy.median`, `numpy.std(ddof=1)`, `numpy.min`, `numpy.percentile`,
/// `numpy.max`). Infinities are allowed and counted; see [`Summary`] for how
/// each field treats them (NumPy returns `NaN` for most of these).
///
/// # Errors
///
/// [`StatsError::TooFewObservations`] for an empty sample and
/// [`StatsError::InvalidValue`] for a `NaN`.
///
/// # Complexity
///
/// `O(n log n)` time (one sort), `O(n)` memory.
pub fn describe(x: &[f64]) -> Result<Summary, StatsError> {
    const TEST: &str = "describe";
    check_len(TEST, x.len(), 1)?;
    check_no_nan(TEST, x)?;
    let n = x.len();
    let non_finite = x.iter().filter(|v| v.is_infinite()).count();

    let mean = numpy_sum(x) / n as f64;
    let std = if n < 2 {
        f64::NAN
    } else if non_finite > 0 {
        f64::INFINITY
    } else {
        let squares: Vec<f64> = x.iter().map(|&v| (v - mean) * (v - mean)).collect();
        (numpy_sum(&squares) / (n - 1) as f64).sqrt()
    };

    let mut sorted = x.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    Ok(Summary {
        n,
        non_finite,
        mean,
        median: numpy_sorted_median(&sorted),
        std,
        min: sorted[0],
        p50: percentile(&sorted, 50.0),
        p90: percentile(&sorted, 90.0),
        p95: percentile(&sorted, 95.0),
        p99: percentile(&sorted, 99.0),
        max: sorted[n - 1],
    })
}

/// The `q`-th percentile (`q` in percent, `0 ≤ q ≤ 100`) of an ascending
/// sorted sample, with NumPy's default linear interpolation
/// (`numpy.percentile(x, q)`, `method='linear'`, Hyndman and Fan's
/// definition 7): the virtual index `(n - 1) q / 100` is interpolated
/// between its two neighbouring order statistics.
///
/// Infinities in the sample are order statistics like any other: the
/// interpolation between a finite value and `+inf` is `+inf` (NumPy gives
/// `NaN`), an index that falls exactly on an order statistic returns it, and
/// the interpolation strictly between `-inf` and `+inf` is `NaN`.
///
/// Returns `NaN` for an empty slice, a `q` outside `[0, 100]`, or `NaN` in
/// the sample. `sorted` must be sorted ascending (not checked). `O(1)`.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 || !(0.0..=100.0).contains(&q) {
        return f64::NAN;
    }
    let virtual_index = (n - 1) as f64 * (q / 100.0);
    if virtual_index >= (n - 1) as f64 {
        return sorted[n - 1];
    }
    let below = virtual_index.floor();
    let gamma = virtual_index - below;
    let i = below as usize;
    lerp(sorted[i], sorted[i + 1], gamma)
}

/// NumPy's `_lerp`, extended to infinities (see [`percentile`]).
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t == 0.0 || a == b {
        return a;
    }
    if a.is_infinite() || b.is_infinite() {
        return match (a.is_infinite(), b.is_infinite()) {
            (true, false) => a,
            (false, true) => b,
            // -inf .. +inf (equal infinities returned above).
            _ => f64::NAN,
        };
    }
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// `numpy.median` of a sorted, non-empty sample.
fn numpy_sorted_median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        // NumPy averages the two middle values with `mean`: (0 + a + b) / 2.
        (0.0 + sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// `numpy.median` of an unsorted, non-empty sample (selection, `O(n)`).
pub(crate) fn numpy_median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let n = v.len();
    let mid = n / 2;
    let (lower, upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        upper
    } else {
        let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (0.0 + below + upper) / 2.0
    }
}

/// `numpy.sum` of a contiguous `float64` array: `0.0` plus NumPy's pairwise
/// summation ([`pairwise_sum`]). Matches NumPy bit for bit.
pub(crate) fn numpy_sum(x: &[f64]) -> f64 {
    0.0 + pairwise_sum(x)
}

/// Sum with NumPy's pairwise algorithm (eight accumulators over blocks of
/// at most 128 values, halves split at multiples of eight): the same
/// rounding as `numpy.sum` on a contiguous array, and error growth
/// `O(log n)`.
///
/// Fewer than eight values are added in order to `-0.0`, the identity of
/// addition, so that a sum of negative zeros (or of nothing) is `-0.0`.
/// The starting value changes nothing else (partial sums from `0.0` and
/// from `-0.0` differ only while they are zero, and then only in sign), so
/// no result depends on it: [`numpy_sum`] adds the sum to `0.0`, which
/// makes every zero `+0.0`, and the paired t-test sums differences that are
/// not all zero and squares that are never `-0.0`.
pub(super) fn pairwise_sum(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        let mut res = -0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= BLOCK {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let full = n - n % 8;
        let mut i = 8;
        while i < full {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[i..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `numpy.mean` of a non-empty sample.
pub(crate) fn numpy_mean(x: &[f64]) -> f64 {
    numpy_sum(x) / x.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_endpoints_and_interpolation() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 100.0), 4.0);
        assert_eq!(percentile(&s, 50.0), 2.5);
        assert!(percentile(&s, 101.0).is_nan());
        assert!(percentile(&[], 50.0).is_nan());
    }

    #[test]
    fn infinities_are_order_statistics() {
        let s = [1.0, 2.0, f64::INFINITY];
        assert_eq!(percentile(&s, 50.0), 2.0);
        assert_eq!(percentile(&s, 90.0), f64::INFINITY);
        let d = describe(&[2.0, f64::INFINITY, 1.0]).unwrap();
        assert_eq!(d.non_finite, 1);
        assert_eq!(d.mean, f64::INFINITY);
        assert_eq!(d.std, f64::INFINITY);
        assert_eq!(d.median, 2.0);
        assert_eq!(d.max, f64::INFINITY);
        let both = describe(&[f64::NEG_INFINITY, 0.0, f64::INFINITY]).unwrap();
        assert!(both.mean.is_nan());
        assert_eq!(both.median, 0.0);
    }

    #[test]
    fn single_value_and_errors() {
        let d = describe(&[3.0]).unwrap();
        assert_eq!(
            (d.mean, d.median, d.min, d.max, d.p99),
            (3.0, 3.0, 3.0, 3.0, 3.0)
        );
        assert!(d.std.is_nan());
        assert!(describe(&[]).is_err());
        assert!(describe(&[1.0, f64::NAN]).is_err());
    }

    #[test]
    fn pairwise_sum_is_exact_on_integers_and_matches_naive_on_short_input() {
        let x: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(pairwise_sum(&x), 500_500.0);
        assert_eq!(pairwise_sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        assert_eq!(pairwise_sum(&[]), 0.0);
        assert!(pairwise_sum(&[-0.0, -0.0]).is_sign_negative());
        assert!(numpy_sum(&[-0.0, -0.0]).is_sign_positive());
    }

    #[test]
    fn unsorted_median_matches_sorted() {
        let x = [5.0, 1.0, 4.0, 2.0, 3.0, 0.5];
        let mut s = x.to_vec();
        s.sort_by(f64::total_cmp);
        assert_eq!(numpy_median(&x), numpy_sorted_median(&s));
        assert_eq!(numpy_median(&x[..5]), 3.0);
    }
}
