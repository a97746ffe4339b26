//! The statistics, verdicts and files of `summary.json`: the samples'
//! summaries, the tests keyed as in the report, the non-finite outputs, the
//! worst trial, the timings and the report's files.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::json_number as number;

use crate::stats::{Alternative, Method};
use crate::verdict::{Accuracy, Equivalence, Stability};

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
