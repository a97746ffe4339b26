//! The judgement: the one place where a run's pass or fail is decided.
//!
//! It is an ordered list of gates (`GATES`), each of which decides the run
//! or passes it on; the first that decides wins, and its decision alone
//! gives what decided the run ([`DecidedBy`]), the accuracy verdict,
//! whether the accuracy expectation holds and the run's p-value for a
//! suite. In order:
//!
//! 1. the test's own check (`check = ...`), which fails the run whatever
//!    else held. It reads the finished [`Outcome`](crate::outcome::Outcome), so it
//!    is applied to the judgement the other gates gave ([`check_failed`]),
//!    which keeps their accuracy verdict: no evidence is gathered and no
//!    gate runs again;
//! 2. the test's documented bound, then the non-finite gate, then the
//!    gross-error gate where its count could not be chance (each over
//!    every full trial; see [`crate::screen`]);
//! 3. a quick pass, checked by the claim over the inputs it ran: a loss
//!    they show, or one they are too few to decide, is no pass;
//! 4. the sequential decision if the run stopped at it (a failure, or a
//!    pass in the quick mode or under `expect = worse`);
//! 5. under `rule = paper`, the paper's one-sided test alone;
//! 6. the claim's rule over every input ([`crate::decide::claim`]), which
//!    always decides: a pass this `n` could not have withheld ends short
//!    of inputs.
//!
//! Beside the deciding gate, the stability expectation and the comparison
//! with a saved baseline each fail the run on their own.
//! [`Outcome`](crate::outcome::Outcome) stores the result; the terminal table, the
//! HTML page, `summary.json`, the step summary and `assert` read it, and
//! nothing re-derives it.

use super::expectation::{accuracy_met, stability_met};
use super::fixed::FixedLevel;
use super::gates::{GrossError, OverBound, gross_p_value, gross_shown};
use super::judgement::{DecidedBy, Ending, Judgement};
use super::levels::Levels;
use crate::config::Settings;
use crate::decide::claim::Claim;
use crate::decide::claim::WithinMargin;
use crate::evidence::{NonFinite, SequentialEvidence, Summaries};
use crate::expect::Expect;
use crate::rule::Rule;
use crate::stats::sequential::{Crossed, Reason};
use crate::verdict::{Accuracy, Analysis, Verdict};

/// What the judgement reads, gathered once by the run.
pub(crate) struct Evidence<'a> {
    pub(crate) settings: &'a Settings,
    /// The run's levels, computed once from its settings.
    pub(crate) levels: &'a Levels,
    /// The level of the tests over every input, as the levels give it for
    /// how the run ended: that of the tests and the claim the judgement
    /// reads.
    pub(crate) fixed: FixedLevel,
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
}

/// A gate's decision: what decided, the accuracy verdict, whether the
/// accuracy expectation holds, and the run's p-value for a suite (kept
/// for `expect = no_worse` alone, and capped at 1, by [`suite_p_value`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decision {
    decided_by: DecidedBy,
    accuracy: Accuracy,
    accuracy_met: bool,
    p_value: Option<f64>,
}

/// What every gate reads: the evidence, and what the judgement derives
/// from it once, before any gate.
struct Judging<'e, 'a> {
    e: &'e Evidence<'a>,
    /// How the trials ended.
    ending: Ending,
    /// Whether the run stopped at a pass in the quick mode.
    quick_pass: bool,
    /// Whether the stability expectation holds (where there is one).
    stability_met: bool,
}

/// A gate: its decision, or `None` to pass the run on to the next.
type Gate = fn(&Judging<'_, '_>) -> Option<Decision>;

/// The gates, in order (the check aside: see the module's list); the
/// last, the claim's, always decides.
const GATES: [Gate; 7] = [
    bound,
    non_finite,
    gross_error,
    quick_pass_checked,
    sequential,
    paper,
    claim,
];

/// Decides the run: the first of `GATES` that decides, and beside it
/// the stability expectation and the comparison with a saved baseline,
/// which each fail the run on their own.
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
    // A quick pass is checked by the claim over the inputs it ran, at the
    // share of α left to the tests over every input: not descriptive.
    let quick = e.screen.mode == crate::screen::Mode::Quick;
    let j = Judging {
        e,
        ending,
        quick_pass: q.quick_pass(quick),
        stability_met: s.stability.is_none_or(|x| stability_met(e.verdict, x)),
    };
    let d = GATES
        .iter()
        .find_map(|gate| gate(&j))
        .expect("the claim, the last gate, always decides");
    let within_margin = (d.accuracy != Accuracy::LessAccurate)
        .then(|| within_margin(e))
        .flatten();
    Judgement {
        passed: d.accuracy_met && j.stability_met && !e.regressed,
        accuracy_met: d.accuracy_met,
        accuracy: d.accuracy,
        decided_by: d.decided_by,
        ending,
        fixed_alpha: e.fixed.level(),
        within_margin,
        regressed: e.regressed,
        over_bound: e.over_bound,
        p_value: suite_p_value(d.p_value, s.expect),
    }
}

