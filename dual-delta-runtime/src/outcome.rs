//! The outcome of a run: Δ1 and Δ2 paired by trial, their statistics, every
//! test, the verdict, and what the implementations returned that was not a
//! number. Reports read it; nothing here formats a report.

use std::time::Duration;

use crate::baseline::Regression;
use crate::config::Settings;
use crate::decide::GrossError;
use crate::decide::claim::Claim;
use crate::decide::{DecidedBy, Judgement, Levels, check_failed};
pub use crate::evidence::{NonFinite, NonFiniteTrial, SequentialEvidence, Summaries};
use crate::output::NumberFormat;
use crate::rng::trial_seed;
use crate::screen::Screen;
use crate::verdict::{Analysis, Verdict};

/// What the implementations are called in tables and reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Names {
    /// The test (for annotated tests, `module::path::function`, or
    /// `module::path::function::case` for a `#[case]`). It names
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

/// The result of a run: Δ1 and Δ2 paired by trial, their statistics, every
/// test and the verdict.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The names of the test and implementations.
    pub(crate) names: Names,
    /// The resolved settings the run used.
    pub(crate) settings: Settings,
    /// The candidate's output format.
    pub(crate) candidate_format: NumberFormat,
    /// The index of each full trial (the inputs the oracle ran on), in
    /// order: `delta1[i]` and `delta2[i]` are trial `trials[i]`'s.
    pub(crate) trials: Vec<usize>,
    /// Δ1: the candidate's error on each full trial.
    pub(crate) delta1: Vec<f64>,
    /// Δ2: the baseline's error on each trial.
    pub(crate) delta2: Vec<f64>,
    /// The kind of input of each trial, as noted by the generator with
    /// [`crate::TrialRng::note_input_kind`] (empty where it noted none).
    pub(crate) input_kinds: Vec<String>,
    /// Descriptive statistics.
    pub(crate) summaries: Summaries,
    /// The trials on which an implementation returned a NaN or an infinity
    /// (the trials run and those the screen flagged).
    pub(crate) non_finite: NonFinite,
    /// The trials on which the candidate's error was gross (see
    /// [`crate::screen`]).
    pub(crate) gross: Vec<GrossError>,
    /// The gross-error gate's scale: the baseline's largest finite error
    /// over the full trials (see [`crate::screen`]).
    pub(crate) reference_scale: f64,
    /// What the run covered of its `n` inputs: the ties, the full trials,
    /// the inputs left unchecked.
    pub(crate) screen: Screen,
    /// The anytime-valid sequential verdict, and whether the run stopped
    /// at it.
    pub(crate) sequential: SequentialEvidence,
    /// Every test.
    pub(crate) analysis: Analysis,
    /// The claim's two criteria over every input: what decided the
    /// accuracy verdict at fixed N.
    pub(crate) claim: Claim,
    /// Where the loss is, for a run whose candidate is less accurate beyond
    /// the margin by either criterion; `None` otherwise.
    pub(crate) regions: Option<crate::regions::Localization>,
    /// Advice on the metric, where a hybrid metric's absolute branch hides
    /// a relative loss or gain ([`crate::decision::MetricAdvice`]).
    pub(crate) metric_advice: Option<crate::advice::MetricAdvice>,
    /// The fixed-N verdicts over the trials run (descriptive when the run
    /// stopped at the sequential decision).
    pub(crate) verdict: Verdict,
    /// The decision: what passed or failed the run, and why.
    pub(crate) judgement: Judgement,
    /// The levels the run was held to, derived once when it was planned:
    /// what reports say of thresholds they read here.
    pub(crate) levels: Levels,
    /// Time spent in the trials.
    pub(crate) trial_time: Duration,
    /// Total time of the run.
    pub(crate) elapsed: Duration,
    /// The oracle output's fingerprint on each trial run (see
    /// [`crate::baseline`]).
    pub(crate) fingerprints: Vec<u64>,
    /// The comparison with the baseline `DUAL_DELTA_BASELINE` names, when
    /// one was asked for and this test has one.
    pub(crate) regression: Option<Regression>,
    /// The facts the run records: the process's, recorded with
    /// [`crate::record_environment`] by the end of the run, and those of
    /// the device its own functions used ([`crate::device::used`]), such
    /// as the GPU adapter.
    pub(crate) environment: std::collections::BTreeMap<String, String>,
    /// The trials with the candidate's largest errors, largest first, with
    /// their inputs where they can be shown ([`crate::worst`]).
    pub(crate) worst_inputs: Vec<crate::worst::WorstInput>,
    /// Why the test's own check (`check = ...`) failed; `None` where it
    /// held or the test has none. A failed check fails the run
    /// ([`Outcome::with_check`]).
    pub(crate) check: Option<String>,
}

