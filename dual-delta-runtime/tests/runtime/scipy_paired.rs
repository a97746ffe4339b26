//! The paired-sample tests (Wilcoxon signed-rank, sign, paired t, the ratio
//! of means, the paired spread test) and the Hodges-Lehmann estimate, checked against reference
//! values from SciPy
//! 1.17.1 (`tests/fixtures/paired/*.json`, written by
//! `scripts/fixtures/paired.py`) and against invariants on random input.
//!
//! Run with `--nocapture` to see, per test, the number of reference cases
//! per method and the largest relative p-value difference.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use dual_delta_runtime::stats::{
    Alternative, MeanRatio, Method, StatsError, TestResult, ZeroMethod, hodges_lehmann,
    paired_spread, paired_t, sign_test, wilcoxon,
};
use proptest::prelude::*;
use serde_json::Value;

/// Relative tolerance on p-values.
const P_REL_TOL: f64 = 1e-9;
/// Relative tolerance on statistics.
const STAT_REL_TOL: f64 = 1e-12;
/// p-values below this (both ours and SciPy's) are treated as underflow.
const UNDERFLOW: f64 = 1e-305;

/// The package's directory, read when the test runs (Cargo and nextest set
/// it), so that the fixtures are found wherever the workspace is, also
/// when an archived test binary runs on another machine.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR is set by cargo test and nextest")
}

fn load(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/paired/{name}.json", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        doc["scipy"], "1.17.1",
        "{path} was not generated with SciPy 1.17.1"
    );
    doc
}

/// Floats are stored as strings (shortest round-trip repr, or inf/-inf/nan).
fn num(v: &Value) -> f64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("float as string expected, got {v}"));
    s.parse().unwrap_or_else(|e| panic!("bad float {s:?}: {e}"))
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array of floats")
        .iter()
        .map(num)
        .collect()
}

fn dataset(doc: &Value, name: &str) -> (Vec<f64>, Vec<f64>) {
    let d = &doc["datasets"][name];
    assert!(d.is_object(), "missing dataset {name}");
    (nums(&d["d1"]), nums(&d["d2"]))
}

fn alternative(v: &Value) -> Alternative {
    match v.as_str().unwrap() {
        "two_sided" => Alternative::TwoSided,
        "less" => Alternative::Less,
        "greater" => Alternative::Greater,
        other => panic!("unknown alternative {other}"),
    }
}

fn zero_method(v: &Value) -> ZeroMethod {
    match v.as_str().unwrap() {
        "wilcox" => ZeroMethod::Wilcox,
        "pratt" => ZeroMethod::Pratt,
        "zsplit" => ZeroMethod::Zsplit,
        other => panic!("unknown zero method {other}"),
    }
}

fn method(v: &Value) -> Method {
    match v.as_str().unwrap() {
        "exact" => Method::Exact,
        "permutation" => Method::Permutation,
        "asymptotic" => Method::Asymptotic,
        other => panic!("unknown method {other}"),
    }
}

fn error_kind(e: &StatsError) -> &'static str {
    match e {
        StatsError::TooFewObservations { .. } => "too_few_observations",
        StatsError::TooManyObservations { .. } => "too_many_observations",
        StatsError::LengthMismatch { .. } => "length_mismatch",
        StatsError::InvalidValue { .. } => "invalid_value",
        StatsError::ConstantData { .. } => "constant_data",
        StatsError::InvalidParameter { .. } => "invalid_parameter",
        other => panic!("an error the fixtures do not name: {other:?}"),
    }
}

