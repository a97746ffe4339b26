//! The claim and its one deciding rule.
//!
//! A test claims that the candidate is not less accurate than the baseline
//! beyond the margin δ (`expect = no_worse`, the default). The candidate is
//! **less accurate beyond the margin** when either criterion holds, each at
//! half the run's level:
//!
//! * **(M) in mean**: its mean error over every input exceeds `(1 + δ)` ×
//!   the baseline's. Significance: the paired sign-flip permutation test of
//!   the mean of `Δ1 − Δ2` ([`crate::stats::sign_flip_mean`]), exact when
//!   the two errors are exchangeable on each input whatever their tails.
//!   Materiality: the one-sided bootstrap lower bound on
//!   `R = mean Δ1 / mean Δ2` exceeds `1 + δ`.
//! * **(T) on the typical input**: its error exceeds `(1 + δ)` × the
//!   baseline's on more than half the inputs. Significance: the run's
//!   paired test (the one-sided Wilcoxon signed-rank test by default, the
//!   paper's) at margin 0 over the inputs whose outputs differ, exact under
//!   the same exchangeability. Materiality: the distribution-free lower
//!   bound on the median over **every** input of `Δ1 / Δ2` (a tie counting
//!   as 1) exceeds `1 + δ`, the binomial bound of the order statistics.
//!
//! Why two: the signed-rank test answers a location question, so a
//! candidate slightly better on most inputs outranks any loss on the rest
//! (10 % better on 80 % of them and 50× worse on 20 % has a mean error ×10
//! and a p-value of 1); (M) sees it. A mean, in turn, is at the mercy of a
//! tail: a baseline that is 5000× off on 1 % of its inputs hides a
//! candidate 3× worse on the other 99 %; (T) sees it. Ties are neutral: an
//! identical output is evidence for neither side, and a kernel worse only
//! on the 2 % of inputs where it differs has a typical ratio of 1, so it is
//! judged by (M).
//!
//! Each significance test is exact under exchangeable errors, so false
//! failures of two equally accurate kernels stay below α whatever the
//! tails (the materiality conditions can only remove failures). No test
//! bounds a mean under every tail: (M)'s materiality is a bootstrap bound,
//! and a loss on a handful of inputs cannot reach significance by signs
//! alone (5 inputs in 1000: `2⁻⁵ = 0.03`). Those are the gross-error gate's
//! and `n`'s to catch.
//!
//! # Errors that are not finite
//!
//! Elements where the metric is undefined for both outputs (a NaN or an
//! infinity in both, or an oracle of exactly 0 under `max_relative`) are
//! left out of both errors; an input left with no
//! element is a tie the metric could not judge, and the report counts it.
//! An input whose baseline error alone is infinite counts for the
//! candidate (a ratio of 0 in (T), outside (M)'s mean); one whose
//! candidate error alone is infinite is the non-finite or the gross-error
//! gate's ([`crate::screen`]), a ratio of ∞ in (T).
//!
//! The same rule serves the defaults, `stop_early = false`, `expect =
//! better` (more accurate: a criterion shows it more accurate, beyond a
//! ratio of 1, and neither shows it less accurate at all), the comparison
//! with a saved baseline ([`crate::baseline`]) and suites.

use crate::stats::{
    Alternative, RatioInterval, bootstrap::stratified_interval, median_bound_rank,
    sign_flip::SignFlips,
};
use crate::trial::Checked;

/// The e-value an early failure carries at least (besides `1 / α` of its
/// side): its suite p-value, `α / (α_fail · E)`, is then at most `2 × 10⁻⁴`
/// under the defaults, so that Benjamini-Hochberg keeps a lone early
/// failure in a suite of up to 250 tests at budget 0.05 (see
/// [`crate::suite`]). A clear failure reaches it within a few more
/// trials than `1 / α`.
pub const STOP_EVIDENCE: f64 = 1e4;

/// The resamples of the ratio's bootstrap.
pub(crate) const RESAMPLES: usize = 2000;

/// One criterion of the claim over every input of a run: its effect, and
/// the one-sided tests and bounds each direction is decided by.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Criterion {
    /// The effect: `mean Δ1 / mean Δ2` for (M), the median of `Δ1 / Δ2`
    /// over every input (ties counting as 1) for (T).
    #[serde(with = "crate::json_number")]
    pub effect: f64,
    /// The one-sided p-value of "candidate less accurate" at margin 0, where
    /// it could be computed.
    pub p_worse: Option<f64>,
    /// The one-sided p-value of "candidate more accurate".
    pub p_better: Option<f64>,
    /// The one-sided lower confidence bound on the effect at the
    /// criterion's level.
    #[serde(with = "crate::json_number")]
    pub lower: f64,
    /// The one-sided upper confidence bound on the effect.
    #[serde(with = "crate::json_number")]
    pub upper: f64,
}

