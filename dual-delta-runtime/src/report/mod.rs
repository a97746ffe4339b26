//! Reports of a run: the terminal table, the step summary's row, and the
//! report written to disk, each a [`Reporter`] reading the outcome.
//!
//! Every run can write a report, like criterion does for benchmarks (the
//! HTML pages and the SVG plots with the default `html` feature only):
//!
//! ```text
//! <root>/                      see report_root()
//!   index.html                 every report under <root>, newest first
//!   <test dir>/                see test_dir_name(); on Unix a link to its version,
//!                              .<test dir>~<pid>~<count>~<nanos>/ beside it
//!     index.html               the tables, the verdict and the plots
//!     summary.json             every number of the run (see json, summary)
//!     deltas.csv               one row per trial: index,seed,delta1,delta2,fingerprint
//!     histogram.svg            overlapping histograms of Δ1 and Δ2
//!     boxplot.svg              box plots of Δ1 and Δ2 side by side
//!     qq.svg                   quantiles of Δ1 against quantiles of Δ2
//!     scatter.svg              Δ1[i] against Δ2[i]
//!     evidence.svg             the sequential test's evidence per trial
//! ```
//!
//! # Writing from parallel tests
//!
//! Test threads and test binaries (one process per test, as cargo-nextest
//! runs them) write reports at the same time. A test's files are written
//! whole into a new hidden version of its directory and put in place by one
//! rename (on Unix the directory is a link to its current
//! version), so a reader sees the previous report or the new one, never
//! neither and never a mix of two runs, and a writer killed at any point
//! leaves only hidden entries that readers pass over and later writers
//! remove. The top-level `index.html` is not edited in place: it is
//! regenerated from the reports found under the root, written to a
//! temporary file and renamed over the old one, and the writer checks
//! afterwards that what it wrote still matches the directory (rebuilding it
//! if another process changed the reports in between). Whoever writes last
//! therefore leaves an index listing every report present, and every
//! link in it leads to a report.

pub mod csv;
#[cfg(feature = "html")]
mod html;
pub mod json;
#[cfg(feature = "html")]
pub mod plot;
#[cfg(feature = "html")]
mod plots;
mod publish;
mod reporter;
pub mod step_summary;
mod stored;
pub mod summary;
pub mod terminal;
mod versions;
pub(crate) mod words;
pub use self::words::numbers;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[cfg(feature = "html")]
pub use self::plots::Plot;
pub use self::publish::{Published, publish};
#[cfg(feature = "html")]
pub use self::reporter::Html;
pub use self::reporter::{Context, Csv, Destination, Json, Reporter, StepSummary, Terminal};
pub use self::stored::{
    SKIPPED_FILE, STOPPED_FILE, Stored, Unreadable, read_dir_record, scan, show,
};
pub use crate::config::{report_root, report_root_with};
pub use crate::dirname::test_dir_name;
use crate::dirname::unique_hidden_name;
use crate::ended::Ended;
use crate::outcome::Outcome;

/// The name of the per-test page and of the top-level index.
pub const INDEX_FILE: &str = "index.html";
/// The name of the machine-readable summary (see [`json`]).
pub const SUMMARY_FILE: &str = "summary.json";
/// The name of the per-trial table (see [`csv`]).
pub const DELTAS_FILE: &str = "deltas.csv";
/// The names of the plots, in the order they appear on the page.
pub const PLOT_FILES: [&str; 4] = ["histogram.svg", "boxplot.svg", "qq.svg", "scatter.svg"];
/// The name of the box plot of the candidate's errors now and at the
/// baseline it was compared with (only with a baseline).
pub const REGRESSION_FILE: &str = "regression.svg";
/// The name of the plot of the cut that carries the loss (only where one
/// does).
pub const REGION_FILE: &str = "region.svg";
/// The name of the plot of the sequential test's evidence against the
/// trials run.
pub const EVIDENCE_FILE: &str = "evidence.svg";

/// Every reporter, in the order [`publish`] calls them: the files of a
/// test's report directory, then the step summary's row and the terminal.
#[cfg(feature = "html")]
pub const REPORTERS: &[&dyn Reporter] = &[
    &Json,
    &Csv,
    &Html,
    &Plot::Histogram,
    &Plot::Boxplot,
    &Plot::Qq,
    &Plot::Scatter,
    &Plot::Evidence,
    &Plot::Regression,
    &Plot::Region,
    &StepSummary,
    &Terminal,
];
/// Every reporter, in the order [`publish`] calls them: the files of a
/// test's report directory, then the step summary's row and the terminal.
#[cfg(not(feature = "html"))]
pub const REPORTERS: &[&dyn Reporter] = &[&Json, &Csv, &StepSummary, &Terminal];

