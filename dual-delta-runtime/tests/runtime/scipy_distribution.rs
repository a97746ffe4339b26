//! The distribution statistics against SciPy 1.17 / NumPy reference values
//! (`tests/fixtures/distribution/*.json`, written by
//! `scripts/fixtures/distribution.py`), property tests of their invariants,
//! and the bootstrap's behaviour.
//!
//! p-values must agree with SciPy's to `1e-9` relative (Shapiro-Wilk to
//! `1e-6`); p-values below `1e-300` (near the subnormal range, where the
//! relative precision of any computation is lost) only need to both be
//! below it. Pitman-Morgan on linearly related samples is checked against
//! the exact value instead, with the same tolerance. Each fixture test prints its case counts per code path and the
//! largest relative differences seen (`cargo test --test scipy_distribution
//! -- --nocapture --test-threads=1`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use dual_delta_runtime::TrialRng;
use dual_delta_runtime::stats::{
    Alternative, Method, StatsError, brown_forsythe, describe, ks_2samp, percentile, pitman_morgan,
    ratio_of_means, shapiro_wilk,
};
use proptest::prelude::*;
use serde_json::Value;

const P_TOL: f64 = 1e-9;
const SHAPIRO_TOL: f64 = 1e-6;
const TINY_P: f64 = 1e-300;

/// The package's directory, read when the test runs (Cargo and nextest set
/// it), so that the fixtures are found wherever the workspace is, also
/// when an archived test binary runs on another machine.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR is set by cargo test and nextest")
}

fn fixture(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/distribution/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    doc["cases"].as_array().expect("cases").clone()
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Number(x) => x.as_f64().expect("f64"),
        Value::String(s) => match s.as_str() {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            other => panic!("not a number: {other}"),
        },
        other => panic!("not a number: {other}"),
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(num).collect()
}

/// The fixture generator's `splitmix_sample`: SplitMix64 words mapped to
/// doubles with exact operations only.
fn splitmix_sample(spec: &Value) -> Vec<f64> {
    let mut state = spec["seed"].as_u64().expect("seed");
    let n = spec["n"].as_u64().expect("n") as usize;
    let shift = num(&spec["shift"]);
    let scale = num(&spec["scale"]);
    let levels = spec.get("levels").and_then(Value::as_u64);
    let inf_every = spec.get("inf_every").and_then(Value::as_u64);
    (0..n)
        .map(|i| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let u = (z >> 11) as f64 * 2f64.powi(-53);
            let base = match levels {
                Some(l) => (u * l as f64).floor(),
                None => u,
            };
            match inf_every {
                Some(k) if (i as u64 + 1).is_multiple_of(k) => f64::INFINITY,
                _ => shift + scale * base,
            }
        })
        .collect()
}

fn sample(case: &Value, key: &str) -> Vec<f64> {
    match case.get(key) {
        Some(v) => floats(v),
        None => splitmix_sample(&case[format!("{key}_gen")]),
    }
}

