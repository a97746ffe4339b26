//! A whole suite's reports: the stored runs under a report directory, the
//! tests skipped for want of a device, several CI shards merged into one
//! directory with one index, one suite summary and one Markdown table, and
//! the suite's error control. `cargo dual-delta` (the `cli` feature) is a
//! thin front end over this module.
//!
//! # Skipped tests
//!
//! A test whose run is skipped (see [`crate::error::skip`], e.g. no GPU and
//! `DUAL_DELTA_GPU=skip`) writes `<test dir>/skipped.json` (`test`,
//! `role`, `reason`, `timestamp_ms`; [`crate::report::write_skipped`])
//! instead of a report, so that a green suite shows how many tests did not
//! run: they are counted and listed, never hidden, here and in the index.
//!
//! # Unreadable reports
//!
//! A report whose record cannot be read ([`crate::report::Stored::Unreadable`]:
//! truncated, empty, not JSON, of another schema, a folder) is counted
//! as `unreadable`, a failure named with its path and what is wrong, kept
//! under any suite budget: a test never drops out of the counts because
//! its file is damaged.
//!
//! # Error control over a suite
//!
//! Each test's false failures are at most its α, so a suite of `m` passing
//! or failing tests at α expects up to `m · α` false failures when nothing
//! is wrong: the summary states that number. With a suite-level budget
//! `A` (`--suite-alpha`, or `DUAL_DELTA_SUITE_ALPHA` read by the command),
//! the failures are sifted by the Benjamini-Hochberg procedure over every
//! test that ran: each test's p-value is its run's
//! ([`crate::decision::Judgement::p_value`]: the deciding test's, or for a run that
//! stopped at an early failure the fail side's e-value turned into one),
//! a passing test's counts as 1, and the `k` smallest are kept where
//! `p_(k) ≤ A k / m`. The tests of a suite are separate runs on their own
//! seeds, hence independent, and Benjamini-Hochberg then keeps the
//! expected share of false failures among those kept at most `A`. A failure
//! at the end of a run carries its criterion's analytic p-value at the
//! margin, as low as its evidence; an early failure stops only once its
//! e-value reaches [`crate::decide::claim::STOP_EVIDENCE`], so a lone early
//! failure is kept in a suite of up to 250 tests at `A = 0.05`. Regressions and gate failures
//! (NaN, panics, an input over a documented bound) are always kept: they are not statistical.
//! A gross-error failure carries its gate's p-value (`2^-k` for `k` gross errors, valid
//! whatever the errors' distribution where the two are equally accurate).
//! So is a failure without a p-value (an expectation other than
//! `no_worse`). What is dropped is listed, with its p-value and the bar it
//! missed.

mod merge;

pub use self::merge::merge;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::decide::DecidedBy;
use crate::report::{Stored, words};

/// The suite summary `merge` writes.
pub const SUITE_FILE: &str = "suite.json";
/// The Markdown table `merge` writes, for a CI job summary.
pub const MARKDOWN_FILE: &str = "summary.md";

/// What became of one test of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SuiteResult {
    /// Every expectation held.
    Passed,
    /// An expectation failed (not a regression).
    Failed,
    /// The candidate is less accurate than at its baseline.
    Regressed,
    /// The test did not run.
    Skipped,
    /// Its report cannot be read (truncated, empty, not a record of this
    /// version, not a file): a failure, never left out.
    Unreadable,
}

impl SuiteResult {
    /// `passed`, `failed`, `regressed` or `skipped`.
    pub fn name(self) -> &'static str {
        match self {
            SuiteResult::Passed => "passed",
            SuiteResult::Failed => "failed",
            SuiteResult::Regressed => "regressed",
            SuiteResult::Skipped => "skipped",
            SuiteResult::Unreadable => "unreadable",
        }
    }

    /// Whether the test failed (a regression and an unreadable report
    /// included).
    pub fn failing(self) -> bool {
        matches!(
            self,
            SuiteResult::Failed | SuiteResult::Regressed | SuiteResult::Unreadable
        )
    }
}