/// What a run found, read by accessors: the fields are the runtime's, so
/// that an outcome can grow without breaking the code that reads it.
impl Outcome {
    /// The names of the test and implementations.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// The resolved settings the run used.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The candidate's output format.
    pub fn candidate_format(&self) -> NumberFormat {
        self.candidate_format
    }

    /// The index of each full trial (the inputs the oracle ran on), in
    /// order: `delta1[i]` and `delta2[i]` are trial `trials[i]`'s.
    pub fn trials(&self) -> &[usize] {
        &self.trials
    }

    /// Δ1: the candidate's error on each full trial.
    pub fn delta1(&self) -> &[f64] {
        &self.delta1
    }

    /// Δ2: the baseline's error on each trial.
    pub fn delta2(&self) -> &[f64] {
        &self.delta2
    }

    /// The kind of input of each trial, as noted by the generator with
    /// [`crate::TrialRng::note_input_kind`] (empty where it noted none).
    pub fn input_kinds(&self) -> &[String] {
        &self.input_kinds
    }

    /// Descriptive statistics.
    pub fn summaries(&self) -> &Summaries {
        &self.summaries
    }

    /// The trials on which an implementation returned a NaN or an infinity
    /// (the trials run and those the screen flagged).
    pub fn non_finite(&self) -> &NonFinite {
        &self.non_finite
    }

    /// The trials on which the candidate's error was gross (see
    /// [`crate::screen`]).
    pub fn gross(&self) -> &[GrossError] {
        &self.gross
    }

    /// The gross-error gate's scale: the baseline's largest finite error
    /// over the full trials (see [`crate::screen`]).
    pub fn reference_scale(&self) -> f64 {
        self.reference_scale
    }

    /// What the run covered of its `n` inputs: the ties, the full trials,
    /// the inputs left unchecked.
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// The anytime-valid sequential verdict, and whether the run stopped
    /// at it.
    pub fn sequential(&self) -> &SequentialEvidence {
        &self.sequential
    }

    /// Every test.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The claim's two criteria over every input: what decided the
    /// accuracy verdict at fixed N.
    pub fn claim(&self) -> &Claim {
        &self.claim
    }

    /// Where the loss is, for a run whose candidate is less accurate beyond
    /// the margin by either criterion; `None` otherwise.
    pub fn regions(&self) -> Option<&crate::regions::Localization> {
        self.regions.as_ref()
    }

    /// Advice on the metric, where a hybrid metric's absolute branch hides
    /// a relative loss or gain ([`crate::decision::MetricAdvice`]).
    pub fn metric_advice(&self) -> Option<&crate::advice::MetricAdvice> {
        self.metric_advice.as_ref()
    }

    /// The fixed-N verdicts over the trials run (descriptive when the run
    /// stopped at the sequential decision).
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// The decision: what passed or failed the run, and why.
    pub fn judgement(&self) -> &Judgement {
        &self.judgement
    }

    /// Time spent in the trials.
    pub fn trial_time(&self) -> Duration {
        self.trial_time
    }

    /// Total time of the run.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The oracle output's fingerprint on each trial run (see
    /// [`crate::baseline`]).
    pub fn fingerprints(&self) -> &[u64] {
        &self.fingerprints
    }

    /// The comparison with the baseline `DUAL_DELTA_BASELINE` names, when
    /// one was asked for and this test has one.
    pub fn regression(&self) -> Option<&Regression> {
        self.regression.as_ref()
    }

    /// The facts the run records: the process's, recorded with
    /// [`crate::record_environment`] by the end of the run, and those of
    /// the device its own functions used ([`crate::device::used`]), such
    /// as the GPU adapter.
    pub fn environment(&self) -> &std::collections::BTreeMap<String, String> {
        &self.environment
    }

