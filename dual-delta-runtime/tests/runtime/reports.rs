//! Reports on disk: `summary.json` against the run's own numbers,
//! `deltas.csv` against the trials, every SVG parsed as XML with the
//! expected series, and every link of the HTML pages resolving, including
//! when several threads and processes write reports at once.

// Implementations take `&I` for the input type `I = Vec<f32>`.
#![allow(clippy::ptr_arg)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use dual_delta_runtime::output::NumberFormat;
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::json::number;
use dual_delta_runtime::report::plot::{self, Labels};
use dual_delta_runtime::report::summary::Summary as SummaryJson;
use dual_delta_runtime::report::{self, DELTAS_FILE, INDEX_FILE, PLOT_FILES, SUMMARY_FILE};
use dual_delta_runtime::stats::Summary;
use dual_delta_runtime::{outcome::Names, outcome::Outcome};
use serde_json::Value;

const LEN: usize = 256;

fn input(rng: &mut TrialRng) -> Vec<f32> {
    (0..LEN).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

fn naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
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

fn exact(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

/// Naive summation that returns NaN on about one trial in eight.
fn flaky(x: &Vec<f32>) -> f32 {
    if x[0] < 0.125 { f32::NAN } else { naive(x) }
}

/// Names with characters that must be escaped in HTML, SVG and JSON.
fn names(test: &str) -> Names {
    Names {
        test: test.to_owned(),
        candidate: "naive<f32> & \"co\"".to_owned(),
        baseline: "kahan 'f32'".to_owned(),
        oracle: "exact f64".to_owned(),
        input: "uniform [0, 1)".to_owned(),
    }
}

fn sum_outcome(test: &str, n: usize) -> Outcome {
    DualDelta::new(naive, kahan, exact, input)
        .names(names(test))
        .n(n)
        .seed(42)
        .run()
        .expect("the run completes")
}

fn flaky_outcome(test: &str, n: usize) -> Outcome {
    DualDelta::new(flaky, kahan, exact, input)
        .names(names(test))
        .n(n)
        .seed(7)
        .run()
        .expect("the run completes")
}

/// A fresh directory under the system's temporary directory.
fn temp_root(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("dual-delta-reports-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Removes a directory made by [`temp_root`] once its test has passed (a
/// failing test leaves it for inspection).
fn clean(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// `a` and `b` are the same `f64` (NaN equals NaN).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[track_caller]
fn assert_num(v: &Value, expected: f64, what: &str) {
    let got = number(v).unwrap_or_else(|| panic!("{what}: not a number: {v}"));
    assert!(same(got, expected), "{what}: {got} != {expected}");
}

fn check_summary(v: &Value, s: &Summary, what: &str) {
    assert_eq!(v["n"].as_u64(), Some(s.n as u64), "{what}.n");
    assert_eq!(
        v["non_finite"].as_u64(),
        Some(s.non_finite as u64),
        "{what}.non_finite"
    );
    for (field, x) in [
        ("mean", s.mean),
        ("median", s.median),
        ("std", s.std),
        ("min", s.min),
        ("p50", s.p50),
        ("p90", s.p90),
        ("p95", s.p95),
        ("p99", s.p99),
        ("max", s.max),
    ] {
        assert_num(&v[field], x, &format!("{what}.{field}"));
    }
}

fn check_test(
    v: &Value,
    r: &Result<dual_delta_runtime::stats::TestResult, dual_delta_runtime::stats::StatsError>,
    alpha: f64,
    what: &str,
) {
    match r {
        Ok(t) => {
            assert_num(&v["statistic"], t.statistic, &format!("{what}.statistic"));
            assert_num(&v["p_value"], t.p_value, &format!("{what}.p_value"));
            assert_eq!(
                v["method"],
                serde_json::to_value(t.method).unwrap(),
                "{what}"
            );
            assert_eq!(
                v["significant"].as_bool(),
                Some(t.p_value < alpha),
                "{what}"
            );
            assert!(v.get("error").is_none(), "{what}");
        }
        Err(e) => {
            assert_eq!(v["error"].as_str(), Some(e.to_string().as_str()), "{what}");
            assert!(v.get("p_value").is_none(), "{what}");
        }
    }
    assert!(v["name"].as_str().is_some_and(|s| !s.is_empty()), "{what}");
    assert!(
        ["greater", "less", "two_sided"].contains(&v["alternative"].as_str().unwrap()),
        "{what}"
    );
}

/// Compares every number of `summary.json` with the outcome's fields.
fn check_json(j: &Value, o: &Outcome, before: SystemTime, after: SystemTime) {
    let s = o.settings();
    assert_eq!(j["schema_version"], 5);
    // The settings record holds the table's recorded settings, the seed
    // also in hexadecimal and with its source.
    let recorded: std::collections::BTreeSet<&str> = j["settings"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|k| !["seed_hex", "seed_source"].contains(k))
        .collect();
    let table: std::collections::BTreeSet<&str> = dual_delta_runtime::settings::SETTINGS
        .iter()
        .filter(|s| s.recorded)
        .map(|s| s.name)
        .collect();
    assert_eq!(recorded, table);
    assert_eq!(j["crate_version"], env!("CARGO_PKG_VERSION"));
    let secs = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };
    let ts = j["timestamp_ms"].as_u64().unwrap();
    assert!(secs(before) <= ts && ts <= secs(after), "timestamp");
    assert_eq!(j["timestamp"].as_u64(), Some(ts / 1000));
    assert!(j["time_utc"].as_str().unwrap().ends_with('Z'));

    assert_eq!(j["names"], serde_json::to_value(o.names()).unwrap());
    let st = &j["settings"];
    assert_eq!(st["n"].as_u64(), Some(s.n() as u64));
    assert_num(&st["alpha"], s.alpha(), "alpha");
    assert_eq!(st["seed"].as_u64(), Some(s.seed()));
    let hex = st["seed_hex"].as_str().unwrap();
    assert_eq!(
        dual_delta_runtime::settings::parse_seed(hex),
        Some(s.seed())
    );
    assert_eq!(
        st["seed_source"],
        serde_json::to_value(s.seed_source()).unwrap()
    );
    assert_eq!(st["metric"], s.metric().name());
    assert_eq!(st["expect"], serde_json::to_value(s.expect()).unwrap());
    assert_eq!(st["test"], serde_json::to_value(s.test()).unwrap());
    assert_num(&st["margin"], s.margin(), "margin");
    assert_eq!(
        st["stability"],
        serde_json::to_value(s.stability()).unwrap()
    );
    assert_eq!(st["threads"], serde_json::to_value(s.threads()).unwrap());
    assert_eq!(j["candidate_format"], o.candidate_format().name());

    check_summary(
        &j["summaries"]["candidate"],
        &o.summaries().candidate,
        "candidate",
    );
    check_summary(
        &j["summaries"]["baseline"],
        &o.summaries().baseline,
        "baseline",
    );
    check_summary(
        &j["summaries"]["differences"],
        &o.summaries().differences,
        "differences",
    );
    let m = &j["claim"]["mean"];
    assert_num(&m["effect"], o.claim().mean.effect, "ratio");
    assert_num(&m["lower"], o.claim().mean.lower, "lower");
    assert_num(&m["upper"], o.claim().mean.upper, "upper");
    assert_eq!(m["p_margin"].as_f64(), o.claim().mean.p_margin);

    let a = o.analysis();
    assert_eq!(
        j["accuracy_test"],
        serde_json::to_value(a.accuracy_test).unwrap()
    );
    assert_eq!(j["fallback"], serde_json::to_value(&a.fallback).unwrap());
    let tests = j["tests"].as_object().unwrap();
    let expected = [
        ("worse", &a.worse),
        ("better", &a.better),
        ("wilcoxon_greater", &a.wilcoxon_greater),
        ("wilcoxon_less", &a.wilcoxon_less),
        ("sign_greater", &a.sign_greater),
        ("sign_less", &a.sign_less),
        ("t_greater", &a.t_greater),
        ("t_less", &a.t_less),
        ("shapiro_differences", &a.shapiro_differences),
        ("ks", &a.ks),
        ("spread_greater", &a.spread_greater),
        ("spread_less", &a.spread_less),
        ("variance_greater", &a.variance_greater),
        ("variance_less", &a.variance_less),
        ("brown_forsythe", &a.brown_forsythe),
    ];
    assert_eq!(tests.len(), expected.len());
    for (key, r) in expected {
        check_test(&tests[key], r, s.alpha(), key);
    }
    match &a.hodges_lehmann {
        Ok(h) => assert_num(&j["hodges_lehmann"]["estimate"], *h, "hodges_lehmann"),
        Err(e) => assert_eq!(j["hodges_lehmann"]["error"], e.to_string()),
    }

    // Schema 4: the run's accuracy, `passed` and the sentences are the
    // judgement's and the outcome's, under `judgement` and `sentences`.
    assert_eq!(
        j["judgement"]["accuracy"],
        serde_json::to_value(o.judgement().accuracy()).unwrap()
    );
    assert_eq!(j["judgement"], serde_json::to_value(o.judgement()).unwrap());
    let v = &j["verdict"];
    assert_eq!(
        v["equivalence"],
        serde_json::to_value(o.verdict().equivalence).unwrap()
    );
    assert_eq!(
        v["stability"],
        serde_json::to_value(o.verdict().stability).unwrap()
    );
    assert_eq!(v["identical"], o.verdict().identical);
    let (c, b) = (&o.names().candidate, &o.names().baseline);
    let words = &j["sentences"];
    assert_eq!(words["accuracy"], o.accuracy_sentence());
    assert_eq!(words["stability"], o.verdict().stability_sentence(c, b));
    assert_eq!(words["verdict"], o.verdict_sentence());
    assert_eq!(j["judgement"]["passed"], o.passed());

    // Schema 4: the non-finite errors are counted in the summaries, and
    // the non-finite outputs are the run's lists.
    let nf = |d: &[f64]| d.iter().filter(|x| !x.is_finite()).count() as u64;
    let sums = &j["summaries"];
    assert_eq!(
        sums["candidate"]["non_finite"].as_u64(),
        Some(nf(o.delta1()))
    );
    assert_eq!(
        sums["baseline"]["non_finite"].as_u64(),
        Some(nf(o.delta2()))
    );
    let outputs = &j["non_finite_outputs"];
    let listed = |side: &str| outputs[side].as_array().map(Vec::len);
    assert_eq!(listed("candidate"), Some(o.non_finite().candidate.len()));
    assert_eq!(listed("baseline"), Some(o.non_finite().baseline.len()));

    let w = o.worst_trial();
    let wj = &j["worst_trial"];
    assert_eq!(wj["index"].as_u64(), Some(w as u64));
    assert_eq!(wj["seed"].as_u64(), Some(o.trial_seed(w)));
    assert_eq!(
        dual_delta_runtime::settings::parse_seed(wj["seed_hex"].as_str().unwrap()),
        Some(o.trial_seed(w))
    );
    assert_num(
        &wj["candidate_error"],
        o.delta1()[w],
        "worst candidate error",
    );
    assert_num(&wj["baseline_error"], o.delta2()[w], "worst baseline error");
    assert_eq!(j["replay"], format!("DUAL_DELTA_SEED={:#x}", s.seed()));

    assert_eq!(
        j["environment"],
        serde_json::to_value(o.environment()).unwrap()
    );
    assert_num(
        &j["timings"]["trials_seconds"],
        o.trial_time().as_secs_f64(),
        "trials_seconds",
    );
    assert_num(
        &j["timings"]["total_seconds"],
        o.elapsed().as_secs_f64(),
        "total_seconds",
    );
}

fn check_csv(text: &str, o: &Outcome) {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("index,seed,delta1,delta2,fingerprint"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), o.delta1().len());
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), 5, "{row}");
        assert_eq!(cells[4], format!("{:016x}", o.fingerprints()[i]));
        assert_eq!(cells[0].parse::<usize>().unwrap(), i);
        // Hexadecimal, as the terminal and summary.json write seeds.
        assert_eq!(cells[1].len(), 18);
        assert_eq!(
            dual_delta_runtime::settings::parse_seed(cells[1]),
            Some(o.trial_seed(i))
        );
        let d1: f64 = cells[2].parse().unwrap();
        let d2: f64 = cells[3].parse().unwrap();
        assert!(
            same(d1, o.delta1()[i]),
            "row {i}: {} != {}",
            d1,
            o.delta1()[i]
        );
        assert!(
            same(d2, o.delta2()[i]),
            "row {i}: {} != {}",
            d2,
            o.delta2()[i]
        );
    }
}