impl std::fmt::Display for SuiteResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One line of the suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuiteTest {
    /// The test's path.
    pub test: String,
    /// What became of it.
    pub result: SuiteResult,
    /// The verdict in words, or why it was skipped.
    pub sentence: String,
    /// The test's α (`null` for a skipped test).
    pub alpha: Option<f64>,
    /// The run's p-value for the suite budget (`null` where none; 0 for a
    /// regression or a gate failure).
    pub p_value: Option<f64>,
    /// Whether a failure survives the suite-level budget (`null` without
    /// one, and for tests that did not fail).
    pub kept_by_suite_alpha: Option<bool>,
    /// The report's directory, relative to the suite's.
    pub dir: String,
}

/// The suite summary (`suite.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuiteSummary {
    /// Tests that passed.
    pub passed: usize,
    /// Tests that failed (regressions not included).
    pub failed: usize,
    /// Tests that regressed against their baseline.
    pub regressed: usize,
    /// Tests skipped for want of a device or feature.
    pub skipped: usize,
    /// Reports that cannot be read, each a failure kept under any budget.
    #[serde(default)]
    pub unreadable: usize,
    /// The shards that hold no report (`merge`): their tests are missing.
    #[serde(default)]
    pub empty_shards: Vec<String>,
    /// False failures expected when nothing is wrong: the sum of the α of
    /// the tests that ran.
    pub expected_false_failures: f64,
    /// The suite-level budget, if one was given.
    pub suite_alpha: Option<f64>,
    /// Failures that survive the budget (all failures without one,
    /// unreadable reports included).
    pub failures_kept: usize,
    /// The Benjamini-Hochberg bar: failures with a p-value at or below it
    /// are kept (`None` without a budget; 0 when no statistical failure
    /// is kept).
    #[serde(default)]
    pub bar: Option<f64>,
    /// Every test, sorted by path.
    pub tests: Vec<SuiteTest>,
}

impl SuiteSummary {
    /// `P passed, F failed, R regressed, S skipped`, with `, U
    /// unreadable` where reports could not be read: the counts every
    /// listing prints.
    pub fn counts(&self) -> String {
        words::suite_counts([
            self.passed,
            self.failed,
            self.regressed,
            self.skipped,
            self.unreadable,
        ])
    }

    /// What a merge says of each shard that held no report (each a
    /// failure), one line each.
    pub fn empty_shard_lines(&self) -> Vec<String> {
        self.empty_shards
            .iter()
            .map(|s| words::empty_shard_line(s))
            .collect()
    }
}

