//! The judgement: the one place where a run's pass or fail is decided.
//!
//! In order: the test's documented bound, the non-finite gate, the
//! gross-error gate (each over every full trial; see [`crate::screen`]),
//! then the sequential decision if the
//! run stopped at it (a failure, or a pass in the quick mode or under
//! `expect = worse`), then the
//! claim's rule over every input ([`crate::decide::claim`]), or under
//! `rule = paper` the paper's one-sided test alone.
//! [`Outcome`](crate::outcome::Outcome) stores the result; the terminal table, the
//! HTML page, `summary.json`, the step summary and `assert` read it, and
//! nothing re-derives it.

use super::Levels;
use super::gates::{GrossError, OverBound};
use crate::config::Settings;
use crate::decide::claim::Claim;
use crate::decide::claim::WithinMargin;
use crate::evidence::{NonFinite, SequentialEvidence, Summaries};
use crate::expect::Expect;
use crate::rule::Rule;
use crate::stats::sequential::{Crossed, Reason};
use crate::verdict::{Accuracy, Analysis, Verdict};

/// What decided a run: the gate, test or check that passed or failed it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecidedBy {
    /// The test's own check (`check = ...`) failed: the run fails, its
    /// reason in [`crate::outcome::Outcome::check`].
    Check,
    /// The candidate returned a NaN or an infinity where the baseline and
    /// the oracle were finite (the first such trial).
    NonFinite {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The candidate's error exceeded the test's documented bound (the
    /// first such trial; [`Judgement::over_bound`] says where).
    Bound {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The candidate made more gross errors than chance could give at the
    /// level of the tests over every input (the first such trial; see
    /// [`crate::screen`]).
    GrossError {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The anytime-valid sequential test, at which the run stopped.
    Sequential {
        /// The trials it took.
        after: usize,
        /// What the evidence showed.
        reason: Reason,
    },
    /// The paper's test alone (`rule = paper`): the one-sided `test` over
    /// every input, at level `alpha`.
    Paper {
        /// The level: α.
        #[serde(with = "crate::json_number")]
        alpha: f64,
    },
    /// The claim's two criteria over every trial run, at level `alpha`.
    FixedN {
        /// The level (α, or its share left to the fallback at the cap).
        #[serde(with = "crate::json_number")]
        alpha: f64,
    },
    /// The claim could not decide at this `n`: its mean points beyond the
    /// margin on too few inputs for any test to establish it
    /// ([`crate::decision::claim::Short`], in [`crate::decision::claim::Claim::short`]). The
    /// run fails, naming the `n` that could, rather than pass.
    ShortOfInputs,
}

/// How the trials of a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
#[non_exhaustive]
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

/// The decision of a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Judgement {
    /// Whether every expectation holds.
    pub(crate) passed: bool,
    /// Whether the accuracy expectation holds.
    pub(crate) accuracy_met: bool,
    /// The accuracy verdict that decided.
    pub(crate) accuracy: Accuracy,
    /// What decided it.
    pub(crate) decided_by: DecidedBy,
    /// How the trials ended.
    pub(crate) ending: Ending,
    /// The level at which the fixed-N tests ran: α, or the share of α left
    /// to them at the cap.
    #[serde(with = "crate::json_number")]
    pub(crate) fixed_alpha: f64,
    /// A significant difference inside the margin, if there is one.
    pub(crate) within_margin: Option<WithinMargin>,
    /// The comparison with the baseline it was compared with
    /// (`DUAL_DELTA_BASELINE`) fails the run: the candidate is
    /// significantly less accurate than it was, or the comparison could
    /// not decide at this `n` ([`crate::baseline::Regression::fails`]).
    pub(crate) regressed: bool,
    /// The first input whose candidate error exceeded the test's
    /// documented bound, if one did.
    #[serde(default)]
    pub(crate) over_bound: Option<OverBound>,
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
    pub(crate) p_value: Option<f64>,
}

impl Judgement {
    /// Whether every expectation holds.
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// Whether the accuracy expectation holds.
    pub fn accuracy_met(&self) -> bool {
        self.accuracy_met
    }

    /// The accuracy verdict that decided.
    pub fn accuracy(&self) -> Accuracy {
        self.accuracy
    }

    /// What decided it.
    pub fn decided_by(&self) -> DecidedBy {
        self.decided_by
    }

    /// How the trials ended.
    pub fn ending(&self) -> Ending {
        self.ending
    }

    /// The level at which the fixed-N tests ran: α, or the share of α left
    /// to them at the cap.
    pub fn fixed_alpha(&self) -> f64 {
        self.fixed_alpha
    }

    /// A significant difference inside the margin, if there is one.
    pub fn within_margin(&self) -> Option<WithinMargin> {
        self.within_margin
    }

    /// The comparison with the baseline it was compared with
    /// (`DUAL_DELTA_BASELINE`) fails the run: the candidate is
    /// significantly less accurate than it was, or the comparison could
    /// not decide at this `n` ([`crate::baseline::Regression::fails`]).
    pub fn regressed(&self) -> bool {
        self.regressed
    }

    /// The first input whose candidate error exceeded the test's
    /// documented bound, if one did.
    pub fn over_bound(&self) -> Option<OverBound> {
        self.over_bound
    }

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
    pub fn p_value(&self) -> Option<f64> {
        self.p_value
    }

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
    pub(crate) sequential: &'a SequentialEvidence,
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
    /// Why the test's own check failed, where it ran and failed.
    pub(crate) check: Option<&'a str>,
}

/// Decides the run: the documented bound, then the non-finite gate, then
/// the gross-error gate (where its count could not be chance), then the
/// sequential decision if the run stopped at it, then the claim over every
/// input (or, under `rule = paper`, the paper's test); and the comparison
/// with a baseline, if any, which fails the run on its own, and the test's
/// own check.
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
    // A quick pass is checked by the claim over the inputs it ran, at the
    // share of α left to the tests over every input: not descriptive.
    let quick = e.screen.mode == crate::screen::Mode::Quick;
    let quick_pass = q.quick_pass(quick);
    let fixed_alpha = levels.fixed_after(q, quick);
    let first_non_finite = e
        .non_finite
        .candidate_only()
        .first()
        .map(|t| (t.trial, t.seed));
    // A documented bound decides first: an input over it (a NaN output
    // included) fails the run whatever the expectation, even `worse`, which
    // a non-finite output alone would meet.
    // Gross errors fail the run where their count could not be chance at
    // the level of the tests over every input.
    let gross = e
        .gross
        .first()
        .filter(|_| super::gross_shown(e.gross.len(), fixed_alpha));
    let (decided_by, accuracy) = match (first_non_finite, e.over_bound, gross) {
        (_, Some(b), _) => (
            DecidedBy::Bound {
                trial: b.at.trial,
                seed: b.at.seed,
            },
            e.verdict.accuracy,
        ),
        (Some((trial, seed)), _, _) if !s.allow_non_finite => {
            (DecidedBy::NonFinite { trial, seed }, Accuracy::LessAccurate)
        }
        (_, _, Some(g)) => (
            DecidedBy::GrossError {
                trial: g.at.trial,
                seed: g.at.seed,
            },
            Accuracy::LessAccurate,
        ),
        _ => match q.crossed {
            // A quick pass whose inputs already show the loss is no pass,
            // nor one whose inputs show a loss they are too few to decide.
            Crossed::Pass { .. } if quick_pass && e.claim.less_accurate() => (
                DecidedBy::FixedN { alpha: fixed_alpha },
                Accuracy::LessAccurate,
            ),
            Crossed::Pass { .. } if quick_pass && e.claim.short.is_some() => {
                (DecidedBy::ShortOfInputs, Accuracy::NoSignificantDifference)
            }
            Crossed::Fail { reason, .. } | Crossed::Pass { reason, .. }
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
            _ if s.rule == Rule::Paper => {
                (DecidedBy::Paper { alpha: fixed_alpha }, e.verdict.accuracy)
            }
            _ => (DecidedBy::FixedN { alpha: fixed_alpha }, e.verdict.accuracy),
        },
    };
    let mut accuracy_met = match decided_by {
        DecidedBy::NonFinite { .. } | DecidedBy::GrossError { .. } => s.expect == Expect::Worse,
        // A documented bound holds whatever the expectation.
        DecidedBy::Bound { .. } => false,
        // A loss the inputs run are too few to decide is no pass.
        DecidedBy::ShortOfInputs => false,
        DecidedBy::Sequential { .. } => matches!(q.crossed, Crossed::Pass { .. }),
        _ => e.verdict.meets_accuracy(s.expect),
    };
    // A pass this n could not have withheld is no pass: the claim's mean
    // points beyond the margin on too few inputs for its test ever to
    // reject.
    let decided_by = match decided_by {
        DecidedBy::FixedN { .. } if accuracy_met && e.claim.short.is_some() => {
            accuracy_met = false;
            DecidedBy::ShortOfInputs
        }
        other => other,
    };
    let stability_met = s.stability.is_none_or(|x| e.verdict.meets_stability(x));
    let within_margin = (accuracy != Accuracy::LessAccurate)
        .then(|| within_margin(e))
        .flatten();
    let regressed = e.regressed;
    // The test's own check fails the run whatever else held.
    let decided_by = if e.check.is_some() {
        DecidedBy::Check
    } else {
        decided_by
    };
    let p_value = (s.expect == Expect::NoWorse)
        .then(|| match decided_by {
            DecidedBy::NonFinite { .. }
            | DecidedBy::Bound { .. }
            | DecidedBy::Check
            | DecidedBy::ShortOfInputs => Some(0.0),
            DecidedBy::GrossError { .. } => {
                Some(super::gross_p_value(e.gross.len()) * s.alpha / fixed_alpha)
            }
            DecidedBy::Sequential { .. } => match q.crossed {
                Crossed::Fail { .. } => q.trace.last().map(|p| levels.early_p_value(p.log10_fail)),
                _ => Some(1.0),
            },
            DecidedBy::FixedN { .. } if accuracy_met && !stability_met => Some(
                e.analysis
                    .spread_greater
                    .as_ref()
                    .map_or(0.0, |t| t.p_value * s.alpha / fixed_alpha),
            ),
            DecidedBy::FixedN { .. } => Some(e.claim.p_value() * s.alpha / fixed_alpha),
            DecidedBy::Paper { .. } if accuracy_met && !stability_met => Some(
                e.analysis
                    .spread_greater
                    .as_ref()
                    .map_or(0.0, |t| t.p_value),
            ),
            DecidedBy::Paper { .. } => Some(e.analysis.worse.as_ref().map_or(1.0, |t| t.p_value)),
        })
        .flatten()
        .map(|p| p.min(1.0));
    Judgement {
        passed: accuracy_met && stability_met && !regressed && e.check.is_none(),
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
