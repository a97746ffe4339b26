//! End-to-end tests of `#[dual_delta_test]`: each runs `cargo test` on the
//! fixture crate `tests/e2e/` in a child process, as a user would, and checks
//! whether it passed and what it printed. Failing cases fail in the child, so
//! this suite stays green.
//!
//! The child shares this build's target directory and the workspace's
//! Cargo.lock, so only the fixture itself is compiled.

use std::path::Path;

use crate::child::{Run, cargo_test, fixture};

#[test]
fn candidate_equal_to_the_baseline_passes_with_the_default_n() {
    let run = cargo_test(
        &[
            "--test",
            "summation",
            "--",
            "same_as_baseline",
            "--exact",
            "--nocapture",
        ],
        &[],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta summation::same_as_baseline: same_as_baseline (candidate) vs sum_kahan \
         (baseline), oracle sum_f64, metric max_hybrid, n = 1000,",
        "same_as_baseline and sum_kahan gave identical outputs on every trial",
        "test same_as_baseline ... ok",
    ]);
}

#[test]
fn worse_candidate_fails_with_the_verdict_table_p_value_and_seed() {
    let run = cargo_test(
        &["--test", "summation", "--", "naive_is_worse", "--exact"],
        &[],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta test `summation::naive_is_worse` failed: naive_is_worse is significantly \
         less accurate than sum_kahan on the typical input, beyond the 5% margin",
        "  claim: naive_is_worse is not less accurate than sum_kahan beyond the 5% margin",
        "  (M) mean error: ",
        "  (T) typical input: ",
        "  decided by the anytime-valid sequential test after ",
        "naive_is_worse (candidate) vs sum_kahan (baseline), oracle sum_f64",
        "n = 200",
        "Δ1 naive_is_worse",
        "Δ2 sum_kahan",
        "p = ",
        "naive_is_worse is significantly less accurate than sum_kahan",
        "DUAL_DELTA_SEED=",
        "test naive_is_worse ... FAILED",
        // The worst inputs, summarised (the inputs are long vectors of
        // f32): their length, range and ends.
        "  largest errors of naive_is_worse:\n    trial ",
        "; input 1024 × f32 in [",
        "]: first [",
        "], last [",
    ]);
}

#[test]
fn a_printed_seed_replays_the_run() {
    let first = cargo_test(
        &["--test", "summation", "--", "naive_is_worse", "--exact"],
        &[],
    );
    let seed = first
        .output
        .split("DUAL_DELTA_SEED=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no seed printed:\n{}", first.output));
    let candidate_row = |run: &Run| {
        run.output
            .lines()
            .find(|l| l.trim_start().starts_with("Δ1 "))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no Δ1 row:\n{}", run.output))
    };
    let replay = cargo_test(
        &["--test", "summation", "--", "naive_is_worse", "--exact"],
        &[("DUAL_DELTA_SEED", seed)],
    );
    assert!(!replay.passed, "{}", replay.output);
    assert_eq!(candidate_row(&first), candidate_row(&replay));
    replay.assert_contains(&["(base seed from DUAL_DELTA_SEED)"]);
}

#[test]
fn expect_worse_on_a_worse_candidate_passes() {
    let run = cargo_test(
        &[
            "--test",
            "summation",
            "--",
            "naive_is_caught",
            "naive_should_panic",
            "every_key::",
            "--nocapture",
            "--test-threads=1",
        ],
        &[],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "naive_is_caught is significantly less accurate than sum_kahan",
        // With `--nocapture` the table comes between `test name ...` and `ok`.
        "test naive_should_panic - should panic ... ok",
        "test every_key::with_closures ... dual-delta",
        "test every_key::built_in_metric_and_t_test ... dual-delta",
        "4 passed; 0 failed",
        // The attribute's settings reach the run.
        "summation::every_key::with_closures: with_closures (candidate) vs sum_kahan (baseline), \
         oracle |x: &Vec<f32>| sum_f64(x), metric |y: &[f64], o: &[f64]|",
        "n = 300, α = 0.05, margin 10%",
        "one-sided sign test H1 candidate worse: ",
        "metric max_relative, n = 100",
    ]);
}

