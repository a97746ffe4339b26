//! The claim and its one deciding rule.
//!
//! A test claims that the candidate is not less accurate than the baseline
//! beyond the margin δ (`expect = no_worse`, the default). The candidate
//! **fails** when both hold:
//!
//! 1. **significance**: the one-sided Wilcoxon signed-rank test at margin
//!    0 (the paper's test, or the test the run chose) finds it less
//!    accurate, `p < α` over every input (ties are zero differences and
//!    are dropped: an identical output is never evidence either way);
//! 2. **materiality**: its mean error exceeds the baseline's by more than
//!    the margin with confidence: the lower end of the `1 − α` one-sided
//!    bootstrap bound on `R = mean Δ1 / mean Δ2` over every input exceeds
//!    `1 + δ` (the errors on ties estimated from their seeded sample, see
//!    [`crate::screen`]). A candidate at the margin's edge, `R = 1 + δ`,
//!    therefore fails with probability at most about α, and one 2 % worse
//!    whose errors are only loosely tied to the baseline's is not failed
//!    by the noise of the mean.
//!
//! The rule is the same with early stopping on (then at the share of α
//! left at the cap, the rest spent by the anytime-valid fail side, which
//! stops a run only once the rule holds on the inputs so far), with
//! `stop_early = false` (at α), and for the comparison with a saved
//! baseline ([`crate::baseline`]).
//!
//! Why these two: the signed-rank test catches a loss confined to part of
//! the inputs (ties are neutral, so a kernel 10× worse on 2 % of its
//! inputs and identical elsewhere shows 2 % positive differences and no
//! negative ones), and it keeps false failures of equally accurate kernels
//! at α whatever the tails of their errors. The ratio of means is the
//! effect a kernel author reads ("20 % less accurate") and sees a loss on
//! a few inputs that a median or a bounded per-input share would not. A
//! significant difference within the margin passes and is stated ("less
//! accurate by 1.0%, within the 5% margin").

use crate::stats::RatioInterval;
use crate::stats::bootstrap::stratified_interval;

/// Whether the candidate is less accurate in the claim's sense: `p_worse`
/// (margin 0) below `level` and `lower`, the one-sided `1 − level` bound
/// on the ratio of means, beyond `1 + margin`.
pub(crate) fn less_accurate(p_worse: Option<f64>, level: f64, lower: f64, margin: f64) -> bool {
    p_worse.is_some_and(|p| p < level) && (lower.is_nan() || lower > 1.0 + margin)
}

/// The e-value an early failure carries at least (besides `1 / α` of its
/// side): its suite p-value, `α / (α_fail · E)`, is then at most `2 × 10⁻⁴`
/// under the defaults, so that Benjamini-Hochberg keeps a lone early
/// failure in a suite of up to 250 tests at budget 0.05 (see
/// [`crate::suite`]). A clear failure reaches it within a few more
/// trials than `1 / α`.
pub const STOP_EVIDENCE: f64 = 1e4;

/// The resamples of the ratio's bootstrap.
pub(crate) const RESAMPLES: usize = 2000;

/// Whether the rule fails the candidate on `errors` at `level`, the bound
/// being [`Errors::lower_bound`] from `seed` (drawn only where the p-value
/// is below `level`).
pub(crate) fn fails(
    p_worse: Option<f64>,
    errors: &Errors,
    level: f64,
    margin: f64,
    seed: u64,
) -> bool {
    p_worse.is_some_and(|p| p < level)
        && less_accurate(p_worse, level, errors.lower_bound(level, seed), margin)
}

/// The errors of a run's inputs as the effect needs them: the full trials
/// whose outputs differ, the errors of the measured ties, and how many
/// ties were not measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct Errors {
    /// Δ1 of the full trials whose outputs differ.
    pub(crate) delta1: Vec<f64>,
    /// Δ2 of the same trials.
    pub(crate) delta2: Vec<f64>,
    /// The error on each measured tie (both implementations').
    pub(crate) ties: Vec<f64>,
    /// The ties the oracle did not run on.
    pub(crate) unmeasured: usize,
}

impl Errors {
    /// Adds a full trial: its errors, and whether the outputs were equal.
    pub(crate) fn push(&mut self, candidate: f64, baseline: f64, tie: bool) {
        if tie {
            self.ties.push(baseline);
        } else {
            self.delta1.push(candidate);
            self.delta2.push(baseline);
        }
    }

    /// The weight of each measured tie: the ties it stands for.
    fn tie_weight(&self) -> f64 {
        if self.ties.is_empty() {
            0.0
        } else {
            (self.ties.len() + self.unmeasured) as f64 / self.ties.len() as f64
        }
    }

    /// `R = mean Δ1 / mean Δ2` over every input.
    pub(crate) fn ratio(&self) -> f64 {
        let ties = self.tie_weight() * self.ties.iter().sum::<f64>();
        let s1 = ties + self.delta1.iter().sum::<f64>();
        let s2 = ties + self.delta2.iter().sum::<f64>();
        if s1 == 0.0 && s2 == 0.0 { 1.0 } else { s1 / s2 }
    }

    /// `R` with a stratified percentile bootstrap interval at `confidence`
    /// ([`crate::stats::bootstrap`]'s core: the differing trials and the
    /// measured ties drawn apart). `None` without any input or where an
    /// error is not finite.
    pub(crate) fn interval(
        &self,
        confidence: f64,
        resamples: usize,
        seed: u64,
    ) -> Option<RatioInterval> {
        let mut all = self.delta1.iter().chain(&self.delta2).chain(&self.ties);
        if self.delta1.is_empty() && self.ties.is_empty() || !all.all(|e| e.is_finite()) {
            return None;
        }
        let (lower, upper) = stratified_interval(
            &self.delta1,
            &self.delta2,
            &self.ties,
            self.tie_weight(),
            confidence,
            resamples,
            seed,
        );
        Some(RatioInterval {
            ratio: self.ratio(),
            lower,
            upper,
            confidence,
            resamples,
            seed,
        })
    }

    /// The rule's one-sided `1 − level` lower bound on `R`: the lower end
    /// of the `1 − 2 level` interval from `seed`; `+inf` where it cannot be
    /// computed (an infinite error).
    pub(crate) fn lower_bound(&self, level: f64, seed: u64) -> f64 {
        self.interval(1.0 - 2.0 * level, RESAMPLES, seed)
            .map_or(f64::INFINITY, |r| r.lower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_are_weighted_by_the_ties_they_stand_for() {
        let e = Errors {
            delta1: vec![3.0],
            delta2: vec![1.0],
            ties: vec![1.0, 3.0],
            unmeasured: 6,
        };
        // Eight ties of mean error 2 (16 each side), one input 3 against 1.
        assert_eq!(e.ratio(), 19.0 / 17.0);
        let i = e.interval(0.95, 200, 7).unwrap();
        assert_eq!(i.ratio, 19.0 / 17.0);
        assert!(i.lower <= i.ratio && i.ratio <= i.upper);
        assert!(less_accurate(Some(0.001), 0.01, 1.2, 0.05));
        assert!(i.confidence == 0.95 && i.lower < 19.0 / 17.0);
        assert!(!less_accurate(Some(0.001), 0.01, 1.04, 0.05));
        assert!(!less_accurate(Some(0.02), 0.01, 3.0, 0.05));
        assert!(less_accurate(Some(0.001), 0.01, f64::INFINITY, 0.05));
    }
}
