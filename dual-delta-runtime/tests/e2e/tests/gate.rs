//! Non-finite outputs, the words of the verdict and panics, run by the
//! workspace's `dual-delta-runtime/tests/runtime/e2e.rs`, which checks what each one
//! prints and whether it passes.

use dual_delta_e2e::{random_vec, sum_f64, sum_kahan, sum_naive};
use dual_delta_runtime::prelude::*;

/// Kahan's sum, except NaN on the inputs whose first element is below 0.02
/// (with `seed = 3` and `n = 200`: on 7 trials, which the Wilcoxon test
/// alone does not find significant at α = 0.001: p = 0.0041). The tests
/// using it run all their trials (`stop_early = false`): the sequential
/// test would pass the candidate within the first round, before the first
/// NaN.
fn kahan_nan_sometimes(x: &Vec<f32>) -> f32 {
    if x[0] < 0.02 { f32::NAN } else { sum_kahan(x) }
}

/// A candidate equal to the baseline except NaN on a few trials: the
/// statistics alone cannot see it (p > α), the non-finite gate fails it.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 200, seed = 3, alpha = 0.001, stop_early = false)]
fn nan_on_a_few_trials(x: &Vec<f32>) -> f32 {
    kahan_nan_sometimes(x)
}

/// The same, with the opt-out: the NaNs are the worst possible errors
/// still, in the mean as on the typical input. Seven among 200 inputs, the
/// baseline's none, are too few for the mean's test at this level: the run
/// fails naming the `n` that could show them, rather than pass.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_kahan,
    input = random_vec,
    n = 200,
    seed = 3,
    alpha = 0.001,
    stop_early = false,
    allow_non_finite = true
)]
#[should_panic(expected = "raise n to at least")]
fn nan_allowed(x: &Vec<f32>) -> f32 {
    kahan_nan_sometimes(x)
}

/// With `expect = worse`, a non-finite candidate counts as worse: passes.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_kahan,
    input = random_vec,
    n = 200,
    seed = 3,
    stop_early = false,
    expect = worse
)]
fn nan_counts_as_worse(x: &Vec<f32>) -> f32 {
    kahan_nan_sometimes(x)
}

/// The baseline is the one returning NaN: the candidate passes, and the
/// table says so.
#[dual_delta_test(oracle = sum_f64, baseline = kahan_nan_sometimes, input = random_vec, n = 200, seed = 3, stop_early = false)]
fn baseline_nan(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

/// Outputs 2^-20 above and below the oracle (exactly, in f64): they differ
/// on every trial, but their errors are equal, so they are not "identical".
fn above(x: &Vec<f32>) -> f64 {
    sum_f64(x) + 2f64.powi(-20)
}

#[dual_delta_test(oracle = sum_f64, baseline = above, input = random_vec, n = 50)]
fn below(x: &Vec<f32>) -> f64 {
    sum_f64(x) - 2f64.powi(-20)
}

/// A candidate that panics on one trial: the message is printed once.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 100, seed = 3)]
fn panics_on_a_trial(x: &Vec<f32>) -> f32 {
    if x[0] < 0.05 {
        panic!("the kernel hit a bad input (first element {})", x[0]);
    }
    sum_naive(x)
}

/// A candidate whose first call takes 5 s: with
/// `DUAL_DELTA_TRIAL_TIMEOUT=1` the watchdog ends the process on it;
/// without, it passes.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 50)]
fn slow_first_call(x: &Vec<f32>) -> f32 {
    static FIRST: std::sync::Once = std::sync::Once::new();
    FIRST.call_once(|| std::thread::sleep(std::time::Duration::from_secs(5)));
    sum_kahan(x)
}
