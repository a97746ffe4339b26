//! One publish: how a test ended, written everywhere it is shown.
//!
//! [`publish`] is the one call an annotated test makes once it knows how it
//! ended: a run with its [`Outcome`] (decided, its check included), a test
//! its own functions skipped, or a run that could not finish (an error, a
//! panic, a call past its time limit). Each is written under the report
//! root (the run's report by every [`FILE_REPORTERS`] reporter, or
//! `skipped.json` / `stopped.json`), the top-level index is rebuilt, a row
//! goes to the CI step summary, and the text for the terminal comes back:
//! the table of a run that passed, the [`FailureMessage`] of one that
//! failed. A report that cannot be written never changes how the test
//! ended, but is never silent: a warning goes straight to the terminal,
//! past the test harness's capture, and into the text.

use std::io;
use std::path::{Path, PathBuf};

use super::reporter::{Context, FailureMessage, Reporter, StepSummary, Terminal};
use super::step_summary::{self, ReportAt};
use crate::outcome::Outcome;

/// How a test ended: what [`publish`] writes.
#[derive(Clone, Copy, Debug)]
pub enum Ended<'a> {
    /// A run that finished, with its outcome.
    Ran(&'a Outcome),
    /// A test that its candidate, baseline, oracle or generator skipped
    /// (`dual_delta_runtime::skip`): counted, never hidden.
    Skipped {
        /// The test's path.
        test: &'a str,
        /// The function that skipped it.
        role: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// A run that could not finish: a failure of the test.
    Stopped {
        /// The test's path.
        test: &'a str,
        /// Why, as the failure message says it.
        reason: &'a str,
        /// The command that replays the run.
        replay: &'a str,
        /// Where the test is (`file:line`), where it is known.
        place: Option<&'a str>,
    },
}

impl Ended<'_> {
    /// The test's path.
    pub fn test(&self) -> &str {
        match self {
            Ended::Ran(o) => &o.names.test,
            Ended::Skipped { test, .. } | Ended::Stopped { test, .. } => test,
        }
    }

    /// Whether the test passes: a run that met its expectations, or a skip.
    pub fn passed(&self) -> bool {
        match self {
            Ended::Ran(o) => o.passed(),
            Ended::Skipped { .. } => true,
            Ended::Stopped { .. } => false,
        }
    }
}

/// What [`publish`] left.
#[derive(Clone, Debug)]
pub struct Published {
    /// Whether the test passes ([`Ended::passed`]).
    pub passed: bool,
    /// The text for the terminal: the table of a run that passed, the
    /// failure message of one that failed, the line of a skip or a stop;
    /// with a line for each output that could not be written.
    pub text: String,
    /// The report's front page (`index.html`, or `summary.json` without the
    /// `html` feature; the record of a skip or a stop), or why it was not
    /// written.
    pub at: Result<PathBuf, String>,
}

/// Writes how a test ended everywhere it is shown (see the module docs)
/// and returns the terminal's text.
pub fn publish(ended: Ended<'_>) -> Published {
    let test = ended.test();
    let root =
        crate::config::report_root().map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e));
    let at = root
        .and_then(|root| {
            write(&ended, &root).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot write under {}: {e}", root.display()),
                )
            })
        })
        .map_err(|e| e.to_string());
    let mut notes = String::new();
    if let Err(why) = &at {
        note(&mut notes, test, &format!("report not written: {why}"));
    }
    let report: ReportAt<'_> = match &at {
        Ok(p) => Ok(p.as_path()),
        Err(why) => Err(why.as_str()),
    };
    let cx = Context::now(report);
    let row = match ended {
        Ended::Ran(o) => StepSummary.render(o, &cx),
        Ended::Skipped { role, reason, .. } => step_summary::other_row(
            test,
            "skipped",
            &format!("skipped by the {role}: {reason}"),
            report,
        ),
        Ended::Stopped { reason, .. } => step_summary::other_row(
            test,
            "**failed**",
            &format!("could not finish: {reason}"),
            report,
        ),
    };
    if let Err(e) = step_summary::append_row_from_env(&row) {
        let variable = crate::config::ENV_STEP_SUMMARY;
        note(
            &mut notes,
            test,
            &format!("row not added to {variable}: {e}"),
        );
    }
    let page = at.as_ref().ok().map(PathBuf::as_path);
    let text = match ended {
        Ended::Ran(o) => {
            let reporter: &dyn Reporter = if FailureMessage.shows(o) {
                &FailureMessage
            } else {
                &Terminal
            };
            reporter.render(o, &cx)
        }
        Ended::Skipped { role, reason, .. } => {
            format!("dual-delta test `{test}` skipped by the {role}: {reason}\n")
        }
        Ended::Stopped {
            reason,
            replay,
            place,
            ..
        } => {
            let place = place.map_or_else(String::new, |p| format!(" ({p})"));
            let record = page.map_or_else(String::new, |p| format!("  record: {}\n", p.display()));
            format!(
                "dual-delta test `{test}`{place} could not run: {reason}\n  replay: {replay}\n{record}"
            )
        }
    };
    Published {
        passed: ended.passed(),
        text: text + &notes,
        at,
    }
}

/// Writes what `ended` leaves under `root`, rebuilds the index, and
/// returns the front page.
fn write(ended: &Ended<'_>, root: &Path) -> io::Result<PathBuf> {
    let page = match *ended {
        Ended::Ran(o) => return super::write_under(o, root),
        Ended::Skipped { test, role, reason } => super::write_skipped(root, test, role, reason)?,
        Ended::Stopped {
            test,
            reason,
            replay,
            ..
        } => super::write_stopped(root, test, reason, replay)?,
    };
    #[cfg(feature = "html")]
    super::rebuild_index(root)?;
    Ok(page)
}

/// Adds `what` to the notes and says it on the terminal now, past the
/// test harness's capture, so that a passing test's warning is seen.
fn note(notes: &mut String, test: &str, what: &str) {
    use std::io::Write as _;
    notes.push_str(&format!("  ({what})\n"));
    let _ = writeln!(
        std::io::stderr().lock(),
        "warning: dual-delta test `{test}`: {what}"
    );
}
