//! `cargo dual-delta`, run as a user runs it: the binary, on reports and
//! baselines written by runs of the builder. Built with the `cli` feature
//! only: `cargo test -p dual-delta-runtime --features cli --test cli`.
#![cfg(feature = "cli")]
#![allow(clippy::ptr_arg)]

use std::path::{Path, PathBuf};
use std::process::Command;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{Baselines, report};

mod common;

use common::{kahan, kahan_on_half, naive, oracle, short_input as input};

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
    assert_eq!(saved.delta1.len(), 400);
    let o = run(None);
    let s = &o.screen;
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
        out.contains(&format!("over {} paired trials", o.delta1.len())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  note: over the {} inputs its run measured of 400: the oracle skipped {} of its {} \
             ties (identical outputs)",
            o.delta1.len(),
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
            o.settings.seed
        )),
        "{out}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
