//! The claim and its one deciding rule.
//!
//! A test claims that the candidate is not less accurate than the baseline
//! beyond the margin δ (`expect = no_worse`, the default, under `rule =
//! claim`, the default rule). The candidate is **less accurate beyond the
//! margin** when either criterion holds, each at half the level left to the
//! tests over every input:
//!
//! * **(M) in mean**: its mean error over every input exceeds `(1 + δ)` ×
//!   the baseline's. The test is the studentized mean of `Δ1 − (1 + δ)·Δ2`
//!   with its skewness removed (Hall's transformation), the baseline-side
//!   tail no sample has seen extrapolated (Hill's tail index at its upper
//!   confidence bound, Weissman's missing mass); its bounds on
//!   `mean Δ1 / mean Δ2` are the test inverted.
//! * **(T) on the typical input**: its error exceeds `(1 + δ)` × the
//!   baseline's on more than half the inputs, and the paper's test finds it
//!   less accurate. Two tests must both reject: the exact sign test of
//!   `Δ1 > (1 + δ)·Δ2` over every input (a tie counting against it), whose
//!   inversion is the distribution-free bound on the median of `Δ1 / Δ2`,
//!   and the one-sided paired test named by `test` at margin 0 (the paper's
//!   Wilcoxon signed-rank test by default). Every failure by (T) is a
//!   significant result of the paper's test. Its p-value is the larger of
//!   the two; under `test = sign` it is the sign test's at the margin alone.
//!
//! Where (M)'s estimate is clearly beyond the margin (beyond `1 + δ +
//! max(2δ, 0.1)`: ×1.15 under the defaults) on too few inputs for its test
//! ever to reject, the run fails (`DecidedBy::ShortOfInputs`) naming the `n`
//! that could, rather than pass.
//!
//! `rule = paper` decides by the paper's test alone: the run fails exactly
//! where the one-sided `test` rejects at α over every input's paired
//! errors, with no margin, no mean criterion and no early stop. The gates
//! (a non-finite output, a gross error, a documented bound) still apply,
//! and are named when they decide.
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
//! A null is every candidate the claim says must pass, not only equal
//! accuracy. (T)'s tests are exact at its margin whatever the errors.
//! (M)'s is asymptotic: no test bounds a mean under every distribution
//! (Bahadur and Savage), so its level at the margin's edge is measured by
//! seeded simulation over errors of finite variance of many shapes
//! (`tests/runtime/adversary.rs`); infinite variance is disclaimed. Where (M)
//! points beyond the margin on too few inputs for its test ever to reject,
//! the run names the `n` that could ([`Short`]) rather than pass. The ties
//! the oracle skipped are measured wherever (M) could reject with them at
//! error 0, so no run fails on their estimate.
//!
//! # Errors that are not finite
//!
//! Elements where the metric is undefined for both outputs (a NaN or an
//! infinity in both, or an oracle of exactly 0 under `max_relative`) are
//! left out of both errors; an input left with no
//! element is a tie the metric could not judge, and the report counts it.
//! An input whose baseline error alone is infinite counts for the
//! candidate (a ratio of 0 in (T)); one whose candidate error alone is
//! infinite is the non-finite or the gross-error gate's
//! ([`crate::screen`]), and where allowed still the worst possible error: a
//! ratio of ∞ in (T), and in (M) the exact sign test of the inputs where
//! only one of the two is non-finite, beside the test of the finite ones
//! (each at half the level).
//!
//! The same rule serves the defaults, `stop_early = false`, `expect =
//! better` (more accurate: a criterion's test of "more accurate" at ratio 1
//! rejects, and neither shows it less accurate at all), the comparison
//! with a saved baseline ([`crate::baseline`]) and suites.

use crate::decide::fixed::FixedLevel;
use crate::stats::{Alternative, binom_test_half, median_bound_rank};
use crate::verdict::{AccuracyTest, PairedTest};

