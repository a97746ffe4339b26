//! `summary.json`: every number of a run, in a documented, stable schema.
//!
//! # Numbers
//!
//! Every floating-point field is a JSON number when it is finite. JSON has no
//! infinities or NaN, so those are written as the strings `"inf"`, `"-inf"`
//! and `"nan"` (read them back with [`number`], or read the whole file with
//! [`Summary::read`], which does it for every field). Finite numbers are
//! written with the fewest digits that read back as the same `f64` (with
//! `serde_json`, enable its `float_roundtrip` feature to read them
//! exactly). Integers (counts, indices, timestamps) are JSON integers.
//! Seeds are 64-bit, beyond the 2^53 that JavaScript numbers hold exactly,
//! so every seed is written as `DUAL_DELTA_SEED` and `DUAL_DELTA_TRIAL`
//! read it and a failure prints it: `0x` and 16 hexadecimal digits (each
//! non-finite or gross trial's, the trial that decided, the worst inputs',
//! the first over a bound). The base seed and the worst trial's, which
//! came as integers before, still do, each beside its `seed_hex`.
//!
//! # Schema
//!
//! The schema (version [`SCHEMA_VERSION`]) is documented once, field by
//! field, on [`Summary`]: each field is one of the
//! run's own types, written by serde as that type's docs say.

use std::borrow::Cow;
use std::time::SystemTime;

pub use super::summary::SCHEMA_VERSION;
use super::summary::{
    DeltasRecord, Estimate, Fallible, Files, Judged, Recorded, Sentences, Summary, Test, Tests,
    Timings, WorstTrial,
};
use crate::clock::utc;
use crate::outcome::Outcome;
use crate::rng::seed_hex;

/// The run as `summary.json`'s pretty-printed text; `written` is the
/// report's timestamp.
pub fn to_string(outcome: &Outcome, written: SystemTime) -> String {
    let doc = Summary::of(outcome, written);
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| {
        // The run's types serialise as plain numbers, strings and lists;
        // keep the report usable regardless.
        format!(
            "{{\"schema_version\": {SCHEMA_VERSION}, \"error\": {:?}}}",
            e.to_string()
        )
    });
    s.push('\n');
    s
}

/// The run as a JSON value (the content of `summary.json`).
pub fn to_value(outcome: &Outcome, written: SystemTime) -> serde_json::Value {
    serde_json::to_value(Summary::of(outcome, written)).unwrap_or(serde_json::Value::Null)
}

/// Reads a floating-point field: a JSON number, or one of the strings
/// `"inf"`, `"-inf"`, `"nan"`. `None` for anything else.
pub fn number(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => crate::json_number::non_finite_from_str(s),
        _ => None,
    }
}

impl<'a> Recorded<'a> {
    /// The settings of a run as `summary.json` writes them.
    pub fn of(settings: &'a crate::config::Settings) -> Self {
        Recorded {
            settings: Cow::Borrowed(settings),
            seed_hex: seed_hex(settings.seed),
        }
    }
}

