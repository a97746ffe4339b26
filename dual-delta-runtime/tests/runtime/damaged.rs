//! Every file `cargo dual-delta` reads, damaged: truncated, empty, garbage,
//! a folder where a file should be, copied from another test. Each is an
//! error or an unreadable report that names the file and what is wrong with
//! it and fails the command, never a pass or a smaller comparison. And
//! `merge --out` into a used folder. `cargo test -p dual-delta-runtime
//! --features cli --test runtime -- damaged::`.
#![cfg(feature = "cli")]
#![allow(clippy::ptr_arg)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use dual_delta_runtime::baseline::{Baseline, baseline_file};
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{report, settings::Baselines};

use crate::common::{kahan, naive, oracle, short_input as input};

/// What the binary did: its exit code, and its stdout then stderr.
fn cli(args: &[&str]) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-dual-delta"));
    command.arg("dual-delta").args(args);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("DUAL_DELTA_") {
            command.env_remove(key);
        }
    }
    let out = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// An empty folder of this test's own.
fn folder(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("damaged-{name}"));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `cargo dual-delta compare test --baseline name` over the reports and the
/// baselines of these folders.
fn compare(reports: &Path, baselines: &Path, test: &str, name: &str) -> (Option<i32>, String) {
    cli(&[
        "compare",
        test,
        "--dir",
        s(reports),
        "--baseline-dir",
        s(baselines),
        "--baseline",
        name,
    ])
}

/// A run of `test`: passing (Kahan against naive summation) or failing
/// (the other way round), with `baselines`.
fn run(test: &str, passing: bool, n: usize, baselines: Baselines) -> Outcome {
    let o = if passing {
        DualDelta::new(kahan, naive, oracle, input)
    } else {
        DualDelta::new(naive, kahan, oracle, input)
    }
    .test_name(test)
    .n(n)
    .seed(7)
    .baselines(baselines)
    .run()
    .unwrap();
    assert_eq!(o.passed(), passing, "{}", o.verdict_sentence());
    o
}

/// A shard with a passing and a failing test; the failing one's folder (its
/// current version, resolved).
fn shard_with_a_failure(root: &Path) -> PathBuf {
    report::write_under(&run("damaged::pass", true, 50, Baselines::default()), root).unwrap();
    report::write_under(&run("damaged::fail", false, 50, Baselines::default()), root).unwrap();
    fs::canonicalize(root.join("damaged.fail")).unwrap()
}

/// `list`, `show` and `merge` of the shard `root`, whose failing test's
/// record `at` cannot be read for `why`: each names it and fails.
fn check_unreadable(root: &Path, at: &Path, why: &str, what: &str) {
    let line = format!("unreadable report of `damaged.fail`: {}: ", at.display());

    let (code, out) = cli(&["list", "--dir", s(root)]);
    assert_eq!(code, Some(1), "{what}: {out}");
    assert!(out.contains(&format!("{line}{why}")), "{what}: {out}");
    assert!(
        out.contains("1 passed, 0 failed, 0 regressed, 0 skipped, 1 unreadable"),
        "{what}: {out}"
    );

    let (code, out) = cli(&["show", "damaged::fail", "--dir", s(root)]);
    assert_eq!(code, Some(1), "{what}: {out}");
    assert!(
        out.starts_with(&format!("error: {line}{why}")),
        "{what}: {out}"
    );

    let merged = root.with_extension("merged");
    let (code, out) = cli(&["merge", s(root), "--out", s(&merged)]);
    assert_eq!(code, Some(1), "{what}: {out}");
    assert!(out.starts_with(&format!("{line}{why}")), "{what}: {out}");
    assert!(
        out.contains("2 tests: 1 passed, 0 failed, 0 regressed, 0 skipped, 1 unreadable"),
        "{what}: {out}"
    );
    let suite: dual_delta_runtime::suite::SuiteSummary =
        serde_json::from_str(&fs::read_to_string(merged.join("suite.json")).unwrap()).unwrap();
    assert_eq!((suite.unreadable, suite.failures_kept), (1, 1), "{what}");
}

