//! What a report directory holds of each test: its run (`summary.json`),
//! or `skipped.json`, what a skipped test leaves instead of a report.

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
    let dir = root.join(super::test_dir_name(test));
    fs::create_dir_all(&dir)?;
    let skipped = Skipped {
        test: test.to_owned(),
        role: role.to_owned(),
        reason: reason.to_owned(),
        timestamp_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
    };
    let path = dir.join(SKIPPED_FILE);
    let text = serde_json::to_string_pretty(&skipped).map_err(io::Error::other)?;
    fs::write(&path, text + "\n")?;
    // A run written before, under the same directory, is stale now.
    let _ = fs::remove_file(dir.join(SUMMARY_FILE));
    Ok(path)
}

/// One test's stored run, or its skip.
#[derive(Clone, Debug)]
pub enum Stored {
    /// A run with its `summary.json`.
    Run(Box<Summary<'static>>),
    /// A skipped test.
    Skipped(Skipped),
}

impl Stored {
    /// The test's path.
    pub fn test(&self) -> &str {
        match self {
            Stored::Run(s) => &s.names.test,
            Stored::Skipped(s) => &s.test,
        }
    }

    /// When it was written, in Unix milliseconds.
    pub fn timestamp_ms(&self) -> u64 {
        match self {
            Stored::Run(s) => s.timestamp_ms,
            Stored::Skipped(s) => s.timestamp_ms,
        }
    }
}

/// Every test stored directly under `root`, by directory name, the newer
/// of a run and a skip where a directory holds both.
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
        let newest = match (run, skip) {
            (Some(r), Some(s)) if s.timestamp_ms() > r.timestamp_ms() => Some(s),
            (Some(r), _) => Some(r),
            (None, s) => s,
        };
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
