//! Runs that stop as soon as the anytime-valid sequential test decides:
//! f32 summation strategies against an f64 oracle, as in `summation.rs`.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::decision::Accuracy;
use dual_delta_runtime::prelude::*;

use crate::common::{LEN, input, kahan, kahan_on_half, naive, oracle, pairwise};

fn reversed(x: &Vec<f32>) -> f32 {
    x.iter().rev().fold(0.0, |s, &v| s + v)
}

#[test]
fn a_worse_candidate_fails_within_a_few_dozen_trials_on_any_number_of_threads() {
    let runs: Vec<Outcome> = [Some(1), Some(2), None]
        .into_iter()
        .map(|threads| {
            let run = DualDelta::new(naive, kahan, oracle, input).seed(7);
            match threads {
                Some(t) => run.threads(t),
                None => run,
            }
            .run()
            .unwrap()
        })
        .collect();
    let o = &runs[0];
    let after = o.inputs_checked();
    assert!(o.sequential().stopped && !o.passed());
    assert!(after <= 64, "decided after {after} trials");
    assert!(matches!(
        o.judgement().decided_by(),
        dual_delta_runtime::decision::DecidedBy::Sequential { after: a, .. } if a == after
    ));
    assert!(o.trials_run() <= after);
    assert_eq!(o.judgement().accuracy(), Accuracy::LessAccurate);
    assert!(matches!(
        o.sequential().crossed,
        dual_delta_runtime::stats::sequential::Crossed::Fail { .. }
    ));
    let sentence = o.verdict_sentence();
    assert!(
        sentence.starts_with(
            "naive is significantly less accurate than kahan on the typical input, beyond the 5% \
             margin (anytime-valid sequential test, e-value 10^"
        ),
        "{sentence}"
    );
    assert!(
        sentence.contains(&format!("(stopped after {after} of 1000 inputs")),
        "{sentence}"
    );
    for other in &runs[1..] {
        assert_eq!(other.delta1(), o.delta1());
        assert_eq!(other.sequential(), o.sequential());
    }
    println!("naive vs kahan summation of {LEN}: decided (fail) after {after} trials");
}

#[test]
fn naive_against_pairwise_summation_is_decided_within_the_first_rounds() {
    let o = DualDelta::new(naive, pairwise, oracle, input)
        .run()
        .unwrap();
    let after = o.inputs_checked();
    assert!(!o.passed() && after <= 64, "{after}");
    assert_eq!(o.judgement().accuracy(), Accuracy::LessAccurate);
    // A pass speaks for every input: the better candidate runs all of them.
    let swapped = DualDelta::new(pairwise, naive, oracle, input)
        .expect(Expect::Better)
        .run()
        .unwrap();
    let better_after = swapped.inputs_checked();
    assert!(swapped.passed() && better_after == 1000, "{better_after}");
    println!(
        "naive vs pairwise summation of {LEN}: fail after {after} trials; pairwise vs naive, \
         expect better: pass after {better_after}"
    );
}

#[test]
fn a_candidate_equal_to_the_baseline_passes_with_the_oracle_on_the_tie_sample_only() {
    let o = DualDelta::new(kahan, kahan, oracle, input).run().unwrap();
    assert!(o.passed() && !o.sequential().stopped);
    assert_eq!((o.inputs_checked(), o.screen().ties), (1000, 1000));
    // The first round and one tie in eight run the oracle.
    let measured = o.screen().ties_measured;
    assert!((100..200).contains(&measured), "{measured}");
    assert_eq!(o.trials_run(), measured);
    assert!(
        o.verdict_sentence().starts_with(
            "kahan and kahan gave identical outputs on every trial (over 1000 of 1000"
        ),
        "{}",
        o.verdict_sentence()
    );
    println!("kahan vs kahan: the oracle ran on {measured} of 1000 inputs");
}

#[test]
fn without_early_stopping_every_trial_runs_and_the_decision_is_still_recorded() {
    let o = DualDelta::new(naive, kahan, oracle, input)
        .n(300)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(o.trials_run(), 300);
    assert!(!o.sequential().stopped);
    let after = o
        .sequential()
        .decided_after()
        .expect("the evidence crossed");
    assert!(after < 300);
    // The sequential test sees the trials whose outputs differ.
    assert!(o.sequential().trace.len() <= 300 && o.sequential().trace.len() > 250);
    assert_eq!(o.fixed_alpha(), o.settings().alpha());
    assert!(
        o.table().contains(&format!(
            "the sequential test would have decided after {after} trials (fail); early stopping \
             is off"
        )),
        "{}",
        o.table()
    );
}

