//! A suite over CI shards: reports merged into one index with every test
//! once, skipped tests counted, and the suite-level budget (e-BH)
//! calibrated by seeded simulation.

#![allow(clippy::ptr_arg)]

use std::path::PathBuf;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::write_under;
use dual_delta_runtime::suite::{self, e_bh};

mod common;

use common::{binomial_bound, naive, oracle as exact, short_input as input};

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
fn e_bh_keeps_false_failures_below_the_suite_alpha() {
    // Suites of 200 tests under the global null: each test's p-value is
    // uniform; a test fails when p < α = 0.01 and its evidence is
    // 1 / (2 √p). Over 2000 seeded suites, the share with any failure kept
    // at suite α = A is at most A (the false discovery rate under the
    // global null), within a 99 % binomial bound; without the budget,
    // about 1 − 0.99^200 = 87 % of the suites have a false failure.
    const SUITES: usize = 2000;
    const TESTS: usize = 200;
    let a = 0.05;
    let (mut kept, mut raw) = (0, 0);
    for s in 0..SUITES {
        let mut rng = TrialRng::for_trial(77, s);
        let e: Vec<f64> = (0..TESTS)
            .map(|_| {
                let p: f64 = rng.random();
                if p < 0.01 { 0.5 / p.sqrt() } else { 0.0 }
            })
            .collect();
        raw += usize::from(e.iter().any(|&x| x > 0.0));
        kept += usize::from(e_bh(&e, a).is_some());
    }
    // 123 for 2000 suites at 0.05.
    let bound = binomial_bound(SUITES, a);
    println!(
        "{SUITES} null suites of {TESTS} tests: {raw} with a false failure at α = 0.01, {kept} \
         with one kept by e-BH at {a} (bound {bound})"
    );
    assert!(raw > SUITES * 8 / 10, "{raw}");
    assert!(kept <= bound, "{kept} > {bound}");
    // A clear failure among nulls is kept.
    let mut e = vec![0.0; TESTS];
    e[3] = f64::INFINITY;
    assert_eq!(e_bh(&e, a).map(|(k, _)| k), Some(1));
}