/// Writes the run's report under [`report_root`], regenerates the
/// top-level index, and returns the path of the test's `index.html`.
pub fn write(outcome: &Outcome) -> io::Result<PathBuf> {
    let root = report_root().map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    write_under(outcome, &root).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot write under {}: {e}", root.display()),
        )
    })
}

/// Writes the run's report into `root/<test dir>/` (see [`test_dir_name`]),
/// regenerates `root/index.html`, and returns the path of the test's
/// `index.html`.
pub fn write_under(outcome: &Outcome, root: &Path) -> io::Result<PathBuf> {
    write_ended_under(&Ended::Ran(Box::new(outcome.clone())), root)
}

/// Records under `root` that `test` was skipped by `role` for `reason`
/// (`skipped.json`, by the [`Json`] reporter) and returns its path.
///
/// # Errors
///
/// When the file cannot be written.
pub fn write_skipped(root: &Path, test: &str, role: &str, reason: &str) -> io::Result<PathBuf> {
    write_ended_under(&Ended::skipped(test, role, reason), root)
}

/// What `ended` leaves under `root/<test dir>/`, written by every reporter
/// with a file for it (replacing whatever the directory held of another
/// ending of the test), the top-level index rebuilt; the front page's
/// path.
pub(crate) fn write_ended_under(ended: &Ended, root: &Path) -> io::Result<PathBuf> {
    let dir = root.join(test_dir_name(ended.test()));
    versions::remove_abandoned(root);
    let page = write_dir(ended, &dir, true)?;
    #[cfg(feature = "html")]
    rebuild_index(root)?;
    Ok(page)
}

/// Writes the run's report into `dir` (created if needed) and returns the
/// path of its `index.html`. The top-level index is not touched.
///
/// If `dir` is empty, missing, or holds a previous report (a
/// `summary.json`, `skipped.json` or `stopped.json`, whole or damaged, or a
/// `deltas.csv`), it is replaced whole
/// by the new report, by one rename (on Unix a link to its new version, renamed over the old). Otherwise (a directory holding other files) the
/// report's files are written into it one by one, each through a temporary
/// file, and nothing else is removed.
pub fn write_to(outcome: &Outcome, dir: &Path) -> io::Result<PathBuf> {
    write_dir(&Ended::Ran(Box::new(outcome.clone())), dir, false)
}

/// [`write_to`] for any ending; `back_link` links the page to
/// `../index.html`.
fn write_dir(ended: &Ended, dir: &Path, back_link: bool) -> io::Result<PathBuf> {
    let written = SystemTime::now();
    let page = publish::front_page(ended, dir);
    let files = render(ended, written, &page, back_link);
    let records = [SUMMARY_FILE, SKIPPED_FILE, STOPPED_FILE];
    // A report, whole or damaged (a record in any shape, a run's table, a
    // link to a version) is replaced whole.
    let report = || {
        fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
            || records
                .iter()
                .chain(&[DELTAS_FILE])
                .any(|r| fs::symlink_metadata(dir.join(r)).is_ok())
    };
    let replaceable = match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none() || report(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => true,
        Err(e) => return Err(e),
    };
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(_) if replaceable => versions::replace(dir, &files)?,
        _ => {
            fs::create_dir_all(dir)?;
            for (name, contents) in &files {
                write_atomically(&dir.join(name), contents.as_bytes())?;
            }
            // Another ending's record would contradict this one.
            for stale in records
                .iter()
                .filter(|r| !files.iter().any(|(f, _)| f == *r))
            {
                let _ = fs::remove_file(dir.join(stale));
            }
        }
    }
    Ok(page)
}

/// Every file of a test's report for `ended`, by name.
fn render(
    ended: &Ended,
    written: SystemTime,
    page: &Path,
    back_link: bool,
) -> Vec<(&'static str, String)> {
    let cx = Context {
        written,
        at: Ok(page),
        back_link,
    };
    REPORTERS
        .iter()
        .filter_map(|r| match r.destination(ended) {
            Destination::File(name) => Some((name, r.render(ended, &cx)?)),
            _ => None,
        })
        .collect()
}

/// Writes `contents` to a temporary file beside `path` and renames it over
/// `path`, so readers see the old file or the new one, never a part.
pub(crate) fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    let tmp = parent.join(unique_hidden_name("tmp@"));
    fs::write(&tmp, contents)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// Regenerates `root/index.html` from every `root/*/summary.json`, newest
