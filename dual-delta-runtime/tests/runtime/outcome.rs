//! What a builder user reads of an outcome: default names, the accessors,
//! the report on disk, and the words of the table for edge cases. The runs
//! take all their trials (`stop_early(false)`), so that the fixed-N figures
//! they check are over a known number of trials.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::decision::DecidedBy;
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::step_summary;

fn input(rng: &mut TrialRng) -> Vec<f32> {
    (0..256).map(|_| rng.random_range(0.0f32..1.0)).collect()
}
fn exact(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn kahan(x: &Vec<f32>) -> f32 {
    let (mut s, mut c) = (0.0f32, 0.0f32);
    for &v in x {
        let y = v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}
fn naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

#[test]
fn the_builder_names_functions_by_their_names_and_closures_by_their_roles() {
    let o = DualDelta::new(naive, kahan, exact, input)
        .n(20)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(
        (
            &*o.names().candidate,
            &*o.names().baseline,
            &*o.names().oracle,
            &*o.names().input
        ),
        ("naive", "kahan", "exact", "input")
    );
    assert!(
        o.table()
            .contains("naive (candidate) vs kahan (baseline), oracle exact"),
        "{}",
        o.table()
    );
    let o = DualDelta::new(|x: &Vec<f32>| naive(x), kahan, exact, input)
        .n(20)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(o.names().candidate, "candidate");
    assert_eq!(o.names().baseline, "kahan");
}

#[test]
fn accessors_give_the_deciding_p_values_the_sentence_and_the_non_finite_counts() {
    let o = DualDelta::new(naive, kahan, exact, input)
        .n(200)
        .stop_early(false)
        .run()
        .unwrap();
    let worse = o.analysis().worse.as_ref().unwrap().p_value;
    assert_eq!(o.p_worse(), Some(worse));
    assert!(worse < 1e-10, "{worse}");
    assert!(o.p_better().unwrap() > 0.5);
    let r = o.claim().mean;
    let ties = o.screen().ties;
    // Both criteria fail; the mean's p-value at the margin is the smaller
    // and names the criterion. Each criterion is at α/2: one-sided bounds
    // at 99.5%.
    let t = &o.claim().typical;
    assert!(r.p_margin < t.p_margin);
    assert_eq!(
        o.verdict_sentence(),
        format!(
            "naive is significantly less accurate than kahan in mean error, beyond the 5% \
             margin: mean error ×{:.2} the baseline's, lower bound ×{:.2} at level 0.005 (p = \
             {:.1e} at the margin); typical error ×{:.2} (over 200 of 200 inputs; {ties} ties \
             (identical outputs)). ",
            r.effect,
            r.lower,
            r.p_margin.unwrap(),
            t.effect
        ) + &o.stability_sentence()
    );
    assert!(o.claim().mean.beyond(o.claim().level) && t.beyond(o.claim().level));
    assert!(o.non_finite().candidate.is_empty() && !o.non_finite_gate());
}

/// NaN wherever the input's first element is below 0.05.
fn kahan_nan(x: &Vec<f32>) -> f32 {
    if x[0] < 0.05 { f32::NAN } else { kahan(x) }
}

#[test]
fn a_non_finite_candidate_fails_whatever_the_statistics_unless_allowed() {
    let o = DualDelta::new(kahan_nan, kahan, exact, input)
        .n(100)
        .seed(11)
        .stop_early(false)
        .run()
        .unwrap();
    let nans: Vec<usize> = (0..100)
        .filter(|&i| input(&mut TrialRng::for_trial(11, i))[0] < 0.05)
        .collect();
    assert!(!nans.is_empty());
    let recorded: Vec<usize> = o.non_finite().candidate.iter().map(|t| t.trial).collect();
    assert_eq!(recorded, nans);
    let first = &o.non_finite().candidate[0];
    assert_eq!((first.position, first.seed), (0, o.trial_seed(nans[0])));
    assert!(first.value.is_nan());
    assert!(o.non_finite_gate() && !o.passed());
    let message = o.result().unwrap_err();
    assert!(
        message.starts_with(&format!(
            "dual-delta test `{}` failed: the candidate kahan_nan returned a non-finite value",
            o.names().test
        )),
        "{message}"
    );

    let worse = DualDelta::new(kahan_nan, kahan, exact, input)
        .n(100)
        .seed(11)
        .expect(Expect::Worse)
        .stop_early(false)
        .run()
        .unwrap();
    assert!(worse.passed());

    let allowed = DualDelta::new(kahan_nan, kahan, exact, input)
        .n(100)
        .seed(11)
        .allow_non_finite(true)
        .alpha(1e-12)
        .stop_early(false)
        .run()
        .unwrap();
    // Allowed, a NaN is still the worst possible error: six of 100 inputs
    // are too few for the mean's test at this level, and the run names
    // the `n` that could show them rather than pass.
    assert!(!allowed.non_finite_gate());
    assert_eq!(allowed.judgement().decided_by(), DecidedBy::ShortOfInputs);
    let failure = allowed.failure_sentence().unwrap();
    assert!(failure.contains("raise n to at least"), "{failure}");

    // The baseline's NaNs never fail the candidate.
    let baseline = DualDelta::new(kahan, kahan_nan, exact, input)
        .n(100)
        .seed(11)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(baseline.non_finite().baseline_only().len(), nans.len());
    assert!(baseline.passed());
    assert!(baseline.table().contains(&format!(
        "note: the baseline kahan_nan returned a non-finite value on {} trials",
        nans.len()
    )));
}

/// NaN on the same inputs as `kahan_nan`.
fn naive_nan(x: &Vec<f32>) -> f32 {
    if x[0] < 0.05 { f32::NAN } else { naive(x) }
}

#[test]
fn trials_where_both_errors_are_infinite_are_ties_and_the_table_says_so() {
    let o = DualDelta::new(naive_nan, kahan_nan, exact, input)
        .n(100)
        .seed(11)
        .stop_early(false)
        .run()
        .unwrap();
    let both = o.non_finite().candidate.len();
    assert!(both > 0 && o.non_finite().candidate_only().is_empty());
    assert!(!o.non_finite_gate());
    assert!(
        o.table().contains(&format!(
            "note: both errors were infinite on {both} of 100 trials; the paired tests count \
             each as a tie (a zero difference)"
        )),
        "{}",
        o.table()
    );
}

#[test]
fn the_table_says_why_a_figure_is_missing_and_writes_tiny_p_values_plainly() {
    fn far_off(x: &Vec<f32>) -> f32 {
        naive(x) + 100.0
    }
    let o = DualDelta::new(far_off, kahan, exact, input)
        .n(2000)
        .stop_early(false)
        .run()
        .unwrap();
    let table = o.table();
    assert!(table.contains("p < 1e-300 (< "), "{table}");
    assert!(!table.contains("= <"), "{table}");

    let nan = DualDelta::new(kahan_nan, kahan, exact, input)
        .n(100)
        .seed(11)
        .stop_early(false)
        .run()
        .unwrap();
    // The mean is over the inputs whose errors are finite, and says so.
    let finite = 100 - nan.non_finite().candidate.len();
    assert!(
        nan.table().contains(&format!(
            "(M)'s mean over the {finite} of 100 inputs whose errors are finite"
        )),
        "{}",
        nan.table()
    );
}

#[test]
fn the_builder_writes_the_same_report_on_request() {
    let home = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("outcome-report");
    let o = DualDelta::new(naive, kahan, exact, input)
        .test_name("outcome::builder_report")
        .n(50)
        .stop_early(false)
        .run()
        .unwrap();
    let page = dual_delta_runtime::report::write_under(&o, &home).unwrap();
    assert!(
        page.ends_with("outcome.builder_report/index.html"),
        "{}",
        page.display()
    );
    let summary = std::fs::read_to_string(page.with_file_name("summary.json")).unwrap();
    assert!(summary.contains("\"non_finite_outputs\""), "{summary}");
    // `write_report` writes under the default root: the same files.
    let default = o.write_report().unwrap();
    assert!(default.ends_with("outcome.builder_report/index.html"));
    assert!(default.with_file_name("deltas.csv").exists());
}

#[test]
fn a_step_summary_row_per_run_under_one_header() {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("outcome-summary.md");
    let _ = std::fs::remove_file(&file);
    let o = DualDelta::new(naive, kahan, exact, input)
        .n(30)
        .stop_early(false)
        .run()
        .unwrap();
    let ended = dual_delta_runtime::ended::Ended::Ran(Box::new(o.clone()));
    step_summary::append(&file, &ended, Err("permission denied")).unwrap();
    step_summary::append(&file, &ended, Ok(std::path::Path::new("r/index.html"))).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("| dual-delta test |").count(), 1, "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.ends_with("| 30 | `r/index.html` |\n"), "{text}");
    assert!(
        text.contains("| 30 | ⚠ not written: permission denied |\n"),
        "{text}"
    );
    assert!(
        text.contains("| **failed** | naive is significantly less accurate"),
        "{text}"
    );
}