/// The records a report folder may hold: each written whole for the
/// failing test under `root`, which then holds it beside a passing test.
fn record_of(record: &str, root: &Path) -> PathBuf {
    let version = shard_with_a_failure(root);
    match record {
        "skipped.json" => {
            report::write_skipped(root, "damaged::fail", "candidate", "no device").unwrap();
        }
        "stopped.json" => {
            let stop = serde_json::json!({
                "test": "damaged::fail",
                "reason": "a panic",
                "replay": "cargo test",
                "place": null,
                "timestamp_ms": u64::MAX,
            });
            let text = stop.to_string();
            fs::write(version.join("stopped.json"), text).unwrap();
        }
        _ => {}
    }
    fs::canonicalize(root.join("damaged.fail")).unwrap()
}

#[test]
fn a_damaged_record_is_an_unreadable_failure_of_list_show_and_merge() {
    let d = folder("records");
    type Damage = fn(&Path);
    let damages: [(&str, Damage, &str); 4] = [
        (
            "truncated",
            |f| {
                let text = fs::read(f).unwrap();
                fs::write(f, &text[..text.len() / 2]).unwrap();
            },
            "truncated or empty (EOF while parsing",
        ),
        (
            "empty",
            |f| fs::write(f, "").unwrap(),
            "truncated or empty (EOF while parsing",
        ),
        (
            "garbage",
            |f| fs::write(f, "\u{1}garbage{").unwrap(),
            "not a ",
        ),
        (
            "a folder",
            |f| {
                fs::remove_file(f).unwrap();
                fs::create_dir(f).unwrap();
            },
            "Is a directory",
        ),
    ];
    let mut cases = 0;
    for record in ["summary.json", "skipped.json", "stopped.json"] {
        for (what, damage, why) in damages {
            let what = format!("{record} {what}");
            let root = d.join(what.replace(' ', "-"));
            damage(&record_of(record, &root).join(record));
            let at = root.join("damaged.fail").join(record);
            check_unreadable(&root, &at, why, &what);
            // The test's next run replaces it.
            let again = run("damaged::fail", false, 50, Baselines::default());
            report::write_under(&again, &root).unwrap();
            let (code, out) = cli(&["list", "--dir", s(&root)]);
            assert_eq!(code, Some(0), "{what}: {out}");
            assert!(
                out.contains("1 passed, 1 failed, 0 regressed, 0 skipped ("),
                "{what}: {out}"
            );
            cases += 1;
        }
    }
    // A run's report without its record.
    let root = d.join("no-record");
    let version = record_of("summary.json", &root);
    fs::remove_file(version.join("summary.json")).unwrap();
    let why = "holds a deltas.csv but no summary.json, skipped.json or stopped.json";
    check_unreadable(&root, &root.join("damaged.fail"), why, "no record");
    assert_eq!(cases, 12);
    // A report link whose version is gone.
    let root = d.join("dangling");
    let version = shard_with_a_failure(&root);
    fs::remove_dir_all(&version).unwrap();
    let (code, out) = cli(&["list", "--dir", s(&root)]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "unreadable report of `damaged.fail`: {}: a link to {}, which is missing",
            root.join("damaged.fail").display(),
            version.file_name().unwrap().to_string_lossy()
        )),
        "{out}"
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn merge_replaces_a_previous_merge_and_refuses_any_other_used_folder() {
    let d = folder("merge");
    let (a, b, out) = (d.join("a"), d.join("b"), d.join("out"));
    shard_with_a_failure(&a);
    let (code, text) = cli(&["merge", s(&a), "--out", s(&out)]);
    assert_eq!(code, Some(1), "{text}");
    for k in 0..4 {
        let o = run(&format!("damaged::b{k}"), true, 50, Baselines::default());
        report::write_under(&o, &b).unwrap();
    }
    // Into the folder of the merge before: its contents replaced.
    let (code, text) = cli(&["merge", s(&b), "--out", s(&out)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with("4 tests: 4 passed, 0 failed, 0 regressed, 0 skipped; index"),
        "{text}"
    );
    let mut left: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".dual-delta-merge",
            "damaged.b0",
            "damaged.b1",
            "damaged.b2",
            "damaged.b3",
            "index.html",
            "suite.json",
            "summary.md"
        ]
    );
    // A merge cut short (its mark, no suite.json yet) is replaced too.
    fs::remove_file(out.join("suite.json")).unwrap();
    let (code, text) = cli(&["merge", s(&b), "--out", s(&out)]);
    assert_eq!(code, Some(0), "{text}");
    // A folder with other files is no merge's: refused, left as it was.
    let used = d.join("used");
    fs::create_dir_all(&used).unwrap();
    fs::write(used.join("notes.txt"), "mine").unwrap();
    let (code, text) = cli(&["merge", s(&b), "--out", s(&used)]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        text,
        format!(
            "error: merge into {0}: {0} holds files and no suite.json: it is no merge's folder; \
             name a new or empty folder with --out\n",
            used.display()
        )
    );
    assert_eq!(fs::read_to_string(used.join("notes.txt")).unwrap(), "mine");
    // A shard is no place for the merge.
    let (code, text) = cli(&["merge", s(&a), s(&b), "--out", s(&b)]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is a shard and the merge's folder"), "{text}");
    // An empty shard is said to be empty, and fails the merge.
    let empty = d.join("empty");
    fs::create_dir_all(&empty).unwrap();
    let (code, text) = cli(&["merge", s(&b), s(&empty), "--out", s(&out)]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.starts_with(&format!(
            "shard {} holds no report: its tests are missing from the merge (a failure)\n4 tests: \
             4 passed",
            empty.display()
        )),
        "{text}"
    );
    fs::remove_dir_all(&d).unwrap();
}

