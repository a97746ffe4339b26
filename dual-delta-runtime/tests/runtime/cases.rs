//! `#[case]` and `#[matrix]`: every case is a test of its own, whose
//! values reach the expressions and the candidate, named after its values,
//! with the seed derived from that name. Each test checks its own outcome
//! (`check = ...`); `tests/runtime/e2e.rs` checks the names that `cargo test --list`
//! shows and the reports the cases write.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{generate::seed_from_name, settings::SeedSource};

/// `len` numbers uniform in [0, 1).
fn random_vec(len: usize) -> impl Fn(&mut TrialRng) -> Vec<f32> + Sync {
    move |rng| (0..len).map(|_| rng.random_range(0.0f32..1.0)).collect()
}
fn sum_f64(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

/// The outcome is that of the test `runtime::cases::<path>` (the binary
/// `runtime`, the module `cases`), with the seed derived
/// from that name (unless `DUAL_DELTA_SEED` sets it).
fn is_case(outcome: &Outcome, path: &str) -> Result<(), String> {
    let test = format!("runtime::cases::{path}");
    if outcome.names().test != test {
        return Err(format!("test `{}`, not `{test}`", outcome.names().test));
    }
    let s = &outcome.settings();
    if s.seed_source() == SeedSource::Default && s.seed() != seed_from_name(&test) {
        return Err(format!("seed {:#x} is not derived from `{test}`", s.seed()));
    }
    if outcome.names().candidate.starts_with("len") {
        return Err(format!("candidate named `{}`", outcome.names().candidate));
    }
    Ok(())
}

/// Two cases, the candidate taking the input only.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = naive,
    input = random_vec(len),
    n = 40,
    check = |o| is_case(o, &format!("sum_naive::len_{len}")),
)]
#[case(len = 16)]
#[case(len = 256)]
fn sum_naive(x: &Vec<f32>) -> f32 {
    naive(x)
}

/// How a sum accumulates.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Accumulation {
    F32,
    F64,
}

/// A matrix of four cases: each passes `len` and `acc` to the candidate,
/// which checks that its input has that length.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = naive,
    input = random_vec(len),
    n = 40,
    check = |o| {
        let acc_name = match acc {
            Accumulation::F32 => "f32",
            Accumulation::F64 => "f64",
        };
        is_case(o, &format!("sum_in::len_{len}_acc_{acc_name}"))
    },
)]
#[matrix(len = [64, 512], acc = [Accumulation::F32, Accumulation::F64])]
fn sum_in(x: &Vec<f32>, len: usize, acc: Accumulation) -> f32 {
    assert_eq!(x.len(), len, "the case's `len` reaches the candidate");
    match acc {
        Accumulation::F32 => naive(x),
        Accumulation::F64 => sum_f64(x) as f32,
    }
}

/// A batched candidate taking a case's value by reference, and a name
/// (`label`) that only names the test.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = naive,
    input = random_vec(len),
    n = 40,
    batch = 8,
    check = |o| is_case(o, "batched::len_32_label_short"),
)]
#[case(len = 32, label = "short")]
fn batched(xs: &[Vec<f32>], len: &usize) -> Vec<f32> {
    xs.iter()
        .map(|x| {
            assert_eq!(x.len(), *len, "the case's `len` reaches the candidate");
            naive(x)
        })
        .collect()
}

/// The function stays callable under its name, with its parameters.
#[test]
fn the_candidate_stays_callable() {
    assert_eq!(sum_naive(&vec![1.0, 2.0]), 3.0);
    assert_eq!(sum_in(&vec![0.5; 4], 4, Accumulation::F64), 2.0);
    assert_eq!(batched(&[vec![1.0], vec![2.0]], &1), [1.0, 2.0]);
}

/// A slice of numbers, `&[f32]`: the input is a `Vec<f32>`, and the oracle
/// and the baseline take either.
fn slice_sum_f64(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

/// Without cases, the candidate, the oracle and the check read the names
/// as written.
#[dual_delta_test(
    oracle = slice_sum_f64,
    baseline = sum_f64_rounded,
    input = random_vec(1024),
    expect = worse,
    check = |o| if o.names().candidate == "slice_naive" && o.names().oracle == "slice_sum_f64" {
        Ok(())
    } else {
        Err(format!("{:?}", o.names()))
    },
)]
fn slice_naive(x: &[f32]) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

fn sum_f64_rounded(x: &Vec<f32>) -> f32 {
    sum_f64(x) as f32
}

/// With cases, and a parameter after the slice.
#[dual_delta_test(
    oracle = slice_sum_f64,
    baseline = sum_f64_rounded,
    input = random_vec(len),
    expect = worse,
    check = |o| is_case(o, &format!("slice_blocked::len_{len}_block_{block}")),
)]
#[case(len = 1024, block = 1024)]
fn slice_blocked(x: &[f32], block: usize) -> f32 {
    x.chunks(block)
        .map(|b| b.iter().fold(0.0f32, |s, &v| s + v))
        .sum()
}
