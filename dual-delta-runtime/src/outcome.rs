//! The outcome of a run: Δ1 and Δ2 paired by trial, their statistics, every
//! test, the verdict, and what the implementations returned that was not a
//! number. Reports read it; nothing here formats a report.

use std::time::Duration;

use crate::config::Settings;
use crate::output::NumberFormat;
use crate::rng::trial_seed;
use crate::stats::sequential::{AlphaSplit, Decision, Reason, TracePoint};
use crate::stats::{RatioInterval, StatsError, Summary};
use crate::verdict::{Analysis, Expect, Verdict};

/// What the implementations are called in tables and reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Names {
    /// The test (for annotated tests, `module::path::function`). It names
    /// the report's directory and derives the default seed. By default, the
    /// name of the thread that created the run: under `cargo test`, the
    /// test's path (`tests::kahan_is_better`); elsewhere `dual_delta`.
    pub test: String,
    /// The candidate f1.
    pub candidate: String,
    /// The baseline f2.
    pub baseline: String,
    /// The oracle fΩ.
    pub oracle: String,
    /// The input generator.
    pub input: String,
}

impl Default for Names {
    fn default() -> Self {
        // libtest names each test's thread after the test.
        let thread = std::thread::current();
        let test = match thread.name() {
            Some(name) if name != "main" && !name.is_empty() => name.to_owned(),
            _ => "dual_delta".to_owned(),
        };
        Names {
            test,
            candidate: "candidate".to_owned(),
            baseline: "baseline".to_owned(),
            oracle: "oracle".to_owned(),
            input: "input".to_owned(),
        }
    }
}

impl Names {
    /// The default names for these four functions: each function item is
    /// called by its name (`sum_naive`), a closure by its role
    /// (`candidate`, `baseline`, `oracle`, `input`).
    pub(crate) fn of<C, B, O, G>() -> Names {
        let d = Names::default();
        Names {
            candidate: function_name::<C>().unwrap_or(d.candidate),
            baseline: function_name::<B>().unwrap_or(d.baseline),
            oracle: function_name::<O>().unwrap_or(d.oracle),
            input: function_name::<G>().unwrap_or(d.input),
            test: d.test,
        }
    }
}

/// The name of a function item's type (`sum_naive` for
/// `my_crate::sum_naive`, `matmul` for `gpu::matmul<f16>`); `None` for a
/// closure or any other type.
fn function_name<F>() -> Option<String> {
    let full = std::any::type_name::<F>();
    if full.contains("{{closure}}") || full.starts_with(['&', '(', '[']) {
        return None;
    }
    let path = full.split('<').next().unwrap_or(full);
    let name = path.rsplit("::").next().unwrap_or(path);
    (!name.is_empty()).then(|| name.to_owned())
}

/// Descriptive statistics of Δ1, Δ2 and their paired differences.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summaries {
    /// Δ1, the candidate's errors.
    pub candidate: Summary,
    /// Δ2, the baseline's errors.
    pub baseline: Summary,
    /// Δ1 - Δ2.
    pub differences: Summary,
}

/// The result of a run: Δ1 and Δ2 paired by trial, their statistics, every
/// test and the verdict.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The names of the test and implementations.
    pub names: Names,
    /// The resolved settings the run used.
    pub settings: Settings,
    /// The candidate's output format.
    pub candidate_format: NumberFormat,
    /// Δ1: the candidate's error on each trial.
    pub delta1: Vec<f64>,
    /// Δ2: the baseline's error on each trial.
    pub delta2: Vec<f64>,
    /// The kind of input of each trial, as noted by the generator with
    /// [`crate::TrialRng::note_input_kind`] (empty where it noted none).
    pub input_kinds: Vec<String>,
    /// Descriptive statistics.
    pub summaries: Summaries,
    /// The trials on which an implementation returned a NaN or an infinity.
    pub non_finite: NonFinite,
    /// The anytime-valid sequential verdict, and whether the run stopped
    /// at it.
    pub sequential: SequentialVerdict,
    /// Ratio of mean errors `mean Δ1 / mean Δ2` with a 95% paired bootstrap
    /// interval (seeded from the base seed).
    pub ratio_of_means: Result<RatioInterval, StatsError>,
    /// Every test.
    pub analysis: Analysis,
    /// The verdicts.
    pub verdict: Verdict,
    /// Time spent in the trials.
    pub trial_time: Duration,
    /// Total time of the run.
    pub elapsed: Duration,
    /// Facts about the process recorded with
    /// [`crate::record_environment`] (such as the GPU adapter), at the end
    /// of the run.
    pub environment: std::collections::BTreeMap<String, String>,
}

