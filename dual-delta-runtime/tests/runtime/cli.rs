//! `cargo dual-delta`, run as a user runs it: the binary, on reports and
//! baselines written by runs of the builder, and through
//! `scripts/ci-accuracy.sh` on the fixture crate's suite in shards. Built
//! with the `cli` feature only, which `cargo test --workspace` turns on (the
//! tests crate asks for it): `cargo test -p dual-delta-runtime --features
//! cli --test runtime -- cli::`.
#![cfg(feature = "cli")]
#![allow(clippy::ptr_arg)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::suite::{self, SuiteResult, SuiteSummary};
use dual_delta_runtime::{report, settings::Baselines};

use crate::common::{kahan, kahan_on_half, naive, oracle, short_input as input};

/// What the binary did: whether it succeeded, and its stdout then stderr.
fn cargo_dual_delta(args: &[&str], cwd: &Path) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-dual-delta"));
    command.arg("dual-delta").args(args).current_dir(cwd);
    // As outside Cargo: nothing says where the project is.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("DUAL_DELTA_") || key.starts_with("CARGO_") {
            command.env_remove(&*key);
        }
    }
    let out = command.output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// An empty folder of its own under the system's temporary folder, outside
/// any Cargo project.
fn empty_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dual-delta-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn list_outside_a_project_says_where_it_looked() {
    let d = empty_dir("list");
    let (ok, out) = cargo_dual_delta(&["list"], &d);
    assert!(ok, "{out}");
    let looked = d.join("target").join("dual-delta");
    assert_eq!(
        out,
        format!(
            "no reports under {}: run the tests first (`cargo test`), or name the report \
             directory with --dir or DUAL_DELTA_HOME\n",
            looked.display()
        )
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn baselines_are_listed_by_test_path_and_a_missing_one_is_explained() {
    let d = empty_dir("baseline");
    let reports = d.join("reports");
    let baselines = d.join("baselines");
    let o = DualDelta::new(kahan, naive, oracle, input)
        .test_name("kernels::sum_kahan")
        .n(50)
        .baselines(Baselines {
            save: Some("main".into()),
            dir: Some(baselines.clone()),
            ..Baselines::default()
        })
        .run()
        .unwrap();
    report::write_under(&o, &reports).unwrap();
    let (b, r) = (baselines.to_str().unwrap(), reports.to_str().unwrap());

    let (ok, out) = cargo_dual_delta(&["baseline", "list", "--baseline-dir", b], &d);
    assert!(ok, "{out}");
    assert_eq!(out, "main  kernels::sum_kahan\n");

    let (ok, out) = cargo_dual_delta(&["list", "--dir", r], &d);
    assert!(ok, "{out}");
    assert!(out.contains(&format!("(reports under {r})\n")), "{out}");

    let args = [
        "compare",
        "kernels::sum_kahan",
        "--dir",
        r,
        "--baseline-dir",
        b,
    ];
    let (ok, out) = cargo_dual_delta(&[&args[..], &["--baseline", "nope"]].concat(), &d);
    assert!(!ok, "{out}");
    assert_eq!(
        out,
        format!(
            "error: no baseline `nope` of `kernels::sum_kahan` under {b}; saved for it: `main`. \
             Save one with DUAL_DELTA_SAVE_BASELINE=nope cargo test, or name another folder \
             with --baseline-dir\n"
        )
    );
    let (ok, out) = cargo_dual_delta(&[&args[..], &["--baseline", "main"]].concat(), &d);
    assert!(ok, "{out}");
    assert!(out.starts_with("kernels::sum_kahan: "), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_offline_compare_says_over_which_inputs_when_ties_were_sampled() {
    let d = empty_dir("compare-ties");
    let (reports, baselines) = (d.join("reports"), d.join("baselines"));
    let run = |save: Option<&str>| {
        DualDelta::new(kahan_on_half, naive, oracle, input)
            .test_name("kernels::kahan_on_half")
            .n(400)
            .baselines(Baselines {
                save: save.map(Into::into),
                dir: Some(baselines.clone()),
                ..Baselines::default()
            })
            .run()
            .unwrap()
    };
    // Saving measures every input; a plain run samples its ties.
    let saved = run(Some("main"));
    assert_eq!(saved.delta1().len(), 400);
    let o = run(None);
    let s = o.screen();
    assert!(s.ties_unmeasured() > 0, "{s:?}");
    report::write_under(&o, &reports).unwrap();
    let (b, r) = (baselines.to_str().unwrap(), reports.to_str().unwrap());
    let args = [
        "compare",
        "kernels::kahan_on_half",
        "--dir",
        r,
        "--baseline-dir",
        b,
        "--baseline",
        "main",
    ];
    let (ok, out) = cargo_dual_delta(&args, &d);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("over {} paired trials", o.delta1().len())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  note: over the {} inputs its run measured of 400: the oracle skipped {} of its {} \
             ties (identical outputs)",
            o.delta1().len(),
            s.ties_unmeasured(),
            s.ties
        )),
        "{out}"
    );
    // The command it prints compares every input at the report's seed.
    assert!(
        out.contains(&format!(
            "this measures and compares every input: DUAL_DELTA_BASELINE=main \
             DUAL_DELTA_SEED={:#x} cargo test",
            o.settings().seed()
        )),
        "{out}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// The fixture's tests the CI script runs, by their binaries (`--lib`, then
/// the test targets, as the script sorts them) and name filters: a few
/// quick ones, one failing on purpose.
const BINARIES: [&str; 7] = [
    "--lib",
    "--test",
    "cases",
    "--test",
    "gate",
    "--test",
    "summation",
];
const FILTERS: [&str; 5] = [
    "unit_kahan_is_better",
    "below",
    "nan_on_a_few_trials",
    "len_256",
    "naive_is_caught",
];
/// What becomes of them: partitioned by binary, the library's and `gate`'s
/// tests are shard 1's, the others shard 2's.
const EXPECTED: [(&str, SuiteResult, usize); 6] = [
    (
        "cases::sum_blocked::len_256_acc_f32",
        SuiteResult::Passed,
        2,
    ),
    (
        "cases::sum_blocked::len_256_acc_f64",
        SuiteResult::Passed,
        2,
    ),
    (
        "dual_delta_e2e::tests::unit_kahan_is_better",
        SuiteResult::Passed,
        1,
    ),
    ("gate::below", SuiteResult::Passed, 1),
    ("gate::nan_on_a_few_trials", SuiteResult::Failed, 1),
    ("summation::naive_is_caught", SuiteResult::Passed, 2),
];

/// `scripts/ci-accuracy.sh -C <fixture> <args>` with `env`, Cargo's own
/// folder first on `PATH` (the script runs `cargo`), and no step summary
/// unless `env` names one.
fn ci_script(args: &[&str], env: &[(&str, &str)]) -> crate::child::Run {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/ci-accuracy.sh");
    let mut command = crate::child::in_fixture("bash");
    command
        .arg(script)
        .arg("-C")
        .arg(crate::child::fixture())
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY");
    if let Some(cargo) = std::env::var_os("CARGO") {
        let dir = Path::new(&cargo).parent().unwrap().to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&path)));
        command.env("PATH", path.unwrap());
    }
    command.envs(env.iter().copied());
    crate::child::run(&mut command)
}

