//! The outcome of a run: Δ1 and Δ2 paired by trial, their statistics, every
//! test, the verdict, and what the implementations returned that was not a
//! number. Reports read it; nothing here formats a report.

use std::time::Duration;

use crate::baseline::Regression;
use crate::config::Settings;
use crate::evidence::{NonFinite, SequentialVerdict, Summaries};
use crate::judgement::{DecidedBy, Judgement};
use crate::output::NumberFormat;
use crate::rng::trial_seed;
use crate::screen::{GrossError, Screen};
use crate::stats::sequential::Reason;
use crate::stats::{RatioInterval, StatsError};
use crate::verdict::{Accuracy, Analysis, Verdict};

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
    pub names: Names,
    /// The resolved settings the run used.
    pub settings: Settings,
    /// The candidate's output format.
    pub candidate_format: NumberFormat,
    /// The index of each full trial (the inputs the oracle ran on), in
    /// order: `delta1[i]` and `delta2[i]` are trial `trials[i]`'s.
    pub trials: Vec<usize>,
    /// Δ1: the candidate's error on each full trial.
    pub delta1: Vec<f64>,
    /// Δ2: the baseline's error on each trial.
    pub delta2: Vec<f64>,
    /// The kind of input of each trial, as noted by the generator with
    /// [`crate::TrialRng::note_input_kind`] (empty where it noted none).
    pub input_kinds: Vec<String>,
    /// Descriptive statistics.
    pub summaries: Summaries,
    /// The trials on which an implementation returned a NaN or an infinity
    /// (the trials run and those the screen flagged).
    pub non_finite: NonFinite,
    /// The trials on which the candidate's error was gross (see
    /// [`crate::screen`]).
    pub gross: Vec<GrossError>,
    /// The gross-error gate's scale: the baseline's largest finite error
    /// over the full trials (see [`crate::screen`]).
    pub reference_scale: f64,
    /// What the run covered of its `n` inputs: the ties, the full trials,
    /// the inputs left unchecked.
    pub screen: Screen,
    /// The anytime-valid sequential verdict, and whether the run stopped
    /// at it.
    pub sequential: SequentialVerdict,
    /// The ratio of mean errors `R = mean Δ1 / mean Δ2` over every input
    /// (the errors on unmeasured ties estimated from their seeded sample;
    /// see [`crate::claim`]), with a stratified bootstrap interval seeded
    /// from the base seed, at `1 − 2 × level` so that its lower end is the
    /// rule's one-sided bound at the deciding level. The claim's effect
    /// measure.
    pub ratio_of_means: Result<RatioInterval, StatsError>,
    /// Every test.
    pub analysis: Analysis,
    /// The fixed-N verdicts over the trials run (descriptive when the run
    /// stopped at the sequential decision).
    pub verdict: Verdict,
    /// The decision: what passed or failed the run, and why.
    pub judgement: Judgement,
    /// Time spent in the trials.
    pub trial_time: Duration,
    /// Total time of the run.
    pub elapsed: Duration,
    /// The oracle output's fingerprint on each trial run (see
    /// [`crate::baseline`]).
    pub fingerprints: Vec<u64>,
    /// The comparison with the baseline `DUAL_DELTA_BASELINE` names, when
    /// one was asked for and this test has one.
    pub regression: Option<Regression>,
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

    /// Whether the expectations hold ([`Judgement::passed`]).
    pub fn passed(&self) -> bool {
        self.judgement.passed
    }

    /// Whether the accuracy expectation holds ([`Judgement::accuracy_met`]).
    pub fn meets_accuracy(&self) -> bool {
        self.judgement.accuracy_met
    }

    /// The number of trials run: `settings.n`, or fewer when the run
    /// stopped as soon as the sequential verdict was known.
    pub fn trials_run(&self) -> usize {
        self.delta1.len()
    }

    /// The level at which the fixed-N tests decided: α, or the fallback
    /// share of α when early stopping was on and nothing was decided early
    /// ([`Judgement::fixed_alpha`]).
    pub fn fixed_alpha(&self) -> f64 {
        self.judgement.fixed_alpha
    }

    /// Whether a gate decided this run: the candidate returned a NaN or an
    /// infinity where the baseline and the oracle were finite (and
    /// [`Settings::allow_non_finite`] is off), or made a gross error.
    pub fn non_finite_gate(&self) -> bool {
        matches!(self.judgement.decided_by, DecidedBy::NonFinite { .. })
    }

    /// Whether the gross-error gate decided this run.
    pub fn gross_error_gate(&self) -> bool {
        matches!(self.judgement.decided_by, DecidedBy::GrossError { .. })
    }

    /// The deciding test's p-value for "the candidate is less accurate"
    /// (on `Δ1 − Δ2`, margin 0, over every input); `None` where it could
    /// not be computed.
    pub fn p_worse(&self) -> Option<f64> {
        self.analysis.worse.as_ref().ok().map(|t| t.p_value)
    }

    /// The deciding test's p-value for "the candidate is more accurate";
    /// `None` where it could not be computed.
    pub fn p_better(&self) -> Option<f64> {
        self.analysis.better.as_ref().ok().map(|t| t.p_value)
    }

    /// The accuracy verdict in one sentence: the claim's rule with its
    /// p-value and ratio of means, and how the run ended.
    pub fn accuracy_sentence(&self) -> String {
        let n = &self.names;
        let v = &self.verdict;
        let (c, b) = (&n.candidate, &n.baseline);
        let margin = self.settings.margin;
        let p = self
            .p_worse()
            .map_or_else(|| "p not computed".to_owned(), |p| format!("p = {p:.2e}"));
        let test = self.analysis.accuracy_test.name();
        let ratio = self.ratio_of_means.as_ref().map_or(f64::NAN, |r| r.ratio);
        let effect = match &self.ratio_of_means {
            Ok(r) => {
                // One unit for the estimate and its interval, chosen by the
                // estimate: `+12% (98% CI +8%–+15%)`, `×4.50 (98% CI ×2.10–×9.00)`.
                let times = !(r.ratio.is_finite() && r.ratio < 3.0);
                format!(
                    "mean error {} the baseline's ({}% CI {}–{})",
                    signed_percent(r.ratio, times),
                    100.0 * r.confidence,
                    signed_percent(r.lower, times),
                    signed_percent(r.upper, times)
                )
            }
            Err(_) => "mean errors not comparable".to_owned(),
        };
        let margin_words = if margin > 0.0 {
            format!(", beyond the {}% margin", 100.0 * margin)
        } else {
            String::new()
        };
        let claim = match (self.judgement.decided_by, v.accuracy) {
            (_, _) if v.identical || v.equal_errors => {
                return self.ended(v.accuracy_sentence(c, b).trim_end_matches('.'));
            }
            (DecidedBy::Sequential { reason, .. }, _) if reason != Reason::Worse => {
                early_claim(reason, c, b, margin)
            }
            (_, Accuracy::LessAccurate) | (DecidedBy::Sequential { .. }, _) => format!(
                "{c} is significantly less accurate than {b} (one-sided {test} at margin 0, {p}), \
                 {effect}{margin_words}"
            ),
            (_, Accuracy::MoreAccurate) => format!(
                "{c} is significantly more accurate than {b} ({test}, p = {:.2e}), {effect}",
                self.p_better().unwrap_or(f64::NAN)
            ),
            (_, Accuracy::NoSignificantDifference)
                if ratio.is_finite() && self.judgement.within_margin.is_none() =>
            {
                format!(
                    "No significant accuracy difference between {c} and {b} (one-sided {test}, {p}), {effect}"
                )
            }
            (_, Accuracy::NoSignificantDifference) => format!(
                "{c} is not less accurate than {b} beyond the {}% margin ({effect})",
                100.0 * margin
            ),
        };
        self.ended(&claim)
    }

    /// `claim`, with how the run ended: `(over 1000 of 1000 inputs; 88 ties
    /// (identical outputs))`, the early stop, or the quick pass.
    fn ended(&self, claim: &str) -> String {
        let s = &self.screen;
        let n = self.settings.n;
        let tie_words = match s.ties {
            1 => "1 tie (identical outputs)".to_owned(),
            t => format!("{t} ties (identical outputs)"),
        };
        let ties = if s.ties == 0 {
            String::new()
        } else if s.ties_unmeasured() > 0 {
            format!(
                "; {tie_words}, their errors estimated from a seeded sample of {}",
                s.ties_measured
            )
        } else {
            format!("; {tie_words}")
        };
        match self.judgement.decided_by {
            DecidedBy::Sequential { after, .. } if s.quick_pass() => {
                // (1 − p)^k ≤ α rules out a share p of bad inputs.
                let share = 1.0 - self.settings.alpha.powf(1.0 / after.max(1) as f64);
                format!(
                    "{claim} (quick mode: passed after {after} of {n} inputs; a share of bad \
                     inputs below {:.2}% cannot be ruled out at {}% confidence).",
                    100.0 * share,
                    100.0 * (1.0 - self.settings.alpha)
                )
            }
            DecidedBy::Sequential { after, .. } => format!(
                "{claim} (anytime-valid sequential test, stopped after {after} of {n} inputs{ties})."
            ),
            _ => format!("{claim} (over {} of {n} inputs{ties}).", s.checked),
        }
    }

    /// What the screen did, in one sentence (empty when every input ran as
    /// a full trial): the inputs checked and the ties, or what a quick
    /// pass left unchecked.
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

    /// The verdict in words: the gates first where they decide the run,
    /// then accuracy, a difference inside the margin, the screen, then
    /// stability.
    pub fn verdict_sentence(&self) -> String {
        let n = &self.names;
        let mut out = String::new();
        let failing = self.non_finite.candidate_only();
        if !failing.is_empty() {
            out.push_str(&format!(
                "{} returned a non-finite value on {} of {} inputs checked where {} and the \
                 oracle were finite{}. ",
                n.candidate,
                failing.len(),
                self.inputs_checked(),
                n.baseline,
                if self.settings.allow_non_finite {
                    " (allowed by this test)"
                } else {
                    ""
                }
            ));
        }
        if let Some(g) = self.gross.first() {
            out.push_str(&format!(
                "{} made a gross error on {} of {} inputs checked: first on trial {} (trial seed \
                 {:#018x}), error {}, more than {} × the reference {}. ",
                n.candidate,
                self.gross.len(),
                self.inputs_checked(),
                g.trial,
                g.seed,
                sci(g.delta1),
                self.settings.gross_factor,
                sci(g.reference)
            ));
        }
        out.push_str(&self.accuracy_sentence());
        if let Some(w) = &self.judgement.within_margin {
            out.push_str(&format!(" {} is {}.", n.candidate, w.sentence()));
        }
        let screen = self.screen_sentence();
        if !screen.is_empty() {
            out.push(' ');
            out.push_str(&screen);
        }
        if let Some(r) = &self.regression {
            out.push(' ');
            out.push_str(&r.sentence());
        }
        let device = self.device_sentence();
        if !device.is_empty() {
            out.push(' ');
            out.push_str(&device);
        }
        out.push(' ');
        out.push_str(&self.verdict.stability_sentence(&n.candidate, &n.baseline));
        out
    }

    /// What the GPU this process used does to floating-point arithmetic,
    /// where it differs from lavapipe (`gpu.caveats`, recorded by the GPU
    /// backend's probe), in one sentence; empty where nothing was recorded.
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

/// `+12%`, `−3.0%`: a ratio of means as a change, or with `times`
/// `×4.50`, `×inf`.
fn signed_percent(ratio: f64, times: bool) -> String {
    if !ratio.is_finite() {
        return format!("×{ratio}");
    }
    if times {
        return format!("×{ratio:.2}");
    }
    let p = 100.0 * (ratio - 1.0);
    let sign = if p < 0.0 { "−" } else { "+" };
    format!("{sign}{}", crate::judgement::percent(p.abs()))
}

/// `1.234e-5`, `NaN`, `inf`: a value in a sentence.
fn sci(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3e}")
    } else {
        v.to_string()
    }
}

/// What an early decision established, in words.
fn early_claim(reason: Reason, candidate: &str, baseline: &str, margin: f64) -> String {
    let m = format!("{}%", 100.0 * margin);
    match reason {
        Reason::Worse if margin > 0.0 => format!(
            "{candidate} is significantly less accurate than {baseline} beyond the {m} margin"
        ),
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
