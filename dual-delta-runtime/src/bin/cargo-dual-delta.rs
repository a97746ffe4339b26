//! `cargo dual-delta`: the stored runs, baselines and suites of
//! dual-delta tests, from the files the tests wrote.
//!
//! ```sh
//! cargo install dual-delta-runtime --features cli
//! cargo dual-delta list
//! cargo dual-delta show summation::sum_naive
//! cargo dual-delta compare summation::sum_naive --baseline main
//! cargo dual-delta baseline list
//! cargo dual-delta merge shard-1/ shard-2/ --out merged/
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use dual_delta_runtime::baseline::{
    Baseline, FORMAT, baseline_dir_from_env, baseline_file, compare_errors, entries, list,
};
use dual_delta_runtime::report::summary::Summary;
use dual_delta_runtime::report::{
    DELTAS_FILE, Stored, csv, read_dir_record, report_root, scan, show, test_dir_name,
};
use dual_delta_runtime::suite;

/// Cargo calls `cargo-dual-delta dual-delta <args>`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Stored runs, baselines and suites of dual-delta tests.
    #[command(name = "dual-delta", version)]
    DualDelta(Cli),
}

#[derive(Args)]
struct Cli {
    /// The report directory (default: `DUAL_DELTA_HOME`, else
    /// `target/dual-delta` of the workspace).
    #[arg(long, global = true)]
    dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every stored run with its verdict, every skipped test, and every
    /// report it cannot read (then it exits non-zero).
    List,
    /// The verdict, distributions and replay command of a stored run.
    Show {
        /// The test's path (`module::function`) or report directory name.
        test: String,
    },
    /// A stored run against a saved baseline, paired by trial seed.
    Compare {
        /// The test's path or report directory name.
        test: String,
        /// The baseline's name.
        #[arg(long)]
        baseline: String,
        /// Where baselines are kept (default: `DUAL_DELTA_BASELINE_DIR`,
        /// else `baselines/` under the report directory).
        #[arg(long)]
        baseline_dir: Option<PathBuf>,
    },
    /// Saved baselines.
    Baseline {
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// The report directories of several CI shards merged into one: one
    /// index, `suite.json` and `summary.md`.
    Merge {
        /// The shards' report directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged reports go: a new or empty folder, or a previous
        /// merge's, whose contents are replaced.
        #[arg(long)]
        out: PathBuf,
        /// A suite-level budget: failures are sifted by Benjamini-Hochberg at this level
        /// (default: `DUAL_DELTA_SUITE_ALPHA`, else none).
        #[arg(long, env = "DUAL_DELTA_SUITE_ALPHA", value_parser = probability)]
        suite_alpha: Option<f64>,
    },
}

#[derive(Subcommand)]
enum BaselineCommand {
    /// Every saved baseline: name and test.
    List {
        /// Where baselines are kept (default: `DUAL_DELTA_BASELINE_DIR`,
        /// else `baselines/` under the report directory).
        #[arg(long)]
        baseline_dir: Option<PathBuf>,
    },
}

fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!(
            "expected a number strictly between 0 and 1, got {s:?}"
        )),
    }
}

