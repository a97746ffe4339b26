//! Cases and a matrix, run by the workspace's
//! `dual-delta-runtime/tests/runtime/e2e.rs`, which checks the tests' names, seeds
//! and reports.

use dual_delta_e2e::sum_f64;
use dual_delta_runtime::TrialRng;
use dual_delta_runtime::prelude::*;

/// `len` numbers drawn uniformly from [0, 1).
fn random_vec(len: usize) -> impl Fn(&mut TrialRng) -> Vec<f32> + Sync {
    move |rng| (0..len).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

/// Pairwise summation in f32.
fn sum_pairwise(x: &Vec<f32>) -> f32 {
    if x.len() <= 8 {
        x.iter().sum()
    } else {
        let (a, b) = x.split_at(x.len() / 2);
        sum_pairwise(&a.to_vec()) + sum_pairwise(&b.to_vec())
    }
}

/// Left-to-right summation in f32.
fn sum_f32(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

/// One test per case, each caught being less accurate than pairwise
/// summation.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_pairwise,
    input = random_vec(len),
    n = 200,
    expect = worse
)]
#[case(len = 1024)]
#[case(len = 65536)]
fn sum_naive(x: &Vec<f32>) -> f32 {
    sum_f32(x)
}

/// How the blocks' sums are added.
#[derive(Clone, Copy)]
pub enum Accumulation {
    F32,
    F64,
}

/// Every combination of two lengths and two accumulations, passed to the
/// candidate after its input.
#[dual_delta_test(oracle = sum_f64, baseline = sum_f32, input = random_vec(len), n = 100)]
#[matrix(len = [256, 4096], acc = [Accumulation::F32, Accumulation::F64])]
fn sum_blocked(x: &Vec<f32>, acc: Accumulation) -> f32 {
    match acc {
        Accumulation::F32 => sum_f32(x),
        Accumulation::F64 => sum_f64(x) as f32,
    }
}
