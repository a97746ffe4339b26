//! The GPU bundle's filters, checked by nextest itself: the archive's
//! filterset that `scripts/gpu-suite.sh pack` passes (read from the
//! script, not copied) must be one `cargo nextest archive` accepts (no
//! `test()` predicate: an archive chooses binaries only), and the bundle's
//! run (the `gpu-suite` profile of `.config/nextest.toml`) must leave out
//! the imitated driver freedoms' tests that share a binary with tests that
//! stay.
//!
//! Both run nextest on this workspace as `cargo test --workspace` built
//! it, so nothing is built again. Without `cargo-nextest` the test says so
//! and passes, except in CI (`CI` set), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `cargo` with this workspace's manifest and `args`: its output, or why
/// it failed.
fn cargo(args: &[&str]) -> Result<String, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(workspace())
        .args(args)
        .output()
        .map_err(|e| format!("cargo {args:?}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "cargo {args:?} failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The profile this binary was built with, so that nextest builds nothing
/// again: its default, or `--release`.
fn profile() -> &'static [&'static str] {
    if cfg!(debug_assertions) {
        &[]
    } else {
        &["--release"]
    }
}

/// Whether `cargo nextest` is here to ask.
fn nextest() -> bool {
    let here = cargo(&["nextest", "--version"]).is_ok();
    if !here {
        assert!(
            std::env::var("CI").map_or(true, |v| v.is_empty()),
            "cargo-nextest is not installed: the GPU bundle's filters cannot be checked"
        );
        println!("cargo-nextest is not installed: the GPU bundle's filters are not checked");
    }
    here
}

#[test]
fn nextest_accepts_the_bundles_archive_filter() {
    if !nextest() {
        return;
    }
    let script = workspace().join("scripts/gpu-suite.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("archive-filter")
        .output()
        .expect("bash runs the script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let filter = String::from_utf8(out.stdout).unwrap();
    let filter = filter.trim();
    assert!(filter.contains("package(dual-delta-gpu)"), "{filter}");
    let archive =
        std::env::temp_dir().join(format!("gpu-suite-filter-{}.tar.zst", std::process::id()));
    let archived = cargo(
        &[
            &["nextest", "archive"],
            profile(),
            &[
                "--workspace",
                "--cargo-quiet",
                "-E",
                filter,
                "--zstd-level",
                "1",
                "--archive-file",
                archive.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    let _ = std::fs::remove_file(&archive);
    archived.unwrap();
}

#[test]
fn the_bundles_run_leaves_out_the_imitated_freedoms() {
    if !nextest() {
        return;
    }
    let listed = cargo(
        &[
            &["nextest", "list"],
            profile(),
            &[
                "--workspace",
                "--cargo-quiet",
                "-P",
                "gpu-suite",
                "--message-format",
                "oneline",
            ],
        ]
        .concat(),
    )
    .unwrap();
    // `<binary id> <test name>` a line.
    let gpu: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("dual-delta-gpu::gpu "))
        .collect();
    assert!(
        gpu.iter().any(|l| l.contains(" semantics::")),
        "the GPU crate's tests run: {listed}"
    );
    let imitated: Vec<&&str> = gpu
        .iter()
        .filter(|l| l.contains(" driver_freedoms::") || l.contains(" round_trips::"))
        .collect();
    assert!(imitated.is_empty(), "{imitated:?}");
    assert!(
        !listed.lines().any(|l| l.contains(" wgsl::")),
        "the imitations' unit tests are left out"
    );
}
