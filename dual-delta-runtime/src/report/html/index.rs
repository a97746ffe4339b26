//! The top-level index: every report under the root, failures first, then
//! skips, then passes, each newest first (`templates/index.html`).

use std::path::Path;

use askama::Template;

use super::super::summary::Summary;
use super::super::{INDEX_FILE, Stored, scan};
use super::{VERSION, url_segment};
use crate::ended::{Skipped, Stopped};

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
    /// The test did not run (its directory holds a `skipped.json`).
    pub(crate) skipped: bool,
    /// Its record cannot be read: a failure, with no page to link to.
    pub(crate) unreadable: bool,
    pub(crate) sentence: String,
}

impl ReportEntry {
    /// The entry of the report in directory `dir`.
    fn new(dir: String, s: Summary<'static>) -> Self {
        let names = s.names.into_owned();
        ReportEntry {
            dir,
            timestamp_ms: s.timestamp_ms,
            time_utc: s.time_utc,
            metric: s.settings.settings.metric.name().to_owned(),
            n: s.settings.settings.n,
            passed: s.judgement.passed,
            skipped: false,
            unreadable: false,
            // A failure leads with its reason, not the statistics.
            sentence: s.sentences.failure.unwrap_or(s.sentences.accuracy),
            test: names.test,
            candidate: names.candidate,
            baseline: names.baseline,
        }
    }

    /// The entry of a skipped test in directory `dir`.
    fn skipped(dir: String, s: Skipped) -> Self {
        let sentence = format!("skipped by the {}: {}", s.role, s.reason);
        Self::without_run(dir, s.test, s.timestamp_ms, true, sentence)
    }

    /// The entry of a run in directory `dir` that could not finish: a
    /// failure.
    fn stopped(dir: String, s: Stopped) -> Self {
        let sentence = format!("could not finish: {}", s.reason);
        Self::without_run(dir, s.test, s.timestamp_ms, false, sentence)
    }

    /// The entry of a report that cannot be read: a failure.
    fn unreadable(dir: String, sentence: String) -> Self {
        ReportEntry {
            unreadable: true,
            ..Self::without_run(dir, String::new(), 0, false, sentence)
        }
    }

    /// The entry of a test with no run to show, written at `timestamp_ms`.
    fn without_run(
        dir: String,
        test: String,
        timestamp_ms: u64,
        skipped: bool,
        sentence: String,
    ) -> Self {
        ReportEntry {
            dir,
            timestamp_ms,
            time_utc: crate::clock::utc(timestamp_ms / 1000),
            test,
            candidate: String::new(),
            baseline: String::new(),
            metric: String::new(),
            n: 0,
            passed: false,
            skipped,
            unreadable: false,
            sentence,
        }
    }

    /// Where it is listed: failures (regressions included) first, then
    /// skips, then passes.
    fn rank(&self) -> u8 {
        match (self.skipped, self.passed) {
            (false, false) => 0,
            (true, _) => 1,
            (false, true) => 2,
        }
    }

    /// When it was written: the date `YYYY-MM-DD` and the time `HH:MM:SS`.
    fn written(&self) -> (&str, &str) {
        let t = self.time_utc.trim_end_matches('Z');
        t.split_once('T').unwrap_or((t, ""))
    }

    /// What its link says: the test's name, or the directory's.
    fn title(&self) -> &str {
        if self.test.is_empty() {
            &self.dir
        } else {
            &self.test
        }
    }
}

/// Every report and skip directly under `root` ([`scan`]): failures first,
/// then skips, then passes, each newest first.
pub(crate) fn scan_reports(root: &Path) -> Vec<ReportEntry> {
    // A root that cannot be read has no report to list.
    let mut out: Vec<ReportEntry> = scan(root)
        .unwrap_or_default()
        .into_iter()
        .map(|(dir, stored)| match stored {
            Stored::Run(r) => ReportEntry::new(dir, *r),
            Stored::Skipped(k) => ReportEntry::skipped(dir, k),
            Stored::Stopped(k) => ReportEntry::stopped(dir, k),
            Stored::Unreadable(u) => {
                let sentence = crate::report::words::unreadable_line(&u);
                ReportEntry::unreadable(dir, sentence)
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.rank()
            .cmp(&b.rank())
            .then_with(|| b.timestamp_ms.cmp(&a.timestamp_ms))
            .then_with(|| a.dir.cmp(&b.dir))
    });
    out
}

#[derive(Template)]
#[template(path = "index.html")]
struct IndexPage<'a> {
    reports: &'a [ReportEntry],
    failed: usize,
    skipped: usize,
}

/// The top-level index: every report, in the order given (see
/// [`scan_reports`]).
pub(crate) fn index_page(reports: &[ReportEntry]) -> String {
    super::render(&IndexPage {
        reports,
        failed: reports.iter().filter(|r| !r.passed && !r.skipped).count(),
        skipped: reports.iter().filter(|r| r.skipped).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lists_failures_first_then_newest_first_and_escapes() {
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
            skipped: false,
            unreadable: false,
            sentence: "s".to_owned(),
        };
        let page = index_page(&[e("new", 2, false), e("old", 1, true)]);
        assert!(page.find("new/index.html").unwrap() < page.find("old/index.html").unwrap());
        let mut entries = [
            e("pass-new", 3, true),
            e("fail-old", 1, false),
            e("pass-old", 2, true),
        ];
        entries.sort_by(|a, b| {
            a.rank()
                .cmp(&b.rank())
                .then(b.timestamp_ms.cmp(&a.timestamp_ms))
        });
        let order: Vec<&str> = entries.iter().map(|r| r.dir.as_str()).collect();
        assert_eq!(order, ["fail-old", "pass-new", "pass-old"]);
        assert!(page.contains("&lt;new&gt;"));
        assert!(page.contains("1 failed"));
    }
}
