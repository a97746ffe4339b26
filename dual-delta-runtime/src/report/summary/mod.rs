//! [`RunSummary`]: the content of `summary.json` as a type, written by the
//! report (see [`super::json`] for the schema) and read back by the index
//! of all reports.
//!
//! Floating-point fields hold any `f64`: finite values are JSON numbers, and
//! infinities and NaN are the strings `"inf"`, `"-inf"` and `"nan"`, both
//! ways. Fields added to schema version 1 after its first files (the
//! non-finite outputs, `settings.allow_non_finite`, `verdict.equal_errors`,
//! `verdict.sentence`, `trials_run`, `sequential`, `settings.stop_early`,
//! `settings.trial_timeout` and `files.evidence`) read as their defaults
//! where a file lacks them. Values the run has as types are written and
//! read as those types (`judgement.decided_by` is the run's
//! [`crate::DecidedBy`], `sequential.reason` its `Reason`,
//! `judgement.screen.status` the screen's `Mode`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::json_number as number;

use crate::baseline::Regression;
use crate::config::SeedSource;
use crate::expect::Expect;
use crate::judgement::{DecidedBy, WithinMargin};
use crate::outcome::Names;
use crate::output::NumberFormat;
use crate::screen::Mode;
use crate::stats::sequential::Reason;
use crate::verdict::AccuracyTest;

mod statistics;

pub use self::statistics::{
    Estimate, Fallible, Files, NonFiniteFirst, NonFiniteOutputs, NonFiniteSide, Pair, Ratio,
    Sample, Samples, Test, TestValues, Tests, Timings, Verdicts, WorstTrial,
};

/// Everything `summary.json` holds; each field is described in
/// [`super::json`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSummary {
    /// The schema's version ([`super::json::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The version of `dual-delta-runtime` that wrote it.
    pub crate_version: String,
    /// When the report was written, Unix time in whole seconds.
    pub timestamp: u64,
    /// The same in milliseconds.
    pub timestamp_ms: u64,
    /// The same as `YYYY-MM-DDTHH:MM:SSZ`.
    pub time_utc: String,
    /// The test's and the implementations' names.
    pub names: Names,
    /// The resolved settings.
    pub settings: SettingsRecord,
    /// The candidate's number format.
    pub candidate_format: NumberFormat,
    /// Descriptive statistics of Δ1, Δ2 and Δ1 − Δ2.
    pub summaries: Samples,
    /// `mean Δ1 / mean Δ2` with its paired bootstrap interval.
    pub ratio_of_means: Fallible<Ratio>,
    /// The test that decided accuracy, after any fallback.
    pub accuracy_test: AccuracyTest,
    /// Why the requested test was replaced, if it was.
    pub fallback: Option<String>,
    /// Every test, in the order of the report.
    pub tests: Tests,
    /// The Hodges-Lehmann estimate of the shift Δ1 − Δ2.
    pub hodges_lehmann: Fallible<Estimate>,
    /// The verdicts, also in words.
    pub verdict: Verdicts,
    /// Whether the expectations hold.
    pub passed: bool,
    /// How many trials had a non-finite error.
    pub non_finite: Pair<usize>,
    /// The trials on which an output held a NaN or an infinity.
    #[serde(default)]
    pub non_finite_outputs: NonFiniteOutputs,
    /// The number of trials run (at most `settings.n`).
    #[serde(default)]
    pub trials_run: usize,
    /// The anytime-valid sequential test: its decision, why the run ended,
    /// and its evidence after each trial.
    #[serde(default)]
    pub sequential: SequentialRecord,
    /// How the run was decided (absent from files written before it).
    #[serde(default)]
    pub judgement: Option<Judged>,
    /// The comparison with a baseline, if one was asked for.
    #[serde(default)]
    pub regression: Option<RegressionRecord>,
    /// The trial with the candidate's largest error.
    pub worst_trial: WorstTrial,
    /// The environment setting that replays the run.
    pub replay: String,
    /// Facts recorded by the process.
    pub environment: BTreeMap<String, String>,
    /// How long the run took.
    pub timings: Timings,
    /// The report's other files, relative to `summary.json`.
    pub files: Files,
}

