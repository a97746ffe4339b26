//! The directory name of a test's report (and of its baseline file), and
//! the hidden names of what a writer leaves beside it while it writes.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Longest directory name [`test_dir_name`] produces, in bytes.
pub(crate) const MAX_DIR_NAME: usize = 120;

/// The name of a test's report directory: the test's path with `::`
/// replaced by `.` (`summation::sum_naive` → `summation.sum_naive`).
///
/// In each `::`-separated segment, characters other than ASCII letters,
/// digits, `_` and `-` become `_`, and empty segments are dropped. If that
/// changed anything besides the separators, or the name is longer than 120
/// bytes (and is cut there), a hash of the full name is appended
/// (`-1a2b3c4d`), so distinct names keep distinct directories. A name with
/// nothing left becomes `_` plus the hash. The result never starts with a
/// `.`, so it never collides with the hidden temporaries of a write.
pub fn test_dir_name(test: &str) -> String {
    let mut changed = false;
    let mut segments: Vec<String> = Vec::new();
    for segment in test.split("::") {
        if segment.is_empty() {
            changed = true;
            continue;
        }
        let clean: String = segment
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        changed |= clean != segment;
        segments.push(clean);
    }
    let mut name = segments.join(".");
    if name.is_empty() {
        name.push('_');
        changed = true;
    }
    if name.len() > MAX_DIR_NAME {
        name.truncate(MAX_DIR_NAME);
        changed = true;
    }
    if changed {
        let hash = crate::rng::seed_from_name(test);
        name.push_str(&format!("-{:08x}", hash >> 32));
    }
    name
}
/// A hidden name for a temporary file or folder, or a report's version,
/// unique across threads and processes: `.{kind}~{pid}~{count}~{nanos}`.
/// The writer's process id in it tells a later writer whether the file is
/// being written or was left by a process that died ([`abandoned`]).
pub(crate) fn unique_hidden_name(kind: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        ".{kind}~{}~{}~{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The `kind` of a name [`unique_hidden_name`] made, `None` for any other
/// name.
pub(crate) fn hidden_kind(name: &str) -> Option<&str> {
    let rest = name.strip_prefix('.')?;
    let (kind, tail) = rest.split_once('~')?;
    writer_pid(tail).map(|_| kind)
}

fn writer_pid(tail: &str) -> Option<u32> {
    tail.split('~').next()?.parse().ok()
}

/// Whether process `pid` is known to be gone: where `/proc` lists the
/// running processes (Linux), it is not among them.
pub(crate) fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// How long a hidden temporary of a process that may still run is kept.
pub(crate) const ABANDONED_AFTER: Duration = Duration::from_secs(3600);

/// Whether the hidden temporary `path` (named by [`unique_hidden_name`])
/// was left by a writer that no longer writes: its process is not running
/// (where `/proc` says so), or it is older than an hour. Never one of this
/// process's own.
pub(crate) fn abandoned(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return false;
    };
    let Some(pid) = name
        .strip_prefix('.')
        .and_then(|r| r.split_once('~'))
        .and_then(|(_, tail)| writer_pid(tail))
    else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    if process_gone(pid) {
        return true;
    }
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > ABANDONED_AFTER)
}
