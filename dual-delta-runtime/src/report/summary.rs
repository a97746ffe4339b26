//! [`RunSummary`]: the content of `summary.json` as a type, written by the
//! report (see [`super::json`] for the schema) and read back by the index
//! of all reports.
//!
//! Floating-point fields hold any `f64`: finite values are JSON numbers, and
//! infinities and NaN are the strings `"inf"`, `"-inf"` and `"nan"`, both
//! ways. Fields added to schema version 1 after its first files (the
//! non-finite outputs, `settings.allow_non_finite`, `verdict.equal_errors`,
//! `verdict.sentence`, `trials_run`, `sequential`, `settings.stop_early`,
//! `settings.pass_margin` and `files.evidence`) read as their defaults
//! where a file lacks them.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::json_number as number;

use crate::config::SeedSource;
use crate::expect::Expect;
use crate::outcome::Names;
use crate::output::NumberFormat;
use crate::stats::{Alternative, Method};
use crate::verdict::{Accuracy, AccuracyTest, Equivalence, Stability};

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
    /// The margin of the early decision: `margin`.
    #[serde(default, with = "number")]
    pub pass_margin: f64,
    /// Whether an early pass waits for the screen.
    #[serde(default)]
    pub screen: bool,
    /// The gross-error gate's factor.
    #[serde(default, with = "number")]
    pub gross_factor: f64,
}

/// How a run was decided (`judgement`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Judged {
    /// `non_finite`, `gross_error`, `sequential` or `fixed_n`.
    pub decided_by: String,
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

/// The comparison with a baseline (`regression`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RegressionRecord {
    /// The baseline's name.
    pub baseline: String,
    /// The commit it was saved at.
    pub commit: Option<String>,
    /// The trials it holds.
    pub baseline_trials: usize,
    /// The trials paired by seed.
    pub pairs: usize,
    /// The candidate's mean error now, over the pairs.
    #[serde(with = "number")]
    pub mean_now: f64,
    /// Its mean error at the baseline, over the pairs.
    #[serde(with = "number")]
    pub mean_then: f64,
    /// The one-sided Wilcoxon p-value of "less accurate now".
    pub p_value: Option<f64>,
    /// The margin.
    pub margin: f64,
    /// Whether the test fails on it.
    pub regressed: bool,
    /// The comparison in words.
    pub sentence: String,
}

/// A significant loss inside the margin.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Margin {
    /// `100 × (mean Δ1 / mean Δ2 − 1)`.
    pub percent: f64,
    /// The margin-0 one-sided Wilcoxon p-value.
    pub p_value: f64,
    /// The margin.
    pub margin: f64,
    /// `100 × (P99 Δ1 / P99 Δ2 − 1)` when the tail is heavier.
    pub p99_percent: Option<f64>,
    /// The difference in words.
    pub sentence: String,
}

/// What the run covered of its inputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScreenSummary {
    /// How the inputs ran: `screened` (the oracle skipped on ties outside
    /// the sample), `all_trials` or `quick`.
    pub status: String,
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
    /// What the evidence showed (`worse`, `better`,
    /// `not_worse_beyond_margin`, `not_better_beyond_margin`,
    /// `within_margin`), or `null`.
    pub reason: Option<String>,
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

/// The descriptive statistics of the three samples.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Samples {
    /// Δ1, the candidate's errors.
    pub candidate: Sample,
    /// Δ2, the baseline's errors.
    pub baseline: Sample,
    /// Δ1 − Δ2.
    pub differences: Sample,
}

/// Descriptive statistics of one sample.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Sample {
    /// Number of values.
    pub n: usize,
    /// How many of them are not finite.
    pub non_finite: usize,
    /// The mean.
    #[serde(with = "number")]
    pub mean: f64,
    /// The median.
    #[serde(with = "number")]
    pub median: f64,
    /// Standard deviation.
    #[serde(with = "number")]
    pub std: f64,
    /// The smallest value.
    #[serde(with = "number")]
    pub min: f64,
    /// The 50th percentile.
    #[serde(with = "number")]
    pub p50: f64,
    /// The 90th percentile.
    #[serde(with = "number")]
    pub p90: f64,
    /// The 95th percentile.
    #[serde(with = "number")]
    pub p95: f64,
    /// The 99th percentile.
    #[serde(with = "number")]
    pub p99: f64,
    /// The largest value.
    #[serde(with = "number")]
    pub max: f64,
}

/// A value, or why it could not be computed (`{"error": "..."}`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fallible<T> {
    /// The value.
    Ok(T),
    /// Why there is none.
    Err {
        /// The reason.
        error: String,
    },
}