/// Every `<text>` of an SVG, concatenated per element.
fn svg_texts(doc: &roxmltree::Document<'_>) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let s: String = n
                .descendants()
                .filter(|t| t.is_text())
                .filter_map(|t| t.text())
                .collect();
            s.trim().to_owned()
        })
        .collect()
}

fn count(doc: &roxmltree::Document<'_>, tag: &str, fill: &str) -> usize {
    doc.descendants()
        .filter(|n| n.has_tag_name(tag))
        .filter(|n| {
            n.attribute("fill")
                .is_some_and(|f| f.eq_ignore_ascii_case(fill))
        })
        .count()
}

/// The number just before `suffix` in the first text containing it.
fn number_before(texts: &[String], suffix: &str) -> usize {
    let t = texts
        .iter()
        .find(|t| t.contains(suffix))
        .unwrap_or_else(|| panic!("no text with {suffix:?} in {texts:#?}"));
    let head = &t[..t.find(suffix).unwrap()];
    let digits: String = head
        .chars()
        .rev()
        .skip_while(|c| c.is_whitespace())
        .take_while(|c| c.is_ascii_digit())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number before {suffix:?} in {t:?}"))
}

/// Checks that the plots of `d1`, `d2` are well-formed SVG with the expected
/// series: both names in titles and legends, one histogram legend count per
/// sample, one scatter point per finite pair, one Q-Q point per quantile.
fn check_plots(svgs: &[String; 4], d1: &[f64], d2: &[f64], candidate: &str, baseline: &str) {
    let finite = |d: &[f64]| d.iter().filter(|x| x.is_finite()).count();
    let (f1, f2) = (finite(d1), finite(d2));
    let nf = d1.len() - f1 + d2.len() - f2;
    for (svg, file) in svgs.iter().zip(PLOT_FILES) {
        let doc = roxmltree::Document::parse(svg)
            .unwrap_or_else(|e| panic!("{file} is not well-formed XML: {e}"));
        assert!(doc.root_element().has_tag_name("svg"), "{file}");
        let texts = svg_texts(&doc);
        let title = &texts[0];
        assert!(
            title.contains(candidate) && title.contains(baseline),
            "{file}: title {title:?} names both"
        );
        let all = texts.join("\n");
        assert!(all.contains(&format!("Δ1 {candidate}")), "{file}: {all}");
        assert!(all.contains(&format!("Δ2 {baseline}")), "{file}: {all}");
        if nf > 0 {
            assert!(all.contains("non-finite"), "{file}: {all}");
            assert!(
                count(&doc, "polygon", plot::EDGE_COLOR) > 0,
                "{file}: a marker"
            );
        }
        // On a logarithmic axis, zeros are off the axis too.
        let log = all.contains("(log scale)");
        let drawable = |x: f64| x.is_finite() && (!log || x > 0.0);
        let (g1, g2) = (
            d1.iter().filter(|&&x| drawable(x)).count(),
            d2.iter().filter(|&&x| drawable(x)).count(),
        );
        match file {
            "histogram.svg" => {
                // The legend counts what was binned.
                let binned: Vec<usize> = texts
                    .iter()
                    .filter(|t| t.contains("inputs the oracle ran on binned"))
                    .map(|t| number_before(std::slice::from_ref(t), " of "))
                    .collect();
                assert_eq!(binned, vec![g1, g2], "{file}");
                // Bars plus the legend's swatch.
                assert!(count(&doc, "rect", plot::CANDIDATE_COLOR) > usize::from(g1 > 0));
                assert!(count(&doc, "rect", plot::BASELINE_COLOR) > usize::from(g2 > 0));
                if nf > 0 {
                    let t = texts
                        .iter()
                        .find(|t| t.starts_with("non-finite"))
                        .unwrap_or_else(|| panic!("{texts:#?}"));
                    assert!(
                        t.ends_with(&format!("Δ1 {}, Δ2 {}", d1.len() - f1, d2.len() - f2)),
                        "{t}"
                    );
                }
            }
            "scatter.svg" => {
                // One circle per drawable pair, plus the legend's.
                let pairs = d1
                    .iter()
                    .zip(d2)
                    .filter(|&(&a, &b)| drawable(a) && drawable(b))
                    .count();
                assert_eq!(
                    count(&doc, "circle", plot::POINT_COLOR),
                    pairs + 1,
                    "{file}"
                );
                assert_eq!(number_before(&texts, " points"), pairs);
                assert!(
                    doc.descendants().any(|n| n.has_tag_name("polyline")),
                    "diagonal"
                );
                if pairs < d1.len() {
                    assert!(all.contains("trials on the edge"), "{all}");
                }
            }
            "qq.svg" => {
                // One quantile pair per finite value of the smaller sample.
                let m = f1.min(f2).min(plot::MAX_QUANTILES);
                let drawn = number_before(&texts, " quantile pairs");
                assert_eq!(
                    count(&doc, "circle", plot::POINT_COLOR),
                    drawn + 1,
                    "{file}"
                );
                if log {
                    assert!(drawn <= m);
                } else {
                    assert_eq!(drawn, m, "{file}");
                }
                assert!(
                    doc.descendants().any(|n| n.has_tag_name("polyline")),
                    "diagonal"
                );
            }
            "boxplot.svg" => {
                // Each box: a filled and an outlined rectangle, plus the
                // legend's pair.
                assert_eq!(
                    count(&doc, "rect", plot::CANDIDATE_COLOR),
                    1 + usize::from(g1 > 0)
                );
                assert!(all.contains("IQR") || g1 + g2 == 0, "{file}: {all}");
            }
            _ => unreachable!(),
        }
    }
}