fn rel_diff(a: f64, b: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

fn p_diff(got: f64, want: f64) -> f64 {
    if got.abs() < TINY_P && want.abs() < TINY_P {
        0.0
    } else {
        rel_diff(got, want)
    }
}

fn alternative(v: &Value) -> Alternative {
    match v.as_str().expect("alternative") {
        "two_sided" => Alternative::TwoSided,
        "greater" => Alternative::Greater,
        "less" => Alternative::Less,
        other => panic!("unknown alternative {other}"),
    }
}

fn method(v: &Value) -> Method {
    match v.as_str().expect("method") {
        "exact" => Method::Exact,
        "asymptotic" => Method::Asymptotic,
        other => panic!("unknown method {other}"),
    }
}

/// Case counts per code path and the largest relative differences.
#[derive(Default)]
struct Tally {
    paths: BTreeMap<String, (usize, f64, f64)>,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, path: &str, p_diff: f64, stat_diff: f64) {
        let e = self.paths.entry(path.to_owned()).or_insert((0, 0.0, 0.0));
        e.0 += 1;
        e.1 = e.1.max(p_diff);
        e.2 = e.2.max(stat_diff);
    }

    fn check(&mut self, ok: bool, message: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(message());
        }
    }

    fn finish(self, test: &str, p_label: &str, stat_label: &str) {
        let mut out = format!("\n{test}: cases per path, largest relative differences\n");
        let (mut total, mut max_p, mut max_s) = (0, 0.0f64, 0.0f64);
        for (path, (count, p, s)) in &self.paths {
            let _ = writeln!(
                out,
                "  {path:<55} {count:>4}   {p_label} {p:.2e}   {stat_label} {s:.2e}"
            );
            total += count;
            max_p = max_p.max(*p);
            max_s = max_s.max(*s);
        }
        let _ = writeln!(
            out,
            "  {:<55} {total:>4}   {p_label} {max_p:.2e}   {stat_label} {max_s:.2e}",
            "total"
        );
        println!("{out}");
        assert!(
            self.failures.is_empty(),
            "{} failures:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

#[test]
fn ks_2samp_matches_scipy() {
    let mut tally = Tally::default();
    for case in fixture("ks_2samp.json") {
        let name = case["name"].as_str().unwrap_or("?").to_owned();
        let d1 = sample(&case, "d1");
        let d2 = sample(&case, "d2");
        for want in case["results"].as_array().expect("results") {
            let alt = alternative(&want["alternative"]);
            let path = want["path"].as_str().expect("path");
            let got = ks_2samp(&d1, &d2, alt).expect("ks_2samp");
            let (wp, ws) = (num(&want["pvalue"]), num(&want["statistic"]));
            let (dp, ds) = (p_diff(got.p_value, wp), rel_diff(got.statistic, ws));
            tally.record(path, dp, ds);
            tally.check(dp <= P_TOL && ds <= 1e-12, || {
                format!(
                    "{name} {alt:?} [{path}]: got D={} p={:e}, SciPy D={ws} p={wp:e}",
                    got.statistic, got.p_value
                )
            });
            tally.check(got.method == method(&want["method"]), || {
                format!("{name} {alt:?} [{path}]: method {:?}", got.method)
            });
        }
    }
    tally.finish("ks_2samp", "p", "D");
}

#[test]
fn shapiro_wilk_matches_scipy() {
    let mut tally = Tally::default();
    for case in fixture("shapiro.json") {
        let name = case["name"].as_str().unwrap_or("?");
        let path = case["path"].as_str().expect("path");
        let x = floats(&case["x"]);
        let got = shapiro_wilk(&x).expect("shapiro_wilk");
        let (wp, ws) = (num(&case["pvalue"]), num(&case["statistic"]));
        let (dp, ds) = (p_diff(got.p_value, wp), rel_diff(got.statistic, ws));
        tally.record(path, dp, ds);
        tally.check(dp <= SHAPIRO_TOL && ds <= SHAPIRO_TOL, || {
            format!(
                "{name}: got W={} p={:e}, SciPy W={ws} p={wp:e}",
                got.statistic, got.p_value
            )
        });
        let exact = if x.len() == 3 {
            Method::Exact
        } else {
            Method::Asymptotic
        };
        tally.check(got.method == exact, || {
            format!("{name}: method {:?}", got.method)
        });
    }
    // Constant samples (SciPy: W = 1, p = 1 and a warning) are covered.
    assert!(tally.paths.get("constant").is_some_and(|e| e.0 >= 6));
    tally.finish("shapiro_wilk", "p", "W");
}

#[test]
fn pitman_morgan_matches_scipy_pearsonr() {
    let mut tally = Tally::default();
    for case in fixture("variance.json") {
        let Some(results) = case.get("pitman_morgan") else {
            continue;
        };
        let name = case["name"].as_str().unwrap_or("?");
        let d1 = floats(&case["d1"]);
        let d2 = floats(&case["d2"]);
        for want in results.as_array().expect("results") {
            let alt = alternative(&want["alternative"]);
            let path = want["path"].as_str().expect("path");
            let got = pitman_morgan(&d1, &d2, alt).expect("pitman_morgan");
            let (wp, ws) = (num(&want["pvalue"]), num(&want["statistic"]));
            let (dp, ds) = (p_diff(got.p_value, wp), rel_diff(got.statistic, ws));
            tally.record(path, dp, ds);
            tally.check(dp <= P_TOL && ds <= P_TOL, || {
                format!(
                    "{name} {alt:?}: got t={} p={:e}, SciPy t={ws} (r={}) p={wp:e}",
                    got.statistic,
                    got.p_value,
                    num(&want["r"])
                )
            });
            tally.check(got.method == Method::Exact, || format!("{name}: method"));
        }
    }
    tally.finish("pitman_morgan", "p", "t");
}

/// Pitman-Morgan on samples that are linearly related, exactly (the closed
/// form: `r = ±1`, `p = 0` or `1`) or nearly (deep tails). SciPy's `r`,
/// computed in doubles from the rounded `d1 ± d2`, decides its p-value by
/// its last bits there, so the reference is the exact value (rational sums,
/// then mpmath) and SciPy's stands beside it, with `differs_by_design`.
#[test]
fn pitman_morgan_on_related_samples_matches_the_exact_value() {
    let mut tally = Tally::default();
    let (mut by_design, mut errors) = (0, 0);
    for case in fixture("pitman_morgan_degenerate.json") {
        let name = case["name"].as_str().unwrap_or("?");
        let d1 = floats(&case["d1"]);
        let d2 = floats(&case["d2"]);
        for want in case["pitman_morgan"].as_array().expect("results") {
            let alt = alternative(&want["alternative"]);
            let path = want["path"].as_str().expect("path");
            let got = pitman_morgan(&d1, &d2, alt);
            if want.get("error").is_some() {
                // SciPy: r and p are NaN.
                let constant = matches!(got, Err(StatsError::ConstantData { .. }));
                tally.check(constant, || format!("{name} {alt:?}: {got:?}"));
                errors += 1;
                continue;
            }
            let got = got.expect("pitman_morgan");
            let (wp, ws) = (num(&want["pvalue"]), num(&want["statistic"]));
            let (dp, ds) = (p_diff(got.p_value, wp), rel_diff(got.statistic, ws));
            tally.record(path, dp, ds);
            let exact = path != "exactly_related" || (got.p_value == wp && got.statistic == ws);
            tally.check(exact && dp <= P_TOL && ds <= P_TOL, || {
                format!(
                    "{name} {alt:?}: got t={} p={:e}, exact t={ws} p={wp:e}",
                    got.statistic, got.p_value
                )
            });
            let scipy = num(&want["scipy"]["pvalue"]);
            let differs = want["differs_by_design"].as_bool().expect("flag");
            tally.check((p_diff(scipy, wp) > P_TOL) == differs, || {
                format!("{name} {alt:?}: SciPy p={scipy:e}, flag {differs}")
            });
            by_design += usize::from(differs);
        }
    }
    println!("pitman_morgan, related samples: {by_design} results differ from SciPy by design");
    tally.finish("pitman_morgan (related samples)", "p", "t");
    assert!(by_design >= 35 && errors == 6, "{by_design} {errors}");
}

#[test]
fn brown_forsythe_matches_scipy_levene() {
    let mut tally = Tally::default();
    for case in fixture("variance.json") {
        let name = case["name"].as_str().unwrap_or("?");
        let want = &case["brown_forsythe"];
        let path = want["path"].as_str().expect("path");
        let d1 = floats(&case["d1"]);
        let d2 = floats(&case["d2"]);
        let got = brown_forsythe(&d1, &d2).expect("brown_forsythe");
        let (wp, ws) = (num(&want["pvalue"]), num(&want["statistic"]));
        let (dp, ds) = (p_diff(got.p_value, wp), rel_diff(got.statistic, ws));
        tally.record(path, dp, ds);
        tally.check(dp <= P_TOL && ds <= P_TOL, || {
            format!(
                "{name}: got W={} p={:e}, SciPy W={ws} p={wp:e}",
                got.statistic, got.p_value
            )
        });
        tally.check(got.method == Method::Asymptotic, || {
            format!("{name}: method")
        });
    }
    tally.finish("brown_forsythe", "p", "W");
}

#[test]
fn describe_matches_numpy() {
    let mut tally = Tally::default();
    for case in fixture("describe.json") {
        let name = case["name"].as_str().unwrap_or("?");
        let path = case["path"].as_str().expect("path");
        let x = floats(&case["x"]);
        let s = describe(&x).expect("describe");
        let fields = [
            ("mean", s.mean),
            ("median", s.median),
            ("std", s.std),
            ("min", s.min),
            ("p50", s.p50),
            ("p90", s.p90),
            ("p95", s.p95),
            ("p99", s.p99),
            ("max", s.max),
        ];
        let mut worst = 0.0f64;
        for (field, got) in fields {
            let want = num(&case[field]);
            let d = rel_diff(got, want);
            worst = worst.max(d);
            tally.check(d <= 1e-13, || {
                format!("{name}: {field} got {got:e}, NumPy {want:e}")
            });
        }
        tally.check(s.n == x.len() && s.non_finite == 0, || format!("{name}: n"));
        tally.record(path, 0.0, worst);
    }
    tally.finish("describe", "-", "values");
}

// ---------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------

fn error_sample(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            8 => 0.0f64..10.0,
            1 => Just(0.0),
            1 => (0u8..4).prop_map(f64::from),
        ],
        1..max_len,
    )
}

