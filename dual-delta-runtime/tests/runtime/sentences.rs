//! Every sentence agrees with the decision: the adversary grid's every
//! cell, and the gates, each run and its words read against its
//! judgement. A sentence says "significantly" only of a test below its
//! level, "more accurate" only where the claim decided it, "within the
//! margin" only where a criterion was significant at margin 0 and not
//! beyond; a failure names what decided it; a pass has no failure
//! sentence; the claim's rows mark as deciding only what decided.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::decision::Accuracy;
use dual_delta_runtime::decision::DecidedBy;
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::stats::sequential::Reason;

// The adversary suite's cells, read here for their words.
use crate::adversary::{cells, grid};

/// Every way `o`'s words contradict its judgement.
fn contradictions(o: &Outcome) -> Vec<String> {
    let mut wrong = Vec::new();
    let c = o.claim();
    let j = o.judgement();
    let early = match j.decided_by() {
        DecidedBy::Sequential { reason, .. } => Some(reason),
        _ => None,
    };
    let failure = o.failure_sentence();
    if o.passed() == failure.is_some() {
        wrong.push(format!(
            "passed = {} with failure sentence {failure:?}",
            o.passed()
        ));
    }
    let texts = [
        o.verdict_sentence(),
        o.accuracy_sentence(),
        failure.clone().unwrap_or_default(),
        o.claim_lines().join("\n"),
        o.table(),
    ];
    for text in &texts {
        if text.contains("sample of 0") {
            wrong.push(format!("an estimate from no sample: {text}"));
        }
        if text.contains("significantly more accurate")
            && !(c.accuracy() == Accuracy::MoreAccurate || early == Some(Reason::Better))
            && !text.contains("(M) mean error")
        {
            wrong.push(format!("'more accurate' the claim did not decide: {text}"));
        }
        if text.contains("significantly less accurate")
            && !(c.accuracy() == Accuracy::LessAccurate || early == Some(Reason::Worse))
        {
            wrong.push(format!("'less accurate' the claim did not decide: {text}"));
        }
        if text.contains("No significant accuracy difference")
            && (c.accuracy() != Accuracy::NoSignificantDifference || c.significantly_worse())
        {
            wrong.push(format!("'no difference' over a significant one: {text}"));
        }
        let margin = format!("within the {}% margin", 100.0 * c.margin);
        let forgiven = c.significantly_worse() && !c.less_accurate();
        if text.contains(&margin) && !forgiven {
            wrong.push(format!(
                "'{margin}' without a significant loss inside it: {text}"
            ));
        }
        // Every clause that says "significantly" cites only p-values
        // below its level.
        for clause in text.split(['.', ';', '\n']) {
            let says = clause.contains("significantly")
                && !clause.contains("not significantly")
                && !clause.contains("stable");
            if !says {
                continue;
            }
            for p in p_values(clause) {
                if p >= c.level.max(j.fixed_alpha()) {
                    wrong.push(format!("'significantly' with p = {p}: {clause}"));
                }
            }
        }
    }
    let gate_word = match j.decided_by() {
        DecidedBy::NonFinite { .. } => Some("non-finite"),
        DecidedBy::GrossError { .. } => Some("gross error"),
        DecidedBy::Bound { .. } => Some("documented bound"),
        DecidedBy::Check => Some("check"),
        DecidedBy::ShortOfInputs => Some("raise n"),
        _ => None,
    };
    if let (Some(word), Some(f)) = (gate_word, &failure)
        && !f.contains(word)
    {
        wrong.push(format!(
            "decided by {:?}, the failure says: {f}",
            j.decided_by()
        ));
    }
    for row in o.claim_rows() {
        let criterion = if row.label.starts_with("(M)") {
            &c.mean
        } else {
            &c.typical
        };
        if (row.found == "less accurate beyond the margin") != criterion.beyond(c.level) {
            wrong.push(format!(
                "row {} says {} ({criterion:?})",
                row.label, row.found
            ));
        }
        if row.deciding && !matches!(j.decided_by(), DecidedBy::FixedN { .. }) {
            wrong.push(format!(
                "row {} deciding under {:?}",
                row.label,
                j.decided_by()
            ));
        }
    }
    wrong
}

/// The p-values a clause cites (`p = 1.2e-5`, `p = 0.31`).
fn p_values(clause: &str) -> Vec<f64> {
    clause
        .match_indices("p = ")
        .filter_map(|(i, _)| {
            let rest = &clause[i + 4..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || ".e-+".contains(c)))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches('.').parse().ok()
        })
        .collect()
}

