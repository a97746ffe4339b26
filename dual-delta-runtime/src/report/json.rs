//! `summary.json`: every number of a run, in a documented, stable schema.
//!
//! # Numbers
//!
//! Every floating-point field is a JSON number when it is finite. JSON has no
//! infinities or NaN, so those are written as the strings `"inf"`, `"-inf"`
//! and `"nan"` (read them back with [`number`], or read the whole file as a
//! [`RunSummary`], which does it for every field). Finite numbers are written
//! with the fewest digits that read back as the same `f64` (with
//! `serde_json`, enable its `float_roundtrip` feature to read them exactly). Integers (counts, seeds,
//! indices, timestamps) are JSON integers; seeds are 64-bit, beyond the
//! 2^53 that JavaScript numbers hold exactly, so each seed also comes as a
//! hexadecimal string (`seed_hex`, `0x`-prefixed, 16 digits), which is what
//! `DUAL_DELTA_SEED` accepts.
//!
//! # Schema, version 3
//!
//! Fields are only ever added within a schema version; a field is renamed,
//! removed or changes meaning only with a new `schema_version`. Version 3
//! writes `judgement.decided_by` as the run's own `DecidedBy` (an object
//! tagged by `by`, where version 2 had a bare name), drops
//! `settings.pass_margin` (always `margin`) and adds
//! `settings.trial_timeout`; `tests.*.significant` is the judgement's
//! ([`crate::Judgement::significant`]).
//!
//! - `schema_version`: `3`.
//! - `crate_version`: the version of `dual-delta-runtime` that wrote it.
//! - `timestamp`: when the report was written, Unix time in whole seconds.
//! - `timestamp_ms`: the same in milliseconds (orders reports written within
//!   one second).
//! - `time_utc`: the same as `YYYY-MM-DDTHH:MM:SSZ`.
//! - `names`: `test` (`module::path::function` for annotated tests),
//!   `candidate` (f1), `baseline` (f2), `oracle` (fΩ), `input` (the input
//!   generator).
//! - `settings`: the resolved settings:
//!   - `n`: number of trials;
//!   - `alpha`: significance level α;
//!   - `seed`, `seed_hex`: the base seed;
//!   - `seed_source`: `default` (derived from the test's name), `explicit`,
//!     `environment` (`DUAL_DELTA_SEED`) or `random`;
//!   - `metric`: the error metric's name (`max_hybrid`, ...), also the unit
//!     of every error in the report;
//!   - `expect`: the accuracy expectation (`no_worse`, `equivalent`,
//!     `better`, `worse`);
//!   - `test`: the requested accuracy test (`wilcoxon`, `sign`, `paired_t`);
//!   - `margin`: the non-inferiority margin δ (default 0.05; 0 is the paper's test);
//!   - `stability`: the stability expectation, or `null`;
//!   - `threads`: the thread limit, or `null` for all cores;
//!   - `allow_non_finite`: whether non-finite candidate outputs are
//!     accepted;
//!   - `stop_early`: whether the run stops as soon as the sequential test
//!     decides (at `margin`: one margin serves both modes);
//!   - `screen`: whether an early pass waits for the screen of every input;
//!   - `gross_factor`: the gross-error gate's factor `G` (`"inf"`: off);
//!   - `trial_timeout`: the per-trial time limit in seconds, or `null`.
//!
//!   These are the settings the one table ([`crate::SETTINGS`]) marks
//!   `recorded`, with the seed also as `seed_hex` and its `seed_source`.
//! - `candidate_format`: the candidate's number format (`f16`, `bf16`,
//!   `f32`, `f64`, `e4m3`, `e5m2`).
//! - `summaries`: `candidate` (Δ1), `baseline` (Δ2) and `differences`
//!   (Δ1 − Δ2), each with `n`, `non_finite`, `mean`, `median`, `std`, `min`,
//!   `p50`, `p90`, `p95`, `p99`, `max`.
//! - `ratio_of_means`: `mean Δ1 / mean Δ2` with its paired bootstrap
//!   interval: `ratio`, `lower`, `upper`, `confidence`, `resamples`, `seed`,
//!   `seed_hex`; or `{"error": "..."}` when it could not be computed.
//! - `accuracy_test`: the test that decided accuracy, after any fallback
//!   (`wilcoxon`, `sign`, `paired_t`).
//! - `fallback`: why the requested test was replaced, or `null`.
//! - `tests`: one entry per test, keyed by: `worse` and `better` (the
//!   deciding test with H1 "candidate less accurate", on
//!   `Δ1 − (1 + margin) Δ2`, and "candidate more accurate"),
//!   `wilcoxon_greater`, `wilcoxon_less`, `sign_greater`, `sign_less`,
//!   `t_greater`, `t_less` (each paired test in both directions, always
//!   reported), `shapiro_differences` (Shapiro-Wilk on Δ1 − Δ2; `W = 1`,
//!   `p = 1` when the differences are all equal, as in SciPy), `ks`
//!   (two-sided two-sample Kolmogorov-Smirnov), `variance_greater`,
//!   `variance_less` (Pitman-Morgan, H1 candidate less / more stable),
//!   `brown_forsythe` (two-sided). Each entry has `name` (the test's name),
//!   `alternative` (`greater`, `less`, `two_sided`: of Δ1 against Δ2),
//!   `h1` (the alternative in words) and either `statistic`, `p_value`,
//!   `method` (`exact`, `permutation`, `asymptotic`) and `significant`
//!   (below the level the fixed-N tests ran at, as the judgement says), or
//!   `error` (why it was not computed).
//! - `hodges_lehmann`: `{"estimate": x}`, the Hodges-Lehmann estimate of the
//!   shift Δ1 − Δ2, or `{"error": "..."}`.
//! - `verdict`: `accuracy` (`more_accurate`, `less_accurate`,
//!   `no_significant_difference`), `equivalence` (`indistinguishable`,
//!   `distinguishable`), `stability` (`more_stable`, `less_stable`,
//!   `no_significant_difference`, `undetermined`), `identical` (the two
//!   outputs were the same numbers on every trial), `equal_errors` (Δ1 = Δ2
//!   on every trial), the one-sentence `accuracy_sentence` and
//!   `stability_sentence`, and `sentence`, the whole verdict in words (the
//!   non-finite outputs first where they decide).
//! - `passed`: whether the expectations hold.
//! - `non_finite`: `candidate`, `baseline`: how many trials had a non-finite
//!   error.
//! - `non_finite_outputs`: the trials on which an implementation's output
//!   held a NaN or an infinity: `candidate` and `baseline`, each with
//!   `trials` (how many) and `first` (`trial`, `seed_hex`, `position`,
//!   `value` of the first, or `null`); `candidate_only` and `baseline_only`
//!   (trials where only that one was not finite); `failed_gate` (whether the
//!   candidate-only trials failed the run: they do unless
//!   `settings.allow_non_finite`).
//! - `worst_trial`: the trial with the candidate's largest error: `index`,
//!   `seed`, `seed_hex` (the trial's own seed), `candidate_error`,
//!   `baseline_error`.
//! - `replay`: the environment setting that replays the run
//!   (`DUAL_DELTA_SEED=0x...`).
//! - `environment`: facts recorded by the process, string to string (the GPU
//!   adapter of a GPU run is `gpu.adapter` there).
//! - `timings`: `trials_seconds` (running the trials), `total_seconds` (the
//!   whole run with the statistics).
//! - `files`: the report's other files, relative to `summary.json`:
//!   `html`, `deltas`, `histogram`, `boxplot`, `qq`, `scatter`, `evidence`.
//! - `trials_run`: the number of trials run, at most `settings.n` (the
//!   cap): fewer when the run stopped as soon as it was decided.
//! - `sequential`: the anytime-valid sequential test: `decision` (`pass`,
//!   `fail`, `undecided`), `reason` (what the evidence showed: `worse`,
//!   `better`, `not_worse_beyond_margin`, `not_better_beyond_margin`,
//!   `within_margin`, or `null`), `decided_after` (the deciding trial, or
//!   `null`), `evidence` (the e-value then), `stopping_reason` (`decided`:
//!   the run stopped there; `cap`: it ran all `settings.n` trials, undecided;
//!   `all_trials`: early stopping was off), `alpha_fail`, `alpha_pass`,
//!   `alpha_fallback` (how α is shared with the fixed-N tests), `margin`
//!   (of the early pass), and `log10_fail`, `log10_pass` (log10 of the two
//!   deciding e-values after each trial). When the run stopped early, the
//!   `tests` are descriptive, over the trials run.
//! - `judgement`: how the run was decided: `decided_by` (an object whose
//!   `by` is `non_finite` or `gross_error`, with `trial` and `seed`;
//!   `sequential`, with `after` and `reason`; or `fixed_n`, with `alpha`),
//!   `trial` and `seed_hex` (the
//!   trial that failed a gate, or `null`), `within_margin` (a significant
//!   loss the margin forgave: `percent`, `p_value` of the margin-0 one-sided
//!   Wilcoxon test, `margin`, `p99_percent` (or `null`), `sentence`; or
//!   `null`), `screen` (`status`: `screened`, `all_trials` or `quick`;
//!   `inputs_checked`, `ties`, `ties_measured`, `unchecked`,
//!   `rare_events_checked`, `sentence`), `gross_errors` (trials over the
//!   gate), `reference_scale` (the baseline's largest finite error) and
//!   `p_value` (the run's p-value for a suite, or `null`).
//! - `regression`: the comparison with the baseline `DUAL_DELTA_BASELINE`
//!   names, or `null`: `baseline` (its name), `commit`, `baseline_trials`,
//!   `pairs` (trials paired by seed), `mean_now`, `mean_then` (the
//!   candidate's mean error over the pairs), `p_value` (one-sided Wilcoxon
//!   on `now − (1 + margin) · then`), `margin`, `decision` (what decided:
//!   `{"by": "fixed_n", "alpha": a}` or `{"by": "too_few_trials",
//!   "needed": k}`), `regressed` (the test fails) and `sentence`: the run's
//!   own [`crate::baseline::Regression`], written as it is.