/// A report of `test` (n = 300) and its baseline `main`, saved by the same
/// run: the report's folder (its version), the baselines' folder.
fn report_and_baseline(d: &Path, test: &str) -> (PathBuf, PathBuf) {
    let (reports, baselines) = (d.join("reports"), d.join("baselines"));
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(baselines.clone()),
        ..Baselines::default()
    };
    report::write_under(&run(test, true, 300, save), &reports).unwrap();
    let version = fs::canonicalize(reports.join(report::test_dir_name(test))).unwrap();
    (version, baselines)
}

#[test]
fn compare_checks_deltas_csv_against_its_summary() {
    let d = folder("deltas");
    let (version, baselines) = report_and_baseline(&d, "damaged::deltas");
    let reports = d.join("reports");
    let compare = |name: &str| compare(&reports, &baselines, "damaged::deltas", name);
    let (code, out) = compare("main");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("over 300 paired trials"), "{out}");

    let csv = version.join("deltas.csv");
    let whole = fs::read_to_string(&csv).unwrap();
    let first_19: String = whole.lines().take(20).map(|l| format!("{l}\n")).collect();
    let cut = whole[..whole.len() - 5].to_owned();
    for (what, text, why) in [
        (
            "19 of 300 trials",
            first_19.as_str(),
            "damaged or cut short: 19 rows",
        ),
        (
            "5 bytes short",
            cut.as_str(),
            "damaged or cut short: 300 rows",
        ),
        ("empty", "", "damaged or cut short: 0 rows"),
        ("garbage", "x,y\n1,2\n", "damaged or cut short: 1 rows"),
    ] {
        fs::write(&csv, text).unwrap();
        let (code, out) = compare("main");
        assert_eq!(code, Some(1), "{what}: {out}");
        assert!(
            out.starts_with(&format!("error: {}: {why}", csv.display()))
                && out.contains("where its summary.json records 300 rows")
                && !out.contains("DUAL_DELTA_SAVE_BASELINE"),
            "{what}: {out}"
        );
    }
    fs::remove_file(&csv).unwrap();
    fs::create_dir(&csv).unwrap();
    let (code, out) = compare("main");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with(&format!("error: {}: ", csv.display())),
        "{out}"
    );
    fs::remove_dir(&csv).unwrap();
    fs::write(&csv, &whole).unwrap();

    // A report of an earlier build records nothing of it: refused.
    let summary = version.join("summary.json");
    let mut j: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(j["deltas_csv"]["rows"], 300);
    j.as_object_mut().unwrap().remove("deltas_csv");
    fs::write(&summary, serde_json::to_string(&j).unwrap()).unwrap();
    let (code, out) = compare("main");
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        format!(
            "error: {}: its summary.json records no row count or checksum of it (a report of an \
             earlier build), so it cannot be checked: run the test again\n",
            csv.display()
        )
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_baseline_is_checked_and_refused_for_another_test() {
    let d = folder("baselines");
    let (_, baselines) = report_and_baseline(&d, "damaged::a");
    let reports = d.join("reports");
    let compare = |name: &str| compare(&reports, &baselines, "damaged::a", name);
    let file = baseline_file(&baselines, "main", "damaged::a");
    let whole = fs::read_to_string(&file).unwrap();
    let b = Baseline::read(&file).unwrap();
    assert_eq!((b.format, b.trial_count), (2, Some(300)));

    // Copied under another name: that name's.
    let other = baseline_file(&baselines, "other", "damaged::a");
    fs::create_dir_all(other.parent().unwrap()).unwrap();
    fs::copy(&file, &other).unwrap();
    let (code, out) = compare("other");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("baseline `other`"), "{out}");

    // Saved as `main` with another n, copied as `other`: the error names
    // `other`, the baseline asked for.
    let elsewhere = d.join("elsewhere");
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(elsewhere.clone()),
        ..Baselines::default()
    };
    run("damaged::a", true, 100, save);
    fs::copy(baseline_file(&elsewhere, "main", "damaged::a"), &other).unwrap();
    let (code, out) = compare("other");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with("error: baseline `other` was saved with n = 100, and this run has n = 300"),
        "{out}"
    );
    assert!(!out.contains("`main`"), "{out}");

    // Another test's, with the same seed: refused, not a false regression.
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(baselines.clone()),
        ..Baselines::default()
    };
    run("damaged::b", false, 300, save);
    fs::copy(baseline_file(&baselines, "main", "damaged::b"), &other).unwrap();
    let (code, out) = compare("other");
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        format!(
            "error: baseline file {}: a baseline of `damaged::b`, not of `damaged::a`: a file \
             copied from another test's would compare different inputs; save one for \
             `damaged::a` (DUAL_DELTA_SAVE_BASELINE=other)\n",
            other.display()
        )
    );
    let compare_in_a_run = Baselines {
        compare: Some("other".into()),
        dir: Some(baselines.clone()),
        ..Baselines::default()
    };
    let e = DualDelta::new(kahan, naive, oracle, input)
        .test_name("damaged::a")
        .n(300)
        .seed(7)
        .baselines(compare_in_a_run)
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a baseline of `damaged::b`, not of `damaged::a`"),
        "{e}"
    );
    assert_eq!(e.matches(other.to_str().unwrap()).count(), 1, "{e}");

    // Damaged: each named once, with what is wrong.
    let edited = whole.replacen("\"delta1\": ", "\"delta1\": 1", 1);
    for (what, text, why) in [
        (
            "truncated",
            &whole[..whole.len() / 2],
            "truncated or empty (",
        ),
        ("empty", "", "truncated or empty ("),
        ("garbage", "]]", "not a baseline file ("),
        ("edited", edited.as_str(), "its trials' checksum is "),
    ] {
        fs::write(&file, text).unwrap();
        let (code, out) = compare("main");
        assert_eq!(code, Some(1), "{what}: {out}");
        let line = format!("error: baseline file {}: {why}", file.display());
        assert!(out.starts_with(&line), "{what}: {out}");
        assert_eq!(
            out.matches(file.to_str().unwrap()).count(),
            1,
            "{what}: {out}"
        );
        let (code, out) = cli(&["baseline", "list", "--baseline-dir", s(&baselines)]);
        assert_eq!(code, Some(1), "{what}: {out}");
        assert!(
            out.contains(&format!("main  unreadable: {}: {why}", file.display())),
            "{what}: {out}"
        );
    }
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();
    let (code, out) = compare("main");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with(&format!(
            "error: baseline file {}: Is a directory",
            file.display()
        )),
        "{out}"
    );
    fs::remove_dir(&file).unwrap();
    let mut cut = serde_json::to_value(&b).unwrap();
    cut["trial_count"] = 300.into();
    cut["trials"].as_array_mut().unwrap().truncate(19);
    fs::write(&file, cut.to_string()).unwrap();
    let (code, out) = compare("main");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("holds 19 trials where it records 300"),
        "{out}"
    );
    fs::write(&file, &whole).unwrap();

    // A file where the name's folder should be.
    let blocked = d.join("blocked");
    fs::create_dir_all(&blocked).unwrap();
    fs::write(blocked.join("main"), "").unwrap();
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(blocked.clone()),
        ..Baselines::default()
    };
    let e = DualDelta::new(kahan, naive, oracle, input)
        .test_name("damaged::a")
        .n(50)
        .baselines(save)
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "{} is a file, where a folder should be",
            blocked.join("main").display()
        )),
        "{e}"
    );
    fs::remove_dir_all(&d).unwrap();
}