#[test]
fn undecided_at_the_cap_the_fixed_n_test_decides_at_its_share_of_alpha() {
    // Summing in reverse order is as accurate as in order: 12 trials cannot
    // tell either way.
    let o = DualDelta::new(reversed, naive, oracle, input)
        .n(12)
        .run()
        .unwrap();
    assert_eq!(o.trials_run(), 12);
    assert_eq!(o.sequential().decided_after(), None);
    assert_eq!(o.fixed_alpha(), 0.005);
    assert!(o.passed());
    assert!(
        o.table().contains(
            "undecided by the sequential test after 12 trials: the fixed-N tests decide at α = \
             0.005 (the share of α = 0.01 left to them)"
        ),
        "{}",
        o.table()
    );
}

#[test]
fn the_report_records_the_trials_run_the_reason_and_the_evidence() {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("early-report");
    let o = DualDelta::new(naive, kahan, oracle, input)
        .test_name("early::report")
        .run()
        .unwrap();
    let page = dual_delta_runtime::report::write_under(&o, &root).unwrap();
    let dir = page.parent().unwrap();
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    // Schema 4: the sequential verdict and how the run ended are the
    // run's own types.
    let summary = dual_delta_runtime::report::summary::Summary::read(&text).unwrap();
    assert_eq!(summary.settings.settings.n(), 1000);
    assert_eq!(summary.trials_run, o.trials_run());
    let q = &summary.sequential;
    assert!(matches!(
        q.crossed,
        dual_delta_runtime::stats::sequential::Crossed::Fail {
            reason: dual_delta_runtime::stats::sequential::Reason::Worse,
            ..
        }
    ));
    assert!(matches!(
        summary.judgement.ending(),
        dual_delta_runtime::decision::Ending::Decided { .. }
    ));
    let decided_after = q.decided_after().unwrap();
    assert!(decided_after <= o.trials_run());
    assert!(q.trace.len() >= decided_after);
    assert!(q.trace.last().unwrap().log10_fail >= -q.alpha_split.fail.log10());
    // The plot says what the terminal and the page say: where the run
    // stopped, and the evidence it stopped at.
    let svg = std::fs::read_to_string(dir.join("evidence.svg")).unwrap();
    assert!(
        svg.contains(&format!(
            "stopped after input {} of at most 1000",
            o.inputs_checked()
        )),
        "{svg}"
    );
    let stop = dual_delta_runtime::decision::claim::STOP_EVIDENCE
        .max(1.0 / q.alpha_split.fail)
        .log10();
    assert!(svg.contains(&format!("an early failure at log10 e = {stop:.2}")));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("evidence.svg"));
    assert!(html.contains(&format!(
        "Stopped after {} of 1000 inputs by the anytime-valid sequential test",
        o.inputs_checked()
    )));
}

#[test]
fn with_ties_sampled_the_tables_means_and_the_ratio_tell_one_story() {
    let o = DualDelta::new(kahan_on_half, naive, oracle, input)
        .seed(11)
        .run()
        .unwrap();
    let s = o.screen();
    assert_eq!(o.inputs_checked(), 1000);
    assert!(s.ties_unmeasured() > 300, "{s:?}");
    let ratio = o.claim().mean.effect;
    let shown = o.shown_summaries();
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 0.02;
    assert!(close(shown.candidate.mean / shown.baseline.mean, ratio));
    // Over the inputs the oracle ran on alone, the ties count an eighth of
    // what they weigh: the two would disagree.
    let unweighted = o.summaries().candidate.mean / o.summaries().baseline.mean;
    assert!(!close(unweighted, ratio), "{unweighted} vs {ratio}");
    // The table prints those means, and says over which inputs.
    let table = o.table();
    let mean_of = |row: &str| -> f64 {
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(row))
            .unwrap();
        let cells: Vec<&str> = line.split_whitespace().collect();
        cells[2].parse().unwrap()
    };
    let printed = mean_of("Δ1 kahan_on_half") / mean_of("Δ2 naive");
    assert!(close(printed, ratio), "{printed} vs {ratio}\n{table}");
    let note = format!(
        "(means over all 1000 inputs with finite errors (the {} ties the oracle skipped counted \
         as the {} it ran on); the other columns over the {} inputs it ran on)",
        s.ties_unmeasured(),
        s.ties_measured,
        o.delta1().len()
    );
    assert!(table.contains(&note), "{table}");
    println!(
        "ties sampled: table means ratio {printed:.4}, ratio of means {ratio:.4}, over the full trials alone {unweighted:.4}"
    );
}
