//! Several CI shards' report folders merged into one: each test once, one
//! index, `suite.json` and `summary.md`, in a folder of the merge's own.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{MARKDOWN_FILE, SUITE_FILE, SuiteSummary, markdown, summarise};
#[cfg(feature = "html")]
use crate::report::rebuild_index;
use crate::report::{Stored, scan, write_atomically};

/// Merges the report directories of each shard under `shards` into `out`,
/// then writes one index, `suite.json` and `summary.md` there.
///
/// Each test is kept once: an unreadable report wherever one is (it
/// counts as a failure, named with its shard's path), else the newest. A
/// shard that holds no report is named in [`SuiteSummary::empty_shards`].
/// `out` must be new, empty, or a previous merge's folder (it holds
/// `suite.json`, or the hidden mark `.dual-delta-merge` a merge writes
/// first), whose contents are then replaced: a merge never adds to what was
/// there.
///
/// # Errors
///
/// When a shard cannot be read, `out` is one of them or holds files that
/// are not a merge's, or `out` cannot be written.
pub fn merge(shards: &[PathBuf], out: &Path, suite_alpha: Option<f64>) -> io::Result<SuiteSummary> {
    let mut chosen: BTreeMap<String, (Stored, PathBuf)> = BTreeMap::new();
    let mut empty = Vec::new();
    for shard in shards {
        if !shard.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} is not a report directory", shard.display()),
            ));
        }
        if same_dir(shard, out) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a shard and the merge's folder: name a new folder with --out",
                    shard.display()
                ),
            ));
        }
        let found = scan(shard)?;
        if found.is_empty() {
            empty.push(shard.display().to_string());
        }
        for (dir, s) in found {
            let keep = match chosen.get(&dir) {
                None => true,
                Some((Stored::Unreadable(_), _)) => false,
                Some((old, _)) => {
                    matches!(s, Stored::Unreadable(_)) || s.timestamp_ms() > old.timestamp_ms()
                }
            };
            if keep {
                chosen.insert(dir.clone(), (s, shard.join(&dir)));
            }
        }
    }
    clear_out(out)?;
    for (dir, (_, from)) in &chosen {
        // A link whose version is gone has nothing to copy.
        if from.is_dir() {
            copy_dir(from, &out.join(dir))?;
        }
    }
    #[cfg(feature = "html")]
    rebuild_index(out)?;
    let stored: BTreeMap<String, Stored> = chosen.into_iter().map(|(d, (s, _))| (d, s)).collect();
    let mut summary = summarise(&stored, suite_alpha);
    summary.empty_shards = empty;
    let text = serde_json::to_string_pretty(&summary).map_err(io::Error::other)?;
    write_atomically(&out.join(SUITE_FILE), (text + "\n").as_bytes())?;
    write_atomically(&out.join(MARKDOWN_FILE), markdown(&summary).as_bytes())?;
    Ok(summary)
}

/// Whether `a` and `b` name the same existing folder.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The hidden file that marks a merge's folder from the moment a merge
/// starts writing it, so that a merge cut short is replaced by the next.
const MERGE_MARK: &str = ".dual-delta-merge";

/// Makes `out` an empty folder marked as a merge's: created where missing,
/// emptied where it holds a previous merge (its `suite.json`, or the mark
/// of one cut short), refused where it holds anything else.
fn clear_out(out: &Path) -> io::Result<()> {
    fs::create_dir_all(out)?;
    let entries: Vec<fs::DirEntry> = fs::read_dir(out)?.collect::<io::Result<_>>()?;
    let merged = out.join(SUITE_FILE).is_file() || out.join(MERGE_MARK).is_file();
    if !entries.is_empty() && !merged {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} holds files and no {SUITE_FILE}: it is no merge's folder; name a new or \
                 empty folder with --out",
                out.display()
            ),
        ));
    }
    fs::write(out.join(MERGE_MARK), "")?;
    for entry in entries {
        let path = entry.path();
        if entry.file_name() == MERGE_MARK {
            continue;
        }
        if entry.file_type()?.is_dir() {
            fs::remove_dir_all(&path)?;
        } else {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