/// The id of a process that has ended.
#[cfg(target_os = "linux")]
fn a_dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

#[cfg(target_os = "linux")]
#[test]
fn what_killed_writers_left_is_removed_by_the_next_writer() {
    let d = folder("leftovers");
    let (reports, baselines) = (d.join("reports"), d.join("baselines"));
    let dead = a_dead_pid();
    // An earlier build's staging folder, this build's version never linked
    // and temporary link, each of a process that has ended; and one of a
    // process still running, which stays.
    let left = [
        format!(".tmp-{dead}-0-1"),
        format!(".damaged.pass~{dead}~0~1"),
        format!(".link@~{dead}~1~1"),
    ];
    let running = format!(".damaged.pass~{}~9~9", std::process::id());
    fs::create_dir_all(&reports).unwrap();
    for name in &left[..2] {
        fs::create_dir_all(reports.join(name)).unwrap();
        fs::write(reports.join(name).join("summary.json"), "{").unwrap();
    }
    fs::write(reports.join(&left[2]), "").unwrap();
    fs::create_dir_all(reports.join(&running)).unwrap();
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(baselines.clone()),
        ..Baselines::default()
    };
    let o = run("damaged::pass", true, 50, save.clone());
    report::write_under(&o, &reports).unwrap();
    let hidden = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        v.sort();
        v
    };
    let linked = fs::read_link(reports.join("damaged.pass")).unwrap();
    let mut expected = vec![linked.to_string_lossy().into_owned(), running];
    expected.sort();
    assert_eq!(hidden(&reports), expected);
    let (code, out) = cli(&["list", "--dir", s(&reports)]);
    assert_eq!(code, Some(0), "{out}");

    // A save's temporaries: an earlier build's `.json.<pid>.tmp`, this
    // build's hidden one; both of a process that has ended.
    let main = baselines.join("main");
    fs::write(main.join(format!("damaged.pass.json.{dead}.tmp")), "").unwrap();
    fs::write(main.join(format!(".damaged.pass.json~{dead}~0~0")), "").unwrap();
    run("damaged::pass", true, 50, save);
    let mut files: Vec<String> = fs::read_dir(&main)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["damaged.pass.json"]);
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(feature = "html")]
#[test]
fn the_index_lists_an_unreadable_report_as_a_failure_without_a_link() {
    let d = folder("index");
    let version = shard_with_a_failure(&d);
    fs::write(version.join("summary.json"), "").unwrap();
    // The next write rebuilds the index.
    report::write_under(&run("damaged::other", true, 50, Baselines::default()), &d).unwrap();
    let page = fs::read_to_string(d.join("index.html")).unwrap();
    assert!(page.contains("UNREADABLE"), "{page}");
    assert!(!page.contains("href=\"damaged.fail/index.html\""), "{page}");
    assert!(page.contains("href=\"damaged.pass/index.html\""), "{page}");
    assert!(
        page.contains(&format!(
            "unreadable report of `damaged.fail`: {}: truncated or empty",
            d.join("damaged.fail").join("summary.json").display()
        )),
        "{page}"
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn folders_that_hold_no_report_are_passed_over() {
    let d = folder("others");
    let o = run("damaged::pass", true, 50, Baselines::default());
    report::write_under(&o, &d).unwrap();
    // A shard's root and a merge's folder under the root, each with an
    // index.html of its own, and the baselines' folder.
    let shard = d.join("shard-1");
    report::write_under(&o, &shard).unwrap();
    let (code, text) = cli(&["merge", s(&shard), "--out", s(&d.join("merged"))]);
    assert_eq!(code, Some(0), "{text}");
    fs::create_dir_all(d.join("baselines").join("main")).unwrap();
    let (code, text) = cli(&["list", "--dir", s(&d)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.ends_with(&format!(
            "1 passed, 0 failed, 0 regressed, 0 skipped (reports under {})\n",
            d.display()
        )),
        "{text}"
    );
    fs::remove_dir_all(&d).unwrap();
}
