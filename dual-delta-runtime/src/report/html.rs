//! The report's pages: one `index.html` per test, and the top-level
//! `index.html` listing every report.
//!
//! The pages are self-contained (inline CSS, no scripts, nothing fetched):
//! they open offline from the file system. The plots are referenced as
//! `<img>` by relative path, as are `summary.json` and `deltas.csv`. Every
//! string from user code is escaped. The pages are also well-formed XML, so
//! that they can be checked with an XML parser.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::SystemTime;

use crate::outcome::Outcome;
use crate::stats::Summary as Sample;

use super::summary::Summary;

use super::terminal::{num, pval};
use super::{DELTAS_FILE, INDEX_FILE, PLOT_FILES, SUMMARY_FILE};

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes a relative path segment for an `href`.
fn url_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1700px; padding: 0 24px; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.5em; margin: 0 0 4px 0; word-break: break-all; }
h2 { font-size: 1.15em; margin: 28px 0 8px 0; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.sub { color: #555; margin: 0 0 16px 0; }
.verdict { border-radius: 8px; padding: 14px 18px; margin: 16px 0; font-size: 1.1em; }
.verdict.pass { background: #e6f4ea; border: 2px solid #1e8e3e; }
.verdict.fail { background: #fce8e6; border: 2px solid #d93025; }
.badge { display: inline-block; font-weight: bold; padding: 2px 10px; border-radius: 4px; color: #fff;
         margin-right: 10px; font-size: 0.9em; }
.badge.pass { background: #1e8e3e; }
.badge.fail { background: #d93025; }
.badge.unknown { background: #888; }
.verdict p { margin: 6px 0; }
table { border-collapse: collapse; margin: 8px 0; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; }
td.l, th.l { text-align: left; }
td.nw { white-space: nowrap; }
td.brk { overflow-wrap: anywhere; min-width: 8em; }
tr.sig td { background: #fff4e5; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(620px, 1fr)); gap: 16px; }
.plots figure { margin: 0; background: #fff; border: 1px solid #ddd; padding: 8px; }
.plots img { width: 100%; height: auto; }
.plots figcaption { color: #555; font-size: 0.9em; margin-top: 4px; }
pre { background: #fff; border: 1px solid #ddd; padding: 12px; overflow-x: auto; font-size: 12.5px; }
.note { background: #fff8e1; border-left: 4px solid #f9a825; padding: 8px 12px; margin: 8px 0; }
.links a { margin-right: 18px; }
code { background: #f0f0f0; padding: 1px 4px; border-radius: 3px; }
"#;

fn page_start(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
}

fn page_end(out: &mut String) {
    out.push_str(&format!(
        "<p class=\"sub\">Written by dual-delta {}.</p>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    ));
}

fn summary_cells(out: &mut String, label: &str, s: &Sample) {
    let _ = write!(
        out,
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td>",
        escape(label),
        s.n,
        s.non_finite
    );
    for v in [
        s.mean, s.median, s.std, s.min, s.p50, s.p90, s.p95, s.p99, s.max,
    ] {
        let _ = write!(out, "<td>{}</td>", escape(&num(v)));
    }
    out.push_str("</tr>\n");
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
    let a = &o.analysis;
    let passed = o.passed();
    let mut out = String::with_capacity(32 * 1024);
    page_start(&mut out, &format!("dual-delta: {}", n.test));

    let secs = written
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let _ = write!(
        out,
        "<h1>{}</h1>\n<p class=\"sub\"><b>{}</b> (candidate, Δ1, {}) vs <b>{}</b> (baseline, Δ2), \
         both measured against the oracle <b>{}</b> on inputs from <b>{}</b>. \
         Metric <code>{}</code>, n = {}, α = {}, written {}.</p>\n",
        escape(&n.test),
        escape(&n.candidate),
        o.candidate_format,
        escape(&n.baseline),
        escape(&n.oracle),
        escape(&n.input),
        escape(s.metric.name()),
        s.n,
        s.alpha,
        super::json::utc(secs)
    );

    // The verdict, prominently.
    let class = if passed { "pass" } else { "fail" };
    let expectation = match s.stability {
        Some(st) => format!(
            "expected: accuracy <code>{}</code>, stability <code>{}</code>",
            s.expect, st
        ),
        None => format!("expected: accuracy <code>{}</code>", s.expect),
    };
    let nf = &o.non_finite;
    let non_finite = if nf.candidate.is_empty() && nf.baseline.is_empty() {
        String::new()
    } else {
        format!(
            "<p>Non-finite outputs (NaN or infinity): {} on {} of {} trials, {} on {} \
             ({} where only the candidate's was not finite{}).</p>\n",
            escape(&n.candidate),
            nf.candidate.len(),
            o.delta1.len(),
            escape(&n.baseline),
            nf.baseline.len(),
            nf.candidate_only().len(),
            if o.non_finite_gate() {
                ": this fails the test"
            } else if s.allow_non_finite {
                ": allowed by this test"
            } else {
                ""
            }
        )
    };
    let gate = if o.non_finite_gate() {
        format!(
            "<p><b>{}</b></p>\n",
            escape(&format!(
                "{} returned a non-finite value where {} and the oracle were finite.",
                n.candidate, n.baseline
            ))
        )
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<div class=\"verdict {class}\">\n<p><span class=\"badge {class}\">{}</span>{expectation}</p>\n\
         {gate}<p><b>{}</b></p>\n<p>{}</p>\n{non_finite}</div>\n",
        if passed { "PASSED" } else { "FAILED" },
        escape(&o.verdict.accuracy_sentence(&n.candidate, &n.baseline)),
        escape(&o.verdict.stability_sentence(&n.candidate, &n.baseline)),
    );
    if let Some(why) = &a.fallback {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(why));
    }
    let (nf1, nf2) = (
        o.summaries.candidate.non_finite,
        o.summaries.baseline.non_finite,
    );
    if nf1 + nf2 > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">Non-finite errors (an implementation returned NaN or an infinity): \
             Δ1 {nf1} of {}, Δ2 {nf2} of {}. They count as the largest errors in the rank tests, \
             and are marked on the edge of the plots rather than drawn among the others.</p>",
            o.delta1.len(),
            o.delta2.len()
        );
    }

    out.push_str("<p class=\"links\">");
    if back_link {
        let _ = write!(out, "<a href=\"../{INDEX_FILE}\">all reports</a>");
    }
    let _ = writeln!(
        out,
        "<a href=\"{SUMMARY_FILE}\">{SUMMARY_FILE}</a><a href=\"{DELTAS_FILE}\">{DELTAS_FILE}</a></p>"
    );

    // Descriptive statistics.
    let _ = writeln!(
        out,
        "<h2>Errors ({})</h2>\n<table>\n<tr><th class=\"l\">sample</th><th>n</th><th>non-finite</th>\
         <th>mean</th><th>median</th><th>std</th><th>min</th><th>P50</th><th>P90</th><th>P95</th>\
         <th>P99</th><th>max</th></tr>",
        escape(s.metric.name())
    );
    summary_cells(
        &mut out,
        &format!("Δ1 {}", n.candidate),
        &o.summaries.candidate,
    );
    summary_cells(
        &mut out,
        &format!("Δ2 {}", n.baseline),
        &o.summaries.baseline,
    );
    summary_cells(&mut out, "Δ1 − Δ2", &o.summaries.differences);
    out.push_str("</table>\n");
    match &o.ratio_of_means {
        Ok(r) => {
            let _ = writeln!(
                out,
                "<p>Ratio of mean errors mean Δ1 / mean Δ2 = <b>{:.4}</b> ({}% paired bootstrap \
                 interval {:.4} .. {:.4}, {} resamples).</p>",
                r.ratio,
                r.confidence * 100.0,
                r.lower,
                r.upper,
                r.resamples
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "<p>Ratio of mean errors: not computed ({}).</p>",
                escape(&e.to_string())
            );
        }
    }
    match &a.hodges_lehmann {
        Ok(h) => {
            let _ = writeln!(
                out,
                "<p>Hodges-Lehmann estimate of the shift Δ1 − Δ2: {}.</p>",
                escape(&num(*h))
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "<p>Hodges-Lehmann estimate: not computed ({}).</p>",
                escape(&e.to_string())
            );
        }
    }

    // Every test.
    let _ = writeln!(
        out,
        "<h2>Tests (α = {})</h2>\n<p>The deciding accuracy test is the one-sided {}{}; \
         highlighted rows are significant at α.</p>\n<table>\n<tr><th class=\"l\">test</th>\
         <th class=\"l\">H1</th><th>statistic</th><th>p-value</th><th class=\"l\">method</th>\
         <th class=\"l\">p &lt; α</th></tr>",
        s.alpha,
        escape(a.accuracy_test.name()),
        if s.margin > 0.0 {
            format!(
                " (the \"worse\" row tests Δ1 against (1 + {}) × Δ2)",
                s.margin
            )
        } else {
            String::new()
        }
    );
    for row in a.rows() {
        let label = if row.deciding() {
            format!("{} (deciding)", row.name)
        } else {
            row.name.to_owned()
        };
        match row.outcome {
            Ok(t) => {
                let sig = t.p_value < s.alpha;
                let _ = writeln!(
                    out,
                    "<tr{}><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>\
                     <td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
                    if sig { " class=\"sig\"" } else { "" },
                    escape(&label),
                    escape(row.h1),
                    escape(&num(t.statistic)),
                    escape(&pval(t.p_value)),
                    t.method,
                    if sig { "yes" } else { "no" }
                );
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>\
                     <td class=\"l\" colspan=\"4\">not computed: {}</td></tr>",
                    escape(&label),
                    escape(row.h1),
                    escape(&e.to_string())
                );
            }
        }
    }
    out.push_str("</table>\n");

    // The plots.
    out.push_str("<h2>Plots</h2>\n<div class=\"plots\">\n");
    let captions = [
        "Overlapping histograms of Δ1 and Δ2 over shared bins.",
        "Box plots: quartiles, whiskers to 1.5 × IQR, outliers, mean (×).",
        "Quantiles of Δ1 against quantiles of Δ2; on the diagonal the distributions agree.",
        "Each trial's Δ1 against its Δ2; below the diagonal the candidate did worse.",
    ];
    for (file, caption) in PLOT_FILES.iter().zip(captions) {
        let _ = writeln!(
            out,
            "<figure><a href=\"{file}\"><img src=\"{file}\" alt=\"{}\"/></a>\
             <figcaption>{caption}</figcaption></figure>",
            escape(caption)
        );
    }
    out.push_str("</div>\n");

    // Replay.
    let worst = o.worst_trial();
    let _ = writeln!(
        out,
        "<h2>Replay</h2>\n<p>Replay this run: <code>{}={:#x}</code> (base seed {}, {}). \
         The candidate's worst trial is #{worst}: error {}, trial seed <code>{:#018x}</code> \
         (<code>TrialRng::from_trial_seed</code> regenerates its input).</p>",
        crate::config::ENV_SEED,
        s.seed,
        s.seed,
        escape(&format!("{:?}", s.seed_source).to_lowercase()),
        escape(&num(o.delta1.get(worst).copied().unwrap_or(f64::NAN))),
        o.trial_seed(worst)
    );

    // The terminal table.
    let _ = writeln!(
        out,
        "<h2>Terminal summary</h2>\n<pre>{}</pre>",
        escape(&super::terminal::table(o, page))
    );

    // Settings and environment.
    out.push_str("<h2>Settings and environment</h2>\n<table>\n");
    let mut kv = |k: &str, v: String| {
        let _ = writeln!(
            out,
            "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>",
            escape(k),
            escape(&v)
        );
    };
    kv("test", n.test.clone());
    kv(
        "candidate",
        format!("{} ({})", n.candidate, o.candidate_format),
    );
    kv("baseline", n.baseline.clone());
    kv("oracle", n.oracle.clone());
    kv("input", n.input.clone());
    kv("metric", s.metric.name().to_owned());
    kv("n", s.n.to_string());
    kv("α", s.alpha.to_string());
    kv("base seed", format!("{} ({:#018x})", s.seed, s.seed));
    kv("seed source", format!("{:?}", s.seed_source).to_lowercase());
    kv("expect", s.expect.to_string());
    kv(
        "stability",
        s.stability.map_or("none".to_owned(), |e| e.to_string()),
    );
    kv("requested test", s.test.name().to_owned());
    kv("margin δ", s.margin.to_string());
    kv(
        "threads",
        s.threads.map_or("all cores".to_owned(), |t| t.to_string()),
    );
    kv(
        "time",
        format!(
            "trials {:.3} s, total {:.3} s",
            o.trial_time.as_secs_f64(),
            o.elapsed.as_secs_f64()
        ),
    );
    for (k, v) in &o.environment {
        kv(k, v.clone());
    }
    out.push_str("</table>\n");
    page_end(&mut out);
    out
}

/// What the top-level index shows of one report (read back from its
/// `summary.json`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReportEntry {
    /// The report's directory name under the root.
    pub(crate) dir: String,
    pub(crate) timestamp_ms: u64,
    pub(crate) time_utc: String,
    pub(crate) test: String,
    pub(crate) candidate: String,
    pub(crate) baseline: String,
    pub(crate) metric: String,
    pub(crate) n: usize,
    pub(crate) passed: bool,
    pub(crate) sentence: String,
}

impl ReportEntry {
    /// The entry of the report in directory `dir`.
    fn new(dir: String, s: Summary) -> Self {
        ReportEntry {
            dir,
            timestamp_ms: s.timestamp_ms,
            time_utc: s.time_utc,
            test: s.names.test,
            candidate: s.names.candidate,
            baseline: s.names.baseline,
            metric: s.settings.metric,
            n: s.settings.n,
            passed: s.passed,
            sentence: s.verdict.accuracy_sentence,
        }
    }
}

/// Every report directly under `root` (directories holding a `summary.json`
/// that reads as a [`Summary`], hidden ones skipped), newest first.
pub(crate) fn scan_reports(root: &Path) -> Vec<ReportEntry> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(root) else {
        return out;
    };
    for entry in entries.flatten() {
        let dir = entry.file_name().to_string_lossy().into_owned();
        if dir.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        let Ok(text) = fs::read_to_string(entry.path().join(SUMMARY_FILE)) else {
            continue;
        };
        let Ok(summary) = serde_json::from_str::<Summary>(&text) else {
            continue;
        };
        out.push(ReportEntry::new(dir, summary));
    }
    out.sort_by(|a, b| {
        b.timestamp_ms
            .cmp(&a.timestamp_ms)
            .then_with(|| a.dir.cmp(&b.dir))
    });
    out
}

/// The top-level index: every report, newest first.
pub(crate) fn index_page(reports: &[ReportEntry]) -> String {
    let mut out = String::with_capacity(4096 + 512 * reports.len());
    page_start(&mut out, "dual-delta reports");
    let failed = reports.iter().filter(|r| !r.passed).count();
    let _ = writeln!(
        out,
        "<h1>dual-delta reports</h1>\n<p class=\"sub\">{} report{}, {} failed; newest first.</p>",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        failed
    );
    out.push_str(
        "<table>\n<tr><th class=\"l\">written (UTC)</th><th class=\"l\">result</th>\
         <th class=\"l\">test</th><th class=\"l\">candidate vs baseline</th><th class=\"l\">metric</th>\
         <th>n</th><th class=\"l\">verdict</th></tr>\n",
    );
    for r in reports {
        let (class, label) = if r.passed {
            ("pass", "PASSED")
        } else {
            ("fail", "FAILED")
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"l nw\">{}</td><td class=\"l\"><span class=\"badge {class}\">{label}</span></td>\
             <td class=\"l brk\"><a href=\"{}/{INDEX_FILE}\">{}</a></td><td class=\"l\">{} vs {}</td>\
             <td class=\"l brk\">{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            escape(&r.time_utc.replace('T', " ").replace('Z', "")),
            url_segment(&r.dir),
            escape(if r.test.is_empty() { &r.dir } else { &r.test }),
            escape(&r.candidate),
            escape(&r.baseline),
            escape(&r.metric),
            r.n,
            escape(&r.sentence)
        );
    }
    out.push_str("</table>\n");
    page_end(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(url_segment("a b/ü.c"), "a%20b%2F%C3%BC.c");
    }

    #[test]
    fn index_lists_newest_first_and_escapes() {
        let e = |dir: &str, t: u64, passed| ReportEntry {
            dir: dir.to_owned(),
            timestamp_ms: t,
            time_utc: "2026-01-01T00:00:00Z".to_owned(),
            test: format!("<{dir}>"),
            candidate: "c".to_owned(),
            baseline: "b".to_owned(),
            metric: "max_hybrid".to_owned(),
            n: 10,
            passed,
            sentence: "s".to_owned(),
        };
        let page = index_page(&[e("new", 2, false), e("old", 1, true)]);
        assert!(page.find("new/index.html").unwrap() < page.find("old/index.html").unwrap());
        assert!(page.contains("&lt;new&gt;"));
        assert!(page.contains("1 failed"));
    }
}