/// The ratio of mean errors with its paired bootstrap interval.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ratio {
    /// `mean Δ1 / mean Δ2`.
    #[serde(with = "number")]
    pub ratio: f64,
    /// The interval's lower end.
    #[serde(with = "number")]
    pub lower: f64,
    /// The interval's upper end.
    #[serde(with = "number")]
    pub upper: f64,
    /// The interval's confidence level.
    #[serde(with = "number")]
    pub confidence: f64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// The bootstrap's seed.
    pub seed: u64,
    /// The same as `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
}

/// An estimate.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Estimate {
    /// Its value.
    #[serde(with = "number")]
    pub estimate: f64,
}

/// The tests of a run in the order of the report, as one JSON object keyed
/// by the `key` of each row of [`Analysis::rows`](crate::Analysis::rows).
#[derive(Clone, Debug, Default)]
pub struct Tests(pub Vec<(String, Test)>);

impl Tests {
    /// The test with this key.
    pub fn get(&self, key: &str) -> Option<&Test> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, t)| t)
    }
}

impl Serialize for Tests {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, test) in &self.0 {
            map.serialize_entry(key, test)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Tests {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Tests;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of tests")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tests, A::Error> {
                let mut tests = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    tests.push(entry);
                }
                Ok(Tests(tests))
            }
        }
        d.deserialize_map(InOrder)
    }
}

/// One test's entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Test {
    /// The test's name.
    pub name: String,
    /// The alternative hypothesis's direction, of Δ1 against Δ2.
    pub alternative: Alternative,
    /// The alternative hypothesis in words.
    pub h1: String,
    /// The result, or why it was not computed.
    #[serde(flatten)]
    pub result: Fallible<TestValues>,
}

/// A computed test.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct TestValues {
    /// The test statistic.
    #[serde(with = "number")]
    pub statistic: f64,
    /// The p-value.
    #[serde(with = "number")]
    pub p_value: f64,
    /// How the p-value was computed.
    pub method: Method,
    /// `p_value < alpha`.
    pub significant: bool,
}

/// The verdicts on the three propositions, and in words.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdicts {
    /// Proposition 2.
    pub accuracy: Accuracy,
    /// Proposition 1.
    pub equivalence: Equivalence,
    /// Proposition 3.
    pub stability: Stability,
    /// The two outputs were the same numbers on every trial.
    pub identical: bool,
    /// Δ1 = Δ2 on every trial.
    #[serde(default)]
    pub equal_errors: bool,
    /// The accuracy verdict in one sentence.
    pub accuracy_sentence: String,
    /// The stability verdict in one sentence.
    pub stability_sentence: String,
    /// The whole verdict in words.
    #[serde(default)]
    pub sentence: String,
}

/// One value for each implementation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair<T> {
    /// The candidate's.
    pub candidate: T,
    /// The baseline's.
    pub baseline: T,
}

/// The trials on which an implementation's output held a NaN or an
/// infinity.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NonFiniteOutputs {
    /// The candidate's.
    pub candidate: NonFiniteSide,
    /// The baseline's.
    pub baseline: NonFiniteSide,
    /// Trials where only the candidate's output was not finite.
    pub candidate_only: usize,
    /// Trials where only the baseline's output was not finite.
    pub baseline_only: usize,
    /// Whether the candidate-only trials failed the run.
    pub failed_gate: bool,
}

/// One implementation's non-finite outputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NonFiniteSide {
    /// On how many trials.
    pub trials: usize,
    /// The first of them.
    pub first: Option<NonFiniteFirst>,
}

/// Where an implementation's first non-finite output was.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NonFiniteFirst {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed as `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// The position of the value in the output.
    pub position: usize,
    /// The value.
    #[serde(with = "number")]
    pub value: f64,
}

/// The trial with the candidate's largest error.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorstTrial {
    /// The trial's index.
    pub index: usize,
    /// The trial's own seed.
    pub seed: u64,
    /// The same as `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// Δ1 on that trial.
    #[serde(with = "number")]
    pub candidate_error: f64,
    /// Δ2 on that trial.
    #[serde(with = "number")]
    pub baseline_error: f64,
}

/// How long the run took.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Timings {
    /// Running the trials, in seconds.
    #[serde(with = "number")]
    pub trials_seconds: f64,
    /// The whole run with the statistics, in seconds.
    #[serde(with = "number")]
    pub total_seconds: f64,
}

/// The report's other files, relative to `summary.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Files {
    /// The page.
    pub html: String,
    /// The per-trial table.
    pub deltas: String,
    /// The histograms.
    pub histogram: String,
    /// The box plots.
    pub boxplot: String,
    /// The Q-Q plot.
    pub qq: String,
    /// The scatter plot.
    pub scatter: String,
    /// The evidence of the sequential test.
    #[serde(default)]
    pub evidence: String,
}
