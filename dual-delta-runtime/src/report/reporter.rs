//! [`Reporter`]: one trait for every view of how a test ended.
//!
//! The terminal's text, the HTML page and its plots, `summary.json` (or a
//! skip's `skipped.json`, a stop's `stopped.json`), `deltas.csv` and the
//! GitHub step summary's row each read the one event, [`Ended`], and
//! render it; none of them decides anything (no threshold, no recomputed
//! significance: a test is significant when
//! [`Judgement::significant`](crate::decision::Judgement::significant) says so), and
//! each says what it shows of a skip or a stop. The run never calls a
//! reporter; reports read the ending, never the reverse. [`super::publish`]
//! calls every one of them.

use std::path::Path;
use std::time::SystemTime;

use super::step_summary::ReportAt;
use super::{DELTAS_FILE, SKIPPED_FILE, STOPPED_FILE, SUMMARY_FILE, csv, json, step_summary};
#[cfg(feature = "html")]
use super::{INDEX_FILE, html};
use super::{terminal, words};
use crate::ended::Ended;

/// What a reporter knows besides the ending: when the report is written,
/// where (or why not), and whether its page links back to the index.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The report's timestamp.
    pub written: SystemTime,
    /// The path of the test's front page, or why no report was written.
    pub at: ReportAt<'a>,
    /// Whether the test's page links to `../index.html`.
    pub back_link: bool,
}

impl<'a> Context<'a> {
    /// A report written now to the page `page`, or not written (`Err`: why).
    pub fn now(at: ReportAt<'a>) -> Self {
        Context {
            written: SystemTime::now(),
            at,
            back_link: false,
        }
    }

    /// The page, when the report was written.
    pub fn page(&self) -> Option<&'a Path> {
        self.at.ok()
    }
}

/// Where a reporter's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Destination {
    /// A file of the test's report directory.
    File(&'static str),
    /// The CI job's step summary (`GITHUB_STEP_SUMMARY`).
    StepSummary,
    /// The terminal.
    Terminal,
}

/// One view of how a test ended.
pub trait Reporter {
    /// Where this reporter's text for `ended` goes: a file of the test's
    /// report directory, the step summary, or the terminal.
    fn destination(&self, ended: &Ended) -> Destination;

    /// The ending, rendered; `None` where this reporter shows nothing of
    /// it (a plot of a skip, the regression plot without a baseline).
    fn render(&self, ended: &Ended, cx: &Context<'_>) -> Option<String>;
}

/// The terminal's text: the compact table of a run that passed, the
/// failure message (the reason first, the largest errors with their
/// inputs, the replay command and the report's path) of one that failed,
/// the line of a skip or a stop.
#[derive(Clone, Copy, Debug)]
pub struct Terminal;

/// The test's HTML page (the `html` feature).
#[cfg(feature = "html")]
#[derive(Clone, Copy, Debug)]
pub struct Html;

/// `summary.json` of a run (see [`super::json`]), `skipped.json` of a
/// skip, `stopped.json` of a stop.
#[derive(Clone, Copy, Debug)]
pub struct Json;

/// `deltas.csv` (see [`super::csv`]).
#[derive(Clone, Copy, Debug)]
pub struct Csv;

/// The row of the GitHub Actions job summary (see [`super::step_summary`]).
#[derive(Clone, Copy, Debug)]
pub struct StepSummary;

impl Reporter for Terminal {
    fn destination(&self, _: &Ended) -> Destination {
        Destination::Terminal
    }

    fn render(&self, ended: &Ended, cx: &Context<'_>) -> Option<String> {
        Some(match ended {
            Ended::Ran(o) if o.passed() => terminal::table(o, cx.page()),
            Ended::Ran(o) => terminal::failure(o, cx.page()),
            Ended::Skipped(s) => words::skipped_line(s),
            Ended::Stopped(s) => words::stopped_lines(s, cx.page()),
        })
    }
}

#[cfg(feature = "html")]
impl Reporter for Html {
    fn destination(&self, _: &Ended) -> Destination {
        Destination::File(INDEX_FILE)
    }

    fn render(&self, ended: &Ended, cx: &Context<'_>) -> Option<String> {
        let o = ended.outcome()?;
        Some(html::test_page(o, cx.written, cx.page(), cx.back_link))
    }
}

impl Reporter for Json {
    fn destination(&self, ended: &Ended) -> Destination {
        Destination::File(match ended {
            Ended::Skipped(_) => SKIPPED_FILE,
            Ended::Stopped(_) => STOPPED_FILE,
            _ => SUMMARY_FILE,
        })
    }

    fn render(&self, ended: &Ended, cx: &Context<'_>) -> Option<String> {
        let record = |r: Result<String, serde_json::Error>| r.ok().map(|t| t + "\n");
        match ended {
            Ended::Ran(o) => Some(json::to_string(o, cx.written)),
            Ended::Skipped(s) => record(serde_json::to_string_pretty(s)),
            Ended::Stopped(s) => record(serde_json::to_string_pretty(s)),
        }
    }
}

impl Reporter for Csv {
    fn destination(&self, _: &Ended) -> Destination {
        Destination::File(DELTAS_FILE)
    }

    fn render(&self, ended: &Ended, _: &Context<'_>) -> Option<String> {
        Some(csv::to_string(ended.outcome()?))
    }
}

impl Reporter for StepSummary {
    fn destination(&self, _: &Ended) -> Destination {
        Destination::StepSummary
    }

    fn render(&self, ended: &Ended, cx: &Context<'_>) -> Option<String> {
        Some(step_summary::row(ended, cx.at))
    }
}
