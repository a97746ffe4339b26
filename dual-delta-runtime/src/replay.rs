//! The command that replays a run: `cargo test` with the seed, selecting
//! the package and target the test was compiled in, and the test by the
//! exact name libtest gives it (its path within the target, without the
//! crate's name that `module_path!()` starts with).
//!
//! An annotated test registers where it was compiled ([`CargoTarget`],
//! captured by the attribute) before it runs; a run of the builder is
//! registered by the thread it starts on, which libtest names after the
//! test. Every printed command (the failure message, the watchdog's,
//! `summary.json`'s `replay_command`, `cargo dual-delta show`) comes from
//! [`command`].

use std::collections::BTreeMap;
use std::sync::Mutex;

/// The cargo target an annotated test was compiled in, from the variables
/// Cargo sets while compiling it ([`cargo_target!`](crate::__cargo_target)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CargoTarget {
    /// `CARGO_PKG_NAME`: the package.
    pub package: Option<&'static str>,
    /// `CARGO_CRATE_NAME`: the crate (the target's name with `-` as `_`).
    pub crate_name: Option<&'static str>,
    /// `CARGO_BIN_NAME`: set for a binary's unit tests.
    pub bin: Option<&'static str>,
    /// Whether `CARGO_TARGET_TMPDIR` was set: it is for integration tests
    /// (and benchmarks) only.
    pub integration: bool,
}

impl CargoTarget {
    /// The arguments of `cargo test` that select this target: `-p`, then
    /// `--bin`, `--test` (`--bench` under `benches/`) or `--lib`. `file` is the test's `file!()`: an
    /// integration test's target is named after its file (`tests/my-test.rs`)
    /// or folder (`tests/my-test/main.rs`), which keeps the `-` that the
    /// crate's name turns into `_`.
    pub(crate) fn cargo_args(&self, file: &str) -> String {
        let mut args = String::new();
        if let Some(package) = self.package {
            args.push_str(&format!(" -p {package}"));
        }
        if let Some(bin) = self.bin {
            args.push_str(&format!(" --bin {bin}"));
        } else if self.integration {
            let crate_name = self.crate_name.unwrap_or_default();
            let parts: Vec<&str> = file
                .split(['/', '\\'])
                .map(|part| part.strip_suffix(".rs").unwrap_or(part))
                .collect();
            let at = parts
                .iter()
                .position(|part| !part.is_empty() && part.replace('-', "_") == crate_name);
            let target = at.map_or(crate_name, |i| parts[i]);
            // A benchmark target (`benches/name.rs`) is selected by `--bench`.
            let kind = match at {
                Some(i) if i > 0 && parts[i - 1] == "benches" => "--bench",
                _ => "--test",
            };
            if !target.is_empty() {
                args.push_str(&format!(" {kind} {target}"));
            }
        } else {
            args.push_str(" --lib");
        }
        args
    }
}

/// How `cargo test` selects one test.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Selector {
    /// The arguments before `--` (`-p pkg --test target`), each with a
    /// space before it; empty where the target is not known.
    cargo_args: String,
    /// The name libtest gives the test.
    name: String,
    /// Registered by an annotated test, which knows its target: a run of
    /// the builder does not replace it.
    annotated: bool,
}

/// The selector of every test run so far in this process, by test name.
static SELECTORS: Mutex<BTreeMap<String, Selector>> = Mutex::new(BTreeMap::new());

fn selectors() -> std::sync::MutexGuard<'static, BTreeMap<String, Selector>> {
    crate::lock::lock(&SELECTORS)
}

/// Registers the annotated test `test` (`crate::module::function`, or
/// `…::function::case`), compiled in `target` from `file`.
pub(crate) fn register_annotated(test: &str, target: &CargoTarget, file: &str) {
    let name = test.split_once("::").map_or(test, |(_, path)| path);
    selectors().insert(
        test.to_owned(),
        Selector {
            cargo_args: target.cargo_args(file),
            name: name.to_owned(),
            annotated: true,
        },
    );
}