impl Criterion {
    /// Significantly less accurate at margin 0 at `level`.
    pub fn significantly_worse(&self, level: f64) -> bool {
        self.p_worse.is_some_and(|p| p < level)
    }

    /// Less accurate beyond `margin` at `level`: significant, and the
    /// lower bound on the effect above `1 + margin`.
    pub fn beyond(&self, level: f64, margin: f64) -> bool {
        self.significantly_worse(level) && self.lower > 1.0 + margin
    }

    /// More accurate at `level`: significant, and the upper bound below 1.
    pub fn more_accurate(&self, level: f64) -> bool {
        self.p_better.is_some_and(|p| p < level) && self.upper < 1.0
    }

    /// The p-value of "less accurate beyond `margin`": `p_worse` where the
    /// bound (at the criterion's level) is beyond the margin, 1 elsewhere.
    fn p_beyond(&self, margin: f64) -> f64 {
        match self.p_worse {
            Some(p) if self.lower > 1.0 + margin => p,
            _ => 1.0,
        }
    }
}

/// Which criterion of the claim decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    /// (M): the mean error.
    Mean,
    /// (T): the error on the typical input.
    Typical,
}

/// The claim's two criteria over every input of a run, and the inputs they
/// are computed over.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Claim {
    /// (M): mean Δ1 / mean Δ2, the sign-flip test and the bootstrap bounds.
    pub mean: Criterion,
    /// (T): the median of Δ1 / Δ2, the run's paired test and the order
    /// statistics' bounds.
    pub typical: Criterion,
    /// Each criterion's level: half the run's fixed-N level.
    #[serde(with = "crate::json_number")]
    pub level: f64,
    /// The margin δ.
    #[serde(with = "crate::json_number")]
    pub margin: f64,
    /// Every input checked.
    pub inputs: usize,
    /// The inputs whose errors are both finite: those of (M)'s mean.
    #[serde(default)]
    pub in_mean: usize,
    /// Mean Δ1 over those inputs, each tie the oracle ran on standing for
    /// the ties it skipped as well: the numerator of (M)'s ratio, and the
    /// mean every report shows where ties were sampled (`NaN` in a report
    /// written before it was recorded).
    #[serde(with = "crate::json_number", default = "crate::json_number::nan")]
    pub mean_delta1: f64,
    /// Mean Δ2 over the same inputs, weighted alike: the denominator.
    #[serde(with = "crate::json_number", default = "crate::json_number::nan")]
    pub mean_delta2: f64,
    /// The inputs whose two outputs differ and whose errors are both
    /// finite (the differing pairs of (M)).
    pub differing: usize,
    /// Inputs the metric could not judge for either output (both errors
    /// undefined on every element, or both infinite): ties.
    pub not_judged: usize,
    /// Inputs where only the baseline's error was infinite: they count for
    /// the candidate.
    pub baseline_non_finite: usize,
    /// Output elements, over every input, where the metric was undefined
    /// for both outputs: left out of both errors.
    #[serde(default)]
    pub undefined_elements: usize,
}

impl Claim {
    /// The criterion that shows the candidate less accurate beyond the
    /// margin; where both do, the one with the smaller p-value.
    pub fn failed_by(&self) -> Option<Which> {
        let (m, t) = (&self.mean, &self.typical);
        match (
            m.beyond(self.level, self.margin),
            t.beyond(self.level, self.margin),
        ) {
            (true, true) if t.p_worse < m.p_worse => Some(Which::Typical),
            (true, _) => Some(Which::Mean),
            (false, true) => Some(Which::Typical),
            (false, false) => None,
        }
    }

    /// Less accurate beyond the margin by either criterion.
    pub fn less_accurate(&self) -> bool {
        self.failed_by().is_some()
    }

    /// Significantly less accurate at margin 0 by either criterion (the
    /// margin may still forgive it).
    pub fn significantly_worse(&self) -> bool {
        self.mean.significantly_worse(self.level) || self.typical.significantly_worse(self.level)
    }