/// The test's own check, failed: the first gate of the order, applied to
/// `judgement`, which the other gates gave, since the check reads the
/// finished outcome. It fails the run ([`DecidedBy::Check`], a p-value of
/// 0 for a suite) and keeps the accuracy verdict the other gates found: a
/// check says nothing of accuracy.
pub(crate) fn check_failed(judgement: &Judgement, expect: Expect) -> Judgement {
    let d = Decision {
        decided_by: DecidedBy::Check,
        accuracy: judgement.accuracy,
        accuracy_met: judgement.accuracy_met,
        p_value: Some(0.0),
    };
    Judgement {
        passed: false,
        accuracy: d.accuracy,
        accuracy_met: d.accuracy_met,
        decided_by: d.decided_by,
        p_value: suite_p_value(d.p_value, expect),
        ..*judgement
    }
}

/// The run's p-value for a suite, from the deciding gate's: kept for
/// `expect = no_worse` alone, capped at 1.
fn suite_p_value(p_value: Option<f64>, expect: Expect) -> Option<f64> {
    (expect == Expect::NoWorse)
        .then_some(p_value)
        .flatten()
        .map(|p| p.min(1.0))
}

/// The test's documented bound: an input over it (a NaN output included)
/// fails the run whatever the expectation, even `worse`, which a
/// non-finite output alone would meet.
fn bound(j: &Judging<'_, '_>) -> Option<Decision> {
    let b = j.e.over_bound?;
    Some(Decision {
        decided_by: DecidedBy::Bound {
            trial: b.at.trial,
            seed: b.at.seed,
        },
        accuracy: j.e.verdict.accuracy,
        accuracy_met: false,
        p_value: Some(0.0),
    })
}

/// The non-finite gate: the candidate's first NaN or infinity where the
/// baseline's output was finite, unless allowed. Only `expect = worse`
/// is met by it.
fn non_finite(j: &Judging<'_, '_>) -> Option<Decision> {
    let s = j.e.settings;
    if s.allow_non_finite {
        return None;
    }
    let first = *j.e.non_finite.candidate_only().first()?;
    Some(Decision {
        decided_by: DecidedBy::NonFinite {
            trial: first.trial,
            seed: first.seed,
        },
        accuracy: Accuracy::LessAccurate,
        accuracy_met: s.expect == Expect::Worse,
        p_value: Some(0.0),
    })
}

/// The gross-error gate: gross errors fail the run where their count
/// could not be chance at the level of the tests over every input. Only
/// `expect = worse` is met by it.
fn gross_error(j: &Judging<'_, '_>) -> Option<Decision> {
    let gross = j.e.gross;
    let first = gross
        .first()
        .filter(|_| gross_shown(gross.len(), j.e.fixed.level()))?;
    Some(Decision {
        decided_by: DecidedBy::GrossError {
            trial: first.at.trial,
            seed: first.at.seed,
        },
        accuracy: Accuracy::LessAccurate,
        accuracy_met: j.e.settings.expect == Expect::Worse,
        p_value: Some(j.e.fixed.to_alpha(gross_p_value(gross.len()))),
    })
}

/// A quick pass, checked by the claim over the inputs it ran: one whose
/// inputs already show the loss is no pass, nor one whose inputs show a
/// loss they are too few to decide. Any other quick pass is the
/// sequential decision's.
fn quick_pass_checked(j: &Judging<'_, '_>) -> Option<Decision> {
    if !j.quick_pass {
        None
    } else if j.e.claim.less_accurate() {
        Some(claim_rule(j, Accuracy::LessAccurate))
    } else if j.e.claim.short.is_some() {
        Some(short_of_inputs(Accuracy::NoSignificantDifference))
    } else {
        None
    }
}

