//! Fault injection: writers killed (SIGKILL) at seeded random points of a
//! report's write and of a baseline's save, and processes writing one test
//! each (as cargo-nextest runs them) beside readers. Nothing written is
//! lost, no reader sees a test go missing, and what the kills left is
//! removed by the next writer.
//!
//! The writers are this test binary, running [`child`] in a child process.
//! Quick under `cargo test`; `DUAL_DELTA_SOAK=1` runs ten times the kills
//! and the writes: `DUAL_DELTA_SOAK=1 cargo test -p dual-delta-runtime
//! --features cli --test runtime -- kills:: --nocapture`.
#![allow(clippy::ptr_arg)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dual_delta_runtime::baseline::{Baseline, baseline_file};
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::{self, Stored};
use dual_delta_runtime::{outcome::Outcome, settings::Baselines};

use crate::common::{kahan, naive, oracle, short_input as input};

/// How many times more to kill and write under `DUAL_DELTA_SOAK=1`.
fn soak() -> usize {
    if std::env::var_os("DUAL_DELTA_SOAK").is_some_and(|v| v != "0") {
        10
    } else {
        1
    }
}

/// A seeded generator of delays (SplitMix64).
struct Delays(u64);

impl Delays {
    /// A delay below `max_us` microseconds.
    fn next(&mut self, max_us: u64) -> Duration {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Duration::from_micros((z ^ (z >> 31)) % max_us)
    }
}

/// A run of `test` with `n` trials (the more, the longer its report takes
/// to write).
fn outcome(test: &str, n: usize) -> Outcome {
    DualDelta::new(kahan, naive, oracle, input)
        .test_name(test)
        .n(n)
        .seed(3)
        .run()
        .unwrap()
}

/// A writer in a child process: `KILLS_CHILD` is `report` (the report of
/// `KILLS_TEST` under `KILLS_ROOT`, written `KILLS_WRITES` times, 0 for
/// ever) or `baseline` (its baseline `main` under `KILLS_ROOT`, saved so).
/// It creates the file `KILLS_READY` once it starts writing.
#[test]
#[ignore = "run by the tests of this module in child processes"]
fn child() {
    let var = |k: &str| std::env::var(k).unwrap();
    let (root, test) = (PathBuf::from(var("KILLS_ROOT")), var("KILLS_TEST"));
    let writes: usize = var("KILLS_WRITES").parse().unwrap();
    let write: Box<dyn Fn()> = match var("KILLS_CHILD").as_str() {
        "report" => {
            let o = outcome(&test, var("KILLS_N").parse().unwrap());
            Box::new(move || {
                report::write_under(&o, &root).unwrap();
            })
        }
        _ => {
            let file = baseline_file(&root, "main", &test);
            let b = Baseline::read(&file).unwrap();
            Box::new(move || b.write(&file).unwrap())
        }
    };
    fs::write(var("KILLS_READY"), "").unwrap();
    let mut done = 0;
    while writes == 0 || done < writes {
        write();
        done += 1;
    }
}

/// Starts [`child`] as `kind` on `test` under `root`; `ready` is created
/// once it writes.
fn spawn(kind: &str, root: &Path, test: &str, writes: usize, ready: &Path) -> Child {
    spawn_n(kind, root, test, writes, ready, 50)
}

