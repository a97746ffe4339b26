//! The claim in words: what it claims and at which levels, each criterion
//! with its effect, p-values, bound and whether it decided, and the
//! accuracy verdict in one sentence. Every word follows the decision: a
//! sentence says "significantly" only of a test below its level, "more
//! accurate" only where the claim decided it, and "within the margin" only
//! where a criterion was significant at margin 0 and not beyond.

use super::numbers::{change, p_short, percent, signed, times};
use crate::decide::DecidedBy;
use crate::decide::claim::{Claim, Criterion, Which};
use crate::expect::Expect;
use crate::outcome::Outcome;
use crate::stats::sequential::{Crossed, Reason};
use crate::verdict::Accuracy;

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
fn at_zero(p: Option<f64>) -> String {
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

    /// The accuracy verdict in one sentence, composed from the judgement
    /// and the claim, with how the run ended.
    pub fn accuracy_sentence(&self) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let v = &self.verdict;
        if let DecidedBy::Sequential { reason, .. } = self.judgement.decided_by {
            return self.ended(&self.early_words(reason));
        }
        if (v.identical || v.equal_errors) && self.claim.not_judged == 0 {
            return self.ended(&if v.identical {
                format!("{c} and {b} gave identical outputs on every trial")
            } else {
                format!(
                    "{c} and {b} had equal errors on every trial, though their outputs differ: no \
                     accuracy difference can be detected"
                )
            });
        }
        let claim = &self.claim;
        let words = match claim.accuracy() {
            Accuracy::LessAccurate => self.less_accurate_words(),
            Accuracy::MoreAccurate => self.more_accurate_words(),
            Accuracy::NoSignificantDifference => match &claim.short {
                Some(short) => format!(
                    "{c}'s mean error is {} the baseline's, but the loss rests on {} of the {} \
                     inputs, too few for the test of the mean at level {} to ever reject however \
                     large it is: it cannot be established at this n; raise n to at least {}",
                    times(short.ratio),
                    short.carriers,
                    short.inputs,
                    short.level,
                    short.n_needed
                ),
                None if claim.significantly_worse() => self.within_margin_words(),
                None => format!(
                    "No significant accuracy difference between {c} and {b}: mean error {} the \
                     baseline's ({}), typical error {} ({})",
                    change(claim.mean.effect, false),
                    at_zero(claim.mean.p_worse),
                    times(claim.typical.effect),
                    at_zero(claim.typical.p_worse)
                ),
            },
        };
        self.ended(&words)
    }

    /// The criterion that failed the claim, in words: only its own
    /// p-values, each below its level.
    fn less_accurate_words(&self) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let claim = &self.claim;
        let level = claim.level;
        let margin = 100.0 * claim.margin;
        match claim.failed_by() {
            Some(Which::Mean) => {
                let m = &claim.mean;
                let non_finite = if claim.candidate_non_finite > claim.baseline_non_finite {
                    format!(
                        " (a non-finite output, allowed, on {} inputs against the baseline's {})",
                        claim.candidate_non_finite, claim.baseline_non_finite
                    )
                } else {
                    String::new()
                };
                format!(
                    "{c} is significantly less accurate than {b} in mean error, beyond the \
                     {margin}% margin: mean error {} the baseline's{non_finite}, lower bound {} \
                     at level {level} ({} at the margin); typical error {}",
                    change(m.effect, true),
                    times(m.lower),
                    p_short(m.p_margin.unwrap_or(1.0)),
                    times(claim.typical.effect),
                )
            }
            _ => {
                let t = &claim.typical;
                format!(
                    "{c} is significantly less accurate than {b} on the typical input, beyond the \
                     {margin}% margin: its error is {} the baseline's on the median input, lower \
                     bound {} at level {level} ({} at the margin; one-sided {} {}); mean error {}",
                    times(t.effect),
                    times(t.lower),
                    p_short(t.p_margin.unwrap_or(1.0)),
                    self.analysis.accuracy_test.name(),
                    at_zero(t.p_worse),
                    change(claim.mean.effect, true),
                )
            }
        }
    }

    /// The criteria that showed the candidate more accurate, and any
    /// point estimate that goes the other way, said to be no evidence.
    fn more_accurate_words(&self) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let claim = &self.claim;
        let level = claim.level;
        let shown: Vec<String> = [(Which::Mean, &claim.mean), (Which::Typical, &claim.typical)]
            .into_iter()
            .filter(|(_, k)| k.more_accurate(level))
            .map(|(w, k)| {
                format!(
                    "{} {} the baseline's (upper bound {}; {} below {level})",
                    match w {
                        Which::Mean => "in mean error:",
                        Which::Typical => "on the typical input:",
                    },
                    times(k.effect),
                    times(k.upper),
                    p_short(k.p_better.unwrap_or(1.0))
                )
            })
            .collect();
        let mut s = format!(
            "{c} is significantly more accurate than {b} {}",
            shown.join(" and ")
        );
        for (w, k) in [(Which::Mean, &claim.mean), (Which::Typical, &claim.typical)] {
            if !k.more_accurate(level) && k.effect > 1.0 {
                s.push_str(&format!(
                    ". Its {} is {} the baseline's, not shown worse ({})",
                    match w {
                        Which::Mean => "mean error",
                        Which::Typical => "typical error",
                    },
                    times(k.effect),
                    at_zero(k.p_worse)
                ));
            }
        }
        s
    }

    /// A significant difference the margin forgives, stated rather than
    /// hidden; where a point estimate lies beyond the margin but no bound
    /// does, it says that instead.
    fn within_margin_words(&self) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let claim = &self.claim;
        let m = 100.0 * claim.margin;
        let mean = 100.0 * (claim.mean.effect - 1.0);
        let typical = 100.0 * (claim.typical.effect - 1.0);
        let p = significant_worse_p(claim);
        let mut s = if mean > m || typical > m {
            format!(
                "{c} is less accurate than {b} ({} at margin 0): mean error {}, typical error {} \
                 the baseline's, not shown beyond the {m}% margin with confidence at this n",
                p_short(p),
                signed(mean),
                signed(typical),
            )
        } else if mean >= 0.0 {
            format!(
                "{c} is less accurate than {b} by {} ({} at margin 0), within the {m}% margin",
                percent(mean),
                p_short(p),
            )
        } else {
            format!(
                "{c} is less accurate than {b} on most inputs ({} at margin 0), though its mean \
                 error is {} lower; within the {m}% margin",
                p_short(p),
                percent(-mean)
            )
        };
        if let Some(p99) = self.judgement.within_margin.and_then(|w| w.p99_percent) {
            s.push_str(&format!("; the tail is heavier (P99 +{})", percent(p99)));
        }
        s
    }

    /// What an early decision established, in words.
    fn early_words(&self, reason: Reason) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let m = format!("{}%", 100.0 * self.settings.margin);
        let evidence = self
            .sequential
            .trace
            .last()
            .map(|t| match self.sequential.crossed {
                Crossed::Fail { .. } => format!(
                    " (anytime-valid sequential test, e-value 10^{:.1} against a threshold of \
                     10^{:.1})",
                    t.log10_fail,
                    (1.0 / self.sequential.alpha_split.fail).log10().max(4.0)
                ),
                _ => " (anytime-valid sequential test)".to_owned(),
            })
            .unwrap_or_default();
        let mean = format!(
            "; mean error {} the baseline's over the inputs run",
            change(self.claim.mean.effect, true)
        );
        match reason {
            Reason::Worse => format!(
                "{c} is significantly less accurate than {b} on the typical input, beyond the {m} \
                 margin{evidence}{mean}"
            ),
            Reason::Better => {
                format!("{c} is significantly more accurate than {b}{evidence}{mean}")
            }
            Reason::NotWorseBeyondMargin => {
                format!("{c} is not less accurate than {b} beyond the {m} margin{evidence}")
            }
            Reason::NotBetterBeyondMargin => {
                format!("{c} is not more accurate than {b} beyond the {m} margin{evidence}")
            }
            Reason::WithinMargin => {
                format!("{c} and {b} agree in accuracy within the {m} margin{evidence}")
            }
        }
    }
}

/// The smaller p-value at margin 0 of a criterion significantly worse.
fn significant_worse_p(claim: &Claim) -> f64 {
    [claim.mean, claim.typical]
        .iter()
        .filter(|c| c.significantly_worse(claim.level))
        .filter_map(|c| c.p_worse)
        .fold(1.0, f64::min)
}

impl Reason {
    /// The claim an early decision established, in words.
    pub const fn sentence(self) -> &'static str {
        match self {
            Reason::Worse => "the candidate is less accurate than the baseline",
            Reason::Better => "the candidate is more accurate than the baseline",
            Reason::NotWorseBeyondMargin => {
                "the candidate is not less accurate than the baseline beyond the margin"
            }
            Reason::NotBetterBeyondMargin => {
                "the candidate is not more accurate than the baseline beyond the margin"
            }
            Reason::WithinMargin => "the candidate and the baseline agree within the margin",
        }
    }
}