#[test]
fn a_failed_check_fails_the_test_with_its_reason() {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-check");
    let _ = std::fs::remove_dir_all(&home);
    let run = cargo_test(
        &["--test", "summation", "--", "check_fails", "--exact"],
        &[("DUAL_DELTA_HOME", home.to_str().unwrap())],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta test `summation::check_fails` failed its check: max error ",
        " is above 1e-12",
        // The verdict itself passed, and its table is shown.
        "check_fails and sum_kahan gave identical outputs on every trial",
        "test check_fails ... FAILED",
    ]);
    // The check is decided before the report is written: the report, the
    // suite and the index call the run failed, reason first.
    let stored = dual_delta_runtime::report::scan(&home).unwrap();
    let Some(dual_delta_runtime::report::Stored::Run(r)) = stored.values().next() else {
        panic!("no report under {}: {stored:?}", home.display())
    };
    assert!(!r.judgement.passed());
    let failure = r.sentences.failure.as_deref().unwrap_or_default();
    assert!(
        failure.starts_with("Failed its check: max error "),
        "{failure}"
    );
    let suite = dual_delta_runtime::suite::summarise(&stored, None);
    assert_eq!((suite.failed, suite.passed), (1, 0));
    let index = std::fs::read_to_string(home.join("index.html")).unwrap();
    assert!(index.contains("Failed its check: max error "), "{index}");
}

#[test]
fn dual_delta_trial_runs_one_trial_and_prints_it_in_full() {
    let run = cargo_test(
        &["--test", "summation", "--", "naive_is_worse", "--exact"],
        &[("DUAL_DELTA_TRIAL", "0x1")],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta test `summation::naive_is_worse`: a trial of another run (trial seed \
         0x0000000000000001) run again on its own:\n  input: [",
        "\n  candidate: [",
        "\n  oracle: [",
        "DUAL_DELTA_TRIAL runs one trial and gives no verdict",
    ]);
    // In full: no input is cut.
    assert!(!run.output.contains("characters in all"), "{}", run.output);
}

#[test]
fn env_n_sets_the_number_of_trials() {
    let run = cargo_test(
        &[
            "--test",
            "summation",
            "--",
            "same_as_baseline",
            "--exact",
            "--nocapture",
        ],
        &[("DUAL_DELTA_N", "50")],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&["n = 50,"]);
    assert!(!run.output.contains("n = 1000"), "{}", run.output);
}

#[test]
fn invalid_env_fails_naming_the_variable() {
    let run = cargo_test(
        &["--test", "summation", "--", "same_as_baseline", "--exact"],
        &[("DUAL_DELTA_N", "abc")],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&["DUAL_DELTA_N=\"abc\"", "test same_as_baseline ... FAILED"]);
}

#[test]
fn a_blank_report_directory_fails_the_run_naming_the_variable() {
    let run = cargo_test(
        &["--test", "summation", "--", "same_as_baseline", "--exact"],
        &[("DUAL_DELTA_HOME", "")],
    );
    assert!(!run.passed, "{}", run.output);
    // A file of the fixture is named from the workspace's root, as rustc
    // names the files of a member.
    run.assert_contains(&[
        "dual-delta test `summation::same_as_baseline` (dual-delta-runtime/tests/e2e/tests/summation.rs:",
        ") could not run: invalid DUAL_DELTA_HOME=\"\": expected a directory for the reports",
        "test same_as_baseline ... FAILED",
    ]);
    // Before any trial: no table.
    assert!(
        !run.output.contains("Δ1 same_as_baseline"),
        "{}",
        run.output
    );
}

#[test]
fn works_in_unit_tests() {
    let run = cargo_test(&["--lib", "--", "--nocapture"], &[]);
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta dual_delta_e2e::tests::unit_kahan_is_better:",
        "unit_kahan_is_better is significantly more accurate than sum_naive",
        "test tests::unit_kahan_is_better ... ok",
    ]);
}

#[test]
fn tests_are_listed_under_their_names_with_ignore_and_cfg() {
    let run = cargo_test(&["--test", "summation", "--", "--list"], &[]);
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "same_as_baseline: test",
        "naive_is_worse: test",
        "every_key::with_closures: test",
        "ignored: test",
    ]);
    assert!(!run.output.contains("configured_out"), "{}", run.output);

    let ignored = cargo_test(&["--test", "summation", "--", "--list", "--ignored"], &[]);
    assert!(ignored.passed, "{}", ignored.output);
    assert!(
        ignored.output.contains("ignored: test"),
        "{}",
        ignored.output
    );
    assert!(
        !ignored.output.contains("same_as_baseline"),
        "{}",
        ignored.output
    );
}

