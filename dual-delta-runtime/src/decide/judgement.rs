//! The judgement: the one place where a run's pass or fail is decided.
//!
//! In order: the non-finite gate, the test's documented bound, the
//! gross-error gate (each over every full trial; see [`crate::screen`]),
//! then the sequential decision if the
//! run stopped at it (a failure, or a pass in the quick mode), then the
//! claim's rule over every input ([`crate::decide::claim`]).
//! [`Outcome`](crate::Outcome) stores the result; the terminal table, the
//! HTML page, `summary.json`, the step summary and `assert` read it, and
//! nothing re-derives it.

use super::{GrossError, Levels, OverBound};
use crate::config::Settings;
use crate::decide::claim::Claim;
use crate::evidence::{NonFinite, SequentialVerdict, Summaries};
use crate::expect::Expect;
use crate::stats::sequential::{Decision, Reason};
use crate::verdict::{Accuracy, Analysis, Verdict};

/// What decided a run's accuracy verdict.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum DecidedBy {
    /// The candidate returned a NaN or an infinity where the baseline and
    /// the oracle were finite (the first such trial).
    NonFinite {
        /// The trial.
        trial: usize,
        /// Its seed.
        seed: u64,
    },
    /// The candidate's error exceeded the test's documented bound (the
    /// first such trial; [`Judgement::over_bound`] says where).
    Bound {
        /// The trial.
        trial: usize,
        /// Its seed.
        seed: u64,
    },
    /// The candidate made a gross error (the first such trial).
    GrossError {
        /// The trial.
        trial: usize,
        /// Its seed.
        seed: u64,
    },
    /// The anytime-valid sequential test, at which the run stopped.
    Sequential {
        /// The trials it took.
        after: usize,
        /// What the evidence showed.
        reason: Reason,
    },
    /// The fixed-N tests over every trial run, at level `alpha`.
    FixedN {
        /// The level (α, or its share left to the fallback at the cap).
        #[serde(with = "crate::json_number")]
        alpha: f64,
    },
}

/// How the trials of a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum Ending {
    /// At the sequential decision, after `after` trials: the fixed-N tests
    /// over them are descriptive.
    Decided {
        /// The trials taken.
        after: usize,
    },
    /// At the cap `n`, undecided by the sequential test: the fixed-N tests
    /// decide at the share of α left to them.
    Cap,
    /// After all `n` trials, early stopping off: the fixed-N tests decide
    /// at α.
    AllTrials,
}

/// A difference the margin forgives, stated rather than hidden: a
/// criterion of the claim finds the candidate significantly less accurate
/// at margin 0, yet neither shows it beyond the margin with confidence.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WithinMargin {
    /// `100 × (R − 1)`, `R` the ratio of mean errors over every input (see
    /// [`crate::decide::claim`]); negative when the candidate's mean error is the
    /// smaller, though it is worse on most inputs.
    #[serde(with = "crate::json_number")]
    pub percent: f64,
    /// `100 × (median of Δ1 / Δ2 − 1)` over every input, ties counting as
    /// a ratio of 1.
    #[serde(with = "crate::json_number", default)]
    pub typical_percent: f64,
    /// The smaller one-sided p-value at margin 0 of a criterion that found
    /// the candidate less accurate.
    #[serde(with = "crate::json_number")]
    pub p_value: f64,
    /// The margin δ.
    #[serde(with = "crate::json_number")]
    pub margin: f64,
    /// `100 × (P99 Δ1 / P99 Δ2 − 1)` when the candidate's tail is heavier
    /// than its mean shift says: at least twice the mean's percentage, and
    /// at least half a percentage point above it.
    pub p99_percent: Option<f64>,
}

impl WithinMargin {
    /// `less accurate by 0.8% (p = 7.2e-24), within the 5% margin; the tail
    /// is heavier (P99 +3.7%)`. Where a point estimate lies beyond the
    /// margin but no bound does, it says that instead.
    pub fn sentence(&self) -> String {
        let m = 100.0 * self.margin;
        let mut s = if self.percent > m || self.typical_percent > m {
            format!(
                "less accurate (p = {:.1e}): mean error {}, typical error {} the baseline's, \
                 not shown beyond the {m}% margin with confidence at this n",
                self.p_value,
                signed(self.percent),
                signed(self.typical_percent),
            )
        } else if self.percent >= 0.0 {
            format!(
                "less accurate by {} (p = {:.1e}), within the {m}% margin",
                percent(self.percent),
                self.p_value,
            )
        } else {
            format!(
                "less accurate on most inputs (p = {:.1e}), though its mean error is {} lower",
                self.p_value,
                percent(-self.percent)
            )
        };
        if let Some(p99) = self.p99_percent {
            s.push_str(&format!("; the tail is heavier (P99 +{})", percent(p99)));
        }
        s
    }
}