/// The suite of the tests in `stored`, with the failures sifted at
/// `suite_alpha` by Benjamini-Hochberg when given.
pub fn summarise(stored: &BTreeMap<String, Stored>, suite_alpha: Option<f64>) -> SuiteSummary {
    let mut summary = SuiteSummary {
        suite_alpha,
        ..SuiteSummary::default()
    };
    for (dir, s) in stored {
        let t = match s {
            Stored::Run(r) => {
                let j = &r.judgement;
                let regressed = j.regressed;
                // Certain: kept under any budget. A gross-error failure
                // carries its gate's p-value instead.
                let gate = matches!(
                    j.decided_by,
                    DecidedBy::NonFinite { .. } | DecidedBy::Bound { .. }
                );
                let alpha = r.settings.settings.alpha;
                let result = if j.passed {
                    SuiteResult::Passed
                } else if regressed {
                    SuiteResult::Regressed
                } else {
                    SuiteResult::Failed
                };
                summary.expected_false_failures += alpha;
                SuiteTest {
                    test: r.names.test.clone(),
                    result,
                    sentence: r
                        .sentences
                        .failure
                        .clone()
                        .unwrap_or_else(|| r.sentences.verdict.clone()),
                    alpha: Some(alpha),
                    p_value: if regressed || gate {
                        Some(0.0)
                    } else {
                        j.p_value
                    },
                    kept_by_suite_alpha: None,
                    dir: dir.clone(),
                }
            }
            Stored::Stopped(k) => SuiteTest {
                test: k.test.clone(),
                result: SuiteResult::Failed,
                sentence: format!("could not finish: {}", k.reason),
                alpha: None,
                // Like a gate failure: kept under any suite budget.
                p_value: Some(0.0),
                kept_by_suite_alpha: None,
                dir: dir.clone(),
            },
            Stored::Unreadable(u) => SuiteTest {
                test: u.dir.clone(),
                result: SuiteResult::Unreadable,
                sentence: words::unreadable_line(u),
                alpha: None,
                p_value: Some(0.0),
                kept_by_suite_alpha: None,
                dir: dir.clone(),
            },
            Stored::Skipped(k) => SuiteTest {
                test: k.test.clone(),
                result: SuiteResult::Skipped,
                sentence: format!("skipped by the {}: {}", k.role, k.reason),
                alpha: None,
                p_value: None,
                kept_by_suite_alpha: None,
                dir: dir.clone(),
            },
        };
        *match t.result {
            SuiteResult::Passed => &mut summary.passed,
            SuiteResult::Failed => &mut summary.failed,
            SuiteResult::Regressed => &mut summary.regressed,
            SuiteResult::Skipped => &mut summary.skipped,
            SuiteResult::Unreadable => &mut summary.unreadable,
        } += 1;
        summary.tests.push(t);
    }
    summary.tests.sort_by(|a, b| a.test.cmp(&b.test));
    summary.failures_kept = summary.failed + summary.regressed + summary.unreadable;
    if let Some(a) = suite_alpha {
        // A failure without a p-value is kept: it counts as 0.
        let p = |t: &SuiteTest| {
            if t.result.failing() {
                t.p_value.unwrap_or(0.0)
            } else {
                1.0
            }
        };
        let ran: Vec<f64> = summary
            .tests
            .iter()
            .filter(|t| t.result != SuiteResult::Skipped)
            .map(p)
            .collect();
        let bar = bh(&ran, a).map_or(-1.0, |(_, p)| p);
        summary.bar = Some(bar.max(0.0));
        summary.failures_kept = 0;
        for t in summary.tests.iter_mut().filter(|t| t.result.failing()) {
            let keep = t.p_value.unwrap_or(0.0) <= bar;
            t.kept_by_suite_alpha = Some(keep);
            summary.failures_kept += usize::from(keep);
        }
    }
    summary
}

/// The Benjamini-Hochberg procedure at level `a` over the p-values `p`:
/// the number `k` of hypotheses rejected, the largest with
/// `p_(k) ≤ a k / m`, and the bar `p_(k)` (every p-value at or below it is
/// rejected); `None` when nothing is.
pub fn bh(p: &[f64], a: f64) -> Option<(usize, f64)> {
    let m = p.len() as f64;
    let mut sorted: Vec<f64> = p.to_vec();
    sorted.sort_by(f64::total_cmp);
    (1..=sorted.len())
        .rev()
        .find(|&k| sorted[k - 1] <= a * k as f64 / m)
        .map(|k| (k, sorted[k - 1]))
}

/// The suite as a Markdown table, for a CI job summary: counts first, then
/// one row per test that did not pass (a dropped failure says why).
pub fn markdown(s: &SuiteSummary) -> String {
    let mut out = format!(
        "### dual-delta suite\n\n{} ({} tests); \
         up to {:.2} false failures expected at the tests' α{}\n\n",
        s.counts(),
        s.tests.len(),
        s.expected_false_failures,
        s.suite_alpha
            .map(|a| format!(
                "; {} of {} failures kept by Benjamini-Hochberg at suite α = {a}",
                s.failures_kept,
                s.failed + s.regressed + s.unreadable
            ))
            .unwrap_or_default()
    );
    for shard in &s.empty_shards {
        out.push_str(&format!("{}\n\n", words::empty_shard_line(shard)));
    }
    out.push_str("| test | result | verdict |\n| --- | --- | --- |\n");
    for t in s.tests.iter().filter(|t| t.result != SuiteResult::Passed) {
        let result = match (t.kept_by_suite_alpha, t.p_value, s.bar) {
            (Some(false), Some(p), Some(bar)) => format!(
                "{} (dropped: suite p = {p:.2e} above the Benjamini-Hochberg bar {bar:.2e})",
                t.result
            ),
            _ => t.result.name().to_owned(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            t.test,
            result,
            t.sentence.replace('|', "\\|")
        ));
    }
    out
}