fn plots_of(d1: &[f64], d2: &[f64], labels: &Labels<'_>) -> [String; 4] {
    [
        plot::histogram(d1, d2, labels),
        plot::boxplot(d1, d2, labels),
        plot::qq(d1, d2, labels),
        plot::scatter(d1, d2, labels),
    ]
}

/// Every `href` and `src` of an HTML page (parsed as XML), resolved against
/// the page's directory.
fn links(page: &Path) -> Vec<PathBuf> {
    let text = fs::read_to_string(page).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{} is not well-formed: {e}", page.display()));
    let dir = page.parent().unwrap();
    doc.descendants()
        .flat_map(|n| [n.attribute("href"), n.attribute("src")])
        .flatten()
        .map(|link| {
            assert!(
                !link.contains("://") && !link.starts_with('/'),
                "{link}: links are relative"
            );
            dir.join(link)
        })
        .collect()
}

fn check_links(page: &Path) -> Vec<PathBuf> {
    let links = links(page);
    for l in &links {
        assert!(
            l.is_file(),
            "{} links to missing {}",
            page.display(),
            l.display()
        );
    }
    links
}

/// The report folders under `root`, after checking that every hidden
/// entry there is the version one of them points to: no temporary is left.
fn report_dirs(root: &Path) -> BTreeSet<String> {
    let (hidden, shown): (Vec<_>, Vec<_>) = fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .partition(|name| name.starts_with('.'));
    let shown: BTreeSet<String> = shown
        .into_iter()
        .filter(|name| root.join(name).is_dir())
        .collect();
    let linked: BTreeSet<String> = shown
        .iter()
        .filter_map(|d| fs::read_link(root.join(d)).ok())
        .map(|t| t.to_string_lossy().into_owned())
        .collect();
    assert_eq!(hidden.into_iter().collect::<BTreeSet<_>>(), linked);
    shown
}

