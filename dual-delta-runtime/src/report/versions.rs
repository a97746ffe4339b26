//! A test's report put in place whole, by one rename.
//!
//! On Unix a report directory `<root>/<test dir>` is a symbolic link to a
//! hidden version beside it, `<root>/.<test dir>~<pid>~<count>~<nanos>/`.
//! A new report is written whole into a new version, a new link to it is
//! made under a hidden name, and that link is renamed over `<test dir>`:
//! one `rename(2)`, atomic on every POSIX file system. A reader that
//! opens `<test dir>/summary.json` gets the old report or the new one,
//! never neither, and never a mix; a reader that resolves the link once
//! (`cargo dual-delta compare` does) reads every file of one run. The old
//! version is removed after the rename. A report directory an earlier
//! version wrote (a real folder) is moved aside once, the link put in its
//! place: only then, for the two renames, is there no report.
//!
//! Elsewhere (Windows, where a link needs a privilege), the new version
//! is renamed to `<test dir>`, the old report first moved aside: a reader
//! may find no report for that moment, never a part of one.
//!
//! A writer killed at any point leaves at most hidden entries (a version
//! never linked, a link never renamed, an old version not yet removed),
//! which readers pass over and the next writer under the root removes
//! ([`remove_abandoned`]) once their process is gone (on Linux, where
//! `/proc` lists it; elsewhere after an hour). Writers of one root must
//! share one process table: a writer in another container sharing the
//! folder looks gone, and its version could be removed before it is
//! linked (the report then reads as unreadable, never as missing). A kill between two
//! writes of a file's bytes leaves the file whole in the page cache: what
//! is guaranteed is against a killed process, not a lost machine (nothing
//! is synced to disk).

use std::fs;
use std::io;
use std::path::Path;

use crate::dirname::{ABANDONED_AFTER, abandoned, hidden_kind, process_gone, unique_hidden_name};

/// Writes `files` into a new version of `dir` and puts it in place of
/// whatever `dir` held (see the module docs).
pub(super) fn replace(dir: &Path, files: &[(&'static str, String)]) -> io::Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a report needs a name"))?;
    fs::create_dir_all(parent)?;
    let version = unique_hidden_name(&name);
    let at = parent.join(&version);
    fs::create_dir(&at)?;
    let result = files
        .iter()
        .try_for_each(|(file, contents)| fs::write(at.join(file), contents))
        .and_then(|()| swap_in(parent, &version, dir));
    if result.is_err() {
        let _ = fs::remove_dir_all(&at);
    }
    result
}

/// Points `dir` at the version `version` under `parent` by one rename of a
/// link, then removes the version it pointed at.
///
/// The threads of a process swap one at a time, so that each reads the
/// version it replaces and removes it; two processes writing one test at
/// once may leave the first's version unlinked until its process ends.
#[cfg(unix)]
fn swap_in(parent: &Path, version: &str, dir: &Path) -> io::Result<()> {
    static SWAP: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = crate::lock::lock(&SWAP);
    let link = parent.join(unique_hidden_name("link@"));
    std::os::unix::fs::symlink(version, &link)?;
    let old = fs::read_link(dir).ok();
    let real_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let aside = parent.join(unique_hidden_name("old@"));
    if real_dir {
        // A report of the earlier layout, moved aside once; another writer
        // may have moved it first.
        if let Err(e) = fs::rename(dir, &aside)
            && e.kind() != io::ErrorKind::NotFound
        {
            let _ = fs::remove_file(&link);
            return Err(e);
        }
    }
    if let Err(e) = fs::rename(&link, dir) {
        let _ = fs::remove_file(&link);
        return Err(e);
    }
    let _ = fs::remove_dir_all(&aside);
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if let (Some(old), Some(name)) = (old, name) {
        let old_name = old.to_string_lossy();
        // Only a version of this report, never what a link made by hand
        // points to.
        if old.parent() == Some(Path::new("")) && hidden_kind(&old_name) == Some(name.as_str()) {
            let _ = fs::remove_dir_all(parent.join(&old));
        }
    }
    Ok(())
}

/// Moves the version `version` under `parent` to `dir`, replacing a
/// previous report there.
#[cfg(not(unix))]
fn swap_in(parent: &Path, version: &str, dir: &Path) -> io::Result<()> {
    let from = parent.join(version);
    let mut last = None;
    for attempt in 0..100u64 {
        match fs::rename(&from, dir) {
            Ok(()) => return Ok(()),
            Err(e) => {
                if dir.exists() {
                    let old = parent.join(unique_hidden_name("old@"));
                    if fs::rename(dir, &old).is_ok() {
                        let _ = fs::remove_dir_all(&old);
                    }
                }
                last = Some(e);
                if attempt > 10 {
                    std::thread::sleep(std::time::Duration::from_millis(attempt.min(50)));
                }
            }
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("could not move the report into place")))
}

/// Removes what writers that died left under `root`: hidden temporaries,
/// links never renamed, old versions not yet removed, and versions no
/// link points to, each only once its writer's process is gone (or after
/// an hour).
pub(crate) fn remove_abandoned(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let path = entry.path();
        if let Some(pid) = earlier_temporary(&file) {
            if process_gone(pid) || abandoned_by_age(&path) {
                let _ = fs::remove_dir_all(&path).or_else(|_| fs::remove_file(&path));
            }
            continue;
        }
        let Some(kind) = hidden_kind(&file) else {
            continue;
        };
        // A version its link points to is the report.
        let linked = fs::read_link(root.join(kind)).is_ok_and(|t| t.as_os_str() == &*file);
        if linked || !abandoned(&path) {
            continue;
        }
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let _ = if is_dir {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
    }
}

/// The writer's process id of a temporary an earlier build named
/// (`.tmp-<pid>-<count>-<nanos>`, `.old-<pid>-…`).
fn earlier_temporary(name: &str) -> Option<u32> {
    let rest = name
        .strip_prefix(".tmp-")
        .or_else(|| name.strip_prefix(".old-"))?;
    rest.split('-').next()?.parse().ok()
}

/// Whether `path` is older than a writer takes.
fn abandoned_by_age(path: &Path) -> bool {
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > ABANDONED_AFTER)
}