/// The sequential decision, where the run stopped at it: its failure, or
/// its pass (in the quick mode or under `expect = worse`).
fn sequential(j: &Judging<'_, '_>) -> Option<Decision> {
    let Ending::Decided { .. } = j.ending else {
        return None;
    };
    let q = j.e.sequential;
    let (reason, passed) = match q.crossed {
        Crossed::Fail { reason, .. } => (reason, false),
        Crossed::Pass { reason, .. } => (reason, true),
        Crossed::Neither => return None,
    };
    let accuracy = match reason {
        Reason::Worse => Accuracy::LessAccurate,
        Reason::Better => Accuracy::MoreAccurate,
        _ => Accuracy::NoSignificantDifference,
    };
    // An early failure's p-value for a suite is valid by Ville's
    // inequality; a pass has none below 1.
    let p_value = if passed {
        Some(1.0)
    } else {
        q.trace
            .last()
            .map(|p| j.e.levels.early_p_value(p.log10_fail))
    };
    Some(Decision {
        decided_by: DecidedBy::Sequential {
            after: j.e.screen.checked,
            reason,
        },
        accuracy,
        accuracy_met: passed,
        p_value,
    })
}

/// Under `rule = paper`, the paper's one-sided test over every input,
/// alone. A run that met its accuracy claim and failed on stability gives
/// the stability test's p-value (0 where stability could not be compared).
fn paper(j: &Judging<'_, '_>) -> Option<Decision> {
    let e = j.e;
    if e.settings.rule != Rule::Paper {
        return None;
    }
    let met = accuracy_met(e.verdict, e.settings.expect);
    let p_value = if met && !j.stability_met {
        e.analysis
            .spread_greater
            .as_ref()
            .map_or(0.0, |t| t.p_value)
    } else {
        e.analysis.worse.as_ref().map_or(1.0, |t| t.p_value)
    };
    Some(Decision {
        decided_by: DecidedBy::Paper {
            alpha: j.e.fixed.level(),
        },
        accuracy: e.verdict.accuracy,
        accuracy_met: met,
        p_value: Some(p_value),
    })
}

/// The claim's rule over every input: the last gate, which always
/// decides.
fn claim(j: &Judging<'_, '_>) -> Option<Decision> {
    Some(claim_rule(j, j.e.verdict.accuracy))
}

/// The claim's decision, with `accuracy` as the verdict: a pass this `n`
/// could not have withheld is no pass (the claim's mean points beyond the
/// margin on too few inputs for its test ever to reject). Its p-value is
/// the claim's scaled to α, or, for a run that met its accuracy claim and
/// failed on stability, the stability test's, scaled the same way (0
/// where stability could not be compared).
fn claim_rule(j: &Judging<'_, '_>, accuracy: Accuracy) -> Decision {
    let e = j.e;
    let met = accuracy_met(e.verdict, e.settings.expect);
    if met && e.claim.short.is_some() {
        return short_of_inputs(accuracy);
    }
    let p_value = if met && !j.stability_met {
        e.analysis
            .spread_greater
            .as_ref()
            .map_or(0.0, |t| j.e.fixed.to_alpha(t.p_value))
    } else {
        j.e.fixed.to_alpha(e.claim.p_value())
    };
    Decision {
        decided_by: DecidedBy::FixedN {
            alpha: j.e.fixed.level(),
        },
        accuracy,
        accuracy_met: met,
        p_value: Some(p_value),
    }
}

/// A loss the inputs run are too few to decide: no pass, and a p-value of
/// 0 for a suite.
fn short_of_inputs(accuracy: Accuracy) -> Decision {
    Decision {
        decided_by: DecidedBy::ShortOfInputs,
        accuracy,
        accuracy_met: false,
        p_value: Some(0.0),
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
    fn a_failed_check_decides_and_keeps_the_accuracy_verdict() {
        let passed = Judgement {
            passed: true,
            accuracy_met: true,
            accuracy: Accuracy::NoSignificantDifference,
            decided_by: DecidedBy::FixedN { alpha: 0.005 },
            ending: Ending::Cap,
            fixed_alpha: 0.005,
            within_margin: None,
            regressed: false,
            over_bound: None,
            p_value: Some(0.4),
        };
        let checked = check_failed(&passed, Expect::NoWorse);
        assert_eq!(
            checked,
            Judgement {
                passed: false,
                decided_by: DecidedBy::Check,
                p_value: Some(0.0),
                ..passed
            }
        );
        let worse = check_failed(&passed, Expect::Worse);
        assert_eq!((worse.decided_by, worse.p_value), (DecidedBy::Check, None));
    }
}