// ---------------------------------------------------------------------------
// Plots on hand-built samples (no run needed).

#[test]
fn plots_of_hand_built_samples_have_the_expected_series() {
    let labels = Labels {
        candidate: "cand<f16>",
        baseline: "base & ref",
        metric: "max_ulp",
    };
    // Errors spanning six decades (logarithmic axes), with infinities and
    // zeros.
    let d1: Vec<f64> = (0..200)
        .map(|i| match i % 50 {
            0 => f64::INFINITY,
            1 => 0.0,
            _ => 10f64.powf(-8.0 + 6.0 * f64::from(i) / 200.0),
        })
        .collect();
    let d2: Vec<f64> = (0..200)
        .map(|i| 10f64.powf(-7.0 + f64::from(i % 17) / 10.0))
        .collect();
    let svgs = plots_of(&d1, &d2, &labels);
    // `Labels` are escaped in the SVG and read back unescaped.
    check_plots(&svgs, &d1, &d2, labels.candidate, labels.baseline);
    let hist = roxmltree::Document::parse(&svgs[0]).unwrap();
    let texts = svg_texts(&hist);
    assert!(texts.iter().any(|t| t.contains("(log scale)")), "{texts:?}");
    assert!(texts.iter().any(|t| t == "1e-6"), "log ticks: {texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("zero or negative")),
        "zeros off the log axis are counted: {texts:?}"
    );

    // Errors within one decade: linear axes.
    let d1: Vec<f64> = (50..=100).map(|i| f64::from(i) * 1e-6).collect();
    let d2: Vec<f64> = (50..=100).map(|i| f64::from(i) * 1.5e-6).collect();
    let svgs = plots_of(&d1, &d2, &labels);
    check_plots(&svgs, &d1, &d2, labels.candidate, labels.baseline);
    assert!(!svgs[0].contains("(log scale)"));
}

