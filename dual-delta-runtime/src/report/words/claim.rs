//! The claim in words: what it claims and at which levels, each criterion
//! with its effect, p-values, bound and whether it decided, and what
//! decided the run. Every word follows the decision (the verdict's
//! sentence, composed by the same rule, is in `verdict.rs`).

use super::numbers::{p_short, times};
use crate::decide::DecidedBy;
use crate::decide::claim::{Criterion, Which};
use crate::expect::Expect;
use crate::outcome::Outcome;
use crate::rule::Rule;

/// One criterion of the claim, in words, as a table's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriterionRow {
    /// `(M) mean error` or `(T) typical input`.
    pub label: &'static str,
    /// Its effect: `×1.38`.
    pub effect: String,
    /// Its one-sided bounds at its level: `×1.21–×1.57`.
    pub bounds: String,
    /// Its level.
    pub level: String,
    /// Its p-value at margin 0: `p = 8.7e-31 at margin 0`.
    pub p_zero: String,
    /// Its p-value at the margin, against its level.
    pub p_margin: String,
    /// What it found.
    pub found: &'static str,
    /// ` (deciding)` where it decided the run, a note where the
    /// anytime-valid test did, or nothing.
    pub decided: &'static str,
    /// Whether it decided the run.
    pub deciding: bool,
}

/// What the claim found of one criterion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    /// Less accurate beyond the margin: its test at the margin rejects.
    Beyond,
    /// Significantly less accurate at margin 0, not beyond the margin.
    WithinMargin,
    /// Significantly more accurate.
    Better,
    /// Neither.
    NotSignificant,
}

fn found(c: &Criterion, level: f64) -> Found {
    if c.beyond(level) {
        Found::Beyond
    } else if c.significantly_worse(level) {
        Found::WithinMargin
    } else if c.more_accurate(level) {
        Found::Better
    } else {
        Found::NotSignificant
    }
}

/// `(M) mean error` or `(T) typical input`.
fn label(which: Which) -> &'static str {
    match which {
        Which::Mean => "(M) mean error",
        Which::Typical => "(T) typical input",
    }
}

/// `p = 1e-9 at margin 0`, or that it could not be computed.
pub(super) fn at_zero(p: Option<f64>) -> String {
    p.map_or_else(
        || "p not computed at margin 0".to_owned(),
        |p| format!("{} at margin 0", p_short(p)),
    )
}

impl Outcome {
    /// The claim, first in every report: what it claims, α and each
    /// criterion's share of it, then each criterion (its effect, its
    /// one-sided bounds at its level, its p-values at margin 0 and at the
    /// margin, what it found, whether it decided), then what decided the
    /// run.
    pub fn claim_lines(&self) -> Vec<String> {
        let mut lines = vec![self.claim_heading()];
        for row in self.claim_rows() {
            lines.push(format!(
                "{}: {} the baseline's, one-sided bounds {} at level {}; {}; {}: {}{}",
                row.label,
                row.effect,
                row.bounds,
                row.level,
                row.p_zero,
                row.p_margin,
                row.found,
                row.decided
            ));
        }
        lines.push(format!("decided by {}", self.decided_words()));
        lines
    }

    /// The claim's two criteria as a table's rows.
    pub fn claim_rows(&self) -> [CriterionRow; 2] {
        let c = &self.claim;
        [(Which::Mean, &c.mean), (Which::Typical, &c.typical)]
            .map(|(which, criterion)| self.criterion_row(which, criterion))
    }

    /// `claim: naive is not less accurate than kahan beyond the 5% margin;
    /// α = 0.01: 0.005 to the anytime-valid test, 0.005 to the tests over
    /// every input, (M) and (T) at 0.0025 each`.
    pub fn claim_heading(&self) -> String {
        let (s, n) = (&self.settings, &self.names);
        let m = format!("{}%", 100.0 * s.margin);
        let claim = match s.expect {
            Expect::NoWorse => format!(
                "{} is not less accurate than {} beyond the {m} margin",
                n.candidate, n.baseline
            ),
            Expect::Better => format!("{} is more accurate than {}", n.candidate, n.baseline),
            Expect::Worse => format!(
                "{} is less accurate than {} beyond the {m} margin",
                n.candidate, n.baseline
            ),
            Expect::Equivalent => format!(
                "{} is as accurate as {}, its errors indistinguishable",
                n.candidate, n.baseline
            ),
        };
        if s.rule == Rule::Paper {
            return format!(
                "rule: the paper's test: {} fails where the one-sided {} shows it less accurate \
                 than {} at α = {} over every input (no margin, no mean criterion, no early stop; \
                 the claim's criteria below are descriptive)",
                n.candidate,
                self.analysis.accuracy_test.name(),
                n.baseline,
                s.alpha
            );
        }
        let split = &self.sequential.alpha_split;
        let shares = if s.stop_early {
            format!(
                "{} to the anytime-valid test, {} to the tests over every input, (M) and (T) at \
                 {} each",
                split.fail, split.fallback, self.claim.level
            )
        } else {
            format!(
                "all to the tests over every input, (M) and (T) at {} each",
                self.claim.level
            )
        };
        format!("claim: {claim}; α = {}: {shares}", s.alpha)
    }