impl<'a> Summary<'a> {
    /// The summary of a run, borrowing its types; `written` is the
    /// report's timestamp.
    pub fn of(o: &'a Outcome, written: SystemTime) -> Self {
        let a = &o.analysis;
        let since = written
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let test = |r: &crate::verdict::TestRow<'a>| Test {
            name: Cow::Borrowed(r.name),
            alternative: r.alternative,
            h1: Cow::Borrowed(r.h1),
            result: Fallible::of(r.outcome, |t| Judged {
                result: Cow::Borrowed(t),
                significant: o.judgement.significant(t.p_value),
            }),
        };
        let worst = o.worst_trial();
        let worst_index = o.trials.get(worst).copied().unwrap_or(0);
        let worst_seed = o.trial_seed(worst_index);
        let names = &o.names;
        Summary {
            schema_version: SCHEMA_VERSION,
            crate_version: Cow::Borrowed(env!("CARGO_PKG_VERSION")),
            timestamp: since.as_secs(),
            timestamp_ms: since.as_millis() as u64,
            time_utc: utc(since.as_secs()),
            names: Cow::Borrowed(names),
            claim: Cow::Borrowed(&o.claim),
            judgement: Cow::Borrowed(&o.judgement),
            sentences: Sentences {
                claim: o.claim_lines(),
                verdict: o.verdict_sentence(),
                accuracy: o.accuracy_sentence(),
                stability: o.stability_sentence(),
                screen: o.screen_sentence(),
                regression: o.regression.as_ref().map(|r| r.sentence()),
                where_loss: o.where_sentence(),
                failure: o.failure_sentence(),
            },
            settings: Recorded::of(&o.settings),
            candidate_format: o.candidate_format,
            trials_run: o.trials_run(),
            summaries: Cow::Borrowed(&o.summaries),
            accuracy_test: a.accuracy_test,
            fallback: a.fallback.as_deref().map(Cow::Borrowed),
            tests: Tests(
                a.rows()
                    .iter()
                    .map(|r| (Cow::Borrowed(r.key), test(r)))
                    .collect(),
            ),
            hodges_lehmann: Fallible::of(&a.hodges_lehmann, |&x| Estimate { estimate: x }),
            verdict: Cow::Borrowed(&o.verdict),
            screen: Cow::Borrowed(&o.screen),
            sequential: Cow::Borrowed(&o.sequential),
            non_finite_outputs: Cow::Borrowed(&o.non_finite),
            gross_errors: Cow::Borrowed(&o.gross),
            reference_scale: o.reference_scale,
            regression: o.regression.as_ref().map(Cow::Borrowed),
            regions: o.regions.as_ref().map(Cow::Borrowed),
            metric_advice: o.metric_advice.as_ref().map(Cow::Borrowed),
            worst_trial: WorstTrial {
                index: worst_index,
                seed: worst_seed,
                seed_hex: seed_hex(worst_seed),
                candidate_error: o.delta1.get(worst).copied().unwrap_or(f64::NAN),
                baseline_error: o.delta2.get(worst).copied().unwrap_or(f64::NAN),
            },
            worst_inputs: Cow::Borrowed(&o.worst_inputs),
            metric_formula: o.settings.metric.formula(),
            replay: format!("{}={:#x}", crate::config::ENV_SEED, o.settings.seed),
            replay_command: crate::replay::command(&o.names.test, o.settings.seed),
            environment: Cow::Borrowed(&o.environment),
            timings: Timings {
                trials_seconds: o.trial_time.as_secs_f64(),
                total_seconds: o.elapsed.as_secs_f64(),
            },
            files: Files {
                html: super::INDEX_FILE.to_owned(),
                deltas: super::DELTAS_FILE.to_owned(),
                histogram: super::PLOT_FILES[0].to_owned(),
                boxplot: super::PLOT_FILES[1].to_owned(),
                qq: super::PLOT_FILES[2].to_owned(),
                scatter: super::PLOT_FILES[3].to_owned(),
                evidence: super::EVIDENCE_FILE.to_owned(),
            },
            deltas_csv: Some(DeltasRecord {
                rows: o.delta1.len().min(o.delta2.len()),
                checksum: crate::baseline::checksum(super::csv::to_string(o).as_bytes()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Num(#[serde(with = "crate::json_number")] f64);

    #[test]
    fn non_finite_numbers_are_strings() {
        let v = serde_json::to_value([
            Num(1.5),
            Num(f64::INFINITY),
            Num(f64::NEG_INFINITY),
            Num(f64::NAN),
        ])
        .unwrap();
        assert_eq!(v.to_string(), r#"[1.5,"inf","-inf","nan"]"#);
        assert_eq!(number(&v[0]), Some(1.5));
        assert_eq!(number(&v[1]), Some(f64::INFINITY));
        assert_eq!(number(&v[2]), Some(f64::NEG_INFINITY));
        assert!(number(&v[3]).unwrap().is_nan());
        assert_eq!(number(&serde_json::json!("x")), None);
        let back: Vec<Num> = serde_json::from_value(v).unwrap();
        assert_eq!(back[0].0, 1.5);
        assert_eq!(back[1].0, f64::INFINITY);
        assert_eq!(back[2].0, f64::NEG_INFINITY);
        assert!(back[3].0.is_nan());
        assert!(serde_json::from_str::<Num>(r#""x""#).is_err());
    }

    #[test]
    fn floats_round_trip_exactly() {
        for x in [0.1, 1e-300, 5e-324, 1.7976931348623157e308, 4.5708e-4] {
            let s = serde_json::to_string(&Num(x)).unwrap();
            let back: serde_json::Value = serde_json::from_str(&s).unwrap();
            assert_eq!(number(&back), Some(x));
        }
    }

    #[test]
    fn another_schema_version_is_an_error_that_names_it() {
        let old = r#"{"schema_version": 3, "passed": true}"#;
        let e = Summary::read(old).unwrap_err();
        assert!(
            e.contains("schema version 3") && e.contains("version 5"),
            "{e}"
        );
        assert!(Summary::read("[]").is_err());
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