use std::time::SystemTime;

use super::summary::{
    Estimate, Fallible, Files, Judged, Margin, NonFiniteFirst, NonFiniteOutputs, NonFiniteSide,
    Pair, Ratio, RegressionRecord, RunSummary, Sample, Samples, ScreenSummary, SequentialRecord,
    SettingsRecord, Test, TestValues, Tests, Timings, Verdicts, WorstTrial,
};
use crate::clock::utc;
use crate::evidence::NonFiniteTrial;
use crate::outcome::Outcome;
use crate::rng::seed_hex;
use crate::stats::sequential::Decision;

/// The version of the schema documented in this module.
pub const SCHEMA_VERSION: u32 = 3;

/// The run as `summary.json`'s pretty-printed text; `written` is the
/// report's timestamp.
pub fn to_string(outcome: &Outcome, written: SystemTime) -> String {
    let doc = RunSummary::of(outcome, written);
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| {
        // Serialising plain structs of numbers and strings cannot fail; keep
        // the report usable regardless.
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
    serde_json::to_value(RunSummary::of(outcome, written)).unwrap_or(serde_json::Value::Null)
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

/// A result as a [`Fallible`]: the value made by `ok`, or the error's text.
fn fallible<T, E: ToString, V>(r: &Result<T, E>, ok: impl FnOnce(&T) -> V) -> Fallible<V> {
    match r {
        Ok(t) => Fallible::Ok(ok(t)),
        Err(e) => Fallible::Err {
            error: e.to_string(),
        },
    }
}

impl From<&crate::stats::Summary> for Sample {
    fn from(s: &crate::stats::Summary) -> Self {
        Sample {
            n: s.n,
            non_finite: s.non_finite,
            mean: s.mean,
            median: s.median,
            std: s.std,
            min: s.min,
            p50: s.p50,
            p90: s.p90,
            p95: s.p95,
            p99: s.p99,
            max: s.max,
        }
    }
}

impl NonFiniteSide {
    fn of(trials: &[NonFiniteTrial]) -> Self {
        NonFiniteSide {
            trials: trials.len(),
            first: trials.first().map(|t| NonFiniteFirst {
                trial: t.trial,
                seed_hex: seed_hex(t.seed),
                position: t.position,
                value: t.value,
            }),
        }
    }
}

/// How the run was decided, the screen and the gates.
fn judged(o: &Outcome) -> Judged {
    use crate::judgement::DecidedBy;
    let j = &o.judgement;
    let trial = match j.decided_by {
        DecidedBy::NonFinite { trial, seed } | DecidedBy::GrossError { trial, seed } => {
            Some((trial, seed))
        }
        DecidedBy::Sequential { .. } | DecidedBy::FixedN { .. } => None,
    };
    Judged {
        decided_by: j.decided_by,
        trial: trial.map(|(t, _)| t),
        seed_hex: trial.map(|(_, s)| seed_hex(s)),
        within_margin: j.within_margin.map(|w| Margin {
            difference: w,
            sentence: w.sentence(),
        }),
        screen: ScreenSummary {
            status: o.screen.mode,
            inputs_checked: o.inputs_checked(),
            ties: o.screen.ties,
            ties_measured: o.screen.ties_measured,
            unchecked: o.screen.unchecked,
            rare_events_checked: !o.unscreened(),
            sentence: o.screen_sentence(),
        },
        gross_errors: o.gross.len(),
        reference_scale: o.reference_scale,
        p_value: j.p_value,
    }
}

/// The sequential test's part of the summary.
fn sequential(o: &Outcome) -> SequentialRecord {
    let q = &o.sequential;
    let (decision, reason, evidence) = match q.decision {
        Decision::Continue => ("undecided", None, None),
        Decision::Pass {
            reason, evidence, ..
        } => ("pass", Some(reason), Some(evidence)),
        Decision::Fail {
            reason, evidence, ..
        } => ("fail", Some(reason), Some(evidence)),
    };
    SequentialRecord {
        decision: decision.to_owned(),
        reason,
        decided_after: q.decided_after(),
        evidence,
        stopping_reason: match o.judgement.ending {
            crate::judgement::Ending::Decided { .. } => "decided",
            crate::judgement::Ending::Cap => "cap",
            crate::judgement::Ending::AllTrials => "all_trials",
        }
        .to_owned(),
        alpha_fail: q.alpha_split.fail,
        alpha_pass: q.alpha_split.pass,
        alpha_fallback: q.alpha_split.fallback,
        margin: q.margin,
        log10_fail: q.trace.iter().map(|t| t.log10_fail).collect(),
        log10_pass: q.trace.iter().map(|t| t.log10_pass).collect(),
    }
}

impl RunSummary {
    /// The summary of a run; `written` is the report's timestamp.
    pub fn of(o: &Outcome, written: SystemTime) -> Self {
        let s = &o.settings;
        let a = &o.analysis;
        let since = written
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let test = |r: &crate::verdict::TestRow<'_>| Test {
            name: r.name.to_owned(),
            alternative: r.alternative,
            h1: r.h1.to_owned(),
            result: fallible(r.outcome, |t| TestValues {
                statistic: t.statistic,
                p_value: t.p_value,
                method: t.method,
                significant: o.judgement.significant(t.p_value),
            }),
        };
        let worst = o.worst_trial();
        let worst_index = o.trials.get(worst).copied().unwrap_or(0);
        let worst_seed = o.trial_seed(worst_index);
        let count = |d: &[f64]| d.iter().filter(|v| !v.is_finite()).count();
        let names = &o.names;
        RunSummary {
            schema_version: SCHEMA_VERSION,
            crate_version: env!("CARGO_PKG_VERSION").to_owned(),
            timestamp: since.as_secs(),
            timestamp_ms: since.as_millis() as u64,
            time_utc: utc(since.as_secs()),
            names: names.clone(),
            settings: SettingsRecord {
                n: s.n,
                alpha: s.alpha,
                seed: s.seed,
                seed_hex: seed_hex(s.seed),
                seed_source: s.seed_source,
                metric: s.metric.name().to_owned(),
                expect: s.expect,
                test: s.test,
                margin: s.margin,
                stability: s.stability,
                threads: s.threads,
                allow_non_finite: s.allow_non_finite,
                stop_early: s.stop_early,
                screen: s.screen,
                gross_factor: s.gross_factor,
                trial_timeout: s.trial_timeout.map(|t| t.as_secs_f64()),
            },
            candidate_format: o.candidate_format,
            summaries: Samples {
                candidate: (&o.summaries.candidate).into(),
                baseline: (&o.summaries.baseline).into(),
                differences: (&o.summaries.differences).into(),
            },
            ratio_of_means: fallible(&o.ratio_of_means, |r| Ratio {
                ratio: r.ratio,
                lower: r.lower,
                upper: r.upper,
                confidence: r.confidence,
                resamples: r.resamples,
                seed: r.seed,
                seed_hex: seed_hex(r.seed),
            }),
            accuracy_test: a.accuracy_test,
            fallback: a.fallback.clone(),
            tests: Tests(
                a.rows()
                    .iter()
                    .map(|r| (r.key.to_owned(), test(r)))
                    .collect(),
            ),
            hodges_lehmann: fallible(&a.hodges_lehmann, |&x| Estimate { estimate: x }),
            verdict: Verdicts {
                accuracy: o.judgement.accuracy,
                equivalence: o.verdict.equivalence,
                stability: o.verdict.stability,
                identical: o.verdict.identical,
                equal_errors: o.verdict.equal_errors,
                accuracy_sentence: o.accuracy_sentence(),
                stability_sentence: o
                    .verdict
                    .stability_sentence(&names.candidate, &names.baseline),
                sentence: o.verdict_sentence(),
            },
            passed: o.passed(),
            non_finite: Pair {
                candidate: count(&o.delta1),
                baseline: count(&o.delta2),
            },
            non_finite_outputs: NonFiniteOutputs {
                candidate: NonFiniteSide::of(&o.non_finite.candidate),
                baseline: NonFiniteSide::of(&o.non_finite.baseline),
                candidate_only: o.non_finite.candidate_only().len(),
                baseline_only: o.non_finite.baseline_only().len(),
                failed_gate: o.non_finite_gate(),
            },
            trials_run: o.trials_run(),
            sequential: sequential(o),
            judgement: Some(judged(o)),
            regression: o.regression.as_ref().map(|r| RegressionRecord {
                comparison: r.clone(),
                sentence: r.sentence(),
            }),
            worst_trial: WorstTrial {
                index: worst_index,
                seed: worst_seed,
                seed_hex: seed_hex(worst_seed),
                candidate_error: o.delta1.get(worst).copied().unwrap_or(f64::NAN),
                baseline_error: o.delta2.get(worst).copied().unwrap_or(f64::NAN),
            },
            replay: format!("{}={:#x}", crate::config::ENV_SEED, s.seed),
            environment: o.environment.clone(),
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
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