#[test]
fn degenerate_samples_still_plot() {
    let labels = Labels {
        candidate: "c",
        baseline: "b",
        metric: "max_hybrid",
    };
    let inf = f64::INFINITY;
    for (d1, d2) in [
        (vec![inf; 9], vec![inf; 9]),
        (vec![0.25; 9], vec![0.25; 9]),
        (vec![0.0; 9], vec![1e-3; 9]),
        (vec![inf; 9], vec![1e-7; 9]),
        (vec![1e-17, 2e-17, 3e-17], vec![1e-17, 1e-17, 4e-17]),
    ] {
        let svgs = plots_of(&d1, &d2, &labels);
        check_plots(&svgs, &d1, &d2, "c", "b");
    }
}

#[test]
fn large_scatter_plots_are_thinned_and_say_so() {
    let n = plot::MAX_POINTS * 2 + 7;
    let d1: Vec<f64> = (0..n).map(|i| 1.0 + (i % 97) as f64).collect();
    let d2: Vec<f64> = (0..n).map(|i| 1.0 + (i % 89) as f64).collect();
    let labels = Labels {
        candidate: "c",
        baseline: "b",
        metric: "m",
    };
    let svg = plot::scatter(&d1, &d2, &labels);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let drawn = count(&doc, "circle", plot::POINT_COLOR) - 1;
    assert!(drawn <= plot::MAX_POINTS, "{drawn}");
    assert!(
        svg.contains(&format!("{drawn} points (one trial in 3 of {n})")),
        "thinning is stated"
    );
}

