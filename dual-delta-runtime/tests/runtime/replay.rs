//! The printed replay commands, pasted: each runs `cargo test` on the
//! fixture crate `tests/e2e/` in a child process, takes the command a run
//! printed (or `cargo dual-delta show` prints from its report), runs it word
//! for word, and checks that it ran the one test it names.

use std::path::Path;

use crate::child::{Run, cargo_test, run_printed};
use dual_delta_runtime::ended::Stopped;
use dual_delta_runtime::report::{Stored, scan, show};
use dual_delta_runtime::suite::summarise;

/// The command on the line of `output` after `label`.
fn command_after<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.split_once(label).map(|(_, rest)| rest.trim()))
        .unwrap_or_else(|| panic!("no {label:?} in:\n{output}"))
}

/// The replay command `cargo dual-delta show` prints for `test`, from the
/// reports under `home`.
fn shown_command(home: &Path, test: &str, run: &Run) -> String {
    let stored = scan(home).unwrap();
    let summary = stored
        .values()
        .find_map(|s| match s {
            Stored::Run(r) if r.names.test == test => Some(r),
            _ => None,
        })
        .unwrap_or_else(|| {
            panic!(
                "no report of {test} under {}:\n{}",
                home.display(),
                run.output
            )
        });
    command_after(&show(summary), "replay: ").to_owned()
}

/// How many tests each `running N test(s)` line of `run` announced.
fn running(run: &Run) -> Vec<&str> {
    run.output
        .lines()
        .filter_map(|l| l.strip_prefix("running "))
        .collect()
}

#[test]
fn the_command_show_prints_runs_the_test_it_names() {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-reports");
    let _ = std::fs::remove_dir_all(&home);
    let env = [("DUAL_DELTA_HOME", home.to_str().unwrap())];
    let first = cargo_test(
        &["--test", "summation", "--", "naive_is_worse", "--exact"],
        &env,
    );
    assert!(!first.passed, "{}", first.output);
    let cases = cargo_test(
        &["--test", "cases", "--", "sum_naive::len_1024", "--exact"],
        &env,
    );
    assert!(cases.passed, "{}", cases.output);

    let failing = shown_command(&home, "summation::naive_is_worse", &first);
    let seed = command_after(&first.output, "replay: DUAL_DELTA_SEED=");
    let seed = seed.split_whitespace().next().unwrap();
    assert_eq!(
        failing,
        format!(
            "DUAL_DELTA_SEED={seed} cargo test -p dual-delta-e2e --test summation -- \
             naive_is_worse --exact"
        )
    );
    // The failure message prints the same command.
    assert_eq!(
        command_after(&first.output, "to replay exactly this run: "),
        failing
    );
    let replay = run_printed(&failing, &env);
    assert!(!replay.passed, "{}", replay.output);
    assert_eq!(running(&replay), ["1 test"], "{}", replay.output);
    replay.assert_contains(&[
        "test naive_is_worse ... FAILED",
        "(base seed from DUAL_DELTA_SEED)",
        "test result: FAILED. 0 passed; 1 failed",
    ]);

    let case = shown_command(&home, "cases::sum_naive::len_1024", &cases);
    assert!(
        case.ends_with(" cargo test -p dual-delta-e2e --test cases -- sum_naive::len_1024 --exact"),
        "{case}"
    );
    let replay = run_printed(&case, &env);
    assert!(replay.passed, "{}", replay.output);
    assert_eq!(running(&replay), ["1 test"], "{}", replay.output);
    replay.assert_contains(&["test result: ok. 1 passed; 0 failed"]);
}

/// The record a run that could not finish left under `home`.
fn stopped(home: &Path, test: &str) -> Stopped {
    match scan(home).unwrap().into_values().find(|s| s.test() == test) {
        Some(Stored::Stopped(s)) => s,
        other => panic!("no stop of {test} under {}: {other:?}", home.display()),
    }
}

/// A fresh report directory for one child run.
fn home(name: &str) -> std::path::PathBuf {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&home);
    home
}

#[test]
fn a_panicking_candidate_is_recorded_and_counted_as_a_failure() {
    let home = home("replay-panic");
    let env = [("DUAL_DELTA_HOME", home.to_str().unwrap())];
    let run = cargo_test(
        &["--test", "gate", "--", "panics_on_a_trial", "--exact"],
        &env,
    );
    assert!(!run.passed, "{}", run.output);
    let stop = stopped(&home, "gate::panics_on_a_trial");
    assert!(
        stop.reason.contains("the kernel hit a bad input"),
        "{stop:?}"
    );
    assert_eq!(command_after(&run.output, "replay: "), stop.replay);
    let suite = summarise(&scan(&home).unwrap(), None);
    assert_eq!((suite.failed, suite.passed, suite.failures_kept), (1, 0, 1));
    assert!(suite.tests[0].sentence.starts_with("could not finish: "));
    let replay = run_printed(&stop.replay, &[]);
    assert!(!replay.passed, "{}", replay.output);
    assert_eq!(running(&replay), ["1 test"], "{}", replay.output);
}

#[test]
fn the_watchdog_is_heard_without_nocapture_and_its_command_replays_the_test() {
    let home = home("replay-watchdog");
    let env = [
        ("DUAL_DELTA_TRIAL_TIMEOUT", "1"),
        ("DUAL_DELTA_HOME", home.to_str().unwrap()),
    ];
    let run = cargo_test(
        &["--test", "gate", "--", "slow_first_call", "--exact"],
        &env,
    );
    assert!(!run.passed, "{}", run.output);
    // libtest's capture is never printed when the process ends: the
    // message went past it.
    run.assert_contains(&[
        "dual-delta: gate::slow_first_call: the candidate has run for ",
        " (trial seed 0x",
        "over the per-trial limit of 1 s (DUAL_DELTA_TRIAL_TIMEOUT); ending the process.",
        "exit status: 124",
    ]);
    let command = command_after(&run.output, "Replay it with ");
    let seed = dual_delta_runtime::generate::seed_from_name("gate::slow_first_call");
    assert_eq!(
        command,
        format!(
            "DUAL_DELTA_SEED={seed:#x} cargo test -p dual-delta-e2e --test gate -- \
             slow_first_call --exact"
        )
    );
    // Recorded before the process ended: the suite counts it.
    let stop = stopped(&home, "gate::slow_first_call");
    assert_eq!(stop.replay, command);
    assert!(
        stop.reason.contains("over the per-trial limit of 1 s"),
        "{stop:?}"
    );
    let replay = run_printed(command, &env);
    assert!(!replay.passed, "{}", replay.output);
    assert_eq!(running(&replay), ["1 test"], "{}", replay.output);
    replay.assert_contains(&[
        "dual-delta: gate::slow_first_call: the candidate has run for ",
        "exit status: 124",
    ]);
}