/// first, and returns its path.
///
/// Safe to call from parallel threads and processes: the page is written
/// through a temporary file and an atomic rename, and then the reports are
/// scanned again; if they changed meanwhile, the page is rebuilt.
#[cfg(feature = "html")]
pub fn rebuild_index(root: &Path) -> io::Result<PathBuf> {
    fs::create_dir_all(root)?;
    let path = root.join(INDEX_FILE);
    versions::remove_abandoned(root);
    let mut page = html::index_page(&html::scan_reports(root));
    for _ in 0..20 {
        write_atomically(&path, page.as_bytes())?;
        let again = html::index_page(&html::scan_reports(root));
        if again == page {
            break;
        }
        page = again;
    }
    Ok(path)
}

/// The report of an outcome, on request (an annotated test writes it
/// itself).
impl Outcome {
    /// Writes the run's report (summary JSON, deltas CSV, plots and HTML
    /// page, the same an annotated test writes) under
    /// `target/dual-delta/<test>/` (see [`crate::report`]) and returns the
    /// path of its `index.html`.
    pub fn write_report(&self) -> io::Result<PathBuf> {
        write(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dirname::MAX_DIR_NAME;

    #[test]
    fn test_paths_become_dotted_directory_names() {
        assert_eq!(test_dir_name("summation::sum_naive"), "summation.sum_naive");
        assert_eq!(test_dir_name("a::b::c-d"), "a.b.c-d");
        assert_eq!(test_dir_name("plain"), "plain");
    }

    #[test]
    fn unsafe_names_are_sanitised_and_kept_apart() {
        for bad in [
            "../../etc",
            "a/b",
            "a\\b",
            "a b",
            "",
            "::",
            ".hidden",
            "C:",
            "Δ1 test",
        ] {
            let d = test_dir_name(bad);
            assert!(!d.is_empty() && !d.starts_with('.'), "{bad:?} -> {d:?}");
            assert!(
                d.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)),
                "{bad:?} -> {d:?}"
            );
            assert!(!d.contains(".."), "{bad:?} -> {d:?}");
        }
        assert_ne!(test_dir_name("a b"), test_dir_name("a_b"));
        assert_ne!(test_dir_name("a/b"), test_dir_name("a b"));
        let long = "x".repeat(500);
        let d = test_dir_name(&long);
        assert!(d.len() <= MAX_DIR_NAME + 9, "{}", d.len());
        assert_ne!(d, test_dir_name(&"x".repeat(501)));
    }

    use crate::config::ENV_HOME;
    use crate::config::tests::env;

    #[test]
    fn root_resolution_rule() {
        let tmp = std::env::temp_dir().join(unique_hidden_name("roottest").trim_start_matches('.'));
        let member = tmp.join("ws").join("member");
        fs::create_dir_all(&member).unwrap();
        fs::write(tmp.join("ws").join("Cargo.lock"), "").unwrap();
        let ws = tmp.join("ws");

        // 1. DUAL_DELTA_HOME wins over everything.
        let r = report_root_with(
            env(&[(ENV_HOME, "/x/reports"), ("CARGO_TARGET_DIR", "/t")]),
            &member,
        )
        .unwrap();
        assert_eq!(r, PathBuf::from("/x/reports"));
        // 2. CARGO_TARGET_DIR, absolute or relative to the workspace.
        let r = report_root_with(env(&[("CARGO_TARGET_DIR", "/t")]), &member).unwrap();
        assert_eq!(r, PathBuf::from("/t/dual-delta"));
        let r = report_root_with(env(&[("CARGO_TARGET_DIR", "out")]), &member).unwrap();
        assert_eq!(r, ws.join("out").join("dual-delta"));
        // A blank DUAL_DELTA_HOME is an error; a blank CARGO_TARGET_DIR
        // counts as unset.
        assert!(report_root_with(env(&[(ENV_HOME, "")]), &member).is_err());
        let r = report_root_with(env(&[("CARGO_TARGET_DIR", " ")]), &member).unwrap();
        // 3. The workspace (the directory with Cargo.lock) from a member.
        assert_eq!(r, ws.join("target").join("dual-delta"));

        // Without a Cargo.lock, the nearest directory with a `target`.
        let lone = tmp.join("lone").join("deep");
        fs::create_dir_all(&lone).unwrap();
        fs::create_dir_all(tmp.join("lone").join("target")).unwrap();
        let r = report_root_with(env(&[]), &lone).unwrap();
        assert_eq!(r, tmp.join("lone").join("target").join("dual-delta"));

        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn atomic_writes_replace_whole_files() {
        let tmp = std::env::temp_dir().join(unique_hidden_name("atomic").trim_start_matches('.'));
        fs::create_dir_all(&tmp).unwrap();
        let p = tmp.join("f.txt");
        write_atomically(&p, b"one").unwrap();
        write_atomically(&p, b"two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        let leftovers: Vec<_> = fs::read_dir(&tmp).unwrap().flatten().collect();
        assert_eq!(leftovers.len(), 1);
        let _ = fs::remove_dir_all(&tmp);
    }
}