/// Registers the run of `test` starting on this thread, unless an
/// annotated test registered it: libtest names a test's thread after the
/// test, so the thread's name selects it (in whichever target has it).
pub(crate) fn register_thread(test: &str) {
    let thread = std::thread::current();
    let Some(name) = thread.name().filter(|n| *n != "main" && !n.is_empty()) else {
        return;
    };
    let mut selectors = selectors();
    if selectors.get(test).is_some_and(|s| s.annotated) {
        return;
    }
    selectors.insert(
        test.to_owned(),
        Selector {
            cargo_args: String::new(),
            name: name.to_owned(),
            annotated: false,
        },
    );
}

/// The command that replays the run of `test` with base seed `seed`:
/// `DUAL_DELTA_SEED=0x… cargo test -p pkg --test target -- path --exact`.
/// A test this process has not registered is selected by its name alone.
pub(crate) fn command(test: &str, seed: u64) -> String {
    let (cargo_args, name) = match selectors().get(test) {
        Some(s) => (s.cargo_args.clone(), s.name.clone()),
        None => (String::new(), test.to_owned()),
    };
    format!(
        "{}={seed:#x} cargo test{cargo_args} -- {name} --exact",
        crate::config::ENV_SEED
    )
}

/// The command that runs one trial of `test` alone, the trial of seed
/// `trial_seed`, and prints its input and outputs in full:
/// `DUAL_DELTA_TRIAL=0x… cargo test -p pkg --test target -- path --exact`.
pub(crate) fn trial_command(test: &str, trial_seed: u64) -> String {
    let (cargo_args, name) = match selectors().get(test) {
        Some(s) => (s.cargo_args.clone(), s.name.clone()),
        None => (String::new(), test.to_owned()),
    };
    format!("DUAL_DELTA_TRIAL={trial_seed:#018x} cargo test{cargo_args} -- {name} --exact")
}

/// The [`CargoTarget`] of the crate being compiled where this is written:
/// what `#[dual_delta_test]` records of the target it is compiled in.
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_target {
    () => {
        $crate::__private::CargoTarget {
            package: ::core::option_env!("CARGO_PKG_NAME"),
            crate_name: ::core::option_env!("CARGO_CRATE_NAME"),
            bin: ::core::option_env!("CARGO_BIN_NAME"),
            integration: ::core::option_env!("CARGO_TARGET_TMPDIR").is_some(),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const E2E: CargoTarget = CargoTarget {
        package: Some("my-crate"),
        crate_name: Some("my_test"),
        bin: None,
        integration: true,
    };

    #[test]
    fn an_integration_test_is_selected_by_package_target_and_exact_name() {
        assert_eq!(
            E2E.cargo_args("tests/my-test.rs"),
            " -p my-crate --test my-test"
        );
        assert_eq!(
            E2E.cargo_args("crates/x/tests/my-test/helpers.rs"),
            " -p my-crate --test my-test"
        );
        assert_eq!(
            E2E.cargo_args("benches/my-test.rs"),
            " -p my-crate --bench my-test"
        );
        // A target named elsewhere: the crate's name.
        assert_eq!(
            E2E.cargo_args("tests/other.rs"),
            " -p my-crate --test my_test"
        );
        register_annotated("my_test::sum::len_8", &E2E, "tests/my-test.rs");
        assert_eq!(
            command("my_test::sum::len_8", 0x2a),
            "DUAL_DELTA_SEED=0x2a cargo test -p my-crate --test my-test -- sum::len_8 --exact"
        );
        // A builder run on a thread does not replace it.
        register_thread("my_test::sum::len_8");
        assert!(command("my_test::sum::len_8", 1).contains("--test my-test -- sum::len_8 "));
    }

    #[test]
    fn unit_tests_of_a_library_or_a_binary() {
        let lib = CargoTarget {
            integration: false,
            ..E2E
        };
        assert_eq!(lib.cargo_args("src/lib.rs"), " -p my-crate --lib");
        let bin = CargoTarget {
            bin: Some("tool"),
            ..lib
        };
        assert_eq!(bin.cargo_args("src/main.rs"), " -p my-crate --bin tool");
    }

    #[test]
    fn a_builder_run_is_selected_by_its_thread() {
        // libtest names this thread after this test.
        register_thread("some name");
        assert_eq!(
            command("some name", 3),
            "DUAL_DELTA_SEED=0x3 cargo test -- replay::tests::a_builder_run_is_selected_by_its_thread \
             --exact"
        );
        assert_eq!(
            command("never registered", 3),
            "DUAL_DELTA_SEED=0x3 cargo test -- never registered --exact"
        );
    }
}