impl Outcome {
    /// The seed of trial `index`.
    pub fn trial_seed(&self, index: usize) -> u64 {
        trial_seed(self.settings.seed, index)
    }

    /// The trial where the candidate's error was largest (the first of
    /// equals).
    pub fn worst_trial(&self) -> usize {
        let mut worst = 0;
        for (i, &e) in self.delta1.iter().enumerate() {
            if e > self.delta1[worst] {
                worst = i;
            }
        }
        worst
    }

    /// Whether the expectations hold. A candidate that returned a
    /// non-finite value where the baseline did not (see
    /// [`Outcome::non_finite_gate`]) counts as less accurate, whatever the
    /// statistics say.
    pub fn passed(&self) -> bool {
        self.meets_accuracy()
            && self
                .settings
                .stability
                .is_none_or(|s| self.verdict.meets_stability(s))
    }

    /// Whether the accuracy expectation holds: the non-finite gate first,
    /// then the sequential decision if the run stopped at it, else the
    /// fixed-N verdict.
    pub fn meets_accuracy(&self) -> bool {
        if self.non_finite_gate() {
            self.settings.expect == Expect::Worse
        } else if self.sequential.stopped {
            matches!(self.sequential.decision, Decision::Pass { .. })
        } else {
            self.verdict.meets_accuracy(self.settings.expect)
        }
    }

    /// The number of trials run: `settings.n`, or fewer when the run
    /// stopped as soon as the sequential verdict was known.
    pub fn trials_run(&self) -> usize {
        self.delta1.len()
    }

    /// The level at which the fixed-N tests decided: α, or the fallback
    /// share of α when early stopping was on and nothing was decided early
    /// (see [`AlphaSplit`]). When the run stopped early they are
    /// descriptive and were run at α.
    pub fn fixed_alpha(&self) -> f64 {
        self.sequential.fixed_alpha(&self.settings)
    }

    /// Whether a non-finite candidate output fails this run: the candidate
    /// returned a NaN or an infinity on a trial where the baseline and the
    /// oracle were finite, and [`Settings::allow_non_finite`] is off.
    pub fn non_finite_gate(&self) -> bool {
        !self.settings.allow_non_finite && !self.non_finite.candidate_only().is_empty()
    }

    /// The deciding test's p-value for "the candidate is less accurate"
    /// (on `Δ1 − (1 + margin) Δ2`); `None` where it could not be computed.
    pub fn p_worse(&self) -> Option<f64> {
        self.analysis.worse.as_ref().ok().map(|t| t.p_value)
    }

    /// The deciding test's p-value for "the candidate is more accurate";
    /// `None` where it could not be computed.
    pub fn p_better(&self) -> Option<f64> {
        self.analysis.better.as_ref().ok().map(|t| t.p_value)
    }

    /// The accuracy verdict in one sentence: the sequential test's claim
    /// and after how many trials, when the run stopped at it; otherwise the
    /// fixed-N verdict's.
    pub fn accuracy_sentence(&self) -> String {
        let n = &self.names;
        let v = &self.verdict;
        match self.sequential.decision {
            Decision::Fail { after, reason, .. } | Decision::Pass { after, reason, .. }
                if self.sequential.stopped =>
            {
                let claim = if v.identical || v.equal_errors {
                    let sentence = v.accuracy_sentence(&n.candidate, &n.baseline);
                    sentence.trim_end_matches('.').to_owned()
                } else {
                    early_claim(reason, &n.candidate, &n.baseline, self.settings.pass_margin)
                };
                format!(
                    "{claim} (anytime-valid sequential test, decided after {after} of at most {} \
                     trials).",
                    self.settings.n
                )
            }
            _ => v.accuracy_sentence(&n.candidate, &n.baseline),
        }
    }

