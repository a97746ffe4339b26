//! Everything else a run says, each from the evidence it reads: the gates,
//! the comparison with a saved baseline, the advice on the metric, the
//! paper's verdicts on stability and accuracy, and the trials shown.

use super::numbers::{p_short, plain, sci};
use crate::advice::MetricAdvice;
use crate::baseline::{Regression, RegressionDecision};
use crate::decide::claim::Which;
use crate::decide::{GrossError, OverBound};
use crate::outcome::Outcome;
use crate::verdict::{Accuracy, Equivalence, Stability, Verdict};
use crate::worst::{AtWorst, ReplayedTrial, WorstInput};

impl Outcome {
    /// The non-finite outputs of the candidate where the baseline and the
    /// oracle were finite, in one sentence; `None` where there are none.
    pub(super) fn non_finite_words(&self) -> Option<String> {
        let failing = self.non_finite.candidate_only();
        (!failing.is_empty()).then(|| {
            format!(
                "the candidate {} returned a non-finite value (NaN or infinity) on {} of {} inputs \
                 checked where {} and the oracle were finite{}.",
                self.names.candidate,
                failing.len(),
                self.inputs_checked(),
                self.names.baseline,
                if self.settings.allow_non_finite {
                    " (allowed by this test; the worst possible errors in the claim)"
                } else {
                    ""
                }
            )
        })
    }

    /// The first input over the documented bound, in one sentence: the
    /// trial, its seed, both errors, and the three outputs where the
    /// candidate's error is largest.
    pub fn bound_sentence(&self, b: &OverBound) -> String {
        let (n, a) = (&self.names, &b.at);
        format!(
            "{}'s error exceeded the documented bound {} on trial {} (trial seed {:#018x}): \
             error {} ({}'s {}){}: candidate {}, baseline {}, oracle {}.",
            n.candidate,
            sci(b.bound),
            a.trial,
            a.seed,
            sci(a.delta1),
            n.baseline,
            sci(a.delta2),
            a.element_words(),
            a.candidate,
            a.baseline,
            a.oracle
        )
    }

    /// The gross errors, in one sentence; `None` where there are none.
    pub(super) fn gross_words(&self) -> Option<String> {
        let g: &GrossError = self.gross.first()?;
        let level = self.judgement.fixed_alpha;
        let p = crate::decide::gross_p_value(self.gross.len());
        let judged = if crate::decide::gross_shown(self.gross.len(), level) {
            format!("{}, below {level}: not chance", p_short(p))
        } else {
            format!(
                "{}, not below {level}: as many could be the baseline's by chance at equal \
                 accuracy, so the claim weighs them in the mean",
                p_short(p)
            )
        };
        Some(format!(
            "{} made a gross error on {} of {} inputs checked: first on trial {} (trial seed \
             {:#018x}), error {}, more than {} × the reference {} ({judged}).",
            self.names.candidate,
            self.gross.len(),
            self.inputs_checked(),
            g.at.trial,
            g.at.seed,
            sci(g.at.delta1),
            self.settings.gross_factor,
            sci(g.reference)
        ))
    }

    /// The stability verdict in one sentence.
    pub fn stability_sentence(&self) -> String {
        self.verdict
            .stability_sentence(&self.names.candidate, &self.names.baseline)
    }
}

impl Verdict {
    /// The paper's accuracy verdict in one sentence (the claim's accuracy,
    /// equivalence by Kolmogorov-Smirnov).
    pub fn accuracy_sentence(&self, candidate: &str, baseline: &str) -> String {
        if self.identical {
            return format!("{candidate} and {baseline} gave identical outputs on every trial.");
        }
        if self.equal_errors {
            return format!(
                "{candidate} and {baseline} had equal errors on every trial, though their \
                 outputs differ: no accuracy difference can be detected."
            );
        }
        match self.accuracy {
            Accuracy::MoreAccurate => {
                format!("{candidate} is significantly more accurate than {baseline}.")
            }
            Accuracy::LessAccurate => {
                format!("{candidate} is significantly less accurate than {baseline}.")
            }
            Accuracy::NoSignificantDifference => format!(
                "No significant accuracy difference between {candidate} and {baseline}{}.",
                match self.equivalence {
                    Equivalence::Indistinguishable =>
                        "; their error distributions are indistinguishable",
                    Equivalence::Distinguishable =>
                        ", though their error distributions differ (KS)",
                }
            ),
        }
    }

