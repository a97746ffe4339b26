//! What a report directory holds of each test: its run (`summary.json`),
//! `skipped.json`, what a skipped test leaves instead of a report, or
//! `stopped.json`, what a run that could not finish leaves (an error before
//! or during the trials, a panic, a call past its time limit).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::SUMMARY_FILE;
use super::summary::Summary;

/// The file a skipped test leaves in its directory.
pub const SKIPPED_FILE: &str = "skipped.json";

/// A test that did not run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The test's path.
    pub test: String,
    /// The function that skipped it (`candidate`, ...).
    pub role: String,
    /// Why.
    pub reason: String,
    /// When, in Unix milliseconds.
    pub timestamp_ms: u64,
}

/// Records that `test` was skipped by `role` for `reason`, under `root`.
///
/// # Errors
///
/// When the file cannot be written.
pub fn write_skipped(root: &Path, test: &str, role: &str, reason: &str) -> io::Result<PathBuf> {
    let skipped = Skipped {
        test: test.to_owned(),
        role: role.to_owned(),
        reason: reason.to_owned(),
        timestamp_ms: now_ms(),
    };
    record(root, test, SKIPPED_FILE, &skipped)
}

/// The file a run that could not finish leaves in its directory.
pub const STOPPED_FILE: &str = "stopped.json";

/// A run that could not finish: a failure of the test, which suites count
/// as one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The test's path.
    pub test: String,
    /// Why, as the test's failure message says it.
    pub reason: String,
    /// The command that replays the run.
    pub replay: String,
    /// When, in Unix milliseconds.
    pub timestamp_ms: u64,
}

/// Records under `root` that `test` could not finish, for `reason`, and
/// the command that replays it; a run stored before under the same
/// directory is removed (it is stale now).
///
/// # Errors
///
/// When the file cannot be written.
pub fn write_stopped(root: &Path, test: &str, reason: &str, replay: &str) -> io::Result<PathBuf> {
    let stopped = Stopped {
        test: test.to_owned(),
        reason: reason.to_owned(),
        replay: replay.to_owned(),
        timestamp_ms: now_ms(),
    };
    record(root, test, STOPPED_FILE, &stopped)
}

/// Writes `what` as the JSON `file` of `test`'s directory under `root`,
/// and removes what the directory held of another run of the test.
fn record(root: &Path, test: &str, file: &str, what: &impl Serialize) -> io::Result<PathBuf> {
    let text = serde_json::to_string_pretty(what).map_err(io::Error::other)?;
    let dir = root.join(super::test_dir_name(test));
    fs::create_dir_all(&dir)?;
    let path = dir.join(file);
    fs::write(&path, format!("{text}\n"))?;
    for stale in [SUMMARY_FILE, SKIPPED_FILE, STOPPED_FILE] {
        if stale != file {
            let _ = fs::remove_file(dir.join(stale));
        }
    }
    Ok(path)
}

/// Now, in Unix milliseconds.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One test's stored run, its skip, or its run that could not finish.
#[derive(Clone, Debug)]
pub enum Stored {
    /// A run with its `summary.json`.
    Run(Box<Summary<'static>>),
    /// A skipped test.
    Skipped(Skipped),
    /// A run that could not finish.
    Stopped(Stopped),
}

impl Stored {
    /// The test's path.
    pub fn test(&self) -> &str {
        match self {
            Stored::Run(s) => &s.names.test,
            Stored::Skipped(s) => &s.test,
            Stored::Stopped(s) => &s.test,
        }
    }

    /// When it was written, in Unix milliseconds.
    pub fn timestamp_ms(&self) -> u64 {
        match self {
            Stored::Run(s) => s.timestamp_ms,
            Stored::Skipped(s) => s.timestamp_ms,
            Stored::Stopped(s) => s.timestamp_ms,
        }
    }
}

/// Every test stored directly under `root`, by directory name, the newest
/// of a run, a skip and a stop where a directory holds more than one.
pub fn scan(root: &Path) -> io::Result<BTreeMap<String, Stored>> {
    let mut out = BTreeMap::new();
    let entries = match fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let dir = entry.file_name().to_string_lossy().into_owned();
        if dir.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        let run = fs::read_to_string(entry.path().join(SUMMARY_FILE))
            .ok()
            .and_then(|t| match Summary::read(&t) {
                Ok(s) => Some(Stored::Run(Box::new(s))),
                Err(e) => {
                    eprintln!("dual-delta: skipping {dir}: {e}");
                    None
                }
            });
        let skip = fs::read_to_string(entry.path().join(SKIPPED_FILE))
            .ok()
            .and_then(|t| serde_json::from_str::<Skipped>(&t).ok())
            .map(Stored::Skipped);
        let stop = fs::read_to_string(entry.path().join(STOPPED_FILE))
            .ok()
            .and_then(|t| serde_json::from_str::<Stopped>(&t).ok())
            .map(Stored::Stopped);
        // The first of the newest: a run over a skip or a stop written in
        // the same millisecond.
        let newest = [run, skip, stop].into_iter().flatten().reduce(|a, b| {
            if b.timestamp_ms() > a.timestamp_ms() {
                b
            } else {
                a
            }
        });
        if let Some(s) = newest {
            out.insert(dir, s);
        }
    }
    Ok(out)
}

/// A stored run as `cargo dual-delta show` prints it: the test, the
/// distributions, the verdict and the command that replays the run.
pub fn show(r: &Summary<'_>) -> String {
    let c = &r.summaries.candidate;
    let b = &r.summaries.baseline;
    let mut out = format!(
        "dual-delta {}: {} (candidate) vs {} (baseline), oracle {}, metric {}, {} of at most {} \
         trials, α = {}\n",
        r.names.test,
        r.names.candidate,
        r.names.baseline,
        r.names.oracle,
        r.settings.settings.metric,
        r.trials_run,
        r.settings.settings.n,
        r.settings.settings.alpha
    );
    out.push_str(&format!(
        "  {:<10} {:>12} {:>12} {:>12} {:>12}\n",
        "error", "mean", "median", "P99", "max"
    ));
    for (label, s) in [("Δ1", c), ("Δ2", b)] {
        out.push_str(&format!(
            "  {label:<10} {:>12.4e} {:>12.4e} {:>12.4e} {:>12.4e}\n",
            s.mean, s.median, s.p99, s.max
        ));
    }
    out.push_str(&format!(
        "  {}: {}\n  replay: {}\n",
        if r.judgement.passed {
            "passed"
        } else {
            "FAILED"
        },
        r.sentences.verdict,
        r.replay_command()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_of_an_older_schema_is_passed_over() {
        let root = std::env::temp_dir().join(format!("dual-delta-old-{}", std::process::id()));
        let dir = root.join("old.test");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(SUMMARY_FILE), r#"{"schema_version": 3}"#).unwrap();
        assert!(scan(&root).unwrap().is_empty());
        write_skipped(&root, "old::test", "candidate", "no device").unwrap();
        let stored = scan(&root).unwrap();
        assert!(matches!(stored.values().next(), Some(Stored::Skipped(_))));
        fs::remove_dir_all(&root).unwrap();
    }
}