// ---------------------------------------------------------------------------
// Reports of real runs.

#[test]
fn summary_json_matches_the_runs_numbers() {
    let root = temp_root("json");
    for o in [
        sum_outcome("reports::json_sum", 300),
        flaky_outcome("reports::json_flaky", 300),
    ] {
        let before = SystemTime::now();
        let page = report::write_under(&o, &root).unwrap();
        let after = SystemTime::now();
        let dir = page.parent().unwrap();
        assert_eq!(dir, root.join(report::test_dir_name(&o.names().test)));
        let j = read_json(&dir.join(SUMMARY_FILE));
        check_json(&j, &o, before, after);
        for (key, file) in j["files"].as_object().unwrap() {
            assert!(dir.join(file.as_str().unwrap()).is_file(), "{key}");
        }
    }
    clean(&root);
}

/// Naive summation in `f32`, returned in FP8 E4M3 (saturating, as an FP8
/// kernel's `satfinite` cast does).
fn naive_e4m3(x: &Vec<f32>) -> E4m3 {
    E4m3::from_f32_saturating(naive(x))
}

#[test]
fn fp8_candidates_are_reported_in_their_format() {
    let root = temp_root("fp8");
    let o = DualDelta::new(naive_e4m3, kahan, exact, input)
        .names(names("reports::fp8_sum"))
        .metric(Metric::MaxUlp)
        .n(120)
        .seed(5)
        .run()
        .expect("the run completes");
    assert_eq!(o.candidate_format(), NumberFormat::E4m3);
    // The f32 sum rounded once to e4m3: half a unit in its last place,
    // give or take the f32 sum's own (tiny) error.
    let max = o.summaries().candidate.max;
    assert!(max <= 0.5 + 1e-3 && max > 0.1, "{max}");
    let before = SystemTime::now();
    let page = report::write_under(&o, &root).unwrap();
    let after = SystemTime::now();
    let text = fs::read_to_string(page.parent().unwrap().join(SUMMARY_FILE)).unwrap();
    let j: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(j["candidate_format"], "e4m3");
    check_json(&j, &o, before, after);
    let summary = SummaryJson::read(&text).unwrap();
    assert_eq!(summary.candidate_format, NumberFormat::E4m3);
    clean(&root);
}

#[test]
fn summary_json_reads_back_as_a_summary() {
    let root = temp_root("summary_type");
    for o in [
        sum_outcome("reports::summary_sum", 120),
        flaky_outcome("reports::summary_flaky", 120),
    ] {
        let page = report::write_under(&o, &root).unwrap();
        let text = fs::read_to_string(page.parent().unwrap().join(SUMMARY_FILE)).unwrap();
        let summary = SummaryJson::read(&text).unwrap();
        assert_eq!(&*summary.names, o.names());
        assert_eq!(summary.judgement.passed(), o.passed());
        assert_eq!(summary.tests.0.len(), o.analysis().rows().len());
        for (row, (key, test)) in o.analysis().rows().iter().zip(&summary.tests.0) {
            assert_eq!((row.key, row.name), (key.as_ref(), test.name.as_ref()));
        }
        let max = summary.summaries.candidate.max;
        assert!(same(max, o.summaries().candidate.max), "{max}");
        // Written again, it is the same document, field for field.
        let again = serde_json::to_string_pretty(&summary).unwrap() + "\n";
        assert_eq!(again, text);
    }
    clean(&root);
}

