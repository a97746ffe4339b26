//! A row per annotated test in the GitHub Actions job summary.
//!
//! When `GITHUB_STEP_SUMMARY` names a file (GitHub Actions sets it in every
//! step), each annotated test appends a row to a Markdown table there: the
//! test, its verdict, the mean errors, the deciding p-value, the number of
//! trials and the report's path. The table's header is written before the
//! first row, and again whenever something else was written to the file
//! since the last row.

use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Mutex;

use super::words::numbers::{num, pval};
use crate::ended::Ended;

/// Where a run's report was written, or why it was not.
pub type ReportAt<'a> = Result<&'a Path, &'a str>;

/// The table's header and separator lines.
pub const HEADER: &str = "| dual-delta test | result | verdict | mean Δ1 | mean Δ2 | p (the claim) | trials | report |\n\
                          | --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";

/// Appends `row` ([`row`]) to the file `GITHUB_STEP_SUMMARY` names, if it
/// is set and not empty.
pub fn append_row_from_env(row: &str) -> io::Result<()> {
    match crate::config::step_summary_file() {
        Some(path) => append_row(&path, row),
        None => Ok(()),
    }
}

/// Appends the ending's row to the Markdown table at the end of `file`,
/// starting a table if the file does not end with one.
pub fn append(file: &Path, ended: &Ended, report: ReportAt<'_>) -> io::Result<()> {
    append_row(file, &row(ended, report))
}

/// Appends `row` to the Markdown table at the end of `file`, starting a
/// table if the file does not end with one.
fn append_row(file: &Path, row: &str) -> io::Result<()> {
    // Tests of one binary run on several threads.
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = crate::lock::lock(&LOCK);
    let mut f = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(file)?;
    let mut text = String::new();
    f.seek(SeekFrom::Start(0))?;
    f.read_to_string(&mut text)?;
    let mut out = String::new();
    if !ends_with_table(&text) {
        if !text.is_empty() && !text.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(HEADER);
    }
    out.push_str(row);
    f.write_all(out.as_bytes())
}

/// Whether the last line of `text` is a row of this table.
fn ends_with_table(text: &str) -> bool {
    let Some(last) = text.trim_end_matches('\n').lines().last() else {
        return false;
    };
    let Some(header) = text.rfind(HEADER) else {
        return false;
    };
    last.starts_with("| `")
        && text[header..]
            .lines()
            .all(|l| l.starts_with("| ") && l.ends_with(" |"))
}

/// The ending's row: a run's verdict (a failure leading with its reason),
/// its means, the claim's p-value (`judgement.p_value`) and its trials; a
/// skip's or a stop's reason.
pub fn row(ended: &Ended, report: ReportAt<'_>) -> String {
    let o = match ended {
        Ended::Ran(o) => o,
        Ended::Skipped(s) => {
            return other_row(
                &s.test,
                "skipped",
                &format!("skipped by the {}: {}", s.role, s.reason),
                report,
            );
        }
        Ended::Stopped(s) => {
            return other_row(
                &s.test,
                "**failed**",
                &format!("could not finish: {}", s.reason),
                report,
            );
        }
    };
    let mut verdict = o.failure_sentence().unwrap_or_else(|| o.verdict_sentence());
    if let Some(adapter) = o.environment.get("gpu.adapter") {
        verdict.push_str(&format!(" Adapter: {adapter}"));
        if let Some(semantics) = o.environment.get("gpu.semantics") {
            verdict.push_str(&format!("; {semantics}"));
        }
        verdict.push('.');
    }
    let verdict = verdict.replace('|', "\\|");
    let shown = o.shown_summaries();
    format!(
        "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
        o.names.test,
        match (o.passed(), &o.judgement.within_margin, o.unscreened()) {
            (false, _, _) => "**failed**",
            (true, Some(_), _) => "passed ⚠ less accurate within the margin",
            (true, None, true) => "passed ⚠ rare events not checked",
            (true, None, false) => "passed",
        },
        verdict,
        num(shown.candidate.mean),
        num(shown.baseline.mean),
        o.judgement.p_value.map_or_else(|| "–".to_owned(), pval),
        o.delta1.len(),
        report_cell(report),
    )
}

/// The row of a test that gave no outcome: skipped, or a run that could
/// not finish (`result` `**failed**`), with the reason in the verdict's
/// column.
fn other_row(test: &str, result: &str, verdict: &str, report: ReportAt<'_>) -> String {
    format!(
        "| `{test}` | {result} | {} | – | – | – | – | {} |\n",
        verdict.replace('|', "\\|"),
        report_cell(report),
    )
}

/// The report's cell: its path, or why it was not written.
fn report_cell(report: ReportAt<'_>) -> String {
    match report {
        Ok(p) => format!("`{}`", p.display()),
        Err(why) => format!("⚠ not written: {}", why.replace('|', "\\|")),
    }
}