#[test]
fn the_readme_example_is_a_test_that_runs_pasted_into_a_crate() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&readme_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", readme_path.display()));
    let example = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the README has a ```rust example");
    assert!(example.contains("#[dual_delta_test("), "{example}");
    // The fixture's `tests/readme.rs` is the example, pasted.
    let pasted = fixture().join("tests/readme.rs");
    let test = std::fs::read_to_string(&pasted).unwrap();
    assert_eq!(
        test.trim_end(),
        example,
        "{} is not the README's first example: paste it there again",
        pasted.display()
    );

    let run = cargo_test(&["--test", "readme", "--", "--nocapture"], &[]);
    run.assert_contains(&["running 1 test", "dual-delta readme::", "verdict: "]);
    // The README's failure is this run's, word for word: the report's
    // folder relative to the crate (wherever `CARGO_TARGET_DIR` puts it),
    // and the package a user's would be.
    let lines: Vec<&str> = run.output.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("dual-delta test `readme::sum_naive` failed"))
        .expect("the failure's first line");
    let last = first
        + lines[first..]
            .iter()
            .position(|l| l.contains("to replay its worst trial alone"))
            .expect("the one trial's replay line");
    let printed: Vec<String> = lines[first..=last]
        .iter()
        .map(|l| match l.split_once("report: ") {
            Some((head, path)) => format!(
                "{head}report: target/dual-delta/{}",
                path.rsplit_once("/dual-delta/").map_or(path, |(_, p)| p)
            ),
            None => l.replace("-p dual-delta-e2e", "-p my-crate"),
        })
        .collect();
    let shown = readme
        .split("## What a failure looks like\n\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the README shows a failure");
    assert_eq!(
        shown.lines().collect::<Vec<_>>(),
        printed,
        "the README's failure is not the one the example prints: paste it there again"
    );
}

#[test]
fn a_candidate_returning_nan_on_a_few_trials_fails_saying_so_first() {
    let run = cargo_test(
        &["--test", "gate", "--", "nan_on_a_few_trials", "--exact"],
        &[],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta test `gate::nan_on_a_few_trials` failed: the candidate nan_on_a_few_trials \
         returned a non-finite value (NaN or infinity) on ",
        " of 200 inputs checked where sum_kahan and the oracle were finite.\n  first: trial ",
        "), element 0 is NaN\n  replay: DUAL_DELTA_SEED=",
        " cargo test -p dual-delta-e2e --test gate -- nan_on_a_few_trials --exact\n",
        "`allow_non_finite = true`",
        "non-finite outputs: candidate on ",
        "baseline on 0 of 200",
    ]);
    // The statistics alone would have passed it: the message leads with the
    // NaNs, not with the accuracy test.
    let first_line = run
        .output
        .lines()
        .find(|l| l.contains("failed:"))
        .unwrap_or_default();
    assert!(!first_line.contains("accuracy expectation"), "{first_line}");
}

#[test]
fn non_finite_outputs_allowed_counted_as_worse_or_from_the_baseline() {
    let run = cargo_test(
        &[
            "--test",
            "gate",
            "--",
            "nan_allowed",
            "nan_counts_as_worse",
            "baseline_nan",
            "--nocapture",
            "--test-threads=1",
        ],
        &[],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "test nan_allowed - should panic ... ok",
        "test nan_counts_as_worse ... dual-delta",
        "note: the baseline kahan_nan_sometimes returned a non-finite value on ",
        " trials where the candidate was finite; first: trial ",
        "3 passed; 0 failed",
    ]);
}

#[test]
fn equal_errors_with_different_outputs_are_not_called_identical() {
    let run = cargo_test(
        &["--test", "gate", "--", "below", "--exact", "--nocapture"],
        &[],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "below and above had equal errors on every trial, though their outputs differ",
    ]);
    assert!(!run.output.contains("identical"), "{}", run.output);
}

#[test]
fn a_panicking_candidate_is_reported_once() {
    let run = cargo_test(
        &[
            "--test",
            "gate",
            "--",
            "panics_on_a_trial",
            "--exact",
            "--nocapture",
        ],
        &[],
    );
    assert!(!run.passed, "{}", run.output);
    run.assert_contains(&[
        "could not run: the candidate panicked in trial ",
        "the kernel hit a bad input (first element ",
        "(at dual-delta-runtime/tests/e2e/tests/gate.rs:",
    ]);
    // Once: not also by the worker thread's panic hook.
    assert_eq!(
        run.output.matches("the kernel hit a bad input").count(),
        1,
        "{}",
        run.output
    );
}

#[test]
fn expressions_of_the_wrong_type_are_reported_where_they_are_written() {
    let run = cargo_test(
        &[
            "--features",
            "wrong-types",
            "--test",
            "wrong_types",
            "--no-run",
        ],
        &[],
    );
    assert!(!run.passed, "{}", run.output);
    // Each error points at the user's expression, on the attribute's line,
    // and names the expression and the types (whitespace aside: rustc's
    // indentation depends on the widths of the line numbers it shows).
    let squeezed = run.output.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "error[E0271]: expected `random_vec` to return `Vec<f64>`, but it returns `Vec<f32>` \
         --> dual-delta-runtime/tests/e2e/tests/wrong_types.rs:14:67",
        "error[E0631]: type mismatch in function arguments --> dual-delta-runtime/tests/e2e/tests/wrong_types.rs:20:28",
        "found function signature `fn(&Vec<f64>) -> _`",
        // An oracle of another signature: the note names the oracle.
        "error[E0593]: function is expected to take 1 argument, but it takes 2 arguments \
         --> dual-delta-runtime/tests/e2e/tests/wrong_types.rs:30:28",
        "note: required by a bound in `dual_delta_runtime::__private::oracle_of`",
        // A case's value, typed as the candidate's parameter.
        "error[E0308]: mismatched types --> dual-delta-runtime/tests/e2e/tests/wrong_types.rs:43:14",
    ] {
        assert!(squeezed.contains(needle), "{needle:?} in:\n{}", run.output);
    }
    // Nothing points inside the runtime's run.
    assert!(!run.output.contains("run_test"), "{}", run.output);
}

#[test]
fn each_annotated_test_appends_a_row_to_the_github_step_summary() {
    let summary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("step_summary.md");
    std::fs::write(&summary, "# Earlier step\n").unwrap();
    let run = cargo_test(
        &[
            "--test",
            "summation",
            "--",
            "naive_is_caught",
            "built_in_metric",
        ],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert!(run.passed, "{}", run.output);
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# Earlier step\n\n| dual-delta test | result |"),
        "{text}"
    );
    assert_eq!(text.matches("| dual-delta test |").count(), 1, "{text}");
    for test in ["naive_is_caught", "built_in_metric_and_t_test"] {
        let row = text
            .lines()
            .find(|l| l.contains(&format!("::{test}`")))
            .unwrap_or_else(|| panic!("no row for {test}:\n{text}"));
        assert!(
            row.contains("| passed |") && row.contains("significantly less accurate"),
            "{row}"
        );
        assert!(row.contains("/dual-delta/") && row.ends_with(" |"), "{row}");
    }
}