fn with_infinities(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![9 => 0.0f64..10.0, 1 => Just(f64::INFINITY)],
        1..max_len,
    )
}

fn paired(max_len: usize) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (3..max_len).prop_flat_map(|n| {
        (
            prop::collection::vec(-10.0f64..10.0, n),
            prop::collection::vec(-10.0f64..10.0, n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn ks_p_values_are_probabilities_and_swap_symmetric(
        d1 in with_infinities(60),
        d2 in error_sample(60),
    ) {
        for alt in [Alternative::TwoSided, Alternative::Greater, Alternative::Less] {
            let r = ks_2samp(&d1, &d2, alt).unwrap();
            prop_assert!((0.0..=1.0).contains(&r.p_value), "{r:?}");
            prop_assert!((0.0..=1.0).contains(&r.statistic), "{r:?}");
        }
        let g = ks_2samp(&d1, &d2, Alternative::Greater).unwrap();
        let l = ks_2samp(&d2, &d1, Alternative::Less).unwrap();
        prop_assert_eq!(g, l);
        let t12 = ks_2samp(&d1, &d2, Alternative::TwoSided).unwrap();
        let t21 = ks_2samp(&d2, &d1, Alternative::TwoSided).unwrap();
        prop_assert_eq!(t12, t21);
        // The two-sided statistic is the larger one-sided one.
        let l12 = ks_2samp(&d1, &d2, Alternative::Less).unwrap();
        prop_assert_eq!(t12.statistic, g.statistic.max(l12.statistic));
    }

    #[test]
    fn ks_paired_equal_sizes_swap_symmetric((d1, d2) in paired(300)) {
        let g = ks_2samp(&d1, &d2, Alternative::Greater).unwrap();
        let l = ks_2samp(&d2, &d1, Alternative::Less).unwrap();
        prop_assert_eq!(g, l);
        prop_assert_eq!(g.method, Method::Exact);
        // One-sided p-values are at least half the two-sided one... and the
        // two-sided p-value is at most twice the smaller one-sided one.
        let t = ks_2samp(&d1, &d2, Alternative::TwoSided).unwrap();
        let l12 = ks_2samp(&d1, &d2, Alternative::Less).unwrap();
        prop_assert!(t.p_value <= 2.0 * g.p_value.min(l12.p_value) * (1.0 + 1e-12) + 1e-300);
    }

    #[test]
    fn pitman_morgan_swap_symmetry_and_monotone_in_scale(
        (d1, d2) in paired(200),
        factor in 1.0f64..8.0,
    ) {
        let Ok(g) = pitman_morgan(&d1, &d2, Alternative::Greater) else {
            return Ok(());
        };
        let l = pitman_morgan(&d2, &d1, Alternative::Less).unwrap();
        prop_assert_eq!(g.p_value, l.p_value);
        prop_assert_eq!(g.statistic, -l.statistic);
        let t = pitman_morgan(&d1, &d2, Alternative::TwoSided).unwrap();
        let le = pitman_morgan(&d1, &d2, Alternative::Less).unwrap();
        for r in [g, t, le] {
            prop_assert!((0.0..=1.0).contains(&r.p_value));
        }
        prop_assert!((g.p_value + le.p_value - 1.0).abs() < 1e-12);
        // Scaling d1 up never weakens the evidence that d1 is more variable.
        let scaled: Vec<f64> = d1.iter().map(|v| v * factor).collect();
        let gs = pitman_morgan(&scaled, &d2, Alternative::Greater).unwrap();
        prop_assert!(gs.statistic >= g.statistic - 1e-9 * g.statistic.abs());
        prop_assert!(gs.p_value <= g.p_value * (1.0 + 1e-9) + 1e-15);
    }

    #[test]
    fn brown_forsythe_symmetric_and_scale_invariant(
        (d1, d2) in paired(200),
        scale in 0.001f64..1000.0,
    ) {
        let Ok(a) = brown_forsythe(&d1, &d2) else { return Ok(()); };
        let b = brown_forsythe(&d2, &d1).unwrap();
        prop_assert_eq!(a, b);
        prop_assert!((0.0..=1.0).contains(&a.p_value));
        let s1: Vec<f64> = d1.iter().map(|v| v * scale).collect();
        let s2: Vec<f64> = d2.iter().map(|v| v * scale).collect();
        let c = brown_forsythe(&s1, &s2).unwrap();
        prop_assert!(rel_diff(a.p_value, c.p_value) < 1e-8 || (a.p_value - c.p_value).abs() < 1e-12);
    }

    #[test]
    fn shapiro_wilk_bounds_and_affine_invariance(
        x in prop::collection::vec(-100.0f64..100.0, 3..400),
        scale in 0.01f64..100.0,
        shift in -50.0f64..50.0,
    ) {
        let Ok(r) = shapiro_wilk(&x) else { return Ok(()); };
        prop_assert!((0.0..=1.0).contains(&r.p_value));
        prop_assert!(r.statistic > 0.0 && r.statistic <= 1.0 + 1e-12);
        let y: Vec<f64> = x.iter().map(|v| v * scale + shift).collect();
        let s = shapiro_wilk(&y).unwrap();
        prop_assert!((s.statistic - r.statistic).abs() < 1e-9);
    }

    #[test]
    fn describe_orders_its_quantiles(x in with_infinities(300)) {
        let s = describe(&x).unwrap();
        prop_assert!(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p95);
        prop_assert!(s.p95 <= s.p99 && s.p99 <= s.max);
        prop_assert_eq!(s.non_finite, x.iter().filter(|v| v.is_infinite()).count());
        if s.non_finite == 0 {
            prop_assert!(s.min <= s.mean && s.mean <= s.max);
            prop_assert!(rel_diff(s.median, s.p50) < 1e-15);
        } else {
            prop_assert_eq!(s.mean, f64::INFINITY);
        }
        let mut sorted = x.clone();
        sorted.sort_by(f64::total_cmp);
        let mut last = f64::NEG_INFINITY;
        for q in 0..=100 {
            let v = percentile(&sorted, f64::from(q));
            prop_assert!(v >= last);
            last = v;
        }
    }
}

// ---------------------------------------------------------------------------
// Errors and edge cases.
// ---------------------------------------------------------------------------

#[test]
fn invalid_input_is_rejected() {
    let nan = [1.0, f64::NAN, 2.0];
    let ok = [1.0, 2.0, 3.0, 5.0];
    assert!(matches!(
        ks_2samp(&nan, &ok, Alternative::TwoSided),
        Err(StatsError::InvalidValue { index: 1, .. })
    ));
    assert!(matches!(
        ks_2samp(&[], &ok, Alternative::TwoSided),
        Err(StatsError::TooFewObservations { .. })
    ));
    // A constant sample is no error: W = 1, p = 1, as in SciPy.
    let r = shapiro_wilk(&[1.0, 1.0, 1.0, 1.0]).unwrap();
    assert_eq!((r.statistic, r.p_value), (1.0, 1.0));
    assert!(matches!(
        pitman_morgan(&ok, &ok[..3], Alternative::TwoSided),
        Err(StatsError::LengthMismatch { .. })
    ));
    assert!(matches!(
        pitman_morgan(
            &[1.0, f64::INFINITY, 2.0],
            &[1.0, 2.0, 3.0],
            Alternative::TwoSided
        ),
        Err(StatsError::InvalidValue { .. })
    ));
    assert!(matches!(
        brown_forsythe(&nan, &ok),
        Err(StatsError::InvalidValue { .. })
    ));
    assert!(matches!(
        describe(&nan),
        Err(StatsError::InvalidValue { .. })
    ));
}

#[test]
fn ks_is_fast_at_ten_thousand_paired_trials() {
    let mut rng = TrialRng::from_trial_seed(5);
    let d1: Vec<f64> = (0..10_000).map(|_| rng.random::<f64>() * 1.02).collect();
    let d2: Vec<f64> = (0..10_000).map(|_| rng.random::<f64>()).collect();
    let start = Instant::now();
    for alt in [
        Alternative::TwoSided,
        Alternative::Greater,
        Alternative::Less,
    ] {
        let r = ks_2samp(&d1, &d2, alt).unwrap();
        assert_eq!(r.method, Method::Exact);
        assert!((0.0..=1.0).contains(&r.p_value));
    }
    let elapsed = start.elapsed();
    println!("ks_2samp, n = 10 000 paired, three alternatives: {elapsed:?}");
    assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
}

// ---------------------------------------------------------------------------
// Bootstrap.
// ---------------------------------------------------------------------------

fn exponential(rng: &mut TrialRng, n: usize, mean: f64) -> Vec<f64> {
    (0..n)
        .map(|_| -mean * (1.0 - rng.random::<f64>()).ln())
        .collect()
}

#[test]
fn bootstrap_is_deterministic_and_contains_the_estimate() {
    let mut rng = TrialRng::from_trial_seed(11);
    let d2 = exponential(&mut rng, 1000, 1.0);
    let d1: Vec<f64> = d2
        .iter()
        .zip(exponential(&mut rng, 1000, 0.5))
        .map(|(a, b)| 1.5 * a + b)
        .collect();
    let start = Instant::now();
    let a = ratio_of_means(&d1, &d2, 0.95, 2000, 42).unwrap();
    let elapsed = start.elapsed();
    println!("ratio_of_means, n = 1000, 2000 resamples: {elapsed:?}; {a:?}");
    let b = ratio_of_means(&d1, &d2, 0.95, 2000, 42).unwrap();
    assert_eq!(a, b);
    let c = ratio_of_means(&d1, &d2, 0.95, 2000, 43).unwrap();
    assert_ne!((a.lower, a.upper), (c.lower, c.upper));
    assert_eq!(a.ratio, c.ratio);
    assert!(a.lower < a.ratio && a.ratio < a.upper, "{a:?}");
    assert_eq!((a.confidence, a.resamples, a.seed), (0.95, 2000, 42));
    // A wider level gives a wider interval from the same resamples.
    let w = ratio_of_means(&d1, &d2, 0.99, 2000, 42).unwrap();
    assert!(w.lower <= a.lower && a.upper <= w.upper);
    assert!(elapsed.as_secs_f64() < 1.0, "{elapsed:?}");
}

#[test]
fn bootstrap_coverage_is_close_to_nominal() {
    // d1 = 2 d2 + noise with mean 0: the true ratio of means is 2.
    let (datasets, n) = (300, 100);
    let mut covered = 0;
    for k in 0..datasets {
        let mut rng = TrialRng::from_trial_seed(1000 + k);
        let d2 = exponential(&mut rng, n, 1.0);
        let d1: Vec<f64> = d2
            .iter()
            .map(|&v| 2.0 * v + (rng.random::<f64>() - 0.5))
            .collect();
        let r = ratio_of_means(&d1, &d2, 0.90, 500, k).unwrap();
        if r.lower <= 2.0 && 2.0 <= r.upper {
            covered += 1;
        }
    }
    let coverage = f64::from(covered) / datasets as f64;
    println!("bootstrap 90% interval coverage over {datasets} datasets: {coverage:.3}");
    assert!((0.84..=0.96).contains(&coverage), "coverage {coverage}");
}

#[test]
fn bootstrap_rejects_invalid_input() {
    let d = [1.0, 2.0, 3.0];
    assert!(matches!(
        ratio_of_means(&d, &[0.0, 0.0, 0.0], 0.95, 100, 1),
        Err(StatsError::InvalidParameter { name: "d2", .. })
    ));
    for confidence in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            ratio_of_means(&d, &d, confidence, 100, 1),
            Err(StatsError::InvalidParameter {
                name: "confidence",
                ..
            })
        ));
    }
    assert!(matches!(
        ratio_of_means(&d, &d, 0.95, 0, 1),
        Err(StatsError::InvalidParameter {
            name: "resamples",
            ..
        })
    ));
    assert!(matches!(
        ratio_of_means(&[1.0, f64::INFINITY, 2.0], &d, 0.95, 10, 1),
        Err(StatsError::InvalidValue { .. })
    ));
    assert!(matches!(
        ratio_of_means(&d, &d[..2], 0.95, 10, 1),
        Err(StatsError::LengthMismatch { .. })
    ));
    assert!(matches!(
        ratio_of_means(&[], &[], 0.95, 10, 1),
        Err(StatsError::TooFewObservations { .. })
    ));
    // Identical samples: every resample has ratio 1.
    let r = ratio_of_means(&d, &d, 0.95, 50, 3).unwrap();
    assert_eq!((r.ratio, r.lower, r.upper), (1.0, 1.0, 1.0));
}
