//! [`Summary`]: `summary.json` as a type. The report writes it from the
//! outcome's own types, borrowed; the index, the suite and
//! `cargo dual-delta` read it back into the same types, owned.
//!
//! Floating-point fields hold any `f64`: finite values are JSON numbers, and
//! infinities and NaN are the strings `"inf"`, `"-inf"` and `"nan"`, both
//! ways (see [`super::json`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::baseline::Regression;
use crate::config::Settings;
use crate::decide::GrossError;
use crate::decide::Judgement;
use crate::evidence::{NonFinite, SequentialEvidence, Summaries};
use crate::outcome::Names;
use crate::output::NumberFormat;
use crate::screen::Screen;
use crate::stats::{Alternative, TestResult};
use crate::verdict::{AccuracyTest, Verdict};

/// The version of the schema [`Summary`] documents.
pub const SCHEMA_VERSION: u32 = 5;

/// Everything `summary.json` holds, schema version 5: the outcome's own
/// types, each written as its serde form (see each type's docs), and the
/// few values a reader needs that the run computes (the sentences, each
/// test's significance, the worst trial, the timings).
///
/// `Summary<'_>` borrows the outcome when the report writes it
/// ([`Summary::of`]); `Summary<'static>` owns what it read
/// ([`Summary::read`]). Fields are only ever added within a schema
/// version; a field is renamed, removed or changes meaning only with a new
/// `schema_version`. Version 5 leads with the claim (its criteria, the
/// judgement, and `sentences.claim`), drops `ratio_of_means` (the claim's
/// mean criterion holds the ratio and its bounds) and
/// `sentences.within_margin` (the accuracy sentence says it); version 4
/// wrote the run's types as they are, where version 3 copied their fields
/// into a record of its own.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Summary<'a> {
    /// `5` ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The version of `dual-delta-runtime` that wrote it.
    pub crate_version: Cow<'a, str>,
    /// When the report was written, Unix time in whole seconds.
    pub timestamp: u64,
    /// The same in milliseconds (orders reports written within a second).
    pub timestamp_ms: u64,
    /// The same as `YYYY-MM-DDTHH:MM:SSZ`.
    pub time_utc: String,
    /// The test's and the implementations' names ([`Names`]: `test`,
    /// `candidate`, `baseline`, `oracle`, `input`).
    pub names: Cow<'a, Names>,
    /// The claim's two criteria over every input ([`crate::decision::claim::Claim`]):
    /// first, as every report leads with the claim.
    pub claim: Cow<'a, crate::decide::claim::Claim>,
    /// The decision ([`Judgement`]: `passed`, `accuracy_met`, the run's
    /// `accuracy`, `decided_by` ([`crate::decision::DecidedBy`], tagged by `by`),
    /// `ending` ([`crate::decision::Ending`], tagged by `ended`), `fixed_alpha`,
    /// `within_margin` ([`crate::decision::claim::WithinMargin`] or `null`), `regressed`,
    /// `p_value` (the run's p-value for a suite, or `null`)).
    pub judgement: Cow<'a, Judgement>,
    /// The run in words.
    pub sentences: Sentences,
    /// The resolved settings ([`Settings`]: the table's recorded settings
    /// and `seed_source`) with the seed also in hexadecimal.
    pub settings: Recorded<'a>,
    /// The candidate's number format ([`NumberFormat`]: `f16`, `bf16`,
    /// `f32`, `f64`, `e4m3`, `e5m2`).
    pub candidate_format: NumberFormat,
    /// The number of trials run, at most `settings.n`: fewer when the run
    /// stopped as soon as it was decided (then `tests` are descriptive).
    pub trials_run: usize,
    /// Descriptive statistics of Δ1, Δ2 and Δ1 − Δ2 ([`Summaries`]; each a
    /// [`crate::stats::Summary`]: `n`, `non_finite`, `mean`, `median`,
    /// `std`, `min`, `p50`, `p90`, `p95`, `p99`, `max`).
    pub summaries: Cow<'a, Summaries>,
    /// The test that decided accuracy, after any fallback.
    pub accuracy_test: AccuracyTest,
    /// Why the requested test was replaced, or `null`.
    pub fallback: Option<Cow<'a, str>>,
    /// Every test, keyed as in [`crate::decision::Analysis::rows`], in the report's
    /// order.
    pub tests: Tests<'a>,
    /// The Hodges-Lehmann estimate of the shift Δ1 − Δ2, or `{"error":
    /// ...}`.
    pub hodges_lehmann: Fallible<Estimate>,
    /// The fixed-N verdicts over the trials run ([`Verdict`]:
    /// `fixed_n_accuracy`, `equivalence`, `stability`, `identical`,
    /// `equal_errors`).
    pub verdict: Cow<'a, Verdict>,
    /// What the run covered of its inputs ([`Screen`]: `mode`, `checked`,
    /// `ties`, `ties_measured`, `unchecked`).
    pub screen: Cow<'a, Screen>,
    /// The anytime-valid sequential test ([`SequentialEvidence`]: its
    /// `decision` tagged by `decision`, `stopped`, the `trace` of
    /// [`crate::stats::sequential::TracePoint`]s, `alpha_split`, `margin`).
    pub sequential: Cow<'a, SequentialEvidence>,
    /// The trials on which an output held a NaN or an infinity
    /// ([`NonFinite`]: `candidate` and `baseline`, lists of
    /// [`crate::outcome::NonFiniteTrial`]).
    pub non_finite_outputs: Cow<'a, NonFinite>,
    /// The trials over the gross-error gate ([`GrossError`]).
    pub gross_errors: Cow<'a, [GrossError]>,
    /// The gross-error gate's scale: the baseline's largest finite error.
    #[serde(with = "crate::json_number")]
    pub reference_scale: f64,
    /// The comparison with the baseline `DUAL_DELTA_BASELINE` names
    /// ([`Regression`]), or `null`.
    pub regression: Option<Cow<'a, Regression>>,
    /// The trial with the candidate's largest error.
    pub worst_trial: WorstTrial,
    /// The trials with the candidate's largest errors, largest first, with
    /// their inputs where the test can show them
    /// ([`crate::worst::WorstInput`]).
    #[serde(default)]
    pub worst_inputs: Cow<'a, [crate::worst::WorstInput]>,
    /// Where the loss is ([`crate::regions::Localization`]): the cut of the inputs'
    /// features that best separates it, its permutation p-value and
    /// whether it carries the loss, for a run whose candidate is less
    /// accurate beyond the margin; else `null`.
    #[serde(default)]
    pub regions: Option<Cow<'a, crate::regions::Localization>>,
    /// Advice on the metric ([`crate::decision::MetricAdvice`]), or `null`.
    #[serde(default)]
    pub metric_advice: Option<Cow<'a, crate::advice::MetricAdvice>>,
    /// The metric and what it computes: the unit of every error in the
    /// report ([`crate::Metric::formula`]).
    #[serde(default)]
    pub metric_formula: String,
    /// The environment setting that replays the run
    /// (`DUAL_DELTA_SEED=0x...`).
    pub replay: String,
    /// The command that replays the run: the seed, then `cargo test`
    /// selecting the test's package, target and exact name
    /// (`DUAL_DELTA_SEED=0x… cargo test -p pkg --test target -- path
    /// --exact`). Empty in a summary written before it was recorded.
    #[serde(default)]
    pub replay_command: String,
    /// The facts the run recorded, string to string: the process's, and
    /// those of the device its functions used (`gpu.adapter`).
    pub environment: Cow<'a, BTreeMap<String, String>>,
    /// How long the run took.
    pub timings: Timings,
    /// The report's other files, relative to `summary.json`.
    pub files: Files,
    /// What it records of `deltas.csv` ([`DeltasRecord`]: its rows and
    /// checksum); absent from reports of earlier builds.
    #[serde(default)]
    pub deltas_csv: Option<DeltasRecord>,
}

