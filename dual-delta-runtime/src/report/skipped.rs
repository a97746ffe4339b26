//! `skipped.json`: what a skipped test leaves instead of a report.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::SUMMARY_FILE;

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