    /// More accurate: a criterion shows it, and neither shows the candidate
    /// less accurate at all.
    pub fn more_accurate(&self) -> bool {
        (self.mean.more_accurate(self.level) || self.typical.more_accurate(self.level))
            && !self.significantly_worse()
    }

    /// The accuracy verdict the claim decides: less accurate beyond the
    /// margin, more accurate, or neither.
    pub fn accuracy(&self) -> crate::verdict::Accuracy {
        use crate::verdict::Accuracy;
        if self.less_accurate() {
            Accuracy::LessAccurate
        } else if self.more_accurate() {
            Accuracy::MoreAccurate
        } else {
            Accuracy::NoSignificantDifference
        }
    }

    /// The p-value of "less accurate beyond the margin" at the run's level
    /// `2 × level`: twice the smaller p-value of a criterion whose bound is
    /// beyond the margin (Bonferroni over the two), 1 where neither bound
    /// is. The claim fails exactly where it is below `2 × level`.
    pub fn p_value(&self) -> f64 {
        let p = self
            .mean
            .p_beyond(self.margin)
            .min(self.typical.p_beyond(self.margin));
        (2.0 * p).min(1.0)
    }
}

/// The errors of a run's inputs as the claim needs them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Errors {
    /// Δ1 of the full trials whose outputs differ, both errors finite.
    pub(crate) delta1: Vec<f64>,
    /// Δ2 of the same trials.
    pub(crate) delta2: Vec<f64>,
    /// The error on each measured tie (both implementations'), finite.
    pub(crate) ties: Vec<f64>,
    /// The ties the oracle did not run on.
    pub(crate) unmeasured: usize,
    /// Inputs the metric could not judge for either: ties.
    pub(crate) not_judged: usize,
    /// Inputs where only the baseline's error is infinite.
    pub(crate) baseline_non_finite: usize,
    /// Inputs where only the candidate's error is infinite.
    pub(crate) candidate_non_finite: usize,
    /// Output elements undefined for both outputs, left out of both
    /// errors.
    pub(crate) undefined_elements: usize,
}

impl Errors {
    /// The errors of the inputs checked so far.
    pub(crate) fn of(checked: &[Checked]) -> Errors {
        let mut e = Errors::default();
        for c in checked {
            match c {
                Checked::Tie => e.unmeasured += 1,
                Checked::Full(t) => {
                    e.undefined_elements += t.shared_undefined;
                    e.push(t.candidate, t.baseline, t.identical_outputs);
                }
            }
        }
        e
    }

