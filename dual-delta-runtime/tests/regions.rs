//! Where the loss is: a candidate worse only on part of its inputs fails
//! with the region that carries the loss named, in the terminal, the JSON
//! and the HTML page.

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{Grouping, Localization};

/// x log-uniform in [0.01, 100].
fn input(rng: &mut TrialRng) -> f64 {
    10f64.powf(rng.random_range(-2.0..2.0))
}

fn oracle(x: &f64) -> f64 {
    x.ln()
}

fn ln_f32(x: &f64) -> f32 {
    (*x as f32).ln()
}

/// `ln` off by 300 ulps for x < 1 (where the result is negative), exact
/// in f32 elsewhere.
fn ln_wrong_below_one(x: &f64) -> f32 {
    let y = ln_f32(x);
    if *x < 1.0 {
        f32::from_bits(y.to_bits() + 300)
    } else {
        y
    }
}

fn run(name: &str) -> Outcome {
    DualDelta::new(ln_wrong_below_one, ln_f32, oracle, input)
        .test_name(name)
        .metric(Metric::MaxRelative)
        .run()
        .unwrap()
}

#[test]
fn a_loss_below_one_is_named_by_the_oracles_sign() {
    let o = run("regions::ln_below_one");
    println!("{}", o.table());
    assert!(!o.passed());
    let l: &Localization = o.regions.as_ref().expect("a significant loss is localized");
    let carrying: Vec<_> = l.regions.iter().filter(|r| r.carries).collect();
    // The negative half of the oracle's values carries it, nothing else
    // of that grouping does.
    assert!(
        carrying
            .iter()
            .filter(|r| r.grouping == Grouping::OracleValue)
            .all(|r| r.label.starts_with("oracle in [-")),
        "{carrying:#?}"
    );
    let w = o.where_sentence().unwrap();
    assert!(w.starts_with("worse on "), "{w}");
    assert!(w.contains("those with oracle in [-"), "{w}");
    assert!(w.contains("; elsewhere ×1.00"), "{w}");
    assert!(
        o.table().contains(&format!("  where: {w}")),
        "{}",
        o.table()
    );
}

#[test]
fn the_json_and_the_page_carry_the_regions() {
    let home = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("regions-report");
    let _ = std::fs::remove_dir_all(&home);
    let o = run("regions::report");
    let w = o.where_sentence().unwrap();
    let page_path = dual_delta_runtime::report::write_under(&o, &home).unwrap();
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(page_path.with_file_name("summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["sentences"]["where_loss"], w.as_str());
    assert!(json["regions"]["regions"].as_array().unwrap().len() >= 10);
    assert_eq!(json["claim"]["inputs"], 1000);
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.contains("Where: worse on "), "{page}");
}

#[test]
fn an_equally_accurate_candidate_is_not_localized() {
    let o = DualDelta::new(ln_f32, ln_f32, oracle, input)
        .test_name("regions::same")
        .run()
        .unwrap();
    assert!(o.passed() && o.regions.is_none() && o.where_sentence().is_none());
}

/// A value near 0.5 and one near 1e-8: the hybrid metric sees the first,
/// where the candidate is 1.8× off; the relative metric sees the second,
/// where it is 10⁵× off.
fn pair(rng: &mut TrialRng) -> (f64, f64) {
    (
        rng.random_range(0.1..0.9),
        10f64.powf(rng.random_range(-9.0..-7.0)),
    )
}

#[test]
fn a_hybrid_metric_hiding_a_relative_loss_gets_the_advice() {
    let exact = |&(a, s): &(f64, f64)| vec![a, s];
    let baseline = |&(a, s): &(f64, f64)| vec![a + 1e-8, s * (1.0 + 1e-7)];
    let candidate = |&(a, s): &(f64, f64)| vec![a + 1.8e-8, s * (1.0 + 1e-2)];
    let o = DualDelta::new(candidate, baseline, exact, pair)
        .test_name("regions::hybrid_hides")
        .run()
        .unwrap();
    let a = o.metric_advice.as_ref().expect("advice");
    assert!((a.ratio - 1.8).abs() < 1e-6, "{a:?}");
    assert!(a.relative_ratio > 5e4, "{a:?}");
    assert_eq!(a.absolute_share, 1.0);
    assert!(
        o.verdict_sentence()
            .contains("use metric = max_relative where relative error matters"),
        "{}",
        o.verdict_sentence()
    );
    // Under max_relative itself there is nothing to advise.
    let o = DualDelta::new(candidate, baseline, exact, pair)
        .test_name("regions::relative")
        .metric(Metric::MaxRelative)
        .run()
        .unwrap();
    assert!(o.metric_advice.is_none() && !o.passed());
}