    /// One criterion's row.
    fn criterion_row(&self, which: Which, c: &Criterion) -> CriterionRow {
        let claim = &self.claim;
        let level = claim.level;
        let margin = format!("{}%", 100.0 * claim.margin);
        let stopped = matches!(self.judgement.decided_by, DecidedBy::Sequential { .. });
        let paper = matches!(self.judgement.decided_by, DecidedBy::Paper { .. });
        let decided = self.criterion_decided(which);
        CriterionRow {
            label: label(which),
            effect: times(c.effect),
            bounds: format!("{}–{}", times(c.lower), times(c.upper)),
            level: level.to_string(),
            p_zero: match found(c, level) {
                Found::Better => {
                    format!("{} for more accurate", p_short(c.p_better.unwrap_or(1.0)))
                }
                _ => at_zero(c.p_worse),
            },
            p_margin: c.p_margin.map_or_else(
                || "not computed at the margin".to_owned(),
                |p| {
                    format!(
                        "{} at the {margin} margin ({} {level})",
                        p_short(p),
                        if p < level { "<" } else { ">=" }
                    )
                },
            ),
            found: match found(c, level) {
                Found::Beyond => "less accurate beyond the margin",
                Found::WithinMargin => "significant at margin 0, within the margin",
                Found::Better => "significantly more accurate",
                Found::NotSignificant => "not significant",
            },
            decided: if stopped {
                " (descriptive: the anytime-valid test decided)"
            } else if paper {
                " (descriptive: the paper's test decided)"
            } else if decided {
                " (deciding)"
            } else {
                ""
            },
            deciding: decided,
        }
    }

    /// Whether criterion `which` decided the run: the one that failed it,
    /// or, for a pass at the end of the run, each that showed what was
    /// expected.
    fn criterion_decided(&self, which: Which) -> bool {
        if !matches!(self.judgement.decided_by, DecidedBy::FixedN { .. })
            || self.judgement.regressed
        {
            return false;
        }
        let claim = &self.claim;
        let c = match which {
            Which::Mean => &claim.mean,
            Which::Typical => &claim.typical,
        };
        match claim.failed_by() {
            Some(w) => w == which,
            None => match self.settings.expect {
                Expect::Better => c.more_accurate(claim.level),
                Expect::NoWorse => true,
                _ => false,
            },
        }
    }

    /// What decided the run, in words.
    pub(crate) fn decided_words(&self) -> String {
        let n = self.settings.n;
        let mut words = match self.judgement.decided_by {
            DecidedBy::Check => format!(
                "the test's own check: {}",
                self.check.as_deref().unwrap_or("failed")
            ),
            DecidedBy::NonFinite { trial, seed } => format!(
                "the non-finite gate: the candidate returned a NaN or an infinity on trial \
                 {trial} (seed {seed:#018x}) where the baseline and the oracle were finite"
            ),
            DecidedBy::Bound { trial, seed } => {
                format!("the documented bound: first exceeded on trial {trial} (seed {seed:#018x})")
            }
            DecidedBy::GrossError { trial, seed } => {
                format!("the gross-error gate: first on trial {trial} (seed {seed:#018x})")
            }
            DecidedBy::Sequential { after, reason } => format!(
                "the anytime-valid sequential test after {after} of {n} inputs: {}",
                reason.sentence()
            ),
            DecidedBy::FixedN { alpha } => match self.claim.failed_by() {
                Some(w) => {
                    format!(
                        "{} over every input, at level {}",
                        label(w),
                        self.claim.level
                    ) + &format!(" (α = {alpha} to the two criteria)")
                }
                None => format!(
                    "the claim over every input: neither criterion beyond the margin at level {}",
                    self.claim.level
                ),
            },
            DecidedBy::Paper { alpha } => format!(
                "the paper's test over every input: the one-sided {} at α = {alpha}",
                self.analysis.accuracy_test.name()
            ),
            DecidedBy::ShortOfInputs => {
                "the claim, which could not decide at this n: see (M)".to_owned()
            }
        };
        if self.judgement.regressed
            && let Some(r) = &self.regression
        {
            words.push_str(&format!(
                "; and the comparison with baseline `{}`, which regressed",
                r.baseline
            ));
        }
        words
    }
}
