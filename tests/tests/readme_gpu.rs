//! The README's GPU example, as written there but for `n` and the context
//! (taken through `dual_delta_tests::gpu()`, so that `DUAL_DELTA_GPU=skip`
//! applies): a batched GPU candidate accumulating in f32 is no worse than
//! the CPU FP16 matmul.

use dual_delta_gpu::{
    f16,
    matmul::{Accumulation, MatmulInput, matmul_cpu_f16, matmul_f64, random_matmul_input},
};
use dual_delta_runtime::prelude::*;

#[dual_delta_test(
    oracle = matmul_f64,
    baseline = matmul_cpu_f16,
    input = random_matmul_input(128, 4096, 128),
    batch = 32,
    n = 100,
)]
fn gpu_matmul(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
    dual_delta_tests::gpu()
        .run_batch(xs, Accumulation::F32)
        .unwrap()
}