/// `|a - b| / max(|a|, |b|)`, zero when equal.
fn rel_diff(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if !a.is_finite() || !b.is_finite() {
        f64::INFINITY
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

/// Tally of a fixture comparison, printed at the end of each test.
#[derive(Default)]
struct Tally {
    per_path: BTreeMap<String, usize>,
    max_p_rel_per_path: BTreeMap<String, f64>,
    max_p_rel: f64,
    max_p_case: String,
    max_stat_rel: f64,
    failures: Vec<String>,
}

impl Tally {
    fn path(&mut self, path: &str) {
        *self.per_path.entry(path.to_owned()).or_default() += 1;
    }

    fn count(&self, path: &str) -> usize {
        self.per_path.get(path).copied().unwrap_or(0)
    }

    /// Compares a result with the expected statistic, p-value and method.
    fn compare(&mut self, case: &str, got: &TestResult, stat: f64, p: f64, want_method: Method) {
        self.path(&want_method.to_string());
        if got.method != want_method {
            self.failures
                .push(format!("{case}: method {} != {want_method}", got.method));
        }
        let stat_rel = rel_diff(got.statistic, stat);
        self.max_stat_rel = self.max_stat_rel.max(stat_rel);
        if stat_rel > STAT_REL_TOL {
            self.failures.push(format!(
                "{case}: statistic {} != {stat} (rel {stat_rel:.2e})",
                got.statistic
            ));
        }
        if !(0.0..=1.0).contains(&got.p_value) {
            self.failures
                .push(format!("{case}: p = {} outside [0, 1]", got.p_value));
        }
        let underflow = got.p_value.abs() < UNDERFLOW && p.abs() < UNDERFLOW;
        let p_rel = if underflow {
            0.0
        } else {
            rel_diff(got.p_value, p)
        };
        let path_max = self
            .max_p_rel_per_path
            .entry(want_method.to_string())
            .or_default();
        *path_max = path_max.max(p_rel);
        if p_rel > self.max_p_rel {
            self.max_p_rel = p_rel;
            self.max_p_case = format!("{case} (ours {:e}, SciPy {p:e})", got.p_value);
        }
        if p_rel > P_REL_TOL {
            self.failures.push(format!(
                "{case}: p = {:e}, SciPy {p:e} (rel {p_rel:.2e})",
                got.p_value
            ));
        }
    }

    /// `got` held against the reference `case`: its error where SciPy
    /// gave one, else its statistic, p-value and method.
    fn against(&mut self, label: &str, got: Result<TestResult, StatsError>, case: &Value) {
        if let Some(kind) = case["error"].as_str() {
            return self.expect_error(label, got, kind);
        }
        match got {
            Ok(r) => self.compare(
                label,
                &r,
                num(&case["statistic"]),
                num(&case["pvalue"]),
                method(&case["method"]),
            ),
            Err(e) => self.failures.push(format!("{label}: unexpected error {e}")),
        }
    }

    fn expect_error(&mut self, case: &str, got: Result<TestResult, StatsError>, kind: &str) {
        self.path(&format!("error:{kind}"));
        match got {
            Err(e) if error_kind(&e) == kind => {}
            other => self
                .failures
                .push(format!("{case}: expected error {kind}, got {other:?}")),
        }
    }

    fn finish(self, test: &str) {
        let total: usize = self.per_path.values().sum();
        let mut line = format!("{test}: {total} reference cases;");
        for (path, n) in &self.per_path {
            write!(line, " {path}: {n}").unwrap();
            if let Some(rel) = self.max_p_rel_per_path.get(path) {
                write!(line, " (max rel p diff {rel:.2e})").unwrap();
            }
            line.push(',');
        }
        println!("{}", line.trim_end_matches(','));
        println!(
            "{test}: largest relative p-value difference {:.3e} at {}; largest relative \
             statistic difference {:.3e}",
            self.max_p_rel, self.max_p_case, self.max_stat_rel
        );
        assert!(
            self.failures.is_empty(),
            "{} of {total} cases disagree with SciPy:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

#[test]
fn wilcoxon_matches_scipy_on_every_reference_case() {
    let doc = load("wilcoxon");
    let mut tally = Tally::default();
    // Coverage of each (method, zero method, alternative, correction).
    let mut combos = BTreeMap::<(String, String, String, bool), usize>::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["dataset"].as_str().unwrap();
        let (d1, d2) = dataset(&doc, name);
        let alt = alternative(&case["alternative"]);
        let zm = zero_method(&case["zero_method"]);
        let correction = case["correction"].as_bool().unwrap();
        let label = format!(
            "{name} [{} {} correction={correction}]",
            case["zero_method"].as_str().unwrap(),
            case["alternative"].as_str().unwrap()
        );
        let got = wilcoxon(&d1, &d2, alt, zm, correction);
        if case["error"].is_null() {
            *combos
                .entry((
                    method(&case["method"]).to_string(),
                    case["zero_method"].as_str().unwrap().to_owned(),
                    case["alternative"].as_str().unwrap().to_owned(),
                    correction,
                ))
                .or_default() += 1;
        }
        tally.against(&label, got, case);
    }
    // Every path is exercised with every zero method, alternative and
    // correction setting (the exact path needs no zeros, so the zero method
    // only matters for ranking there, and is still varied).
    for m in ["exact", "permutation", "asymptotic"] {
        for zm in ["wilcox", "pratt", "zsplit"] {
            for alt in ["two_sided", "less", "greater"] {
                for corr in [false, true] {
                    let n = combos
                        .get(&(m.to_owned(), zm.to_owned(), alt.to_owned(), corr))
                        .copied()
                        .unwrap_or(0);
                    assert!(
                        n >= 2,
                        "only {n} cases for {m}/{zm}/{alt}/correction={corr}"
                    );
                }
            }
        }
    }
    assert!(tally.count("exact") >= 150, "{:?}", tally.per_path);
    assert!(tally.count("permutation") >= 300, "{:?}", tally.per_path);
    assert!(tally.count("asymptotic") >= 300, "{:?}", tally.per_path);
    assert!(tally.count("error:too_few_observations") >= 10);
    tally.finish("wilcoxon");
}

/// Where both samples hold the same infinity at one index, SciPy's
/// `d1 - d2` is NaN there: it leaves that pair out of the ranks and of the
/// zeros (though not of the sample size that picks the method). Here the
/// pair is a zero difference, by design; each such case holds SciPy's own
/// result on (d1, d2), and `differs_by_design` says whether it differs from
/// ours.
#[test]
fn wilcoxon_differs_from_scipy_by_design_where_both_samples_are_infinite() {
    let doc = load("wilcoxon");
    let (mut cases, mut differing, mut p_differing, mut wilcox_p_differing) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let Some(raw) = case.get("scipy_d1_d2") else {
            continue;
        };
        let name = case["dataset"].as_str().unwrap();
        let (d1, d2) = dataset(&doc, name);
        assert!(d1.iter().zip(&d2).any(|(a, b)| a.is_infinite() && a == b));
        let zm = zero_method(&case["zero_method"]);
        let alt = alternative(&case["alternative"]);
        let correction = case["correction"].as_bool().unwrap();
        let ours = wilcoxon(&d1, &d2, alt, zm, correction).unwrap();
        let (stat, p) = (num(&raw["statistic"]), num(&raw["pvalue"]));
        let same_p = rel_diff(ours.p_value, p) <= P_REL_TOL;
        let same = same_p
            && rel_diff(ours.statistic, stat) <= STAT_REL_TOL
            && ours.method == method(&raw["method"]);
        let by_design = case["differs_by_design"].as_bool().unwrap();
        if same == by_design {
            failures.push(format!("{name} {case}: ours {ours:?}"));
        }
        cases += 1;
        differing += usize::from(!same);
        p_differing += usize::from(!same_p);
        wilcox_p_differing += usize::from(!same_p && zm == ZeroMethod::Wilcox);
    }
    println!(
        "wilcoxon, both samples infinite at one index: {cases} cases, {differing} differ from \
         SciPy on (d1, d2) by design ({p_differing} in the p-value, {wilcox_p_differing} of \
         them with zero_method = wilcox)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases >= 80 && differing >= 70 && p_differing >= 50 && wilcox_p_differing >= 6);
}

#[test]
fn sign_test_matches_scipy_binomtest_on_every_reference_case() {
    let doc = load("sign");
    let mut tally = Tally::default();
    for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
        let alt = alternative(&case["alternative"]);
        let (d1, d2, label) = if let Some(name) = case["dataset"].as_str() {
            let (d1, d2) = dataset(&doc, name);
            (d1, d2, format!("{name} [{}]", case["alternative"]))
        } else {
            // Large cases are stored as counts of positive, negative and
            // zero differences.
            let c = &case["counts"];
            let count = |k: &str| c[k].as_u64().unwrap() as usize;
            let (pos, neg, zero) = (count("positive"), count("negative"), count("zero"));
            let mut d1 = vec![1.0; pos];
            d1.extend(std::iter::repeat_n(-1.0, neg));
            d1.extend(std::iter::repeat_n(0.0, zero));
            let d2 = vec![0.0; d1.len()];
            (
                d1,
                d2,
                format!(
                    "#{i} k={pos} n={} zeros={zero} [{}]",
                    pos + neg,
                    case["alternative"]
                ),
            )
        };
        let got = sign_test(&d1, &d2, alt);
        tally.against(&label, got, case);
    }
    assert!(tally.count("exact") >= 500, "{:?}", tally.per_path);
    tally.finish("sign test");
}

#[test]
fn paired_t_matches_scipy_ttest_rel_on_every_reference_case() {
    let doc = load("ttest");
    let mut tally = Tally::default();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["dataset"].as_str().unwrap();
        let (d1, d2) = dataset(&doc, name);
        let alt = alternative(&case["alternative"]);
        let label = format!("{name} [{}]", case["alternative"]);
        let got = paired_t(&d1, &d2, alt);
        tally.against(&label, got, case);
    }
    assert!(tally.count("asymptotic") >= 150, "{:?}", tally.per_path);
    assert!(tally.count("error:constant_data") >= 2);
    assert!(tally.count("error:invalid_value") >= 2);
    tally.finish("paired t-test");
}

#[test]
fn paired_spread_matches_scipy_reference() {
    let doc = load("spread");
    let mut tally = Tally::default();
    let mut by_design = 0;
    for case in doc["cases"].as_array().unwrap() {
        let name = case["dataset"].as_str().unwrap();
        let (d1, d2) = dataset(&doc, name);
        let alt = alternative(&case["alternative"]);
        let label = format!("{name} [{}]", case["alternative"]);
        let got = paired_spread(&d1, &d2, alt);
        by_design += usize::from(case["error"].is_null() && case["note"].is_string());
        tally.against(&label, got, case);
    }
    for (path, least) in [("exact", 100), ("permutation", 3), ("asymptotic", 30)] {
        assert!(tally.count(path) >= least, "{path}: {:?}", tally.per_path);
    }
    assert_eq!(
        by_design, 6,
        "the shifted samples, both directions and two-sided"
    );
    assert!(tally.count("error:too_few_observations") >= 2);
    assert!(tally.count("error:invalid_value") >= 2);
    tally.finish("paired spread");
}

#[test]
fn hodges_lehmann_matches_numpy_brute_force_reference() {
    let doc = load("hodges_lehmann");
    let mut failures = Vec::new();
    let mut by_design = 0;
    let cases = doc["cases"].as_array().unwrap();
    for case in cases {
        let name = case["dataset"].as_str().unwrap();
        let (d1, d2) = dataset(&doc, name);
        let want = num(&case["estimate"]);
        match hodges_lehmann(&d1, &d2) {
            Ok(got) if got == want => {}
            other => failures.push(format!("{name}: got {other:?}, want {want}")),
        }
        // Equal infinities: NumPy's median of the Walsh averages of d1 - d2
        // is NaN; here the pair is a zero difference, by design.
        if let Some(numpy) = case.get("numpy_d1_d2") {
            assert!(num(numpy).is_nan() && !want.is_nan(), "{name}");
            assert_eq!(case["differs_by_design"], true, "{name}");
            by_design += 1;
        }
    }
    assert!(by_design >= 4, "{by_design}");
    println!(
        "hodges-lehmann: {} reference cases (numpy brute force), all bit-identical: {}",
        cases.len(),
        failures.is_empty()
    );
    assert!(cases.len() >= 30);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_ratio_of_means_test_matches_its_numpy_and_scipy_reference() {
    let doc = load("mean_ratio");
    let cases = doc["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    let close = |got: f64, want: f64| {
        got == want
            || (got - want).abs() <= 1e-9 * want.abs().max(1e-300)
            || got.max(want) < UNDERFLOW
    };
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let (x, y, w) = (nums(&case["x"]), nums(&case["y"]), nums(&case["w"]));
        let m = MeanRatio::weighted(&x, &y, &w).unwrap();
        let mut check = |what: String, got: f64, want: f64| {
            if want != 0.0 {
                worst = worst.max(((got - want) / want).abs());
            }
            if !close(got, want) {
                failures.push(format!("{name} {what}: got {got:e}, want {want:e}"));
            }
        };
        check("ratio".into(), m.ratio(), num(&case["ratio"]));
        for (r, p) in case["p_greater"].as_object().unwrap() {
            let r: f64 = r.parse().unwrap();
            check(format!("p_greater({r})"), m.p_greater(r), num(p));
        }
        for (r, p) in case["p_less"].as_object().unwrap() {
            let r: f64 = r.parse().unwrap();
            check(format!("p_less({r})"), m.p_less(r), num(p));
        }
        let want = num(&case["lower"]);
        let got = m.lower(num(&case["level"]));
        if (got - want).abs() > 1e-9 * want.max(1.0) {
            failures.push(format!("{name} lower: got {got}, want {want}"));
        }
    }
    println!(
        "ratio of means: {} reference cases, largest relative p-value difference {worst:.1e}",
        cases.len()
    );
    assert!(cases.len() >= 36);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// Hand-checked values and edge cases.

#[test]
fn wilcoxon_all_zero_differences_follow_scipy() {
    let x = [0.3, 1.0, 2.5, 4.0, 0.1];
    // n <= 13: SciPy's permutation test gives p = 1.
    let r = wilcoxon(&x, &x, Alternative::Greater, ZeroMethod::Wilcox, false).unwrap();
    assert_eq!(
        (r.statistic, r.p_value, r.method),
        (0.0, 1.0, Method::Permutation)
    );
    // n >= 14: SciPy returns NaN; here an error.
    let y = vec![1.5; 20];
    let e = wilcoxon(&y, &y, Alternative::TwoSided, ZeroMethod::Pratt, true).unwrap_err();
    assert!(
        matches!(e, StatsError::TooFewObservations { got: 0, .. }),
        "{e:?}"
    );
    // zsplit keeps every zero, so the normal approximation is defined.
    let r = wilcoxon(&y, &y, Alternative::Greater, ZeroMethod::Zsplit, false).unwrap();
    assert_eq!(
        (r.statistic, r.p_value, r.method),
        (105.0, 0.5, Method::Asymptotic)
    );
    // A single zero difference: SciPy's permutation test needs two values.
    let e = wilcoxon(&[1.0], &[1.0], Alternative::Less, ZeroMethod::Wilcox, false).unwrap_err();
    assert!(matches!(
        e,
        StatsError::TooFewObservations {
            needed: 2,
            got: 1,
            ..
        }
    ));
}

#[test]
fn wilcoxon_rejects_nan_and_mismatched_lengths_but_ranks_infinity_last() {
    let e = wilcoxon(
        &[1.0, f64::NAN],
        &[0.0, 0.0],
        Alternative::Less,
        ZeroMethod::Wilcox,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(e, StatsError::InvalidValue { index: 1, .. }),
        "{e:?}"
    );
    let e = wilcoxon(
        &[1.0],
        &[0.0, 0.0],
        Alternative::Less,
        ZeroMethod::Wilcox,
        false,
    )
    .unwrap_err();
    assert_eq!(e, StatsError::LengthMismatch { left: 1, right: 2 });
    // d = [inf, 1, -2, 3]: ranks of |d| are 4, 1, 2, 3, so T+ = 8 of 10.
    let r = wilcoxon(
        &[f64::INFINITY, 1.0, 0.0, 3.0],
        &[0.0, 0.0, 2.0, 0.0],
        Alternative::Greater,
        ZeroMethod::Wilcox,
        false,
    )
    .unwrap();
    assert_eq!((r.statistic, r.method), (8.0, Method::Exact));
    assert_eq!(r.p_value, 3.0 / 16.0);
}

#[test]
fn wilcoxon_exact_p_value_is_two_to_the_minus_n_when_all_differences_are_positive() {
    let d1: Vec<f64> = (1..=50).map(|i| f64::from(i) + 0.5).collect();
    let d2 = vec![0.0; 50];
    let r = wilcoxon(&d1, &d2, Alternative::Greater, ZeroMethod::Wilcox, true).unwrap();
    assert_eq!((r.statistic, r.method), (1275.0, Method::Exact));
    assert_eq!(r.p_value, 0.5f64.powi(50));
    // One more pair switches to the normal approximation.
    let d1: Vec<f64> = (1..=51).map(|i| f64::from(i) + 0.5).collect();
    let d2 = vec![0.0; 51];
    let r = wilcoxon(&d1, &d2, Alternative::Greater, ZeroMethod::Wilcox, false).unwrap();
    assert_eq!(r.method, Method::Asymptotic);
    assert!(r.p_value < 1e-9 && r.p_value > 0.0);
}

#[test]
fn sign_test_counts_signs_and_drops_zeros_and_equal_infinities() {
    let inf = f64::INFINITY;
    // Differences: +, +, 0, -, 0 (inf - inf), + (inf - 1).
    let d1 = [2.0, 3.0, 1.0, 0.0, inf, inf];
    let d2 = [1.0, 1.0, 1.0, 1.0, inf, 1.0];
    let r = sign_test(&d1, &d2, Alternative::Greater).unwrap();
    // k = 3 of n = 4: P(X >= 3) = 5/16.
    assert_eq!(
        (r.statistic, r.p_value, r.method),
        (3.0, 5.0 / 16.0, Method::Exact)
    );
    let r = sign_test(&d1, &d2, Alternative::TwoSided).unwrap();
    assert_eq!(r.p_value, 10.0 / 16.0);
    let e = sign_test(&[1.0, 2.0], &[1.0, 2.0], Alternative::Less).unwrap_err();
    assert!(matches!(e, StatsError::TooFewObservations { got: 0, .. }));
}

#[test]
fn paired_t_rejects_infinity_constant_differences_and_single_pairs() {
    let e = paired_t(&[1.0, f64::INFINITY], &[0.0, 0.0], Alternative::Less).unwrap_err();
    assert!(matches!(e, StatsError::InvalidValue { index: 1, .. }));
    let e = paired_t(&[2.0, 3.0, 4.0], &[1.0, 2.0, 3.0], Alternative::Less).unwrap_err();
    assert!(matches!(e, StatsError::ConstantData { .. }));
    let e = paired_t(&[2.0], &[1.0], Alternative::Less).unwrap_err();
    assert!(matches!(
        e,
        StatsError::TooFewObservations {
            needed: 2,
            got: 1,
            ..
        }
    ));
    // Differences [1, 2, 3]: t = 2 / (1 / sqrt 3) = 2 sqrt 3, df = 2.
    let r = paired_t(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0], Alternative::TwoSided).unwrap();
    assert!((r.statistic - 2.0 * 3f64.sqrt()).abs() < 1e-15);
    // Two-sided p for df = 2: 1 - t / sqrt(2 + t^2) = 1 - sqrt(12/14).
    assert!(rel_diff(r.p_value, 1.0 - (12.0f64 / 14.0).sqrt()) < 1e-12);
}

// ---------------------------------------------------------------------------
// Hodges-Lehmann against brute force.

/// Median of all Walsh averages, by enumeration (O(n² log n)).
fn hodges_lehmann_brute_force(d1: &[f64], d2: &[f64]) -> f64 {
    let d: Vec<f64> = d1
        .iter()
        .zip(d2)
        .map(|(&a, &b)| if a == b { 0.0 } else { a - b })
        .collect();
    let walsh = |a: f64, b: f64| {
        if a.is_infinite() && b.is_infinite() && a != b {
            0.0
        } else {
            a.midpoint(b)
        }
    };
    let mut w = Vec::new();
    for i in 0..d.len() {
        for j in i..d.len() {
            w.push(walsh(d[i], d[j]));
        }
    }
    w.sort_by(f64::total_cmp);
    let m = w.len();
    let estimate = if m % 2 == 1 {
        w[m / 2]
    } else {
        walsh(w[m / 2 - 1], w[m / 2])
    };
    estimate + 0.0
}

#[test]
fn hodges_lehmann_matches_brute_force_on_many_seeded_samples() {
    // A small deterministic generator (xorshift) so the test needs no RNG crate.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    for round in 0..600 {
        let n = 1 + (next() % 60) as usize;
        let kind = round % 4;
        let mut draw = |_: usize| -> f64 {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            match kind {
                0 => u * 20.0 - 10.0,                     // continuous
                1 => ((u * 7.0).floor() - 3.0) * 0.5,     // heavy ties
                2 if u < 0.15 => f64::INFINITY,           // some failures
                2 => (u * 9.0).floor(),                   // ties and infinities
                _ => (u - 0.5) * 1e-12 * (1.0 + u * 1e6), // tiny, mixed scale
            }
        };
        let d1: Vec<f64> = (0..n).map(&mut draw).collect();
        let d2: Vec<f64> = (0..n).map(&mut draw).collect();
        let fast = hodges_lehmann(&d1, &d2).unwrap();
        let brute = hodges_lehmann_brute_force(&d1, &d2);
        assert_eq!(
            fast.to_bits(),
            brute.to_bits(),
            "n = {n}, d1 = {d1:?}, d2 = {d2:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 600);
}

#[test]
fn hodges_lehmann_handles_small_and_infinite_cases() {
    assert_eq!(hodges_lehmann(&[3.0], &[1.0]).unwrap(), 2.0);
    // Walsh averages of [1, 4]: 1, 2.5, 4 -> 2.5.
    assert_eq!(hodges_lehmann(&[1.0, 4.0], &[0.0, 0.0]).unwrap(), 2.5);
    // [0, 1, 2, 10]: averages 0, .5, 1, 1, 1.5, 2, 5, 5.5, 6, 10 -> (1.5 + 2)/2.
    assert_eq!(
        hodges_lehmann(&[0.0, 1.0, 2.0, 10.0], &[0.0; 4]).unwrap(),
        1.75
    );
    let inf = f64::INFINITY;
    // Mostly failures of the candidate: the estimate is +inf.
    assert_eq!(
        hodges_lehmann(&[inf, inf, inf, 1.0], &[0.0; 4]).unwrap(),
        inf
    );
    // +inf and -inf meet at zero.
    assert_eq!(hodges_lehmann(&[inf, 0.0], &[0.0, inf]).unwrap(), 0.0);
    assert!(matches!(
        hodges_lehmann(&[], &[]),
        Err(StatsError::TooFewObservations { .. })
    ));
    assert!(matches!(
        hodges_lehmann(&[f64::NAN], &[0.0]),
        Err(StatsError::InvalidValue { .. })
    ));
}

#[test]
fn hodges_lehmann_is_fast_and_exact_for_one_hundred_thousand_differences() {
    // d = a permutation of 0..n: the Walsh sums i + j (i <= j) are symmetric
    // about n - 1, so the estimate is (n - 1) / 2.
    let n = 100_000usize;
    let mut d: Vec<f64> = (0..n).map(|i| ((i * 7919) % n) as f64).collect();
    d.rotate_left(12_345);
    let zeros = vec![0.0; n];
    let start = std::time::Instant::now();
    let hl = hodges_lehmann(&d, &zeros).unwrap();
    let elapsed = start.elapsed();
    println!("hodges-lehmann: n = {n} in {elapsed:?}");
    assert_eq!(hl, (n as f64 - 1.0) / 2.0);
    // An O(n²) method would take minutes here.
    assert!(elapsed.as_secs() < 20, "took {elapsed:?}");
}

// ---------------------------------------------------------------------------
// Invariants on random input.

/// Values with ties, zeros and infinities as well as continuous ones.
fn rough_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => (-3i32..=3).prop_map(f64::from),
        5 => -10.0..10.0f64,
        1 => Just(f64::INFINITY),
    ]
}

fn rough_pairs(max: usize) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (1..=max).prop_flat_map(|n| {
        (
            prop::collection::vec(rough_value(), n),
            prop::collection::vec(rough_value(), n),
        )
    })
}

