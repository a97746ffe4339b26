//! A suite of 72 tests over two CI shards, 5 of them failing, merged into
//! one index: what `cargo dual-delta merge` shows a reader after a CI run.
//!
//! ```sh
//! cargo run --release --example suite_index -- target/suite-index
//! ```
//!
//! prints the merged `index.html`'s path. The runs are plain CPU sums of
//! 64 numbers (every pass covers all of its inputs), so the whole suite
//! takes a few seconds.

#![allow(clippy::ptr_arg)]

use std::path::PathBuf;
use std::process::ExitCode;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::write_under;
use dual_delta_runtime::suite;

fn input(rng: &mut TrialRng) -> Vec<f32> {
    (0..64).map(|_| rng.random_range(0.0f32..1.0)).collect()
}
fn oracle(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}
fn reversed(x: &Vec<f32>) -> f32 {
    x.iter().rev().fold(0.0, |s, &v| s + v)
}
/// Three times the naive sum's error.
fn worse(x: &Vec<f32>) -> f64 {
    let o = oracle(x);
    o + 3.0 * (f64::from(naive(x)) - o)
}

/// The suite's families of kernels, each with a few sizes, as a real
/// suite's test paths read.
const FAMILIES: [&str; 6] = [
    "kernels::reductions",
    "kernels::softmax",
    "kernels::layer_norm",
    "kernels::rms_norm",
    "kernels::attention",
    "kernels::matmul",
];

fn main() -> ExitCode {
    let Some(root) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: suite_index OUT_DIR");
        return ExitCode::FAILURE;
    };
    let _ = std::fs::remove_dir_all(&root);
    let shards = [root.join("shard-1"), root.join("shard-2")];
    let mut failed = 0;
    for i in 0..72 {
        let family = FAMILIES[i % FAMILIES.len()];
        let name = format!(
            "{family}::case_{:02}_len_{}",
            i / FAMILIES.len(),
            64 << (i % 5)
        );
        // Every fourteenth test fails: 5 of 72, spread over the suite.
        let run = if i % 14 == 3 {
            failed += 1;
            DualDelta::new(worse, naive, oracle, input)
        } else {
            DualDelta::new(reversed, naive, oracle, input)
        };
        let outcome = match run.test_name(name).n(400).seed(i as u64).run() {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        if let Err(e) = write_under(&outcome, &shards[i % 2]) {
            eprintln!("cannot write the report: {e}");
            return ExitCode::FAILURE;
        }
    }
    let out = root.join("merged");
    match suite::merge(&shards, &out, None) {
        Ok(s) => {
            println!(
                "{} tests: {} passed, {} failed ({failed} meant to fail)",
                s.passed + s.failed + s.regressed + s.skipped,
                s.passed,
                s.failed
            );
            println!("{}", out.join("index.html").display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot merge: {e}");
            ExitCode::FAILURE
        }
    }
}
