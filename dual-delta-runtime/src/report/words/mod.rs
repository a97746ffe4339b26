//! The one writer of words: every sentence a report prints about a run is
//! composed here, from the run's decision ([`crate::decision::Judgement`]) and the
//! evidence it read, and nowhere else. Other modules hold data; the
//! reporters (the terminal, the page, `summary.json`, the step summary)
//! print what these functions say, so no two of them can disagree with
//! each other or with the decision.
//!
//! [`Outcome::claim_lines`] leads every report: the claim, α and each
//! criterion's share, each criterion with its effect, p-values and bound,
//! and what decided. [`Outcome::verdict_sentence`] says it all in a
//! paragraph, [`Outcome::failure_sentence`] gives a failure's reason first.

mod claim;
mod verdict;

#[cfg(feature = "html")]
pub(crate) use self::claim::CriterionRow;
mod events;
pub mod numbers;

use std::path::Path;

use crate::decide::DecidedBy;
use crate::ended::{Skipped, Stopped};
use crate::outcome::Outcome;
use crate::regions::Side;

impl Outcome {
    /// How to run the trial with the candidate's largest error alone, its
    /// input and the three outputs printed in full: `to replay its worst
    /// trial alone: DUAL_DELTA_TRIAL=0x… cargo test … --exact`. `None` where
    /// no worst input was drawn again.
    pub fn trial_replay_sentence(&self) -> Option<String> {
        let worst = self.worst_inputs.first()?;
        Some(format!(
            "to replay its worst trial alone, with its input and outputs in full: {}",
            crate::replay::trial_command(&self.names.test, worst.at.seed)
        ))
    }

    /// Where the loss is, for a run that fails the claim: the one cut of
    /// the inputs' features that carries it ([`crate::regions::Localization`]), or
    /// that it is spread over them. `None` for a pass.
    pub fn where_sentence(&self) -> Option<String> {
        let l = self.regions.as_ref()?;
        let tried = format!(
            "{} cuts of {} features of the {} inputs",
            l.cuts,
            l.features.len(),
            l.inputs
        );
        Some(match (&l.cut, l.p_value) {
            (Some(cut), Some(p)) if l.carries => format!(
                "worse where {} ({:.0}% of inputs): {}; elsewhere {} (the best of {tried}, \
                 {} by a permutation test of the search)",
                side_words(&cut.feature, &cut.side),
                100.0 * cut.share,
                numbers::times(cut.ratio),
                numbers::times(cut.ratio_elsewhere),
                numbers::p_short(p),
            ),
            (Some(cut), Some(p)) => format!(
                "spread over the inputs: no cut of their features carries the loss (the best, \
                 where {}, {} against {} elsewhere, {} by a permutation test over {tried})",
                side_words(&cut.feature, &cut.side),
                numbers::times(cut.ratio),
                numbers::times(cut.ratio_elsewhere),
                numbers::p_short(p),
            ),
            _ => format!(
                "spread over the inputs: no feature of theirs has a cut with enough inputs on \
                 each side (of {})",
                l.inputs
            ),
        })
    }

    /// `claim`, with how the run ended: `(over 1000 of 1000 inputs; 88 ties
    /// (identical outputs))`, the early stop, or the quick pass; and the
    /// inputs the metric could not judge, if any.
    fn ended(&self, claim: &str) -> String {
        let ended = self.ended_plain(claim);
        let judged = &self.claim;
        if judged.not_judged == 0 && judged.baseline_non_finite == 0 {
            return ended;
        }
        format!(
            "{ended} The metric could not judge {} input(s) (undefined for both outputs), \
             counted as ties; on {} the baseline's error alone was not finite, counted for \
             the candidate{}.",
            judged.not_judged,
            judged.baseline_non_finite,
            if judged.undefined_elements > 0 {
                format!(
                    "; {} output element(s) undefined for both were left out of both errors",
                    judged.undefined_elements
                )
            } else {
                String::new()
            }
        )
    }

    fn ended_plain(&self, claim: &str) -> String {
        let s = &self.screen;
        let n = self.settings.n;
        let tie_words = match s.ties {
            1 => "1 tie (identical outputs)".to_owned(),
            t => format!("{t} ties (identical outputs)"),
        };
        let ties = if s.ties == 0 {
            String::new()
        } else if s.ties_unmeasured() == 0 {
            format!("; {tie_words}")
        } else if s.ties_measured == 0 {
            format!("; {tie_words}, none measured by the oracle: counted at error 0 in the mean")
        } else {
            format!(
                "; {tie_words}, their errors estimated from the {} the oracle ran on",
                s.ties_measured
            )
        };
        match self.judgement.decided_by {
            DecidedBy::Sequential { after, .. } if s.quick_pass() => {
                // (1 − p)^k ≤ α rules out a share p of bad inputs.
                let share = 1.0 - self.settings.alpha.powf(1.0 / after.max(1) as f64);
                format!(
                    "{claim} (quick mode: passed after {after} of {n} inputs, the mean and the \
                     typical input judged by the claim on those {after} alone; a share of inputs \
                     with a non-finite output, a panic or a gross error below {:.2}% cannot be \
                     ruled out at {}% confidence).",
                    100.0 * share,
                    100.0 * (1.0 - self.settings.alpha)
                )
            }
            DecidedBy::Sequential { after, .. } => {
                format!("{claim} (stopped after {after} of {n} inputs{ties}).")
            }
            _ => format!("{claim} (over {} of {n} inputs{ties}).", s.checked),
        }
    }