impl Summary<'_> {
    /// The command that replays the run (the field `replay_command`); for
    /// a summary written before it was recorded, the seed and the test's
    /// path without the crate's name, which `cargo test` matches as a
    /// substring.
    pub fn replay_command(&self) -> String {
        if !self.replay_command.is_empty() {
            return self.replay_command.clone();
        }
        let test = &self.names.test;
        let path = test.split_once("::").map_or(test.as_str(), |(_, p)| p);
        format!("{} cargo test {path}", self.replay)
    }
}

impl Summary<'static> {
    /// Reads `summary.json`'s text; a file of another schema version is
    /// an error that names both versions.
    pub fn read(text: &str) -> Result<Self, String> {
        #[derive(Deserialize)]
        struct Version {
            schema_version: u32,
        }
        let v: Version = serde_json::from_str(text).map_err(|e| {
            if e.is_eof() {
                format!("truncated or empty ({e})")
            } else {
                format!("not a summary.json (no schema_version): {e}")
            }
        })?;
        if v.schema_version != SCHEMA_VERSION {
            return Err(format!(
                "summary.json has schema version {}; this version of dual-delta reads version \
                 {SCHEMA_VERSION}: run the test again",
                v.schema_version
            ));
        }
        serde_json::from_str(text)
            .map_err(|e| format!("summary.json (schema {SCHEMA_VERSION}): {e}"))
    }
}

/// The resolved settings as written: the run's [`Settings`] and the base
/// seed as `0x` and 16 hexadecimal digits (what `DUAL_DELTA_SEED`
/// accepts; JSON readers lose integers above 2^53).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Recorded<'a> {
    /// The settings.
    #[serde(flatten)]
    pub settings: Cow<'a, Settings>,
    /// The base seed in hexadecimal.
    pub seed_hex: String,
}