/// The e-value an early failure carries at least (besides `1 / α` of its
/// side): its suite p-value, `α / (α_fail · E)`, is then at most `2 × 10⁻⁴`
/// under the defaults, so that Benjamini-Hochberg keeps a lone early
/// failure in a suite of up to 250 tests at budget 0.05 (see
/// [`crate::suite`]). A clear failure reaches it within a few more
/// trials than `1 / α`.
pub const STOP_EVIDENCE: f64 = 1e4;

/// One criterion of the claim over every input of a run: its effect, and
/// the one-sided tests and bounds each direction is decided by.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
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
    /// The one-sided p-value of "candidate less accurate beyond the
    /// margin": the criterion shows it exactly where this is below its
    /// level.
    #[serde(default)]
    pub p_margin: Option<f64>,
    /// The one-sided lower confidence bound on the effect at the
    /// criterion's level: above `1 + margin` exactly where `p_margin` is
    /// below the level.
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

    /// Less accurate beyond the margin at `level`: the test at the margin
    /// rejects.
    pub fn beyond(&self, level: f64) -> bool {
        self.p_margin.is_some_and(|p| p < level)
    }

    /// More accurate at `level`: the test of "more accurate" at ratio 1
    /// rejects.
    pub fn more_accurate(&self, level: f64) -> bool {
        self.p_better.is_some_and(|p| p < level)
    }
}

/// Which criterion of the claim decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Which {
    /// (M): the mean error.
    Mean,
    /// (T): the error on the typical input.
    Typical,
}

/// The claim's two criteria over every input of a run, and the inputs they
/// are computed over.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Claim {
    /// (M): mean Δ1 / mean Δ2, the skew-corrected mean test and its bounds.
    pub mean: Criterion,
    /// (T): the median of Δ1 / Δ2, its order statistics' bounds, and the
    /// p-values of the two tests it is decided by, each the larger of
    /// theirs ([`Claim::typical_tests`]).
    pub typical: Criterion,
    /// The two tests of (T), each as it found.
    #[serde(default)]
    pub typical_tests: Typical,
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
    /// Inputs where only the candidate's error was infinite (a non-finite
    /// output allowed): the worst possible errors, in (M) as in (T).
    #[serde(default)]
    pub candidate_non_finite: usize,
    /// Output elements, over every input, where the metric was undefined
    /// for both outputs: left out of both errors.
    #[serde(default)]
    pub undefined_elements: usize,
    /// Ties the oracle skipped: (M) counts each measured tie for them.
    #[serde(default)]
    pub skipped_ties: usize,
    /// A loss in mean this `n` could not show, if (M) points beyond the
    /// margin on too few inputs.
    #[serde(default)]
    pub short: Option<Short>,
}

