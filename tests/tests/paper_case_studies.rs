//! The paper's three case studies (section 5) as annotated tests: the GPU
//! FP16 matmul (wgpu; lavapipe in CI) against PyTorch's CPU half matmul,
//! both measured against an f64 oracle, N = 1000, maximum hybrid error,
//! one-sided Wilcoxon at α = 0.01. The GPU runs 32 trials' matmuls per
//! submission (`batch = 32`) while the CPU computes the references.

use dual_delta_gpu::matmul::{MatmulInput, matmul_cpu_f16, matmul_f64};
use dual_delta_runtime::prelude::*;
use dual_delta_tests::{CASE_1, CASE_2, CASE_3};
use half::f16;

fn square_input(rng: &mut TrialRng) -> MatmulInput {
    CASE_1.input(rng)
}

fn deep_k_input(rng: &mut TrialRng) -> MatmulInput {
    CASE_2.input(rng)
}

/// Case 1: on a well-behaved square matmul the GPU is no worse than the CPU,
/// and their error distributions are indistinguishable.
#[dual_delta_test(
    oracle = matmul_f64,
    baseline = matmul_cpu_f16,
    input = square_input,
    n = 1000,
    expect = no_worse,
    batch = 32,
    check = |outcome| CASE_1.check(outcome),
)]
fn case1_square(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
    CASE_1.gpu_matmul_batch(xs)
}

/// Case 2: with K = 4096 the default configuration's reduced-precision
/// reduction makes the GPU significantly less accurate, and the test proves
/// the problem is detected.
#[dual_delta_test(
    oracle = matmul_f64,
    baseline = matmul_cpu_f16,
    input = deep_k_input,
    n = 1000,
    expect = worse,
    batch = 32,
    check = |outcome| CASE_2.check(outcome),
)]
fn case2_deep_k_reduced_precision(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
    CASE_2.gpu_matmul_batch(xs)
}

/// Case 3: with reduced-precision reduction disallowed, accuracy parity is
/// restored: no worse, and equivalent.
#[dual_delta_test(
    oracle = matmul_f64,
    baseline = matmul_cpu_f16,
    input = deep_k_input,
    n = 1000,
    expect = no_worse,
    batch = 32,
    check = |outcome| CASE_3.check(outcome),
)]
fn case3_deep_k_fixed(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
    CASE_3.gpu_matmul_batch(xs)
}
