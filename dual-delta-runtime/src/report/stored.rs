//! What a report directory holds of each test: its run (`summary.json`),
//! `skipped.json`, what a skipped test leaves instead of a report, or
//! `stopped.json`, what a run that could not finish leaves (an error before
//! or during the trials, a panic, a call past its time limit).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::SUMMARY_FILE;
use super::summary::Summary;
use super::words;
use crate::ended::{Skipped, Stopped};

/// The file a skipped test leaves in its directory.
pub const SKIPPED_FILE: &str = "skipped.json";

/// The file a run that could not finish leaves in its directory.
pub const STOPPED_FILE: &str = "stopped.json";

/// One test's stored run, its skip, its run that could not finish, or a
/// record that cannot be read.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Stored {
    /// A run with its `summary.json`.
    Run(Box<Summary<'static>>),
    /// A skipped test.
    Skipped(Skipped),
    /// A run that could not finish.
    Stopped(Stopped),
    /// A report directory whose record cannot be read: counted as a
    /// failure wherever reports are counted, never left out.
    Unreadable(Unreadable),
}

/// A report directory whose record (`summary.json`, `skipped.json` or
/// `stopped.json`) is truncated, empty, not JSON, of a schema this version
/// does not read, not a file, or missing beside the run's `deltas.csv`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Unreadable {
    /// The directory's name under the root (the test's path is unknown).
    pub dir: String,
    /// The file that cannot be read (the directory where no record is).
    pub path: PathBuf,
    /// What is wrong with it.
    pub why: String,
}

/// `unreadable report of `dir`: path: why`, as listings print it.
impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::words::unreadable_line(self))
    }
}

impl Stored {
    /// The test's path (an unreadable record's directory name).
    pub fn test(&self) -> &str {
        match self {
            Stored::Run(s) => &s.names.test,
            Stored::Skipped(s) => &s.test,
            Stored::Stopped(s) => &s.test,
            Stored::Unreadable(u) => &u.dir,
        }
    }

    /// When it was written, in Unix milliseconds (0 for an unreadable
    /// record, so that any readable one of the same test in another shard
    /// is preferred).
    pub fn timestamp_ms(&self) -> u64 {
        match self {
            Stored::Run(s) => s.timestamp_ms,
            Stored::Skipped(s) => s.timestamp_ms,
            Stored::Stopped(s) => s.timestamp_ms,
            Stored::Unreadable(_) => 0,
        }
    }
}

/// The file of a run's report besides its record: a directory holding it
/// and no record has lost its record. (An `index.html` alone is no sign: a
/// shard's or a merge's folder under the root holds one.)
const REPORT_FILE: &str = super::DELTAS_FILE;

/// Every test stored directly under `root`, by directory name: the newest
/// of a run, a skip and a stop where a directory holds more than one, or
/// [`Stored::Unreadable`] where any record it holds cannot be read (or
/// where it holds a run's `deltas.csv` without a record). Hidden entries
/// (the writers' temporaries and versions, see [`crate::report`]) and
/// folders that hold no record and no `deltas.csv` (`baselines/`, a
/// shard's or a merge's folder) are passed over.
///
/// # Errors
///
/// When `root` exists but cannot be listed.
pub fn scan(root: &Path) -> io::Result<BTreeMap<String, Stored>> {
    let mut out = BTreeMap::new();
    let entries = match fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let dir = entry.file_name().to_string_lossy().into_owned();
        if dir.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if !path.is_dir() {
            if is_link {
                // A report's link whose version is gone.
                let why = words::dangling_link(fs::read_link(&path).ok().as_deref());
                out.insert(dir.clone(), unreadable(dir, path, why));
            }
            continue;
        }
        if let Some(s) = read_dir_record(&dir, &path) {
            out.insert(dir, s);
        }
    }
    Ok(out)
}

/// The record of the report directory `path` (named `dir`), `None` where it
/// holds no report.
pub fn read_dir_record(dir: &str, path: &Path) -> Option<Stored> {
    let mut found = Vec::new();
    for file in [SUMMARY_FILE, SKIPPED_FILE, STOPPED_FILE] {
        let at = path.join(file);
        let text = match fs::read_to_string(&at) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Some(unreadable(dir.to_owned(), at, e.to_string())),
        };
        let read = match file {
            SUMMARY_FILE => Summary::read(&text).map(|s| Stored::Run(Box::new(s))),
            SKIPPED_FILE => serde_json::from_str::<Skipped>(&text)
                .map(Stored::Skipped)
                .map_err(|e| words::not_json(&e)),
            _ => serde_json::from_str::<Stopped>(&text)
                .map(Stored::Stopped)
                .map_err(|e| words::not_json(&e)),
        };
        match read {
            Ok(s) => found.push(s),
            Err(why) => return Some(unreadable(dir.to_owned(), at, why)),
        }
    }
    // The first of the newest: a run over a skip or a stop written in the
    // same millisecond.
    let newest = found.into_iter().reduce(|a, b| {
        if b.timestamp_ms() > a.timestamp_ms() {
            b
        } else {
            a
        }
    });
    match newest {
        Some(s) => Some(s),
        None if path.join(REPORT_FILE).exists() => Some(unreadable(
            dir.to_owned(),
            path.to_owned(),
            words::NO_RECORD.to_owned(),
        )),
        None => None,
    }
}

fn unreadable(dir: String, path: PathBuf, why: String) -> Stored {
    Stored::Unreadable(Unreadable { dir, path, why })
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
    fn a_summary_of_an_older_schema_is_unreadable_until_replaced() {
        let root = std::env::temp_dir().join(format!("dual-delta-old-{}", std::process::id()));
        let dir = root.join("old.test");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(SUMMARY_FILE), r#"{"schema_version": 3}"#).unwrap();
        let stored = scan(&root).unwrap();
        let Some(Stored::Unreadable(u)) = stored.get("old.test") else {
            panic!("{stored:?}");
        };
        assert_eq!(u.path, dir.join(SUMMARY_FILE));
        assert!(u.why.contains("schema version 3"), "{}", u.why);
        super::super::write_skipped(&root, "old::test", "candidate", "no device").unwrap();
        let stored = scan(&root).unwrap();
        assert!(matches!(stored.values().next(), Some(Stored::Skipped(_))));
        fs::remove_dir_all(&root).unwrap();
    }
}