    /// What the screen did, in one sentence (empty when every input ran as
    /// a full trial): what a quick pass left unchecked.
    pub fn screen_sentence(&self) -> String {
        let s = &self.screen;
        if s.quick_pass() {
            format!(
                "Quick mode: rare non-finite outputs, panics and gross errors on the other {} \
                 inputs were not checked.",
                s.unchecked
            )
        } else {
            String::new()
        }
    }

    /// The descriptive statistics as every report's table shows them: the
    /// run's [`Summaries`](crate::outcome::Summaries) over the inputs the oracle ran
    /// on, except where ties were sampled: then the means are the claim's,
    /// over every input with finite errors, each measured tie standing for
    /// the ties the oracle skipped, so that the table's means and the
    /// ratio of means tell one story ([`Outcome::means_note`] says so).
    pub fn shown_summaries(&self) -> crate::outcome::Summaries {
        let mut shown = self.summaries;
        if self.means_weighted() {
            let (m1, m2) = (self.claim.mean_delta1, self.claim.mean_delta2);
            shown.candidate.mean = m1;
            shown.baseline.mean = m2;
            shown.differences.mean = m1 - m2;
        }
        shown
    }

    /// Over which inputs the table's statistics are, where ties were
    /// sampled for the oracle (`None` where the oracle ran on every tie).
    pub fn means_note(&self) -> Option<String> {
        let s = &self.screen;
        self.means_weighted().then(|| {
            format!(
                "means over all {} inputs with finite errors (the {} ties the oracle skipped \
                 counted as the {} it ran on); the other columns over the {} inputs it ran on",
                self.claim.in_mean,
                s.ties_unmeasured(),
                s.ties_measured,
                self.delta1.len()
            )
        })
    }

    /// Whether the table's means are the claim's, weighted for the ties
    /// the oracle skipped ([`Outcome::shown_summaries`]).
    fn means_weighted(&self) -> bool {
        self.screen.ties_unmeasured() > 0
            && self.screen.ties_measured > 0
            && self.claim.mean_delta1.is_finite()
    }

    /// Why the run failed, in one sentence, the reason first (by what
    /// decided it: its check, a gate, a regression, the claim); `None` for
    /// a run that passed. What every one-line summary of a failure says.
    pub fn failure_sentence(&self) -> Option<String> {
        if self.passed() {
            return None;
        }
        let s = &self.settings;
        Some(match self.judgement.decided_by {
            DecidedBy::Check => format!(
                "Failed its check: {}.",
                self.check.as_deref().unwrap_or("(no reason given)")
            ),
            DecidedBy::NonFinite { .. } => self.non_finite_words().unwrap_or_default(),
            DecidedBy::Bound { .. } => self
                .judgement
                .over_bound
                .map(|b| self.bound_sentence(&b))
                .unwrap_or_default(),
            DecidedBy::GrossError { .. } => self.gross_words().unwrap_or_default(),
            _ if self.judgement.regressed => self
                .regression
                .as_ref()
                .map(|r| r.sentence())
                .unwrap_or_default(),
            _ if self.meets_accuracy() => format!(
                "Stability expectation `{}` not met: {}",
                s.stability.map_or("none", |e| e.name()),
                self.stability_sentence()
            ),
            _ => self.accuracy_sentence(),
        })
    }

    /// The verdict in words: a failed check first, the gates where they
    /// apply, then the claim, the screen, a regression, advice on the
    /// metric, the device, then stability.
    pub fn verdict_sentence(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(reason) = &self.check {
            parts.push(format!("Failed its check: {reason}."));
        }
        parts.extend(self.non_finite_words());
        if let Some(b) = &self.judgement.over_bound {
            parts.push(self.bound_sentence(b));
        } else if let Some(bound) = self.settings.bound {
            let max = self.delta1.iter().copied().fold(0.0, f64::max);
            parts.push(format!(
                "Every one of the {} inputs checked within the documented bound {} (largest \
                 error {}).",
                self.inputs_checked(),
                numbers::sci(bound),
                numbers::sci(max)
            ));
        }
        parts.extend(self.gross_words());
        parts.push(self.accuracy_sentence());
        parts.push(self.screen_sentence());
        parts.extend(self.regression.as_ref().map(|r| r.sentence()));
        parts.extend(self.metric_advice.as_ref().map(|a| a.sentence()));
        parts.push(self.device_sentence());
        parts.push(self.stability_sentence());
        parts.retain(|p| !p.is_empty());
        parts.join(" ")
    }