#[test]
fn each_case_is_a_test_named_after_its_values() {
    let run = cargo_test(&["--test", "cases", "--", "--list"], &[]);
    assert!(run.passed, "{}", run.output);
    let mut tests: Vec<&str> = run
        .output
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    tests.sort_unstable();
    assert_eq!(
        tests,
        [
            "sum_blocked::len_256_acc_f32",
            "sum_blocked::len_256_acc_f64",
            "sum_blocked::len_4096_acc_f32",
            "sum_blocked::len_4096_acc_f64",
            "sum_naive::len_1024",
            "sum_naive::len_65536",
        ],
        "{}",
        run.output
    );
}

#[test]
fn each_case_has_its_own_seed_and_report() {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cases-reports");
    let _ = std::fs::remove_dir_all(&home);
    let run = cargo_test(
        &["--test", "cases", "--", "--nocapture", "--test-threads=1"],
        &[("DUAL_DELTA_HOME", home.to_str().unwrap())],
    );
    assert!(run.passed, "{}", run.output);
    run.assert_contains(&[
        "dual-delta cases::sum_naive::len_65536: sum_naive (candidate) vs sum_pairwise \
         (baseline), oracle sum_f64,",
        "sum_naive is significantly less accurate than sum_pairwise",
        "dual-delta cases::sum_blocked::len_4096_acc_f64: sum_blocked (candidate) vs sum_f32",
        "test sum_blocked::len_256_acc_f32 ... dual-delta",
        "6 passed; 0 failed",
    ]);
    let mut seeds = Vec::new();
    for case in [
        "sum_naive.len_1024",
        "sum_naive.len_65536",
        "sum_blocked.len_256_acc_f32",
        "sum_blocked.len_256_acc_f64",
        "sum_blocked.len_4096_acc_f32",
        "sum_blocked.len_4096_acc_f64",
    ] {
        let path = home.join(format!("cases.{case}")).join("summary.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("no report {}: {e}\n{}", path.display(), run.output));
        let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
        let test = format!("cases::{}", case.replace('.', "::"));
        assert_eq!(summary["names"]["test"], test.as_str());
        let seed = summary["settings"]["seed"].as_u64().expect("a seed");
        assert_eq!(
            seed,
            dual_delta_runtime::generate::seed_from_name(&test),
            "{test}"
        );
        seeds.push(seed);
    }
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 6, "one seed per case: {seeds:x?}");
}