#[test]
fn non_finite_errors_are_counted_not_dropped() {
    let o = flaky_outcome("reports::non_finite", 200);
    let nf = o.delta1().iter().filter(|x| !x.is_finite()).count();
    assert!(
        nf > 0 && nf < 200,
        "the flaky candidate fails on some trials: {nf}"
    );
    let root = temp_root("non_finite");
    let page = report::write_under(&o, &root).unwrap();
    let dir = page.parent().unwrap();
    let j = read_json(&dir.join(SUMMARY_FILE));
    assert_eq!(
        j["summaries"]["candidate"]["non_finite"].as_u64(),
        Some(nf as u64)
    );
    assert_eq!(j["summaries"]["candidate"]["max"], "inf");
    // Every trial's seed is written as a failure prints it: the first
    // non-finite trial's, in its list and where it decided the run.
    let first = o.non_finite().candidate[0];
    let hex = format!("{:#018x}", first.seed);
    assert_eq!(
        j["non_finite_outputs"]["candidate"][0]["seed"],
        hex.as_str()
    );
    assert_eq!(j["judgement"]["decided_by"]["by"], "non_finite");
    assert_eq!(j["judgement"]["decided_by"]["seed"], hex.as_str());
    assert_eq!(
        first.seed,
        dual_delta_runtime::generate::trial_seed(7, first.trial),
        "the seed replays its trial"
    );
    // A summary that wrote these seeds as integers still reads.
    let text = fs::read_to_string(dir.join(SUMMARY_FILE)).unwrap();
    let older = text.replace(
        &format!("\"seed\": \"{hex}\""),
        &format!("\"seed\": {}", first.seed),
    );
    assert_ne!(older, text);
    let read = SummaryJson::read(&older).expect("integer seeds read");
    assert_eq!(
        read.judgement.decided_by(),
        dual_delta_runtime::decision::DecidedBy::NonFinite {
            trial: first.trial,
            seed: first.seed
        }
    );
    let csv = fs::read_to_string(dir.join(DELTAS_FILE)).unwrap();
    assert_eq!(csv.matches(",inf,").count(), nf);
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("Non-finite errors"));
    clean(&root);
}

#[test]
fn deltas_csv_has_one_row_per_trial() {
    let root = temp_root("csv");
    for o in [
        sum_outcome("reports::csv_sum", 250),
        flaky_outcome("reports::csv_flaky", 250),
    ] {
        let page = report::write_under(&o, &root).unwrap();
        let csv = fs::read_to_string(page.parent().unwrap().join(DELTAS_FILE)).unwrap();
        check_csv(&csv, &o);
    }
    clean(&root);
}

#[test]
fn svg_plots_of_a_run_are_well_formed_with_both_series() {
    let root = temp_root("svg");
    for o in [
        sum_outcome("reports::svg_sum", 300),
        flaky_outcome("reports::svg_flaky", 300),
    ] {
        let page = report::write_under(&o, &root).unwrap();
        let dir = page.parent().unwrap();
        let svgs = PLOT_FILES.map(|f| fs::read_to_string(dir.join(f)).unwrap());
        check_plots(
            &svgs,
            o.delta1(),
            o.delta2(),
            &o.names().candidate,
            &o.names().baseline,
        );
        for svg in &svgs {
            let doc = roxmltree::Document::parse(svg).unwrap();
            let all = svg_texts(&doc).join("\n");
            assert!(all.contains(o.settings().metric().name()), "axis unit");
        }
    }
    clean(&root);
}

#[test]
fn html_links_resolve_and_strings_are_escaped() {
    let root = temp_root("html");
    let o = flaky_outcome("reports::html<&>", 200);
    let page = report::write_under(&o, &root).unwrap();
    let dir = page.parent().unwrap().to_path_buf();
    let links = check_links(&page);
    for f in PLOT_FILES
        .iter()
        .chain(&[SUMMARY_FILE, DELTAS_FILE, report::EVIDENCE_FILE])
    {
        assert!(links.contains(&dir.join(f)), "the page links {f}");
    }
    assert!(
        links.contains(&dir.join("..").join(INDEX_FILE)),
        "back link"
    );

    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("naive&lt;f32&gt; &amp; &quot;co&quot;"));
    assert!(!html.contains("naive<f32>"));
    let sentence = o.accuracy_sentence();
    let escaped = sentence
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    assert!(html.contains(&escaped), "the verdict sentence");
    assert!(html.contains(if o.passed() { "PASSED" } else { "FAILED" }));
    assert!(html.contains("<pre>"), "the terminal table");
    assert!(
        html.contains(&format!(
            "Replay this run: <code>DUAL_DELTA_SEED={:#x} cargo test -- ",
            o.settings().seed()
        )),
        "the replay command"
    );

    let top = root.join(INDEX_FILE);
    let top_links = check_links(&top);
    assert!(top_links.contains(&dir.join(INDEX_FILE)));

    // A report written with `write_to` alone has no index to link back to.
    let alone = temp_root("html_alone").join("r");
    let page = report::write_to(&o, &alone).unwrap();
    let links = check_links(&page);
    assert!(
        !links
            .iter()
            .any(|l| l.ends_with(Path::new("..").join(INDEX_FILE)))
    );
    clean(&root);
    clean(alone.parent().unwrap());
}