    /// What the GPU this run's functions used does to floating-point
    /// arithmetic, where it differs from lavapipe (`gpu.caveats`, recorded
    /// by the GPU backend's probe), in one sentence; empty where nothing was
    /// recorded.
    pub fn device_sentence(&self) -> String {
        match self.environment.get("gpu.caveats") {
            Some(c) if !c.is_empty() => {
                let adapter = self
                    .environment
                    .get("gpu.adapter")
                    .map(|a| format!(" ({})", a.split(" (").next().unwrap_or(a)))
                    .unwrap_or_default();
                format!("Device{adapter}: {c}.")
            }
            _ => String::new(),
        }
    }
}

/// The terminal's line for a skipped test.
pub(crate) fn skipped_line(s: &Skipped) -> String {
    format!(
        "dual-delta test `{}` skipped by the {}: {}\n",
        s.test, s.role, s.reason
    )
}

/// The terminal's lines for a run that could not finish: why, the command
/// that replays it, and its record.
pub(crate) fn stopped_lines(s: &Stopped, record: Option<&Path>) -> String {
    let place = s
        .place
        .as_deref()
        .map_or_else(String::new, |p| format!(" ({p})"));
    let record = record.map_or_else(String::new, |p| format!("  record: {}\n", p.display()));
    format!(
        "dual-delta test `{}`{place} could not run: {}\n  replay: {}\n{record}",
        s.test, s.reason, s.replay
    )
}

/// Why a report directory that holds a run's `deltas.csv` and no record is
/// unreadable.
pub(crate) const NO_RECORD: &str =
    "holds a deltas.csv but no summary.json, skipped.json or stopped.json";

/// Why a record that does not parse is unreadable: truncated, empty or not
/// JSON.
pub(crate) fn not_json(e: &serde_json::Error) -> String {
    if e.is_eof() {
        format!("truncated or empty ({e})")
    } else {
        format!("not a record of this version ({e})")
    }
}

/// Why a report's link is unreadable: the version it points to is gone.
pub(crate) fn dangling_link(target: Option<&Path>) -> String {
    match target {
        Some(t) => format!("a link to {}, which is missing", t.display()),
        None => "a link that cannot be read".to_owned(),
    }
}

/// The line a reader prints for a report it cannot read: counted as a
/// failure.
pub(crate) fn unreadable_line(u: &super::Unreadable) -> String {
    format!(
        "unreadable report of `{}`: {}: {}",
        u.dir,
        u.path.display(),
        u.why
    )
}

/// `P passed, F failed, R regressed, S skipped`, and `, U unreadable`
/// where reports cannot be read.
/// The counts in order: passed, failed, regressed, skipped, unreadable.
pub(crate) fn suite_counts([passed, failed, regressed, skipped, unreadable]: [usize; 5]) -> String {
    let unreadable = if unreadable == 0 {
        String::new()
    } else {
        format!(", {unreadable} unreadable")
    };
    format!(
        "{passed} passed, {failed} failed, {regressed} regressed, {skipped} skipped{unreadable}"
    )
}

/// What `merge` says of a shard with no report.
pub(crate) fn empty_shard_line(shard: &str) -> String {
    format!("shard {shard} holds no report: its tests are missing from the merge (a failure)")
}

/// `x < 1`, `len(x) > 2048`, `kind is subnormal`.
pub(crate) fn side_words(feature: &str, side: &Side) -> String {
    format!("{feature} {}", side_of(side, true))
}

/// `< 1`, `≥ 2048`, `is subnormal`: the inputs on the worse side of a cut
/// (`worse`), or on the other.
pub(crate) fn side_of(side: &Side, worse: bool) -> String {
    let op = |below: bool, inclusive: bool| match (below == worse, inclusive == worse) {
        (true, true) => "≤",
        (true, false) => "<",
        (false, true) => "≥",
        (false, false) => ">",
    };
    match side {
        Side::Below { bound, inclusive } => {
            format!("{} {}", op(true, *inclusive), numbers::bound(*bound))
        }
        Side::Above { bound, inclusive } => {
            format!("{} {}", op(false, *inclusive), numbers::bound(*bound))
        }
        Side::Is { label } if worse => format!("is {label}"),
        Side::Is { label } => format!("is not {label}"),
    }
}