#[test]
fn every_cell_of_the_grid_says_what_it_decided() {
    let lists = [
        cells::fooling(),
        cells::within_margin(),
        cells::handful(),
        cells::margin_edges(),
        cells::equal_accuracy(),
        cells::non_finite_allowed(),
        cells::magnitudes(),
    ];
    let seeds = grid::seeds(3);
    let mut wrong = Vec::new();
    let mut runs = 0;
    for cell in lists.iter().flatten() {
        let built = cell.build();
        for seed in 0..seeds {
            for stop_early in [true, false] {
                let o = built.run(seed, stop_early, false).unwrap();
                runs += 1;
                for w in contradictions(&o) {
                    wrong.push(format!(
                        "{} (seed {seed}, stop_early {stop_early}): {w}",
                        cell.name
                    ));
                }
            }
        }
    }
    println!("{runs} runs of the grid read against their judgements");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn input(rng: &mut TrialRng) -> Vec<f32> {
    crate::common::short_input(rng)
}

/// The naive sum's error, times `k`.
fn scaled(k: f64) -> impl Fn(&Vec<f32>) -> f64 + Sync + Copy {
    move |x| {
        let o = crate::common::oracle(x);
        o + k * (f64::from(crate::common::naive(x)) - o)
    }
}

#[test]
fn every_gate_and_ending_says_what_decided() {
    let runs: Vec<(&str, Outcome)> = vec![
        (
            "NaN where the baseline is finite",
            DualDelta::new(
                |x: &Vec<f32>| {
                    if x[0] < 0.05 {
                        f32::NAN
                    } else {
                        crate::common::kahan(x)
                    }
                },
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .run()
            .unwrap(),
        ),
        (
            "inf on 30%, allowed",
            DualDelta::new(
                |x: &Vec<f32>| {
                    if x[0] < 0.3 {
                        f32::INFINITY
                    } else {
                        crate::common::naive(x)
                    }
                },
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .allow_non_finite(true)
            .run()
            .unwrap(),
        ),
        (
            "a gross error",
            DualDelta::new(
                |x: &Vec<f32>| {
                    let o = crate::common::oracle(x);
                    if x[0] < 0.01 {
                        o + 1.0
                    } else {
                        crate::common::naive(x).into()
                    }
                },
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .run()
            .unwrap(),
        ),
        (
            "over a documented bound",
            DualDelta::new(
                scaled(3.0),
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .bound(1e-7)
            .run()
            .unwrap(),
        ),
        (
            "a failed check",
            DualDelta::new(
                crate::common::kahan,
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .run()
            .unwrap()
            .with_check(Err("the kernel's own limit".into())),
        ),
        (
            "more accurate, expected better",
            DualDelta::new(
                crate::common::kahan,
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .expect(dual_delta_runtime::Expect::Better)
            .run()
            .unwrap(),
        ),
        (
            "within the margin",
            DualDelta::new(
                scaled(1.02),
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .run()
            .unwrap(),
        ),
        (
            "the quick mode",
            DualDelta::new(
                crate::common::reversed,
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .screen(false)
            .run()
            .unwrap(),
        ),
        (
            "identical outputs",
            DualDelta::new(
                crate::common::naive,
                crate::common::naive,
                crate::common::oracle,
                input,
            )
            .run()
            .unwrap(),
        ),
    ];
    let mut wrong = Vec::new();
    for (name, o) in &runs {
        for w in contradictions(o) {
            wrong.push(format!("{name}: {w}"));
        }
    }
    // The decisions these runs are about.
    let by: Vec<DecidedBy> = runs
        .iter()
        .map(|(_, o)| o.judgement().decided_by())
        .collect();
    assert!(matches!(by[0], DecidedBy::NonFinite { .. }), "{:?}", by[0]);
    assert!(!runs[1].1.passed() && runs[1].1.claim().mean.effect.is_infinite());
    assert!(matches!(by[2], DecidedBy::GrossError { .. }), "{:?}", by[2]);
    assert!(matches!(by[3], DecidedBy::Bound { .. }), "{:?}", by[3]);
    assert_eq!(by[4], DecidedBy::Check);
    assert!(runs[5].1.passed(), "{}", runs[5].1.verdict_sentence());
    assert!(
        runs[6].1.judgement().within_margin().is_some(),
        "{}",
        runs[6].1.verdict_sentence()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The contradictions a review quoted, each rebuilt: none of them is said.
#[test]
fn the_quoted_contradictions_are_not_said() {
    // A candidate infinite on 297 of 1000 inputs, allowed: once called
    // "significantly more accurate (Wilcoxon, p = 6.21e-1)".
    let o = DualDelta::new(
        |x: &Vec<f32>| {
            if x[1] < 0.297 {
                f32::INFINITY
            } else {
                crate::common::kahan(x)
            }
        },
        crate::common::naive,
        crate::common::oracle,
        input,
    )
    .allow_non_finite(true)
    .run()
    .unwrap();
    assert!(
        !o.passed() && contradictions(&o).is_empty(),
        "{}",
        o.verdict_sentence()
    );
    assert!(
        !o.verdict_sentence().contains("more accurate"),
        "{}",
        o.verdict_sentence()
    );
}