#[test]
fn top_index_lists_every_report_newest_first() {
    let root = temp_root("index");
    let tests = ["reports::first", "reports::second", "reports::third"];
    for t in tests {
        let o = sum_outcome(t, 100);
        report::write_under(&o, &root).unwrap();
        std::thread::sleep(Duration::from_millis(15));
    }
    let top = fs::read_to_string(root.join(INDEX_FILE)).unwrap();
    let at = |t: &str| {
        top.find(&format!("{}/{INDEX_FILE}", report::test_dir_name(t)))
            .unwrap_or_else(|| panic!("{t} listed"))
    };
    assert!(at(tests[2]) < at(tests[1]) && at(tests[1]) < at(tests[0]));
    assert!(top.contains("3 reports"));

    // Rewriting a report moves it to the top and replaces it whole.
    let o = sum_outcome(tests[0], 100);
    report::write_under(&o, &root).unwrap();
    let top = fs::read_to_string(root.join(INDEX_FILE)).unwrap();
    let at = |t: &str| {
        top.find(&format!("{}/{INDEX_FILE}", report::test_dir_name(t)))
            .unwrap()
    };
    assert!(at(tests[0]) < at(tests[2]));
    assert!(top.contains("3 reports"));
    check_links(&root.join(INDEX_FILE));
    clean(&root);
}

#[test]
fn write_to_a_directory_with_other_files_keeps_them() {
    let dir = temp_root("keep");
    fs::write(dir.join("notes.txt"), "mine").unwrap();
    let o = sum_outcome("reports::keep", 50);
    report::write_to(&o, &dir).unwrap();
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    for f in PLOT_FILES
        .iter()
        .chain(&[SUMMARY_FILE, DELTAS_FILE, INDEX_FILE])
    {
        assert!(dir.join(f).is_file(), "{f}");
    }
    clean(&dir);
}

/// Writers in parallel threads (and, through [`child_writer`], parallel
/// processes) all end up in the index, each report complete.
#[test]
fn parallel_writers_leave_a_complete_index() {
    let root = temp_root("parallel");
    // Child processes: this test binary, running only `child_writer`.
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..3)
        .map(|k| {
            Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    "reports::child_writer",
                    "--test-threads",
                    "1",
                ])
                .env("DUAL_DELTA_HOME", &root)
                .env("REPORTS_CHILD", k.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();

    std::thread::scope(|s| {
        for k in 0..6 {
            let root = &root;
            s.spawn(move || {
                // Two threads share a test name: the last writer wins whole.
                let o = sum_outcome(&format!("reports::thread_{}", k.min(4)), 60);
                report::write_under(&o, root).unwrap();
            });
        }
    });
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "child writer failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let mut expected: BTreeSet<String> = (0..5)
        .map(|k| report::test_dir_name(&format!("reports::thread_{k}")))
        .collect();
    expected.extend((0..3).map(|k| report::test_dir_name(&format!("reports::child_{k}"))));
    assert_eq!(report_dirs(&root), expected, "no temporaries are left");
    let links = check_links(&root.join(INDEX_FILE));
    for d in &expected {
        assert!(links.contains(&root.join(d).join(INDEX_FILE)), "{d} listed");
        for f in PLOT_FILES.iter().chain(&[SUMMARY_FILE, DELTAS_FILE]) {
            assert!(root.join(d).join(f).is_file(), "{d}/{f}");
        }
        check_links(&root.join(d).join(INDEX_FILE));
    }
    clean(&root);
}

/// Run by [`parallel_writers_leave_a_complete_index`] in a child process:
/// writes one report through [`report::write`], which must honour
/// `DUAL_DELTA_HOME`.
#[test]
#[ignore = "run by parallel_writers_leave_a_complete_index"]
fn child_writer() {
    let Ok(k) = std::env::var("REPORTS_CHILD") else {
        return;
    };
    let home = PathBuf::from(std::env::var("DUAL_DELTA_HOME").unwrap());
    assert_eq!(report::report_root().unwrap(), home);
    let o = sum_outcome(&format!("reports::child_{k}"), 60);
    let page = report::write(&o).unwrap();
    assert_eq!(
        page,
        home.join(report::test_dir_name(&o.names().test))
            .join(INDEX_FILE)
    );
}