    /// Adds a full trial: its errors, and whether it is a tie (equal
    /// outputs, or no element the metric could judge).
    pub(crate) fn push(&mut self, candidate: f64, baseline: f64, tie: bool) {
        let (c, b) = (candidate.is_finite(), baseline.is_finite());
        if tie && b {
            self.ties.push(baseline);
        } else if tie || !c && !b {
            self.not_judged += 1;
        } else if !b {
            self.baseline_non_finite += 1;
        } else if !c {
            self.candidate_non_finite += 1;
        } else {
            self.delta1.push(candidate);
            self.delta2.push(baseline);
        }
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> usize {
        self.in_mean() + self.not_judged + self.baseline_non_finite + self.candidate_non_finite
    }

    /// The inputs whose errors are both finite: those of (M)'s mean.
    fn in_mean(&self) -> usize {
        self.delta1.len() + self.ties.len() + self.unmeasured
    }

    /// The weight of each measured tie: the ties it stands for.
    fn tie_weight(&self) -> f64 {
        if self.ties.is_empty() {
            0.0
        } else {
            (self.ties.len() + self.unmeasured) as f64 / self.ties.len() as f64
        }
    }

    /// The sums of Δ1 and Δ2 over every input with finite errors, each
    /// measured tie standing for the ties the oracle skipped.
    fn sums(&self) -> (f64, f64) {
        let ties = self.tie_weight() * self.ties.iter().sum::<f64>();
        (
            ties + self.delta1.iter().sum::<f64>(),
            ties + self.delta2.iter().sum::<f64>(),
        )
    }

    /// Mean Δ1 and mean Δ2 over every input with finite errors (`NaN`
    /// without one).
    fn means(&self) -> [f64; 2] {
        let (s1, s2) = self.sums();
        let n = self.in_mean() as f64;
        [s1 / n, s2 / n]
    }

    /// `R = mean Δ1 / mean Δ2` over every input with finite errors.
    pub(crate) fn ratio(&self) -> f64 {
        let (s1, s2) = self.sums();
        if s1 == 0.0 && s2 == 0.0 { 1.0 } else { s1 / s2 }
    }

    /// `R` with a stratified percentile bootstrap interval at `confidence`
    /// ([`crate::stats::bootstrap`]'s core: the differing trials and the
    /// measured ties drawn apart). `None` without any finite input.
    pub(crate) fn interval(
        &self,
        confidence: f64,
        resamples: usize,
        seed: u64,
    ) -> Option<RatioInterval> {
        if self.delta1.is_empty() && self.ties.is_empty() {
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

    /// `Δ1 / Δ2` of every input, sorted: 1 for a tie (and for two zero
    /// errors), 0 where only the baseline's error is infinite, ∞ where only
    /// the candidate's is (or the baseline's is 0).
    fn ratios(&self) -> Vec<f64> {
        let ones = self.ties.len() + self.unmeasured + self.not_judged;
        let mut r: Vec<f64> = self
            .delta1
            .iter()
            .zip(&self.delta2)
            .map(|(&a, &b)| match (a, b) {
                (a, b) if a == b => 1.0,
                (a, 0.0) if a > 0.0 => f64::INFINITY,
                (a, b) => a / b,
            })
            .chain(std::iter::repeat_n(1.0, ones))
            .chain(std::iter::repeat_n(0.0, self.baseline_non_finite))
            .chain(std::iter::repeat_n(
                f64::INFINITY,
                self.candidate_non_finite,
            ))
            .collect();
        r.sort_unstable_by(f64::total_cmp);
        r
    }

    /// (M) at `level`: the sign-flip test and the bootstrap interval whose
    /// ends are the one-sided bounds.
    fn mean(&self, level: f64, seed: u64) -> (Criterion, Option<RatioInterval>) {
        let interval = self.interval(1.0 - 2.0 * level, RESAMPLES, seed);
        let flips = SignFlips::of(&self.delta1, &self.delta2, seed).ok();
        let criterion = Criterion {
            effect: self.ratio(),
            p_worse: flips.map(|f| f.p_value(Alternative::Greater)),
            p_better: flips.map(|f| f.p_value(Alternative::Less)),
            lower: interval.as_ref().map_or(0.0, |i| i.lower),
            upper: interval.as_ref().map_or(f64::INFINITY, |i| i.upper),
        };
        (criterion, interval)
    }

    /// (T)'s effect and bounds at `level`, with the paired test's p-values.
    fn typical(&self, level: f64, p_worse: Option<f64>, p_better: Option<f64>) -> Criterion {
        let r = self.ratios();
        let n = r.len();
        let median = match n {
            0 => 1.0,
            _ if n % 2 == 1 => r[n / 2],
            _ => (r[n / 2 - 1] + r[n / 2]) / 2.0,
        };
        let (lower, upper) = match median_bound_rank(n as u64, level) {
            Some(m) => (r[n - m as usize], r[m as usize - 1]),
            None => (0.0, f64::INFINITY),
        };
        Criterion {
            effect: if median.is_nan() {
                f64::INFINITY
            } else {
                median
            },
            p_worse,
            p_better,
            lower,
            upper,
        }
    }
}

/// The claim over `errors` at the run's fixed-N level `level` (each
/// criterion at half of it) and `margin`, (T)'s significance from the
/// run's paired test (`p_worse`, `p_better`); the sign flips and the
/// bootstrap drawn from `seed`. Also the interval whose ends are (M)'s
/// bounds.
pub(crate) fn assess(
    errors: &Errors,
    (p_worse, p_better): (Option<f64>, Option<f64>),
    level: f64,
    margin: f64,
    seed: u64,
) -> (Claim, Option<RatioInterval>) {
    let half = level / 2.0;
    let (mean, interval) = errors.mean(half, seed);
    let [mean_delta1, mean_delta2] = errors.means();
    let claim = Claim {
        mean,
        typical: errors.typical(half, p_worse, p_better),
        level: half,
        margin,
        inputs: errors.inputs(),
        in_mean: errors.in_mean(),
        mean_delta1,
        mean_delta2,
        differing: errors.delta1.len(),
        not_judged: errors.not_judged,
        baseline_non_finite: errors.baseline_non_finite,
        undefined_elements: errors.undefined_elements,
    };
    (claim, interval)
}

mod margin;

pub use self::margin::WithinMargin;
pub(crate) use self::margin::percent;

#[cfg(test)]
mod tests;