    /// The trials with the candidate's largest errors, largest first, with
    /// their inputs where they can be shown ([`crate::worst`]).
    pub fn worst_inputs(&self) -> &[crate::worst::WorstInput] {
        &self.worst_inputs
    }

    /// Why the test's own check (`check = ...`) failed; `None` where it
    /// held or the test has none. A failed check fails the run
    /// ([`Outcome::with_check`]).
    pub fn check(&self) -> Option<&str> {
        self.check.as_deref()
    }
}

impl Outcome {
    /// The seed of trial `index`.
    pub fn trial_seed(&self, index: usize) -> u64 {
        trial_seed(self.settings.seed, index)
    }

    /// The position in [`Outcome::delta1`] of the trial where the
    /// candidate's error was largest (the first of equals); its index is
    /// `trials[position]`.
    pub fn worst_trial(&self) -> usize {
        let mut worst = 0;
        for (i, &e) in self.delta1.iter().enumerate() {
            if e > self.delta1[worst] {
                worst = i;
            }
        }
        worst
    }

    /// The outcome with the result of the test's own check, which reads
    /// the finished outcome: a failed check is the judgement's first gate,
    /// applied to the judgement the run gave (no other gate runs again),
    /// and fails the run ([`DecidedBy::Check`]), every report saying why,
    /// first. Run before any report is written, so that no report calls
    /// such a run passed.
    pub fn with_check(mut self, check: Result<(), String>) -> Outcome {
        if let Err(reason) = check {
            self.check = Some(reason);
            self.judgement = check_failed(&self.judgement, self.settings.expect);
        }
        self
    }

    /// Whether the expectations hold ([`Judgement::passed`]).
    pub fn passed(&self) -> bool {
        self.judgement.passed
    }

    /// Whether the accuracy expectation holds ([`Judgement::accuracy_met`]).
    pub fn meets_accuracy(&self) -> bool {
        self.judgement.accuracy_met
    }

    /// The number of full trials run (the inputs the oracle ran on, as
    /// [`Outcome::trials`]): `n`, or fewer where the run stopped before its
    /// `n` inputs or the oracle skipped ties.
    pub fn trials_run(&self) -> usize {
        self.delta1.len()
    }

    /// The level at which the fixed-N tests decided: α, or the fallback
    /// share of α when early stopping was on and the run did not stop at
    /// the sequential decision, or stopped at a quick pass
    /// ([`Judgement::fixed_alpha`]).
    pub fn fixed_alpha(&self) -> f64 {
        self.judgement.fixed_alpha
    }

    /// Whether the non-finite gate decided this run: the candidate
    /// returned a NaN or an infinity where the baseline and the oracle were
    /// finite (and [`Settings::allow_non_finite`] is off).
    pub fn non_finite_gate(&self) -> bool {
        matches!(self.judgement.decided_by, DecidedBy::NonFinite { .. })
    }

    /// Whether the gross-error gate decided this run.
    pub fn gross_error_gate(&self) -> bool {
        matches!(self.judgement.decided_by, DecidedBy::GrossError { .. })
    }

    /// The one-sided paired test's p-value for "the candidate is less
    /// accurate" (`test`, on `Δ1 − Δ2`, margin 0, over every input): one of
    /// the two tests of the claim's typical-input criterion, and the whole
    /// decision under `rule = paper`; `None` where it could not be
    /// computed.
    pub fn p_worse(&self) -> Option<f64> {
        self.analysis.worse.as_ref().ok().map(|t| t.p_value)
    }

    /// The deciding test's p-value for "the candidate is more accurate";
    /// `None` where it could not be computed.
    pub fn p_better(&self) -> Option<f64> {
        self.analysis.better.as_ref().ok().map(|t| t.p_value)
    }

    /// The inputs on which the candidate ran.
    pub fn inputs_checked(&self) -> usize {
        self.screen.checked
    }

    /// Whether rare events were left unchecked: the run passed early in
    /// the quick mode.
    pub fn unscreened(&self) -> bool {
        self.screen.quick_pass()
    }
}
