//! A report that cannot be written is a warning, never a silent loss: the
//! test keeps its verdict, the warning names the path and the cause on the
//! terminal (past the harness's capture), and the step summary gets a line.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;

use crate::common::{naive, oracle as exact, short_input as input};

/// Run by [`a_report_that_cannot_be_written_is_a_warning`] in a child
/// process, with `DUAL_DELTA_HOME` under a regular file.
#[dual_delta_test(oracle = exact, baseline = naive, input = input, n = 50)]
#[ignore = "run by a_report_that_cannot_be_written_is_a_warning"]
fn passes_without_a_report(x: &Vec<f32>) -> f32 {
    naive(x)
}

#[test]
fn a_report_that_cannot_be_written_is_a_warning() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let home = file.join("reports");
    let summary = dir.join("summary.md");
    let _ = std::fs::remove_file(&summary);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "unwritable::passes_without_a_report",
            "--ignored",
            "--exact",
        ])
        .env("DUAL_DELTA_HOME", &home)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("DUAL_DELTA_PROGRESS", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(
        stderr.contains("warning: dual-delta test `runtime::unwritable::passes_without_a_report`: report not written: cannot write under"),
        "{stderr}"
    );
    assert!(stderr.contains(&home.display().to_string()), "{stderr}");
    let row = std::fs::read_to_string(&summary).unwrap();
    assert!(
        row.contains("| passed |") || row.contains("| passed ⚠"),
        "{row}"
    );
    assert!(row.contains("⚠ not written: cannot write under"), "{row}");
}
