//! Runs `cargo` on the fixture crate `tests/e2e/` in a child process, as a
//! user would: shared by the end-to-end tests and the `cli` test of the CI
//! script.
//!
//! The fixture is a member of the workspace whose targets `cargo test
//! --workspace` leaves out: the child shares this build's target directory,
//! Cargo.lock and profiles, so only the fixture itself is compiled.

// Each test file uses a part of this module.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a child `cargo test` did.
pub(crate) struct Run {
    /// Its exit status was 0.
    pub(crate) passed: bool,
    /// Its exit code, where it exited with one.
    pub(crate) code: Option<i32>,
    /// Its stdout, then its stderr.
    pub(crate) output: String,
}

impl Run {
    /// Panics, showing the output, unless it holds every one of `needles`.
    pub(crate) fn assert_contains(&self, needles: &[&str]) {
        for needle in needles {
            assert!(
                self.output.contains(needle),
                "expected {needle:?} in the output:\n{}",
                self.output
            );
        }
    }
}

/// The fixture crate.
pub(crate) fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e")
}

/// Runs `cargo test <args>` in the fixture with `env` added to an
/// environment cleared of `DUAL_DELTA_*`.
pub(crate) fn cargo_test(args: &[&str], env: &[(&str, &str)]) -> Run {
    let manifest = fixture().join("Cargo.toml");
    let mut all = vec!["test", "--manifest-path", manifest.to_str().unwrap()];
    all.extend_from_slice(args);
    cargo(&all, env)
}

/// Runs a command as printed for a user to paste
/// (`DUAL_DELTA_SEED=0x1 cargo test -p … -- name --exact`), word for word,
/// in the fixture's folder, with `env` added to an environment cleared of
/// `DUAL_DELTA_*`.
pub(crate) fn run_printed(command: &str, env: &[(&str, &str)]) -> Run {
    let mut words = command.split_whitespace();
    let mut assignments: Vec<(&str, &str)> = Vec::new();
    let program = loop {
        let word = words
            .next()
            .unwrap_or_else(|| panic!("no program in {command:?}"));
        match word.split_once('=') {
            Some(assignment) => assignments.push(assignment),
            None => break word,
        }
    };
    assert_eq!(program, "cargo", "{command}");
    assignments.extend_from_slice(env);
    let args: Vec<&str> = words.collect();
    cargo(&args, &assignments)
}

/// Runs `cargo <args>` in the fixture's folder.
fn cargo(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = cargo_in_fixture();
    command.args(args).envs(env.iter().copied());
    run(&mut command)
}

/// The Cargo that runs these tests (`cargo` where none is named), to be
/// run in the fixture's folder as [`in_fixture`] prepares it.
pub(crate) fn cargo_in_fixture() -> Command {
    in_fixture(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// `program` to be run in the fixture's folder as Cargo would be there:
/// with this build's target directory, the workspace's Cargo.lock, and an
/// environment cleared of `DUAL_DELTA_*`.
pub(crate) fn in_fixture(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(fixture())
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("DUAL_DELTA_") {
            command.env_remove(key);
        }
    }
    command
}

/// This build's target directory: the parent of `<target-dir>/tmp`,
/// absolute, which Cargo sets for integration tests.
pub(crate) fn target_dir() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is inside the target directory")
}

/// Runs `command` to its end: what it did.
pub(crate) fn run(command: &mut Command) -> Run {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    Run {
        passed: out.status.success(),
        code: out.status.code(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