/// The fixture's suite in two shards partitioned `by`, then merged, as the
/// accuracy workflow runs it.
fn two_shards_then_merge(by: &str) {
    let reports = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ci-accuracy-{by}"));
    let _ = std::fs::remove_dir_all(&reports);
    let reports_env = ("DUAL_DELTA_REPORTS", reports.to_str().unwrap());
    let mut seen = BTreeSet::new();
    for k in ["1", "2"] {
        let args = [&["shard", k, "2"], &BINARIES[..], &["--"], &FILTERS[..]].concat();
        let run = ci_script(&args, &[reports_env, ("DUAL_DELTA_PARTITION", by)]);
        assert!(
            run.output
                .contains(&format!("ci-accuracy: partition {k} of 2 by {by}")),
            "{}",
            run.output
        );
        let dir = reports.join(format!("shard-{k}"));
        let shard = suite::summarise(&report::scan(&dir).unwrap(), None);
        let tests: Vec<&str> = shard.tests.iter().map(|t| t.test.as_str()).collect();
        assert!(!tests.is_empty(), "shard {k} ran nothing:\n{}", run.output);
        for t in &shard.tests {
            assert!(seen.insert(t.test.clone()), "{} in two shards", t.test);
        }
        // The shard's status is its tests'.
        let failed = shard.tests.iter().any(|t| t.result != SuiteResult::Passed);
        assert_eq!(
            run.passed, !failed,
            "shard {k} ({tests:?}):\n{}",
            run.output
        );
        if by == "binary" {
            let mine: Vec<&str> = EXPECTED
                .iter()
                .filter(|e| e.2.to_string() == k)
                .map(|e| e.0)
                .collect();
            assert_eq!(tests, mine, "shard {k}:\n{}", run.output);
        }
    }
    let names: BTreeSet<String> = EXPECTED.iter().map(|e| e.0.to_owned()).collect();
    assert_eq!(seen, names, "every test in one shard");

    // The merge: one suite, every test once, and its summary on the step
    // summary after what was there.
    let step_summary = reports.join("step-summary.md");
    std::fs::write(&step_summary, "# Earlier step\n").unwrap();
    let merged = reports.join("merged");
    let run = ci_script(
        &["merge", "--out", merged.to_str().unwrap()],
        &[
            reports_env,
            ("DUAL_DELTA_CLI", env!("CARGO_BIN_EXE_cargo-dual-delta")),
            ("GITHUB_STEP_SUMMARY", step_summary.to_str().unwrap()),
        ],
    );
    // The failure kept: merge fails, and so does the script.
    assert_eq!(run.code, Some(1), "{}", run.output);
    run.assert_contains(&["6 tests: 5 passed, 1 failed, 0 regressed, 0 skipped; index "]);
    let text = std::fs::read_to_string(merged.join(suite::SUITE_FILE)).unwrap();
    let s: SuiteSummary = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (s.passed, s.failed, s.regressed, s.skipped, s.failures_kept),
        (5, 1, 0, 0, 1)
    );
    let results: Vec<(&str, SuiteResult)> = s
        .tests
        .iter()
        .map(|t| (t.test.as_str(), t.result))
        .collect();
    let expected: Vec<(&str, SuiteResult)> = EXPECTED.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(results, expected);
    let markdown = std::fs::read_to_string(merged.join(suite::MARKDOWN_FILE)).unwrap();
    assert!(
        markdown.contains("5 passed, 1 failed, 0 regressed, 0 skipped (6 tests)")
            && markdown.contains("| `gate::nan_on_a_few_trials` | failed | "),
        "{markdown}"
    );
    let on_page = std::fs::read_to_string(&step_summary).unwrap();
    assert_eq!(on_page, format!("# Earlier step\n{markdown}"));
}

#[test]
fn the_ci_script_runs_a_suite_in_two_shards_and_merges_them() {
    // Partitioned by test binary, as where cargo-nextest is not installed.
    two_shards_then_merge("binary");
    // By nextest where it is.
    let nextest = crate::child::cargo_in_fixture()
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if nextest {
        two_shards_then_merge("nextest");
    } else {
        eprintln!("cargo nextest is not installed: the script's nextest partitions not run");
    }
}