/// The resolved settings of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// Number of trials.
    pub n: usize,
    /// Significance level α.
    #[serde(with = "number")]
    pub alpha: f64,
    /// The base seed.
    pub seed: u64,
    /// The base seed as `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// Where the base seed came from.
    pub seed_source: SeedSource,
    /// The error metric's name, also the unit of every error.
    pub metric: String,
    /// The accuracy expectation.
    pub expect: Expect,
    /// The requested accuracy test.
    pub test: AccuracyTest,
    /// The non-inferiority margin δ (default 0.05).
    #[serde(with = "number")]
    pub margin: f64,
    /// The stability expectation, if any.
    pub stability: Option<Expect>,
    /// The thread limit, or `None` for all cores.
    pub threads: Option<usize>,
    /// Whether non-finite candidate outputs are accepted.
    #[serde(default)]
    pub allow_non_finite: bool,
    /// Whether the run stops as soon as the sequential test decides.
    #[serde(default)]
    pub stop_early: bool,
    /// Whether an early pass waits for the screen.
    #[serde(default)]
    pub screen: bool,
    /// The gross-error gate's factor.
    #[serde(default, with = "number")]
    pub gross_factor: f64,
    /// The per-trial time limit in seconds, or `None` when off.
    #[serde(default)]
    pub trial_timeout: Option<f64>,
}

/// How a run was decided (`judgement`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Judged {
    /// What decided the run.
    pub decided_by: DecidedBy,
    /// The trial that failed a gate, or `None`.
    pub trial: Option<usize>,
    /// Its seed in hexadecimal.
    pub seed_hex: Option<String>,
    /// A significant loss inside the margin.
    pub within_margin: Option<Margin>,
    /// What the screen did.
    pub screen: ScreenSummary,
    /// The number of trials over the gross-error gate.
    pub gross_errors: usize,
    /// The gross-error gate's scale: the baseline's largest finite error.
    pub reference_scale: f64,
    /// The run's p-value for a suite (see [`crate::Judgement::p_value`]),
    /// or `None`.
    #[serde(default)]
    pub p_value: Option<f64>,
}

/// The comparison with a baseline (`regression`): the run's own
/// [`Regression`], and in words.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegressionRecord {
    /// The comparison (its samples are not written).
    #[serde(flatten)]
    pub comparison: Regression,
    /// The comparison in words.
    pub sentence: String,
}

/// A significant loss inside the margin: the judgement's
/// [`WithinMargin`], and in words.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Margin {
    /// The difference.
    #[serde(flatten)]
    pub difference: WithinMargin,
    /// The difference in words.
    pub sentence: String,
}

/// What the run covered of its inputs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScreenSummary {
    /// How the inputs ran.
    pub status: Mode,
    /// The inputs the candidate ran on.
    pub inputs_checked: usize,
    /// The inputs whose two outputs were bitwise equal.
    pub ties: usize,
    /// The ties the oracle ran on.
    pub ties_measured: usize,
    /// The inputs never run (after an early failure or a quick pass).
    pub unchecked: usize,
    /// Whether rare events were checked on every input (false only after a
    /// quick pass).
    pub rare_events_checked: bool,
    /// The screen in words.
    pub sentence: String,
}

/// The sequential test of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SequentialRecord {
    /// `pass`, `fail` or `undecided`.
    pub decision: String,
    /// What the evidence showed, or `None`.
    pub reason: Option<Reason>,
    /// The trial after which it decided, or `null`.
    pub decided_after: Option<usize>,
    /// The e-value then, or `null`.
    pub evidence: Option<f64>,
    /// Why the run ended: `decided` (it stopped at the decision), `cap`
    /// (it ran all `settings.n` trials with early stopping on) or
    /// `all_trials` (early stopping off).
    pub stopping_reason: String,
    /// The levels of the fail side, the pass side and the fixed-N test at
    /// the cap.
    pub alpha_fail: f64,
    /// See `alpha_fail`.
    pub alpha_pass: f64,
    /// See `alpha_fail`.
    pub alpha_fallback: f64,
    /// The margin of the early pass.
    pub margin: f64,
    /// `log10` of the e-value for failing after each trial.
    pub log10_fail: Vec<f64>,
    /// `log10` of the e-value for passing after each trial.
    pub log10_pass: Vec<f64>,
}
