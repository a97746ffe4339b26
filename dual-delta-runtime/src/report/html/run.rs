//! The page of one test: the verdict, the tables, the plots, the replay and
//! the settings (`templates/run.html`).

use std::path::Path;
use std::time::SystemTime;

use askama::Template;

use super::super::words::CriterionRow;
use super::super::words::numbers::{num, pval};
use super::super::{
    DELTAS_FILE, EVIDENCE_FILE, INDEX_FILE, PLOT_FILES, REGION_FILE, REGRESSION_FILE, SUMMARY_FILE,
};
use super::VERSION;
use crate::config::Settings;
use crate::decide::Ending;
use crate::outcome::{Names, Outcome};
use crate::stats::Summary as Sample;
use crate::verdict::{Analysis, TestRow};

/// The plots in the order of the page, with their captions.
const PLOTS: [(&str, &str); 5] = [
    (
        PLOT_FILES[0],
        "Overlapping histograms of Δ1 and Δ2 over shared bins.",
    ),
    (
        PLOT_FILES[1],
        "Box plots: quartiles, whiskers to 1.5 × IQR, outliers, mean (×).",
    ),
    (
        PLOT_FILES[2],
        "Quantiles of Δ1 against quantiles of Δ2; on the diagonal the distributions agree.",
    ),
    (
        PLOT_FILES[3],
        "Each trial's Δ1 against its Δ2; below the diagonal the candidate did worse.",
    ),
    (
        EVIDENCE_FILE,
        "The sequential test's evidence for failing and for passing after each trial (log10 \
         e-value), with its thresholds 1/α and the deciding trial.",
    ),
];

/// The sequential test's paragraph in the verdict box.
fn sequential_paragraph(o: &Outcome) -> String {
    let q = &o.sequential;
    let n = o.settings.n;
    let decision = match (o.judgement.ending, q.decided_after()) {
        (Ending::Decided { after }, _) => format!(
            "Stopped after {after} of {n} inputs by the anytime-valid sequential test, once the \
             claim's rule held on the inputs so far; the tests below are over the inputs run."
        ),
        (Ending::AllTrials, Some(after)) => format!(
            "The sequential test would have decided after {after} trials; early stopping is off, \
             so all {n} trials ran and the fixed-N tests decide."
        ),
        (Ending::Cap, _) => format!(
            "Undecided by the sequential test after {} trials: the fixed-N tests decide, at α = {} \
             (the share of α = {} left to them).",
            o.trials_run(),
            o.judgement.fixed_alpha,
            o.settings.alpha
        ),
        (Ending::AllTrials, None) => format!("All {n} trials ran; the fixed-N tests decide."),
    };
    let mut paragraph = decision;
    for extra in [
        o.screen_sentence(),
        o.regression
            .as_ref()
            .map(|r| r.sentence())
            .unwrap_or_default(),
        o.device_sentence(),
    ] {
        if !extra.is_empty() {
            paragraph.push(' ');
            paragraph.push_str(&extra);
        }
    }
    paragraph
}

/// The numbers of the verdict's paragraph on non-finite outputs.
struct NonFiniteOutputs {
    candidate: usize,
    baseline: usize,
    candidate_only: usize,
    /// What they mean for the test (`: this fails the test`), or nothing.
    consequence: &'static str,
}

/// How many errors of each sample are not finite.
struct NonFiniteErrors {
    candidate: usize,
    baseline: usize,
}

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage<'a> {
    o: &'a Outcome,
    names: &'a Names,
    s: &'a Settings,
    a: &'a Analysis,
    /// When the report was written, `YYYY-MM-DDTHH:MM:SSZ`.
    written: String,
    passed: bool,
    /// `pass` or `fail`.
    class: &'static str,
    accuracy_sentence: Option<String>,
    /// The metric and its formula: the unit of every error shown.
    metric_formula: String,
    /// The claim: what it claims and at which levels, its two criteria,
    /// and what decided.
    claim_heading: String,
    claim_rows: [CriterionRow; 2],
    decided: String,
    /// Where the loss is ([`Outcome::where_sentence`]).
    where_sentence: Option<String>,
    stability_sentence: String,
    /// After how many trials the sequential test decided, and what that
    /// makes of the tests below.
    sequential: String,
    /// The level the fixed-N tests are read at.
    alpha: f64,
    non_finite_outputs: Option<NonFiniteOutputs>,
    non_finite_errors: NonFiniteErrors,
    /// The number of trials.
    trials: usize,
    back_link: bool,
    samples: [(String, Sample); 3],
    /// Over which inputs the means are, where ties were sampled.
    means_note: Option<String>,
    rows: Vec<TestRow<'a>>,
    seed_source: String,
    /// The command that replays the run.
    replay_command: String,
    worst: usize,
    worst_error: f64,
    worst_seed: u64,
    /// The terminal table.
    terminal: String,
    /// The settings and the environment, name and value.
    settings: Vec<(String, String)>,
}

