//! Average ranks with tie information, as SciPy's
//! `scipy.stats.rankdata(x, method='average')` computes them.

/// Average ranks of a sample, with the sizes of its groups of tied values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ranks {
    /// The rank of each value, in input order: `1..=n`, tied values sharing
    /// the mean of the ranks they span (so every rank is a multiple of ½).
    pub(crate) ranks: Vec<f64>,
    /// The size of every group of equal values (groups of one included), in
    /// ascending order of the values: the group of the smallest values
    /// comes first. The sizes add up to `n`.
    pub(crate) tie_sizes: Vec<usize>,
}

impl Ranks {
    /// Whether any value occurs more than once.
    pub(crate) fn has_ties(&self) -> bool {
        self.tie_sizes.iter().any(|&t| t > 1)
    }
}

/// Ranks `x` with ties given their average rank (SciPy's
/// `rankdata(x, method='average')`), and records the tie-group sizes.
///
/// Values are ordered by [`f64::total_cmp`] and grouped by `==`, so `-0.0`
/// and `+0.0` tie and infinities rank at the ends. `x` must not contain
/// `NaN` (callers reject it first); the function does not panic on it but
/// each `NaN` then forms a group of its own.
///
/// O(n log n) time, O(n) memory.
pub(crate) fn average_ranks(x: &[f64]) -> Ranks {
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| x[a].total_cmp(&x[b]));

    let mut ranks = vec![0.0; n];
    let mut tie_sizes = Vec::new();
    let mut start = 0;
    while start < n {
        let value = x[order[start]];
        let mut end = start + 1;
        while end < n && x[order[end]] == value {
            end += 1;
        }
        // Positions start..end hold ordinal ranks start+1..=end; their mean
        // is (start + 1 + end) / 2, exact in f64 for any realistic n.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        tie_sizes.push(end - start);
        start = end;
    }
    Ranks { ranks, tie_sizes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_scipy_rankdata_average_with_ties() {
        // scipy.stats.rankdata([3, 2, 1, 2, 2, 2, 1]) == [7, 4.5, 1.5, 4.5, 4.5, 4.5, 1.5]
        let r = average_ranks(&[3.0, 2.0, 1.0, 2.0, 2.0, 2.0, 1.0]);
        assert_eq!(r.ranks, vec![7.0, 4.5, 1.5, 4.5, 4.5, 4.5, 1.5]);
        assert_eq!(r.tie_sizes, vec![2, 4, 1]);
        assert!(r.has_ties());
    }

    #[test]
    fn signed_zeros_tie_and_infinity_ranks_last() {
        let r = average_ranks(&[f64::INFINITY, 0.0, -0.0, 5.0]);
        assert_eq!(r.ranks, vec![4.0, 1.5, 1.5, 3.0]);
        assert_eq!(r.tie_sizes, vec![2, 1, 1]);
    }

    #[test]
    fn distinct_values_get_ordinal_ranks_and_empty_input_is_empty() {
        let r = average_ranks(&[0.5, -2.0, 10.0]);
        assert_eq!(r.ranks, vec![2.0, 1.0, 3.0]);
        assert!(!r.has_ties());
        let e = average_ranks(&[]);
        assert!(e.ranks.is_empty() && e.tie_sizes.is_empty());
    }
}
