//! The accuracy verdict in one sentence, composed from the judgement and
//! the claim: "significantly" only of a test below its level, "more
//! accurate" only where the claim decided it, "within the margin" only
//! where a criterion was significant at margin 0 and not beyond, with how
//! the run ended.

use super::claim::at_zero;
use super::numbers::{change, p_short, percent, signed, times};
use crate::decide::DecidedBy;
use crate::decide::claim::{Claim, Which};
use crate::outcome::Outcome;
use crate::stats::sequential::{Crossed, Reason};
use crate::verdict::Accuracy;

impl Outcome {
    /// The accuracy verdict in one sentence, composed from the judgement
    /// and the claim, with how the run ended.
    pub fn accuracy_sentence(&self) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let v = &self.verdict;
        if let DecidedBy::Sequential { reason, .. } = self.judgement.decided_by {
            return self.ended(&self.early_words(reason));
        }
        if let DecidedBy::Paper { alpha } = self.judgement.decided_by {
            return self.ended(&self.paper_words(alpha));
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
                None => {
                    // A sample whose estimate is beyond the margin, though no
                    // test shows it, says so: the pass is "not shown", not
                    // "within".
                    let hedge = if claim.estimate_beyond_margin() {
                        format!("; {}", not_shown_beyond(claim.margin))
                    } else {
                        String::new()
                    };
                    format!(
                        "No significant accuracy difference between {c} and {b}: mean error {} \
                         the baseline's ({}), typical error {} ({}){hedge}",
                        change(claim.mean.effect, false),
                        at_zero(claim.mean.p_worse),
                        times(claim.typical.effect),
                        at_zero(claim.typical.p_worse)
                    )
                }
            },
        };
        self.ended(&words)
    }

    /// The paper's verdict (`rule = paper`): the one-sided test's p-value
    /// in the direction it found, against α.
    fn paper_words(&self, alpha: f64) -> String {
        let (c, b) = (&self.names.candidate, &self.names.baseline);
        let a = &self.analysis;
        let test = a.accuracy_test.name();
        let p = |t: &crate::verdict::TestOutcome| {
            t.as_ref()
                .map_or_else(|e| format!("not computed ({e})"), |t| p_short(t.p_value))
        };
        let mean = format!("; mean error {}", change(self.claim.mean.effect, true));
        match self.judgement.accuracy {
            Accuracy::LessAccurate => format!(
                "{c} is significantly less accurate than {b} by the paper's test: one-sided {test}, \
                 {} < α = {alpha}{mean}",
                p(&a.worse)
            ),
            Accuracy::MoreAccurate => format!(
                "{c} is significantly more accurate than {b} by the paper's test: one-sided {test}, \
                 {} < α = {alpha}{mean}",
                p(&a.better)
            ),
            Accuracy::NoSignificantDifference => format!(
                "No significant accuracy difference between {c} and {b} by the paper's test: \
                 one-sided {test}, {} for less accurate and {} for more accurate, neither below \
                 α = {alpha}{mean}",
                p(&a.worse),
                p(&a.better)
            ),
        }
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
                let tests = &claim.typical_tests;
                format!(
                    "{c} is significantly less accurate than {b} on the typical input, beyond the \
                     {margin}% margin: its error is {} the baseline's on the median input, lower \
                     bound {} at level {level} (sign test {} at the margin; one-sided {} {}); \
                     mean error {}",
                    times(t.effect),
                    times(t.lower),
                    p_short(tests.sign_margin.unwrap_or(1.0)),
                    tests.test.name(),
                    at_zero(tests.paired_worse),
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
        let mut s = if claim.estimate_beyond_margin() {
            format!(
                "{c} is less accurate than {b} ({} at margin 0): mean error {}, typical error {} \
                 the baseline's, {}",
                p_short(p),
                signed(mean),
                signed(typical),
                not_shown_beyond(claim.margin),
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
                    " (anytime-valid sequential test, e-value 10^{e:.1}: evidence against \
                     \"not less accurate\" that chance reaches with probability at most \
                     10^-{e:.1}, over the threshold 10^{:.1})",
                    self.levels.stop_evidence_log10,
                    e = t.log10_fail,
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
            Reason::NotBetter => format!("{c} is not more accurate than {b}{evidence}"),
            Reason::WithinMargin => {
                format!("{c} and {b} agree in accuracy within the {m} margin{evidence}")
            }
        }
    }
}

/// What a verdict says of an estimate beyond the margin that no test
/// shows there.
fn not_shown_beyond(margin: f64) -> String {
    format!(
        "not shown beyond the {}% margin with confidence at this n",
        100.0 * margin
    )
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
            Reason::NotBetter => "the candidate is not more accurate than the baseline",
            Reason::WithinMargin => "the candidate and the baseline agree within the margin",
        }
    }
}