/// The page of one test. `page` is where it will be (printed in the
/// terminal table); `back_link` adds a link to `../index.html`.
pub(crate) fn test_page(
    o: &Outcome,
    written: SystemTime,
    page: Option<&Path>,
    back_link: bool,
) -> String {
    let s = &o.settings;
    let n = &o.names;
    let secs = written
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let nf = &o.non_finite;
    let shown = o.shown_summaries();
    let non_finite_outputs =
        (!nf.candidate.is_empty() || !nf.baseline.is_empty()).then(|| NonFiniteOutputs {
            candidate: nf.candidate.len(),
            baseline: nf.baseline.len(),
            candidate_only: nf.candidate_only().len(),
            consequence: if o.non_finite_gate() {
                ": this fails the test"
            } else if s.allow_non_finite {
                ": allowed by this test"
            } else {
                ""
            },
        });
    let worst = o.worst_trial();
    let passed = o.passed();
    super::render(&RunPage {
        o,
        names: n,
        s,
        a: &o.analysis,
        written: crate::clock::utc(secs),
        passed,
        class: if passed { "pass" } else { "fail" },
        // Once: a failure's sentence is often the accuracy verdict itself.
        accuracy_sentence: {
            let a = o.accuracy_sentence();
            (o.failure_sentence().as_deref() != Some(a.as_str())).then_some(a)
        },
        metric_formula: s.metric.formula(),
        claim_heading: o.claim_heading(),
        claim_rows: o.claim_rows(),
        decided: o.decided_words(),
        where_sentence: o.where_sentence(),
        sequential: sequential_paragraph(o),
        alpha: o.fixed_alpha(),
        stability_sentence: o.stability_sentence(),
        non_finite_outputs,
        non_finite_errors: NonFiniteErrors {
            candidate: o.summaries.candidate.non_finite,
            baseline: o.summaries.baseline.non_finite,
        },
        trials: o.delta1.len(),
        back_link,
        samples: [
            (format!("Δ1 {}", n.candidate), shown.candidate),
            (format!("Δ2 {}", n.baseline), shown.baseline),
            ("Δ1 − Δ2".to_owned(), shown.differences),
        ],
        means_note: o.means_note(),
        rows: o.analysis.distinct_rows(),
        seed_source: format!("{:?}", s.seed_source).to_lowercase(),
        replay_command: crate::replay::command(&n.test, s.seed),
        worst: o.trials.get(worst).copied().unwrap_or(0),
        worst_error: o.delta1.get(worst).copied().unwrap_or(f64::NAN),
        worst_seed: o.trial_seed(o.trials.get(worst).copied().unwrap_or(0)),
        terminal: super::super::terminal::table(o, page),
        settings: settings(o),
    })
}

/// The cells of a sample's row: mean, median, std, min and the percentiles
/// up to the max.
fn cells(s: &Sample) -> [String; 9] {
    [
        s.mean, s.median, s.std, s.min, s.p50, s.p90, s.p95, s.p99, s.max,
    ]
    .map(num)
}

/// The rows of the table of settings and environment.
fn settings(o: &Outcome) -> Vec<(String, String)> {
    let n = &o.names;
    let mut rows: Vec<(String, String)> = [
        ("test name", n.test.clone()),
        (
            "candidate",
            format!("{} ({})", n.candidate, o.candidate_format),
        ),
        ("baseline", n.baseline.clone()),
        ("oracle", n.oracle.clone()),
        ("input", n.input.clone()),
        ("trials run", o.trials_run().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    // Every setting, named as in summary.json's `settings`: one list of
    // them, the summary's.
    let settings = crate::report::summary::Recorded::of(&o.settings);
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&settings) {
        rows.extend(map.into_iter().map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Null => "none".to_owned(),
                other => other.to_string(),
            };
            (k, v)
        }));
    }
    rows.push((
        "time".to_owned(),
        format!(
            "trials {:.3} s, total {:.3} s",
            o.trial_time.as_secs_f64(),
            o.elapsed.as_secs_f64()
        ),
    ));
    rows.extend(o.environment.iter().map(|(k, v)| (k.clone(), v.clone())));
    rows
}