fn main() -> ExitCode {
    let Cargo::DualDelta(cli) = Cargo::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let dir = match cli.dir {
        Some(d) => d,
        None => report_root().map_err(|e| e.to_string())?,
    };
    match cli.command {
        Command::List => {
            let stored = scan(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let s = suite::summarise(&stored, None);
            if s.tests.is_empty() {
                // Say where: outside a project, the default is a guess.
                println!(
                    "no reports under {}: run the tests first (`cargo test`), or name the \
                     report directory with --dir or DUAL_DELTA_HOME",
                    dir.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            for t in &s.tests {
                println!("{:<9} {}  {}", t.result, t.test, t.sentence);
            }
            println!("{} (reports under {})", s.counts(), dir.display());
            // A report it cannot read is a failure of the listing.
            Ok(if s.unreadable == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Show { test } => {
            let (r, _) = stored_run(&dir, &test)?;
            print!("{}", show(&r));
            Ok(ExitCode::SUCCESS)
        }
        Command::Compare {
            test,
            baseline,
            baseline_dir,
        } => {
            let (r, at) = stored_run(&dir, &test)?;
            let bdir = baselines_at(baseline_dir, &dir)?;
            let file = baseline_file(&bdir, &baseline, &r.names.test);
            if !file.exists() {
                return Err(no_baseline(&bdir, &baseline, &r.names.test));
            }
            let b = Baseline::read_for(&file, &baseline, &r.names.test)
                .map_err(|fault| format!("baseline file {}: {fault}", file.display()))?;
            if b.format < FORMAT {
                eprintln!(
                    "note: baseline file {} is of format {}, which records no checksum of its \
                     trials: it is read unchecked; save it again to have it checked",
                    file.display(),
                    b.format
                );
            }
            let trials = csv::read_checked(&at.join(DELTAS_FILE), r.deltas_csv.as_ref())
                .map_err(|e| e.to_string())?;
            let g = compare_errors(&b, &r.settings.settings, &trials).map_err(|e| e.to_string())?;
            println!("{}: {}", r.names.test, g.sentence());
            let screen = &r.screen;
            if screen.ties_unmeasured() > 0 {
                // Over which inputs: the run's sampled ties leave the
                // inputs whose outputs differ over-represented here.
                println!(
                    "  note: over the {} inputs its run measured of {}: the oracle skipped {} of \
                     its {} ties (identical outputs), so those that differ weigh more here than \
                     in a run; this measures and compares every input: DUAL_DELTA_BASELINE={baseline} {}",
                    trials.len(),
                    screen.checked,
                    screen.ties_unmeasured(),
                    screen.ties,
                    r.replay_command()
                );
            }
            Ok(if g.regressed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Baseline {
            command: BaselineCommand::List { baseline_dir },
        } => {
            let bdir = baselines_at(baseline_dir, &dir)?;
            let found = entries(&bdir).map_err(|e| format!("{}: {e}", bdir.display()))?;
            if found.is_empty() {
                println!(
                    "no baselines in {}: save one with DUAL_DELTA_SAVE_BASELINE=<name> cargo test",
                    bdir.display()
                );
            }
            for l in &found {
                match &l.test {
                    Ok(test) => println!("{}  {test}", l.name),
                    Err(why) => println!("{}  unreadable: {}: {why}", l.name, l.file.display()),
                }
            }
            // A baseline it cannot read is a failure of the listing.
            Ok(if found.iter().all(|l| l.test.is_ok()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Merge {
            dirs,
            out,
            suite_alpha,
        } => {
            let s = suite::merge(&dirs, &out, suite_alpha)
                .map_err(|e| format!("merge into {}: {e}", out.display()))?;
            for line in s.empty_shard_lines() {
                println!("{line}");
            }
            for t in s
                .tests
                .iter()
                .filter(|t| t.result == suite::SuiteResult::Unreadable)
            {
                println!("{}", t.sentence);
            }
            println!(
                "{} tests: {}; index {}",
                s.tests.len(),
                s.counts(),
                out.join("index.html").display()
            );
            if let (Some(a), Some(bar)) = (s.suite_alpha, s.bar) {
                println!(
                    "suite α = {a}: {} of {} failures kept (Benjamini-Hochberg bar p ≤ {bar:.2e})",
                    s.failures_kept,
                    s.failed + s.regressed + s.unreadable
                );
                for t in s
                    .tests
                    .iter()
                    .filter(|t| t.kept_by_suite_alpha == Some(false))
                {
                    println!(
                        "dropped: {}: suite p = {:.2e} is above the bar; {}",
                        t.test,
                        t.p_value.unwrap_or(f64::NAN),
                        t.sentence
                    );
                }
            }
            Ok(if s.failures_kept == 0 && s.empty_shards.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

/// Where baselines are kept: `--baseline-dir`, else
/// `DUAL_DELTA_BASELINE_DIR`, else `baselines/` under the report directory
/// `dir`.
fn baselines_at(flag: Option<PathBuf>, dir: &Path) -> Result<PathBuf, String> {
    match flag {
        Some(d) => Ok(d),
        None => Ok(baseline_dir_from_env()
            .map_err(|e| e.to_string())?
            .unwrap_or_else(|| dir.join("baselines"))),
    }
}

/// Why there is no baseline `name` of `test` under `dir`: the baselines
/// there are of that test, and how to save one.
fn no_baseline(dir: &Path, name: &str, test: &str) -> String {
    let saved: Vec<String> = list(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, t)| t == test)
        .map(|(n, _)| format!("`{n}`"))
        .collect();
    let found = if saved.is_empty() {
        "none is saved for it".to_owned()
    } else {
        format!("saved for it: {}", saved.join(", "))
    };
    format!(
        "no baseline `{name}` of `{test}` under {}; {found}. Save one with \
         DUAL_DELTA_SAVE_BASELINE={name} cargo test, or name another folder with --baseline-dir",
        dir.display()
    )
}

/// The stored run of `test` (a path or a directory name) under `dir`, and
/// the folder it was read from: the report's version, resolved once, so
/// that its other files are read from the same run while another process
/// replaces it.
fn stored_run(dir: &Path, test: &str) -> Result<(Summary<'static>, PathBuf), String> {
    let stored = scan(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = test_dir_name(test);
    let found = [name.as_str(), test]
        .into_iter()
        .find_map(|k| stored.get_key_value(k))
        .or_else(|| stored.iter().find(|(_, s)| s.test() == test));
    let Some((key, found)) = found else {
        return Err(format!("no stored run of `{test}` under {}", dir.display()));
    };
    let at = std::fs::canonicalize(dir.join(key)).unwrap_or_else(|_| dir.join(key));
    // Read again from the version resolved: the record and the files
    // beside it are of one run, even where the report was replaced since
    // the scan.
    let again = read_dir_record(key, &at).map(|again| match again {
        // Named by the report's folder, as the scan names it.
        Stored::Unreadable(mut u) => {
            if let Ok(rest) = u.path.strip_prefix(&at).map(Path::to_path_buf) {
                u.path = dir.join(key);
                if !rest.as_os_str().is_empty() {
                    u.path.push(rest);
                }
            }
            Stored::Unreadable(u)
        }
        again => again,
    });
    let found = again.as_ref().unwrap_or(found);
    match found {
        Stored::Run(r) => Ok(((**r).clone(), at)),
        Stored::Unreadable(u) => Err(u.to_string()),
        Stored::Skipped(k) => Err(format!("`{test}` was skipped: {}", k.reason)),
        Stored::Stopped(k) => Err(format!(
            "`{}` could not finish: {}\n  replay: {}",
            k.test, k.reason, k.replay
        )),
        other => Err(format!(
            "`{test}`: a record this version cannot show ({other:?})"
        )),
    }
}