/// [`spawn`], the child's run with `n` trials.
fn spawn_n(kind: &str, root: &Path, test: &str, writes: usize, ready: &Path, n: usize) -> Child {
    let _ = fs::remove_file(ready);
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "kills::child",
            "--test-threads",
            "1",
        ])
        .env("KILLS_CHILD", kind)
        .env("KILLS_ROOT", root)
        .env("KILLS_TEST", test)
        .env("KILLS_WRITES", writes.to_string())
        .env("KILLS_N", n.to_string())
        .env("KILLS_READY", ready)
        .env("DUAL_DELTA_PROGRESS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for(file: &Path, child: &mut Child) {
    let start = Instant::now();
    while !file.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the child ended early");
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the child never wrote"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn folder(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("kills-{name}"));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The hidden entries under `dir` that no report links to: what writers
/// were doing or left.
fn leftovers(dir: &Path) -> BTreeSet<String> {
    let names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let linked: BTreeSet<String> = names
        .iter()
        .filter_map(|n| fs::read_link(dir.join(n)).ok())
        .map(|t| t.to_string_lossy().into_owned())
        .collect();
    names
        .into_iter()
        .filter(|n| n.starts_with('.') && !linked.contains(n))
        .collect()
}

/// The report of `test` under `root` is there, whole, and the index links
/// to it.
fn assert_whole(root: &Path, test: &str, when: &str) {
    let dir = report::test_dir_name(test);
    let stored = report::scan(root).unwrap();
    assert!(
        matches!(stored.get(&dir), Some(Stored::Run(r)) if r.names.test == test),
        "{when}: {stored:?}"
    );
    for file in ["summary.json", "deltas.csv", "index.html"] {
        assert!(root.join(&dir).join(file).is_file(), "{when}: {file}");
    }
    let index = fs::read_to_string(root.join("index.html")).unwrap();
    assert!(
        index.contains(&format!("href=\"{dir}/index.html\"")),
        "{when}: the index lost it"
    );
}

#[test]
fn a_writer_killed_at_any_point_leaves_the_old_report_or_the_new() {
    let root = folder("report");
    let test = "kills::victim";
    report::write_under(&outcome(test, 2000), &root).unwrap();
    let ready = root.with_extension("ready");
    let mut delays = Delays(0x5eed_0001);
    let (kills, mut caught_writing) = (40 * soak(), 0);
    for k in 0..kills {
        let mut c = spawn_n("report", &root, test, 0, &ready, 2000);
        wait_for(&ready, &mut c);
        std::thread::sleep(delays.next(30_000));
        c.kill().unwrap();
        c.wait().unwrap();
        caught_writing += usize::from(!leftovers(&root).is_empty());
        assert_whole(&root, test, &format!("after kill {k}"));
    }
    eprintln!("{kills} kills of a writer, {caught_writing} of them mid-write");
    // The next writer removes what the killed ones left.
    report::write_under(&outcome(test, 50), &root).unwrap();
    assert_eq!(leftovers(&root), BTreeSet::new());
    assert_whole(&root, test, "after the next write");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_save_killed_at_any_point_leaves_the_old_baseline_or_the_new() {
    let dir = folder("baseline");
    let test = "kills::saved";
    let save = Baselines {
        save: Some("main".into()),
        dir: Some(dir.clone()),
        ..Baselines::default()
    };
    DualDelta::new(kahan, naive, oracle, input)
        .test_name(test)
        .n(2000)
        .baselines(save)
        .run()
        .unwrap();
    let file = baseline_file(&dir, "main", test);
    let saved = Baseline::read(&file).unwrap();
    let ready = dir.with_extension("ready");
    let mut delays = Delays(0x5eed_0002);
    let (kills, mut caught_writing) = (40 * soak(), 0);
    for k in 0..kills {
        let mut c = spawn("baseline", &dir, test, 0, &ready);
        wait_for(&ready, &mut c);
        std::thread::sleep(delays.next(30_000));
        c.kill().unwrap();
        c.wait().unwrap();
        caught_writing += usize::from(!leftovers(file.parent().unwrap()).is_empty());
        let b = Baseline::read(&file).unwrap_or_else(|e| panic!("after kill {k}: {e}"));
        assert_eq!(b.trials, saved.trials, "after kill {k}");
    }
    eprintln!("{kills} kills of a save, {caught_writing} of them mid-write");
    // The next save removes what the killed ones left.
    saved.write(&file).unwrap();
    assert_eq!(leftovers(file.parent().unwrap()), BTreeSet::new());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn readers_never_miss_a_test_while_a_process_per_test_writes() {
    let root = folder("readers");
    let tests: Vec<String> = (0..8).map(|k| format!("kills::nextest_{k}")).collect();
    for t in &tests {
        report::write_under(&outcome(t, 50), &root).unwrap();
    }
    let writes = 10 * soak();
    let mut children: Vec<Child> = tests
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let ready = root.with_extension(format!("ready{k}"));
            spawn("report", &root, t, writes, &ready)
        })
        .collect();
    let (mut scans, mut pages) = (0, 0);
    #[cfg_attr(not(feature = "cli"), allow(unused_mut))]
    let mut lists = 0;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        let stored = report::scan(&root).unwrap();
        let found: Vec<&str> = stored.values().map(Stored::test).collect();
        assert_eq!(found, tests, "scan {scans}");
        scans += 1;
        let index = fs::read_to_string(root.join("index.html")).unwrap();
        for t in &tests {
            let dir = report::test_dir_name(t);
            assert!(
                index.contains(&format!("href=\"{dir}/index.html\"")),
                "page {pages} lost {t}"
            );
        }
        pages += 1;
        #[cfg(feature = "cli")]
        {
            let out = Command::new(env!("CARGO_BIN_EXE_cargo-dual-delta"))
                .args(["dual-delta", "list", "--dir"])
                .arg(&root)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "list {lists}: {text}");
            assert!(
                text.contains("8 passed, 0 failed, 0 regressed, 0 skipped"),
                "list {lists}: {text}"
            );
            lists += 1;
        }
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    eprintln!(
        "8 processes, {writes} writes each: {scans} scans, {pages} index pages and {lists} \
         listings, each whole"
    );
    assert!(scans > 0);
    assert_eq!(leftovers(&root), BTreeSet::new());
    fs::remove_dir_all(&root).unwrap();
}
