//! One publish: how a test ended, written everywhere it is shown.
//!
//! [`publish`] is the one call an annotated test makes once it knows how it
//! ended ([`Ended`]: a run with its outcome, decided, its check included;
//! a skip; a run that could not finish). It is one pass over the
//! reporters ([`REPORTERS`]): the files of the test's report directory
//! first (written whole, then the top-level index rebuilt), then the CI
//! step summary's row and the terminal's text, which name where the report
//! went. What each reporter shows of each ending is the reporter's to
//! say. A report that cannot be written never changes how the test ended,
//! but is never silent: a warning goes straight to the terminal, past the
//! test harness's capture, and into the text.

use std::io;
use std::path::{Path, PathBuf};

use super::reporter::{Context, Destination};
use super::step_summary::{self, ReportAt};
use super::{REPORTERS, write_ended_under};
use crate::ended::Ended;

/// What [`publish`] left.
#[derive(Clone, Debug)]
#[non_exhaustive]
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
pub fn publish(ended: &Ended) -> Published {
    let test = ended.test();
    let root =
        crate::config::report_root().map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e));
    let at = root
        .and_then(|root| {
            write_ended_under(ended, &root).map_err(|e| {
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
    let mut text = String::new();
    for reporter in REPORTERS {
        let destination = reporter.destination(ended);
        if matches!(destination, Destination::File(_)) {
            continue;
        }
        let Some(rendered) = reporter.render(ended, &cx) else {
            continue;
        };
        match destination {
            Destination::StepSummary => {
                if let Err(e) = step_summary::append_row_from_env(&rendered) {
                    let variable = crate::config::ENV_STEP_SUMMARY;
                    note(
                        &mut notes,
                        test,
                        &format!("row not added to {variable}: {e}"),
                    );
                }
            }
            _ => text.push_str(&rendered),
        }
    }
    Published {
        passed: ended.passed(),
        text: text + &notes,
        at,
    }
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

/// The front page of `ended`'s report in `dir`: the HTML page of a run
/// (its `summary.json` without the `html` feature), the record of a skip
/// or a stop.
pub(super) fn front_page(ended: &Ended, dir: &Path) -> PathBuf {
    let file = match ended {
        Ended::Ran(_) if cfg!(feature = "html") => super::INDEX_FILE,
        Ended::Ran(_) => super::SUMMARY_FILE,
        Ended::Skipped(_) => super::SKIPPED_FILE,
        Ended::Stopped(_) => super::STOPPED_FILE,
    };
    dir.join(file)
}