/// `+14%`, `−3.0%`.
fn signed(p: f64) -> String {
    if p >= 0.0 {
        format!("+{}", percent(p))
    } else {
        format!("−{}", percent(-p))
    }
}

/// `0.8%`, `0.071%`, `1.0%`, `12%`: rounded to two significant digits.
pub(crate) fn percent(p: f64) -> String {
    let r = format!("{p:.1e}").parse::<f64>().unwrap_or(p);
    if r >= 10.0 {
        format!("{r:.0}%")
    } else if r >= 1.0 {
        format!("{r:.1}%")
    } else {
        format!("{r}%")
    }
}

/// The decision of a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Judgement {
    /// Whether every expectation holds.
    pub passed: bool,
    /// Whether the accuracy expectation holds.
    pub accuracy_met: bool,
    /// The accuracy verdict that decided.
    pub accuracy: Accuracy,
    /// What decided it.
    pub decided_by: DecidedBy,
    /// How the trials ended.
    pub ending: Ending,
    /// The level at which the fixed-N tests ran: α, or the share of α left
    /// to them at the cap.
    #[serde(with = "crate::json_number")]
    pub fixed_alpha: f64,
    /// A significant difference inside the margin, if there is one.
    pub within_margin: Option<WithinMargin>,
    /// The candidate is significantly less accurate than at the baseline
    /// it was compared with (`DUAL_DELTA_BASELINE`): the run fails.
    pub regressed: bool,
    /// The first input whose candidate error exceeded the test's
    /// documented bound, if one did.
    #[serde(default)]
    pub over_bound: Option<OverBound>,
    /// The run's p-value for a suite ([`crate::suite`]), that of the
    /// criterion that failed it: the run fails its accuracy claim at α only
    /// if this is below α. A gate failure gives 0; an early failure
    /// `α / (α_fail · E)` (`E` the fail side's e-value where the run
    /// stopped, valid by Ville's inequality); otherwise the claim's p-value
    /// ([`crate::decide::claim::Claim::p_value`]) scaled by `α / fixed_alpha`. The
    /// two paths share α as the run does. A run that met its accuracy
    /// claim and failed on stability gives the stability test's p-value,
    /// scaled the same way (0 where stability could not be compared).
    /// `None` for expectations other than `no_worse`.
    pub p_value: Option<f64>,
}

impl Judgement {
    /// Whether a fixed-N test's p-value is significant at the level the
    /// fixed-N tests ran at ([`Judgement::fixed_alpha`]): the one place
    /// reports learn it.
    pub fn significant(&self, p_value: f64) -> bool {
        p_value < self.fixed_alpha
    }
}

/// What the judgement reads.
pub(crate) struct Evidence<'a> {
    pub(crate) settings: &'a Settings,
    /// The run's levels, computed once from its settings.
    pub(crate) levels: &'a Levels,
    pub(crate) sequential: &'a SequentialVerdict,
    pub(crate) analysis: &'a Analysis,
    pub(crate) claim: &'a Claim,
    pub(crate) verdict: &'a Verdict,
    pub(crate) summaries: &'a Summaries,
    pub(crate) non_finite: &'a NonFinite,
    pub(crate) gross: &'a [GrossError],
    /// The first input over the test's bound.
    pub(crate) over_bound: Option<OverBound>,
    pub(crate) screen: &'a crate::screen::Screen,
    /// The comparison with a saved baseline found the candidate less
    /// accurate than it was.
    pub(crate) regressed: bool,
}