impl Claim {
    /// The criterion that shows the candidate less accurate beyond the
    /// margin; where both do, the one with the smaller p-value.
    pub fn failed_by(&self) -> Option<Which> {
        let (m, t) = (&self.mean, &self.typical);
        match (m.beyond(self.level), t.beyond(self.level)) {
            (true, true) if t.p_margin < m.p_margin => Some(Which::Typical),
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

    /// A criterion's point estimate lies beyond the margin, whether or not
    /// its test shows it there.
    pub fn estimate_beyond_margin(&self) -> bool {
        [self.mean.effect, self.typical.effect]
            .iter()
            .any(|&e| e > 1.0 + self.margin)
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
    /// `2 × level`: twice the smaller of the two criteria's (Bonferroni
    /// over the two). The claim fails exactly where it is below
    /// `2 × level`.
    pub fn p_value(&self) -> f64 {
        let p = [self.mean.p_margin, self.typical.p_margin]
            .into_iter()
            .map(|p| p.unwrap_or(1.0))
            .fold(1.0, f64::min);
        (2.0 * p).min(1.0)
    }
}

/// Whether (M), at its criterion's level of the run's `fixed` level and
/// at `margin`, could reject with every tie the oracle skipped at error 0,
/// the count most adverse to the candidate: the decision then depends on
/// their errors, and they are measured before it is taken.
pub(crate) fn needs_skipped_ties(errors: &Errors, fixed: FixedLevel, margin: f64) -> bool {
    errors.unmeasured > 0
        && errors
            .mean_ratio(Skipped::AtZero)
            .is_some_and(|m| m.p_greater(1.0 + margin) < fixed.criterion())
}

/// (M) at its criterion's level of the run's `fixed` level: the
/// skew-corrected test of the ratio of means over the finite inputs, and
/// where the candidate alone returned a non-finite output on some inputs
/// (allowed), the exact sign test of those against the baseline's, each
/// at half the criterion's level ([`FixedLevel::mean_part`]; a non-finite
/// output is the worst possible error: one more than the baseline's makes
/// the mean infinite).
fn mean(errors: &Errors, fixed: FixedLevel, margin: f64) -> Criterion {
    let (k, b) = (
        errors.candidate_non_finite as u64,
        errors.baseline_non_finite as u64,
    );
    let finite = errors
        .mean_ratio(Skipped::Weighted)
        .filter(|_| !errors.delta1.is_empty());
    // The skipped ties at error 0 where that decides (see
    // `needs_skipped_ties`): the larger p-value of the two.
    let at_zero = errors
        .mean_ratio(Skipped::AtZero)
        .filter(|_| errors.unmeasured > 0 && !errors.delta1.is_empty());
    let split = |p: f64, events: bool| if events { (2.0 * p).min(1.0) } else { p };
    let worse_split = k > 0;
    let better_split = b > 0;
    let p_nf_worse = (k > 0).then(|| binom_test_half(k, k + b, Alternative::Greater));
    let p_nf_better = (b > 0).then(|| binom_test_half(k, k + b, Alternative::Less));
    let combine = |finite: Option<f64>, nf: Option<f64>, split_it: bool| -> Option<f64> {
        let p = match (finite, nf) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(split(p, split_it))
    };
    let level_worse = fixed.mean_part(worse_split);
    let level_better = fixed.mean_part(better_split);
    let p_margin_finite = finite.as_ref().map(|m| {
        let p = m.p_greater(1.0 + margin);
        at_zero
            .as_ref()
            .map_or(p, |z| p.max(z.p_greater(1.0 + margin)))
    });
    let ratio = errors.ratio();
    let effect = match k.cmp(&b) {
        std::cmp::Ordering::Greater => f64::INFINITY,
        std::cmp::Ordering::Less => 0.0,
        std::cmp::Ordering::Equal => ratio,
    };
    let nf_shown = |p: Option<f64>, at: f64| p.is_some_and(|p| p < at);
    Criterion {
        effect,
        p_worse: combine(
            finite.as_ref().map(|m| m.p_greater(1.0)),
            p_nf_worse,
            worse_split,
        ),
        p_better: combine(
            finite.as_ref().map(|m| m.p_less(1.0)),
            p_nf_better,
            better_split,
        ),
        p_margin: combine(p_margin_finite, p_nf_worse, worse_split),
        lower: if nf_shown(p_nf_worse, level_worse) {
            f64::INFINITY
        } else {
            finite.as_ref().map_or(0.0, |m| {
                let lower = m.lower(level_worse);
                at_zero
                    .as_ref()
                    .map_or(lower, |z| lower.min(z.lower(level_worse)))
            })
        },
        upper: if nf_shown(p_nf_better, level_better) {
            0.0
        } else {
            finite
                .as_ref()
                .map_or(f64::INFINITY, |m| m.upper(level_better))
        },
    }
}

/// (T) at `level` and `margin`: the median over every input of `Δ1 / Δ2`
/// (a tie counting as 1) and its distribution-free bounds; "less accurate"
/// shown where both the exact sign test of "`Δ1 > t·Δ2` on more than half
/// the inputs" (a tie counting against it) and the one-sided `paired` test
/// at margin 0 reject, at `t = 1 + δ` (beyond the margin) and at `t = 1`
/// (at margin 0); "more accurate" where both the sign test of "`Δ1 < Δ2`
/// on more than half" and `paired` do. Each p-value is the larger of the
/// two: an intersection-union test, at level `level` whatever their
/// dependence (Berger 1982). Under `test = sign`, `paired` is the sign test
/// of the non-zero differences, which rejects wherever the sign test over
/// every input does, so (T) is the sign test alone.
fn typical(errors: &Errors, level: f64, margin: f64, paired: &PairedTest) -> (Criterion, Typical) {
    let r = errors.ratios();
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
    let sign = |count: usize| {
        (n > 0).then(|| binom_test_half(count as u64, n as u64, Alternative::Greater))
    };
    let above = |t: f64| r.iter().filter(|&&x| x > t).count();
    let sign_margin = sign(above(1.0 + margin));
    let tests = Typical {
        test: paired.test,
        paired_worse: paired.worse.as_ref().ok().map(|t| t.p_value),
        paired_better: paired.better.as_ref().ok().map(|t| t.p_value),
        sign_margin,
    };
    let both = |sign: Option<f64>, paired: Option<f64>| match tests.test {
        AccuracyTest::Sign => sign,
        _ => Some(sign?.max(paired?)),
    };
    let criterion = Criterion {
        effect: if median.is_nan() {
            f64::INFINITY
        } else {
            median
        },
        p_worse: both(sign(above(1.0)), tests.paired_worse),
        p_better: both(
            sign(r.iter().filter(|&&x| x < 1.0).count()),
            tests.paired_better,
        ),
        p_margin: both(sign_margin, tests.paired_worse),
        lower,
        upper,
    };
    (criterion, tests)
}

/// The two tests (T) is decided by, each as it found: "less accurate
/// beyond the margin" is shown where both reject.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Typical {
    /// The one-sided paired test named by `test` (after any fallback of
    /// the paired t-test to Wilcoxon), at margin 0.
    pub test: AccuracyTest,
    /// Its p-value of "candidate less accurate", where it could be
    /// computed.
    pub paired_worse: Option<f64>,
    /// Its p-value of "candidate more accurate".
    pub paired_better: Option<f64>,
    /// The exact sign test's p-value of "`Δ1 > (1 + δ)·Δ2` on more than
    /// half the inputs".
    pub sign_margin: Option<f64>,
}

/// The claim over `errors` at the run's `fixed` level (each criterion at
/// [`FixedLevel::criterion`]) and `margin`, (T) with the one-sided
/// `paired` test over the same inputs. A loss too short to show is judged
/// against the fewest differing inputs the sign test of (T) can reject
/// with.
pub(crate) fn assess(
    errors: &Errors,
    fixed: FixedLevel,
    margin: f64,
    paired: &PairedTest,
) -> Claim {
    let half = fixed.criterion();
    let min_differing = fixed.min_inputs(AccuracyTest::Sign);
    let mean = mean(errors, fixed, margin);
    let [mean_delta1, mean_delta2] = errors.means();
    let short = (!mean.beyond(half) && errors.inputs() > 0)
        .then(|| short::short(errors, mean.effect, half, margin, min_differing))
        .flatten();
    let (typical, typical_tests) = typical(errors, half, margin, paired);
    Claim {
        mean,
        typical,
        typical_tests,
        level: half,
        margin,
        inputs: errors.inputs(),
        in_mean: errors.in_mean(),
        mean_delta1,
        mean_delta2,
        differing: errors.delta1.len(),
        not_judged: errors.not_judged,
        baseline_non_finite: errors.baseline_non_finite,
        candidate_non_finite: errors.candidate_non_finite,
        undefined_elements: errors.undefined_elements,
        skipped_ties: errors.unmeasured,
        short,
    }
}

mod errors;
mod margin;
mod short;

pub(crate) use self::errors::{Errors, Skipped};
pub use self::margin::WithinMargin;
pub use self::short::Short;

#[cfg(test)]
mod tests;
