//! Annotated tests run by the workspace's `dual-delta-runtime/tests/runtime/e2e.rs`,
//! which checks what each one prints and whether it passes.

use dual_delta_e2e::{random_vec, sum_f64, sum_kahan, sum_naive};
use dual_delta_runtime::prelude::*;

/// The candidate is the baseline: identical errors on every trial. Default
/// number of trials (1000).
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec)]
fn same_as_baseline(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

/// Naive summation against Kahan's: fails (the default expectation is
/// `no_worse`).
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 200)]
fn naive_is_worse(x: &Vec<f32>) -> f32 {
    sum_naive(x)
}

/// The same comparison, expecting the candidate to be worse: passes.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_kahan,
    input = random_vec,
    n = 200,
    expect = worse
)]
fn naive_is_caught(x: &Vec<f32>) -> f32 {
    sum_naive(x)
}

/// The failure of `naive_is_worse`, expected with `#[should_panic]`.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 200)]
#[should_panic(expected = "significantly less accurate")]
fn naive_should_panic(x: &Vec<f32>) -> f32 {
    sum_naive(x)
}

/// Every key, with closures, a custom metric and the runtime renamed.
mod every_key {
    use dual_delta_runtime as rt;
    use dual_delta_runtime::TrialRng;

    use super::*;

    fn short_vec(rng: &mut TrialRng, len: usize) -> Vec<f32> {
        let mut x = random_vec(rng);
        x.truncate(len);
        x
    }

    #[rt::dual_delta_test(
        oracle = |x: &Vec<f32>| sum_f64(x),
        baseline = sum_kahan,
        input = |rng: &mut TrialRng| short_vec(rng, 512),
        n = 300,
        seed = 0x5eed,
        alpha = 0.05,
        metric = |y: &[f64], o: &[f64]| (y[0] - o[0]).abs() / o[0].abs(),
        expect = worse,
        test = sign,
        margin = 0.1,
        stability = worse,
        threads = 1,
        stop_early = false,
        screen = false,
        gross_factor = 1000.0,
        check = |outcome| match outcome.delta1().len() {
            300 => Ok(()),
            n => Err(format!("{n} trials")),
        },
        crate = rt,
    )]
    fn with_closures(x: &Vec<f32>) -> f32 {
        sum_naive(x)
    }

    #[dual_delta_test(
        oracle = sum_f64,
        baseline = sum_kahan,
        input = random_vec,
        n = 100,
        metric = max_relative,
        test = t,
        expect = worse
    )]
    fn built_in_metric_and_t_test(x: &Vec<f32>) -> f32 {
        sum_naive(x)
    }
}

/// A check of the outcome after the verdict: this one fails, with its
/// reason.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_kahan,
    input = random_vec,
    n = 100,
    check = |outcome| {
        let max = outcome.summaries().candidate.max;
        if max < 1e-12 { Ok(()) } else { Err(format!("max error {max:.3e} is above 1e-12")) }
    }
)]
fn check_fails(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

/// Ignored unless asked for.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec)]
#[ignore = "only listed"]
fn ignored(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

/// Removed by `cfg`: it would not compile (`missing` does not exist).
#[cfg(any())]
#[dual_delta_test(oracle = missing, baseline = missing, input = missing)]
fn configured_out(x: &Vec<f32>) -> f32 {
    missing(x)
}
