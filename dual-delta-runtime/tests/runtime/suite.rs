//! A suite over CI shards: reports merged into one index with every test
//! once, skipped tests counted, and the suite-level budget
//! (Benjamini-Hochberg over each run's p-value) calibrated by seeded
//! simulation with sequential runs.

#![allow(clippy::ptr_arg)]

use std::path::PathBuf;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::write_under;
use dual_delta_runtime::suite::{self, bh};

use crate::common::{
    binomial_bound, kahan, naive, oracle as exact, reversed, short_input as input,
};

fn worse(x: &Vec<f32>) -> f64 {
    let o = exact(x);
    o + 3.0 * (f64::from(naive(x)) - o)
}

fn fresh(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("suite")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn two_shards_merge_into_one_index_with_every_test_once() {
    let (a, b, out) = (fresh("shard-1"), fresh("shard-2"), fresh("merged"));
    let pass = |name: &str| {
        DualDelta::new(naive, naive, exact, input)
            .test_name(name)
            .n(20)
            .run()
            .unwrap()
    };
    let fail = DualDelta::new(worse, naive, exact, input)
        .test_name("suite::worse")
        .n(40)
        .run()
        .unwrap();
    assert!(!fail.passed());
    write_under(&pass("suite::one"), &a).unwrap();
    write_under(&pass("suite::two"), &a).unwrap();
    // The same test in both shards (a rerun): the newer is kept.
    write_under(&pass("suite::three"), &a).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    write_under(&pass("suite::three"), &b).unwrap();
    write_under(&fail, &b).unwrap();
    dual_delta_runtime::report::write_skipped(&b, "suite::gpu_only", "candidate", "no GPU adapter")
        .unwrap();

    let s = suite::merge(&[a.clone(), b.clone()], &out, None).unwrap();
    assert_eq!(
        (s.passed, s.failed, s.regressed, s.skipped),
        (3, 1, 0, 1),
        "{s:?}"
    );
    let tests: Vec<&str> = s.tests.iter().map(|t| t.test.as_str()).collect();
    assert_eq!(
        tests,
        [
            "suite::gpu_only",
            "suite::one",
            "suite::three",
            "suite::two",
            "suite::worse"
        ]
    );
    assert!((s.expected_false_failures - 4.0 * 0.01).abs() < 1e-12);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for t in ["suite.one", "suite.two", "suite.three", "suite.worse"] {
        assert_eq!(
            index.matches(&format!("href=\"{t}/index.html\"")).count(),
            1,
            "{t} in {index}"
        );
    }
    // The skipped test is listed in the index, unlinked.
    assert!(index.contains("1 failed, 1 skipped"), "{index}");
    assert_eq!(index.matches("SKIPPED").count(), 1, "{index}");
    let md = std::fs::read_to_string(out.join(suite::MARKDOWN_FILE)).unwrap();
    assert!(
        md.contains("3 passed, 1 failed, 0 regressed, 1 skipped (5 tests)"),
        "{md}"
    );
    assert!(
        md.contains("| `suite::gpu_only` | skipped | skipped by the candidate: no GPU adapter |")
    );
    assert!(md.contains("| `suite::worse` | failed |"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(suite::SUITE_FILE)).unwrap())
            .unwrap();
    assert_eq!(json["skipped"], 1);
    // With a suite-level budget the clear failure is kept.
    let s = suite::merge(&[a, b], &out, Some(0.05)).unwrap();
    assert_eq!(s.failures_kept, 1);
}

#[test]
fn the_suite_budget_keeps_a_clear_failure_and_holds_false_ones_below_it() {
    // The runs' p-values under the null, from sequential runs under the
    // defaults: forward against reversed summation (equal accuracy). They
    // are valid: at most a share t below t, within a 99 % binomial bound.
    const NULLS: usize = 400;
    let nulls: Vec<f64> = (0..NULLS)
        .map(|seed| {
            let o = DualDelta::new(naive, reversed, exact, input)
                .n(200)
                .seed(seed as u64)
                .run()
                .unwrap();
            o.judgement().p_value().unwrap()
        })
        .collect();
    for t in [0.01, 0.05, 0.2] {
        let below = nulls.iter().filter(|&&p| p <= t).count();
        let bound = binomial_bound(NULLS, t);
        println!("null runs: {below} of {NULLS} with p <= {t} (bound {bound})");
        assert!(below <= bound, "{below} > {bound} at {t}");
    }
    // Suites of 50 null tests, each a sequential run of its own: the
    // share of suites with any failure kept at A = 0.05 stays within A
    // (the false discovery rate under the global null).
    const SUITES: usize = 100;
    const TESTS: usize = 50;
    let a = 0.05;
    let mut kept = 0;
    for s in 0..SUITES {
        let p: Vec<f64> = (0..TESTS)
            .map(|t| {
                let o = DualDelta::new(naive, reversed, exact, input)
                    .n(200)
                    .seed((1000 + s * TESTS + t) as u64)
                    .run()
                    .unwrap();
                // A passing test counts as 1.
                if o.passed() {
                    1.0
                } else {
                    o.judgement().p_value().unwrap()
                }
            })
            .collect();
        kept += usize::from(bh(&p, a).is_some());
    }
    let bound = binomial_bound(SUITES, a);
    println!("{SUITES} null suites of {TESTS}: {kept} with a failure kept at {a} (bound {bound})");
    assert!(kept <= bound, "{kept} > {bound}");
    // A clear failure (naive against Kahan summation, stopped early) among
    // 199 null tests is kept, on every seed.
    const RUNS: u64 = 50;
    const TESTS_200: usize = 200;
    for seed in 0..RUNS {
        let o = DualDelta::new(naive, kahan, exact, crate::common::input)
            .seed(seed)
            .run()
            .unwrap();
        assert!(!o.passed() && o.sequential().stopped);
        let mut p: Vec<f64> = nulls[..TESTS_200 - 1]
            .iter()
            .map(|&p| if p < 0.01 { p } else { 1.0 })
            .collect();
        let failure = o.judgement().p_value().unwrap();
        p.push(failure);
        let bar = bh(&p, a).map(|(_, bar)| bar);
        assert!(
            bar.is_some_and(|bar| failure <= bar),
            "seed {seed}: p = {failure}, {bar:?}"
        );
    }
}

/// 50× the naive sum's error on the inputs whose first value is below
/// 0.2, 10% better elsewhere: a loss in mean alone (×10.7), none on the
/// typical input.
fn mean_only(x: &Vec<f32>) -> f64 {
    let o = exact(x);
    let k = if x[0] < 0.2 { 50.0 } else { 0.9 };
    o + k * (f64::from(naive(x)) - o)
}

#[test]
fn a_lone_failure_in_mean_alone_is_kept_in_a_suite_of_two_hundred() {
    // Its p-value is the test at the margin's, as low as its evidence (no
    // Monte Carlo floor): Benjamini-Hochberg keeps it among 199 passing
    // tests at A = 0.05 on every seed, where it needs p ≤ 0.05 / 200.
    const RUNS: u64 = 10;
    for seed in 0..RUNS {
        let o = DualDelta::new(mean_only, naive, exact, input)
            .seed(seed)
            .run()
            .unwrap();
        assert!(!o.passed(), "{}", o.verdict_sentence());
        assert_eq!(
            o.claim().failed_by(),
            Some(dual_delta_runtime::decision::claim::Which::Mean),
            "{}",
            o.verdict_sentence()
        );
        let failure = o.judgement().p_value().unwrap();
        let mut p = vec![1.0; 199];
        p.push(failure);
        let bar = bh(&p, 0.05).map(|(_, bar)| bar);
        println!("seed {seed}: mean-only failure, p = {failure:.2e}");
        assert!(
            bar.is_some_and(|bar| failure <= bar) && failure < 1e-6,
            "seed {seed}: p = {failure}, {bar:?}"
        );
    }
}
