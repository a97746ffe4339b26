//! [`Reporter`]: one trait for every view of a run.
//!
//! The terminal table, the failure message, the HTML page and its plots,
//! `summary.json`, `deltas.csv` and the GitHub step summary's row each
//! read the [`Outcome`] and its
//! [`Judgement`](crate::Judgement) and render them; none of them decides
//! anything (no threshold, no recomputed significance: a test is
//! significant when [`Judgement::significant`](crate::Judgement::significant)
//! says so). The run never calls a reporter; reports read the outcome,
//! never the reverse. [`super::publish`] calls every one of them.

use std::path::Path;
use std::time::SystemTime;

use super::step_summary::ReportAt;
use super::{DELTAS_FILE, SUMMARY_FILE, csv, json, step_summary, terminal};
#[cfg(feature = "html")]
use super::{INDEX_FILE, html};
use crate::outcome::Outcome;

/// What a reporter knows besides the outcome: when the report is written,
/// where (or why not), and whether its page links back to the index.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The report's timestamp.
    pub written: SystemTime,
    /// The path of the test's `index.html`, or why no report was written.
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

/// One view of a run's outcome.
pub trait Reporter {
    /// The file this reporter's text goes to in a test's report directory,
    /// or `None` when it goes elsewhere (the terminal, the step summary).
    fn file(&self) -> Option<&'static str> {
        None
    }

    /// Whether it has something to show for `outcome` (the regression plot
    /// only where the run was compared with a baseline).
    fn shows(&self, outcome: &Outcome) -> bool {
        let _ = outcome;
        true
    }

    /// The outcome, rendered.
    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String;
}

/// The compact table printed after a run that passed.
#[derive(Clone, Copy, Debug)]
pub struct Terminal;

/// The message a failing test panics with: the reason first, the largest
/// errors with their inputs, the replay command and the report's path.
#[derive(Clone, Copy, Debug)]
pub struct FailureMessage;

/// The test's HTML page (the `html` feature).
#[cfg(feature = "html")]
#[derive(Clone, Copy, Debug)]
pub struct Html;

/// `summary.json` (see [`super::json`]).
#[derive(Clone, Copy, Debug)]
pub struct Json;

/// `deltas.csv` (see [`super::csv`]).
#[derive(Clone, Copy, Debug)]
pub struct Csv;

/// The row of the GitHub Actions job summary (see [`super::step_summary`]).
#[derive(Clone, Copy, Debug)]
pub struct StepSummary;

impl Reporter for Terminal {
    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String {
        terminal::table(outcome, cx.page())
    }
}

impl Reporter for FailureMessage {
    fn shows(&self, outcome: &Outcome) -> bool {
        !outcome.passed()
    }

    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String {
        terminal::failure(outcome, cx.page())
    }
}

#[cfg(feature = "html")]
impl Reporter for Html {
    fn file(&self) -> Option<&'static str> {
        Some(INDEX_FILE)
    }

    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String {
        html::test_page(outcome, cx.written, cx.page(), cx.back_link)
    }
}

impl Reporter for Json {
    fn file(&self) -> Option<&'static str> {
        Some(SUMMARY_FILE)
    }

    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String {
        json::to_string(outcome, cx.written)
    }
}

impl Reporter for Csv {
    fn file(&self) -> Option<&'static str> {
        Some(DELTAS_FILE)
    }

    fn render(&self, outcome: &Outcome, _: &Context<'_>) -> String {
        csv::to_string(outcome)
    }
}

impl Reporter for StepSummary {
    fn render(&self, outcome: &Outcome, cx: &Context<'_>) -> String {
        step_summary::row(outcome, cx.at)
    }
}