/// Decides the run: the non-finite gate, then the gross-error gate, then
/// the sequential decision if the run stopped at it, then the fixed-N
/// verdict; and the comparison with a baseline, if any, which fails the run
/// on its own.
pub(crate) fn judge(e: &Evidence<'_>) -> Judgement {
    let s = e.settings;
    let q = e.sequential;
    let ending = match q.decided_after() {
        Some(_) if q.stopped => Ending::Decided {
            after: e.screen.checked,
        },
        _ if s.stop_early => Ending::Cap,
        _ => Ending::AllTrials,
    };
    let levels = e.levels;
    let fixed_alpha = levels.fixed(q.stopped);
    let first_non_finite = e
        .non_finite
        .candidate_only()
        .first()
        .map(|t| (t.trial, t.seed));
    let (decided_by, accuracy) = match (first_non_finite, e.over_bound, e.gross.first()) {
        (Some((trial, seed)), _, _) if !s.allow_non_finite => {
            (DecidedBy::NonFinite { trial, seed }, Accuracy::LessAccurate)
        }
        (_, Some(b), _) => (
            DecidedBy::Bound {
                trial: b.at.trial,
                seed: b.at.seed,
            },
            e.verdict.accuracy,
        ),
        (_, _, Some(g)) => (
            DecidedBy::GrossError {
                trial: g.trial,
                seed: g.seed,
            },
            Accuracy::LessAccurate,
        ),
        _ => match q.decision {
            Decision::Fail { reason, .. } | Decision::Pass { reason, .. }
                if matches!(ending, Ending::Decided { .. }) =>
            {
                let after = e.screen.checked;
                let accuracy = match reason {
                    Reason::Worse => Accuracy::LessAccurate,
                    Reason::Better => Accuracy::MoreAccurate,
                    _ => Accuracy::NoSignificantDifference,
                };
                (DecidedBy::Sequential { after, reason }, accuracy)
            }
            _ => (DecidedBy::FixedN { alpha: fixed_alpha }, e.verdict.accuracy),
        },
    };
    let accuracy_met = match decided_by {
        DecidedBy::NonFinite { .. } | DecidedBy::GrossError { .. } => s.expect == Expect::Worse,
        // A documented bound holds whatever the expectation.
        DecidedBy::Bound { .. } => false,
        DecidedBy::Sequential { .. } => matches!(q.decision, Decision::Pass { .. }),
        DecidedBy::FixedN { .. } => e.verdict.meets_accuracy(s.expect),
    };
    let stability_met = s.stability.is_none_or(|x| e.verdict.meets_stability(x));
    let within_margin = (accuracy != Accuracy::LessAccurate)
        .then(|| within_margin(e))
        .flatten();
    let regressed = e.regressed;
    let p_value = (s.expect == Expect::NoWorse)
        .then(|| match decided_by {
            DecidedBy::NonFinite { .. }
            | DecidedBy::GrossError { .. }
            | DecidedBy::Bound { .. } => Some(0.0),
            DecidedBy::Sequential { .. } => match q.decision {
                Decision::Fail { .. } => q.trace.last().map(|p| levels.early_p_value(p.log10_fail)),
                _ => Some(1.0),
            },
            DecidedBy::FixedN { .. } if accuracy_met && !stability_met => Some(
                e.analysis
                    .variance_greater
                    .as_ref()
                    .map_or(0.0, |t| t.p_value * s.alpha / fixed_alpha),
            ),
            DecidedBy::FixedN { .. } => Some(e.claim.p_value() * s.alpha / fixed_alpha),
        })
        .flatten()
        .map(|p| p.min(1.0));
    Judgement {
        passed: accuracy_met && stability_met && !regressed,
        accuracy_met,
        accuracy,
        decided_by,
        ending,
        fixed_alpha,
        within_margin,
        regressed,
        over_bound: e.over_bound,
        p_value,
    }
}

/// The difference the margin forgave, if a criterion of the claim finds
/// the candidate significantly less accurate at margin 0.
fn within_margin(e: &Evidence<'_>) -> Option<WithinMargin> {
    let claim = e.claim;
    let margin = e.settings.margin;
    let p_value = [claim.mean, claim.typical]
        .iter()
        .filter(|c| c.significantly_worse(claim.level))
        .filter_map(|c| c.p_worse)
        .reduce(f64::min)?;
    if !(margin > 0.0 && claim.mean.effect.is_finite()) {
        return None;
    }
    let (c, b) = (&e.summaries.candidate, &e.summaries.baseline);
    let mean = 100.0 * (claim.mean.effect - 1.0);
    let p99 = 100.0 * (c.p99 / b.p99 - 1.0);
    let heavier = mean >= 0.0 && p99.is_finite() && p99 >= 2.0 * mean && p99 - mean >= 0.5;
    Some(WithinMargin {
        percent: mean,
        typical_percent: 100.0 * (claim.typical.effect - 1.0),
        p_value,
        margin,
        p99_percent: heavier.then_some(p99),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_difference_reads_as_one_sentence() {
        let w = WithinMargin {
            percent: 0.8,
            typical_percent: 0.5,
            p_value: 7.2e-24,
            margin: 0.05,
            p99_percent: Some(3.7),
        };
        assert_eq!(
            w.sentence(),
            "less accurate by 0.8% (p = 7.2e-24), within the 5% margin; the tail is heavier \
             (P99 +3.7%)"
        );
        // A point estimate beyond the margin that no bound shows is not
        // called "within the margin".
        let unsure = WithinMargin {
            percent: 14.0,
            typical_percent: 2.0,
            p99_percent: None,
            ..w
        };
        assert_eq!(
            unsure.sentence(),
            "less accurate (p = 7.2e-24): mean error +14%, typical error +2.0% the baseline's, \
             not shown beyond the 5% margin with confidence at this n"
        );
        assert_eq!(percent(0.0712), "0.071%");
        assert_eq!(percent(0.99999), "1.0%");
        assert_eq!(percent(12.4), "12%");
    }
}