/// The run in words, each from the outcome's own method
/// (the report's one writer of sentences).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sentences {
    /// The claim, first: what it claims and at which levels, each
    /// criterion, and what decided ([`crate::outcome::Outcome::claim_lines`]).
    pub claim: Vec<String>,
    /// The whole verdict ([`crate::outcome::Outcome::verdict_sentence`]).
    pub verdict: String,
    /// The accuracy verdict ([`crate::outcome::Outcome::accuracy_sentence`]).
    pub accuracy: String,
    /// The stability verdict ([`crate::outcome::Outcome::stability_sentence`]).
    pub stability: String,
    /// What the screen did ([`crate::outcome::Outcome::screen_sentence`]).
    pub screen: String,
    /// The comparison with a baseline ([`Regression::sentence`]), or
    /// `null`.
    pub regression: Option<String>,
    /// Where the loss is ([`crate::outcome::Outcome::where_sentence`]), or `null`.
    #[serde(default)]
    pub where_loss: Option<String>,
    /// Why the run failed, reason first
    /// ([`crate::outcome::Outcome::failure_sentence`]), or `null` for a pass.
    #[serde(default)]
    pub failure: Option<String>,
}

/// A value, or why it could not be computed (`{"error": "..."}`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Fallible<T> {
    /// The value.
    Ok(T),
    /// Why there is none.
    Err {
        /// The reason.
        error: String,
    },
}

impl<T> Fallible<T> {
    /// The value made by `ok` from a result, or the error's text.
    pub fn of<'r, U, E: fmt::Display>(r: &'r Result<U, E>, ok: impl FnOnce(&'r U) -> T) -> Self {
        match r {
            Ok(u) => Fallible::Ok(ok(u)),
            Err(e) => Fallible::Err {
                error: e.to_string(),
            },
        }
    }

    /// The value, if there is one.
    pub fn ok(&self) -> Option<&T> {
        match self {
            Fallible::Ok(t) => Some(t),
            Fallible::Err { .. } => None,
        }
    }
}

/// An estimate (`{"estimate": x}`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Estimate {
    /// Its value.
    #[serde(with = "crate::json_number")]
    pub estimate: f64,
}

/// The tests of a run in the order of the report, as one JSON object keyed
/// by the `key` of each row of [`Analysis::rows`](crate::decision::Analysis::rows).
#[derive(Clone, Debug, Default)]
pub struct Tests<'a>(pub Vec<(Cow<'a, str>, Test<'a>)>);

impl Tests<'_> {
    /// The test with this key.
    pub fn get(&self, key: &str) -> Option<&Test<'_>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, t)| t)
    }
}

impl Serialize for Tests<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, test) in &self.0 {
            map.serialize_entry(key, test)?;
        }
        map.end()
    }
}

impl<'de, 'a> Deserialize<'de> for Tests<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder<'a>(PhantomData<Tests<'a>>);
        impl<'de, 'a> Visitor<'de> for InOrder<'a> {
            type Value = Tests<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of tests")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tests<'a>, A::Error> {
                let mut tests = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    tests.push(entry);
                }
                Ok(Tests(tests))
            }
        }
        d.deserialize_map(InOrder(PhantomData))
    }
}

/// One test's entry: `name`, `alternative` (of Δ1 against Δ2), `h1` (the
/// alternative in words), and either the [`TestResult`] (`statistic`,
/// `p_value`, `method`) with `significant`, or `error`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Test<'a> {
    /// The test's name.
    pub name: Cow<'a, str>,
    /// The alternative hypothesis's direction.
    pub alternative: Alternative,
    /// The alternative hypothesis in words.
    pub h1: Cow<'a, str>,
    /// The result, or why it was not computed.
    #[serde(flatten)]
    pub result: Fallible<Judged<'a>>,
}

/// A computed test and whether the judgement finds it significant.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Judged<'a> {
    /// The result.
    #[serde(flatten)]
    pub result: Cow<'a, TestResult>,
    /// Below the level the fixed-N tests ran at
    /// ([`Judgement::significant`]).
    pub significant: bool,
}

/// The trial with the candidate's largest error.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WorstTrial {
    /// The trial's index.
    pub index: usize,
    /// The trial's own seed.
    pub seed: u64,
    /// The same as `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// Δ1 on that trial.
    #[serde(with = "crate::json_number")]
    pub candidate_error: f64,
    /// Δ2 on that trial.
    #[serde(with = "crate::json_number")]
    pub baseline_error: f64,
}

/// How long the run took.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Timings {
    /// Running the trials, in seconds.
    #[serde(with = "crate::json_number")]
    pub trials_seconds: f64,
    /// The whole run with the statistics, in seconds.
    #[serde(with = "crate::json_number")]
    pub total_seconds: f64,
}

/// The report's other files, relative to `summary.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
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
    pub evidence: String,
}

/// What `summary.json` records of `deltas.csv`, so that whoever reads it
/// (`cargo dual-delta compare`) can tell a whole file from one cut short,
/// edited or damaged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeltasRecord {
    /// Its rows below the header, one per trial run.
    pub rows: usize,
    /// FNV-1a (64 bits) over its bytes, 16 hexadecimal digits
    /// ([`crate::baseline::checksum`]).
    pub checksum: String,
}