    /// The paper's stability verdict in one sentence.
    pub fn stability_sentence(&self, candidate: &str, baseline: &str) -> String {
        match self.stability {
            Stability::MoreStable => {
                format!("{candidate} is significantly more stable than {baseline}.")
            }
            Stability::LessStable => {
                format!("{candidate} is significantly less stable than {baseline}.")
            }
            Stability::NoSignificantDifference => {
                format!("No significant stability difference between {candidate} and {baseline}.")
            }
            Stability::Undetermined => "Stability could not be compared.".to_owned(),
        }
    }
}

impl Regression {
    /// The comparison in words: `Regression: less accurate than at baseline
    /// `main` (commit 1a2b3c4) beyond the 5% margin in mean error: mean error
    /// 1.310× the baseline's over 1000 paired trials, p = 3.2e-12 at the
    /// margin.`
    pub fn sentence(&self) -> String {
        let at = format!(
            "baseline `{}`{}",
            self.baseline,
            self.commit
                .as_deref()
                .map(|c| format!(" (commit {})", &c[..c.len().min(12)]))
                .unwrap_or_default()
        );
        let ratio = self.mean_now / self.mean_then;
        let p = self.p_value.map_or_else(
            || "p not computed".to_owned(),
            |p| format!("{} at the margin", p_short(p)),
        );
        match self.decision {
            RegressionDecision::TooFewTrials { needed } => format!(
                "Regression not checked against {at}: only {} trials in common (the baseline holds {}), and the \
                 test needs at least {needed}.",
                self.pairs, self.baseline_trials
            ),
            RegressionDecision::ShortOfInputs { n_needed } => format!(
                "Regression not decided against {at}: the mean error now is {ratio:.3}× the \
                 baseline's over {} paired trials, but the change rests on too few of them for \
                 any test at this n to establish it; raise n to at least {n_needed}.",
                self.pairs
            ),
            _ if self.regressed => format!(
                "Regression: less accurate than at {at} beyond the {}% margin{}: mean error \
                 {ratio:.3}× the baseline's over {} paired trials, {p}.",
                100.0 * self.margin,
                match self.claim.and_then(|c| c.failed_by()) {
                    Some(Which::Typical) => " on the typical input",
                    _ => " in mean error",
                },
                self.pairs,
            ),
            _ => format!(
                "No regression: not less accurate than at {at} beyond the {}% margin: mean error {ratio:.3}× the \
                 baseline's over {} paired trials, {p}.",
                100.0 * self.margin,
                self.pairs
            ),
        }
    }
}

impl MetricAdvice {
    /// The advice in one sentence.
    pub fn sentence(&self) -> String {
        format!(
            "The absolute branch of {} decided {:.0}% of the inputs (|oracle| < 1 at the \
             candidate's worst element): under max_relative its mean error is ×{} the \
             baseline's, not ×{}; use metric = max_relative where relative error matters.",
            self.metric,
            100.0 * self.absolute_share,
            plain(self.relative_ratio),
            plain(self.ratio)
        )
    }
}

impl AtWorst {
    /// Where the candidate's error is largest, in words: ` at element i
    /// of L` for a vector, nothing for a scalar.
    pub fn element_words(&self) -> String {
        if self.element.1 > 1 {
            format!(" at element {} of {}", self.element.0, self.element.1)
        } else {
            String::new()
        }
    }
}

impl WorstInput {
    /// The trial in one line: its index and seed, both errors, the three
    /// outputs at the worst element and the input.
    pub fn line(&self) -> String {
        let a = &self.at;
        format!(
            "trial {} (seed {:#018x}): error {:.4e} against the baseline's {:.4e}{}: candidate \
             {}, baseline {}, oracle {}; input {}",
            a.trial,
            a.seed,
            a.delta1,
            a.delta2,
            a.element_words(),
            a.candidate,
            a.baseline,
            a.oracle,
            self.input.as_deref().unwrap_or(
                "not shown (its type has no Debug; `DualDelta::describe_inputs` describes it)"
            ),
        )
    }
}

impl ReplayedTrial {
    /// The trial in full, one item a line.
    pub fn text(&self) -> String {
        let index = self.index.map_or_else(
            || "a trial of another run".to_owned(),
            |i| format!("trial {i}"),
        );
        format!(
            "{index} (trial seed {:#018x}) run again on its own:\n  input: {}\n  candidate: \
             {:?}\n  baseline: {:?}\n  oracle: {:?}\n  error: candidate {:e}, baseline {:e}\n",
            self.seed,
            self.input.as_deref().unwrap_or("(its type has no Debug)"),
            self.candidate,
            self.baseline,
            self.oracle,
            self.delta1,
            self.delta2,
        )
    }
}
