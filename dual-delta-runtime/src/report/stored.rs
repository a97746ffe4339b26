//! What a report directory holds of each test: its run (`summary.json`),
//! `skipped.json`, what a skipped test leaves instead of a report, or
//! `stopped.json`, what a run that could not finish leaves (an error before
//! or during the trials, a panic, a call past its time limit).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use super::SUMMARY_FILE;
use super::summary::Summary;
use crate::ended::{Skipped, Stopped};

/// The file a skipped test leaves in its directory.
pub const SKIPPED_FILE: &str = "skipped.json";

/// The file a run that could not finish leaves in its directory.
pub const STOPPED_FILE: &str = "stopped.json";

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
        super::super::write_skipped(&root, "old::test", "candidate", "no device").unwrap();
        let stored = scan(&root).unwrap();
        assert!(matches!(stored.values().next(), Some(Stored::Skipped(_))));
        fs::remove_dir_all(&root).unwrap();
    }
}