/// Continuous values: ties and zeros have probability zero.
fn smooth_pairs(max: usize) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (2..=max).prop_flat_map(|n| {
        (
            prop::collection::vec(-10.0..10.0f64, n),
            prop::collection::vec(-10.0..10.0f64, n),
        )
    })
}

fn any_alternative() -> impl Strategy<Value = Alternative> {
    prop_oneof![
        Just(Alternative::TwoSided),
        Just(Alternative::Less),
        Just(Alternative::Greater)
    ]
}

fn any_zero_method() -> impl Strategy<Value = ZeroMethod> {
    prop_oneof![
        Just(ZeroMethod::Wilcox),
        Just(ZeroMethod::Pratt),
        Just(ZeroMethod::Zsplit)
    ]
}

fn close(a: f64, b: f64) -> bool {
    rel_diff(a, b) <= 1e-12 || (a < UNDERFLOW && b < UNDERFLOW)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn wilcoxon_p_value_lies_in_unit_interval(
        (d1, d2) in rough_pairs(80),
        alt in any_alternative(),
        zm in any_zero_method(),
        correction in any::<bool>(),
    ) {
        if let Ok(r) = wilcoxon(&d1, &d2, alt, zm, correction) {
            prop_assert!((0.0..=1.0).contains(&r.p_value), "{r:?}");
        }
    }

    #[test]
    fn wilcoxon_greater_equals_less_with_samples_swapped(
        (d1, d2) in rough_pairs(80),
        zm in any_zero_method(),
        correction in any::<bool>(),
    ) {
        let g = wilcoxon(&d1, &d2, Alternative::Greater, zm, correction);
        let l = wilcoxon(&d2, &d1, Alternative::Less, zm, correction);
        match (g, l) {
            (Ok(g), Ok(l)) => {
                prop_assert!(close(g.p_value, l.p_value), "{g:?} vs {l:?}");
                prop_assert_eq!(g.method, l.method);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (g, l) => prop_assert!(false, "{g:?} vs {l:?}"),
        }
        // Two-sided is symmetric too.
        let a = wilcoxon(&d1, &d2, Alternative::TwoSided, zm, correction);
        let b = wilcoxon(&d2, &d1, Alternative::TwoSided, zm, correction);
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert!(close(a.p_value, b.p_value));
            prop_assert_eq!(a.statistic, b.statistic);
        }
    }

    #[test]
    fn wilcoxon_shifting_d1_up_never_raises_p_greater(
        (d1, d2) in smooth_pairs(120),
        shift in 0.001..5.0f64,
        zm in any_zero_method(),
        correction in any::<bool>(),
    ) {
        let shifted: Vec<f64> = d1.iter().map(|v| v + shift).collect();
        let before = wilcoxon(&d1, &d2, Alternative::Greater, zm, correction).unwrap();
        let after = wilcoxon(&shifted, &d2, Alternative::Greater, zm, correction).unwrap();
        prop_assert!(after.p_value <= before.p_value, "{before:?} -> {after:?}");
    }

    #[test]
    fn sign_test_p_value_lies_in_unit_interval_and_is_symmetric(
        (d1, d2) in rough_pairs(300),
        alt in any_alternative(),
    ) {
        if let Ok(r) = sign_test(&d1, &d2, alt) {
            prop_assert!((0.0..=1.0).contains(&r.p_value), "{r:?}");
        }
        let g = sign_test(&d1, &d2, Alternative::Greater);
        let l = sign_test(&d2, &d1, Alternative::Less);
        match (g, l) {
            (Ok(g), Ok(l)) => prop_assert!(close(g.p_value, l.p_value), "{g:?} vs {l:?}"),
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (g, l) => prop_assert!(false, "{g:?} vs {l:?}"),
        }
    }

    #[test]
    fn sign_test_large_counts_are_symmetric(
        k in 0u32..=4000,
        extra in 0u32..=4000,
    ) {
        // n = k + extra up to 8000 exercises the saddle-point path.
        let n = (k + extra) as usize;
        prop_assume!(n > 0);
        let mut d1 = vec![1.0; k as usize];
        d1.extend(std::iter::repeat_n(-1.0, extra as usize));
        let d2 = vec![0.0; n];
        let g = sign_test(&d1, &d2, Alternative::Greater).unwrap();
        let l = sign_test(&d2, &d1, Alternative::Less).unwrap();
        prop_assert!((0.0..=1.0).contains(&g.p_value));
        prop_assert!(close(g.p_value, l.p_value), "{g:?} vs {l:?}");
    }

    #[test]
    fn sign_test_shifting_d1_up_never_raises_p_greater(
        (d1, d2) in rough_pairs(300),
        shift in 0.001..5.0f64,
    ) {
        let shifted: Vec<f64> = d1.iter().map(|v| v + shift).collect();
        if let (Ok(before), Ok(after)) = (
            sign_test(&d1, &d2, Alternative::Greater),
            sign_test(&shifted, &d2, Alternative::Greater),
        ) {
            prop_assert!(after.p_value <= before.p_value * (1.0 + 1e-12), "{before:?} -> {after:?}");
        }
    }

    #[test]
    fn paired_t_p_value_lies_in_unit_interval_and_is_symmetric(
        (d1, d2) in smooth_pairs(200),
        alt in any_alternative(),
    ) {
        let r = paired_t(&d1, &d2, alt).unwrap();
        prop_assert!((0.0..=1.0).contains(&r.p_value), "{r:?}");
        let g = paired_t(&d1, &d2, Alternative::Greater).unwrap();
        let l = paired_t(&d2, &d1, Alternative::Less).unwrap();
        prop_assert!(close(g.p_value, l.p_value), "{g:?} vs {l:?}");
        prop_assert_eq!(g.statistic, -l.statistic);
    }

    #[test]
    fn paired_t_shifting_d1_up_never_raises_p_greater(
        (d1, d2) in smooth_pairs(200),
        shift in 0.001..5.0f64,
    ) {
        let shifted: Vec<f64> = d1.iter().map(|v| v + shift).collect();
        let before = paired_t(&d1, &d2, Alternative::Greater).unwrap();
        let after = paired_t(&shifted, &d2, Alternative::Greater).unwrap();
        prop_assert!(after.p_value <= before.p_value * (1.0 + 1e-12), "{before:?} -> {after:?}");
    }

    #[test]
    fn hodges_lehmann_agrees_with_brute_force((d1, d2) in rough_pairs(40)) {
        let fast = hodges_lehmann(&d1, &d2).unwrap();
        let brute = hodges_lehmann_brute_force(&d1, &d2);
        prop_assert_eq!(fast.to_bits(), brute.to_bits());
        // Swapping the samples negates the estimate.
        let swapped = hodges_lehmann(&d2, &d1).unwrap();
        prop_assert_eq!(swapped, -fast);
    }
}