    /// The verdict in words: the non-finite outputs first where they decide
    /// the run, then accuracy, then stability.
    pub fn verdict_sentence(&self) -> String {
        let n = &self.names;
        let mut out = String::new();
        let failing = self.non_finite.candidate_only();
        if !failing.is_empty() {
            out.push_str(&format!(
                "{} returned a non-finite value on {} of {} trials where {} and the oracle were \
                 finite{}. ",
                n.candidate,
                failing.len(),
                self.delta1.len(),
                n.baseline,
                if self.settings.allow_non_finite {
                    " (allowed by this test)"
                } else {
                    ""
                }
            ));
        }
        out.push_str(&self.accuracy_sentence());
        out.push(' ');
        out.push_str(&self.verdict.stability_sentence(&n.candidate, &n.baseline));
        out
    }
}

/// A trial whose output held a NaN or an infinity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonFiniteTrial {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed ([`crate::TrialRng::from_trial_seed`] replays its
    /// input).
    pub seed: u64,
    /// The position of the first non-finite element of the output.
    pub position: usize,
    /// That element (`NaN`, `inf` or `-inf`).
    pub value: f64,
}

/// The trials on which each implementation's output held a NaN or an
/// infinity, in trial order. The oracle is always finite (a run stops
/// otherwise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NonFinite {
    /// Trials where the candidate's output was not finite.
    pub candidate: Vec<NonFiniteTrial>,
    /// Trials where the baseline's output was not finite.
    pub baseline: Vec<NonFiniteTrial>,
}

impl NonFinite {
    /// The trials where the candidate's output was not finite while the
    /// baseline's (and the oracle's) was: each one fails a test unless
    /// non-finite outputs are allowed.
    pub fn candidate_only(&self) -> Vec<&NonFiniteTrial> {
        only(&self.candidate, &self.baseline)
    }

    /// The trials where the baseline's output was not finite while the
    /// candidate's was.
    pub fn baseline_only(&self) -> Vec<&NonFiniteTrial> {
        only(&self.baseline, &self.candidate)
    }
}

/// The trials of `these` that are not in `others` (both sorted by trial).
fn only<'a>(these: &'a [NonFiniteTrial], others: &[NonFiniteTrial]) -> Vec<&'a NonFiniteTrial> {
    these
        .iter()
        .filter(|t| others.binary_search_by_key(&t.trial, |o| o.trial).is_err())
        .collect()
}

/// The anytime-valid sequential verdict of a run (see
/// [`crate::stats::sequential`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SequentialVerdict {
    /// The decision over the trials run ([`Decision::Continue`] when the
    /// evidence reached no threshold). It is computed whether or not the
    /// run stops at it.
    pub decision: Decision,
    /// Whether the run stopped at the decision ([`Settings::stop_early`]):
    /// then the decision is the verdict, and the fixed-N tests over the
    /// trials run are descriptive.
    pub stopped: bool,
    /// The evidence after each trial run.
    pub trace: Vec<TracePoint>,
    /// How α is shared between the sequential test and the fixed-N test at
    /// the cap.
    pub alpha_split: AlphaSplit,
    /// The margin of the early pass ([`Settings::pass_margin`]).
    pub margin: f64,
}

impl SequentialVerdict {
    /// The level of the fixed-N tests of a run with `settings` (see
    /// [`Outcome::fixed_alpha`]).
    pub(crate) fn fixed_alpha(&self, settings: &Settings) -> f64 {
        if settings.stop_early && !self.stopped {
            self.alpha_split.fallback
        } else {
            settings.alpha
        }
    }

    /// The number of trials after which the sequential test decided.
    pub fn decided_after(&self) -> Option<usize> {
        match self.decision {
            Decision::Continue => None,
            Decision::Fail { after, .. } | Decision::Pass { after, .. } => Some(after),
        }
    }
}

/// What an early decision established, in words.
fn early_claim(reason: Reason, candidate: &str, baseline: &str, margin: f64) -> String {
    let m = format!("{}%", 100.0 * margin);
    match reason {
        Reason::Worse => format!("{candidate} is significantly less accurate than {baseline}"),
        Reason::Better => format!("{candidate} is significantly more accurate than {baseline}"),
        Reason::NotWorseBeyondMargin => {
            format!("{candidate} is not less accurate than {baseline} beyond the {m} margin")
        }
        Reason::NotBetterBeyondMargin => {
            format!("{candidate} is not more accurate than {baseline} beyond the {m} margin")
        }
        Reason::WithinMargin => {
            format!("{candidate} and {baseline} agree in accuracy within the {m} margin")
        }
    }
}
