//! Case study 4: FP8 GEMMs and the limited accumulation of Hopper's FP8
//! tensor cores (DeepSeek-V3 technical report, §3.3.2), as annotated tests.
//!
//! `128×4096 @ 4096×128`, inputs `torch.randn` quantized to E4M3 with
//! per-tensor scales; the candidates are the GPU kernels (wgpu; lavapipe in
//! CI) with [`Fp8Accumulation::Limited`] (Hopper's rule as MMA-Sim models
//! it) and [`Fp8Accumulation::PromoteEvery128`] (DeepSeek-V3's fix); the
//! baseline accumulates the same FP8 products in `f32` on the CPU; the
//! oracle multiplies them exactly in `f64`. Then the `bf16` case: `bf16`
//! accumulation against `f32` accumulation in a long-K matmul and in row
//! sums. Every test asserts its verdict; early stopping decides most of
//! them within a round or two.

use dual_delta_gpu::{
    matmul::MatmulInput,
    matmul_lowp::{
        Bf16Accumulation, Fp8Accumulation, matmul_cpu_bf16, matmul_cpu_fp8, matmul_f64_bf16,
        matmul_f64_fp8,
    },
};
use dual_delta_runtime::E4m3;
use dual_delta_runtime::decision::Accuracy;
use dual_delta_runtime::prelude::*;
use dual_delta_tests::lowp::{bf16_long_k, bf16_row_sums, fp8_input, to_bf16};

fn fp8_gpu(xs: &[MatmulInput<E4m3>], accumulation: Fp8Accumulation) -> Vec<Vec<f32>> {
    dual_delta_tests::gpu()
        .run_batch(xs, accumulation)
        .expect("GPU FP8 matmul")
}

fn fp8_cpu_bf16(x: &MatmulInput<E4m3>) -> Vec<bf16> {
    to_bf16(matmul_cpu_fp8(x))
}

fn fp8_gpu_bf16(xs: &[MatmulInput<E4m3>], accumulation: Fp8Accumulation) -> Vec<Vec<bf16>> {
    fp8_gpu(xs, accumulation).into_iter().map(to_bf16).collect()
}

/// Hopper's limited accumulation over K = 4096 (128 instructions of 32
/// products, every step truncated to 13 fraction bits): significantly less
/// accurate than accumulating the same products in `f32`.
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = matmul_cpu_fp8,
    input = fp8_input,
    n = 64,
    expect = worse,
    batch = 8,
    check = dual_delta_tests::less_accurate,
)]
fn fp8_limited_accumulation_is_caught(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<f32>> {
    fp8_gpu(xs, Fp8Accumulation::Limited)
}

/// The same products accumulated in `f32` on the GPU (sums of 32, added
/// in order), with a `bf16` output: no worse than the CPU's `f32`
/// accumulation. (In an `f32` output the two summation orders differ: the
/// GPU's errors are about 1.3 times the GEMM kernel's, significant at
/// N = 64.)
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = fp8_cpu_bf16,
    input = fp8_input,
    n = 64,
    batch = 8
)]
fn fp8_f32_accumulation_bf16_output_is_no_worse(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<bf16>> {
    fp8_gpu_bf16(xs, Fp8Accumulation::F32)
}

fn fp8_limited_one(x: &MatmulInput<E4m3>) -> Vec<f32> {
    dual_delta_tests::gpu()
        .run(x, Fp8Accumulation::Limited)
        .expect("GPU FP8 matmul")
}

/// DeepSeek-V3's fix, promotion to `f32` every 128 products, against the
/// limited accumulation it replaces: significantly more accurate.
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = fp8_limited_one,
    input = fp8_input,
    n = 64,
    expect = better,
    batch = 8,
    check = |o| match o.judgement().accuracy() {
        Accuracy::MoreAccurate => Ok(()),
        other => Err(format!("expected more accurate, got {other:?}")),
    },
)]
fn fp8_promotion_every_128_beats_limited(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<f32>> {
    fp8_gpu(xs, Fp8Accumulation::PromoteEvery128)
}

/// But promotion is not full `f32`: inside each chunk every product is
/// still truncated to 13 bits below the group's largest, an error of the
/// order of `2^-13 · max |a·b|` per product whatever the result's size.
/// Against `f32` accumulation it is significantly less accurate (about 5
/// times the error in the maximum hybrid metric).
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = matmul_cpu_fp8,
    input = fp8_input,
    n = 64,
    expect = worse,
    batch = 8,
    check = dual_delta_tests::less_accurate,
)]
fn fp8_promotion_every_128_is_still_worse_than_f32(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<f32>> {
    fp8_gpu(xs, Fp8Accumulation::PromoteEvery128)
}

/// With a `bf16` output, as DeepSeek-V3's GEMMs write it, the limited
/// accumulation's error is still far above `bf16`'s rounding: caught.
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = fp8_cpu_bf16,
    input = fp8_input,
    n = 64,
    expect = worse,
    batch = 8,
    check = dual_delta_tests::less_accurate,
)]
fn fp8_limited_accumulation_bf16_output_is_caught(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<bf16>> {
    fp8_gpu_bf16(xs, Fp8Accumulation::Limited)
}

/// Even rounded to `bf16`, promotion every 128 shows: the truncation error
/// does not shrink with the result, and on the outputs near zero it
/// exceeds half a `bf16` ulp. Less accurate than `f32` accumulation.
#[dual_delta_test(
    oracle = matmul_f64_fp8,
    baseline = fp8_cpu_bf16,
    input = fp8_input,
    n = 64,
    expect = worse,
    batch = 8,
    check = dual_delta_tests::less_accurate,
)]
fn fp8_promotion_bf16_output_is_still_worse(xs: &[MatmulInput<E4m3>]) -> Vec<Vec<bf16>> {
    fp8_gpu_bf16(xs, Fp8Accumulation::PromoteEvery128)
}

fn bf16_gpu(x: &MatmulInput<bf16>, accumulation: Bf16Accumulation) -> Vec<bf16> {
    dual_delta_tests::gpu()
        .run(x, accumulation)
        .expect("GPU bf16 matmul")
}

/// `bf16` accumulation over K = 4096: caught.
#[dual_delta_test(
    oracle = matmul_f64_bf16,
    baseline = matmul_cpu_bf16,
    input = bf16_long_k,
    n = 64,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn bf16_accumulation_long_k_is_caught(x: &MatmulInput<bf16>) -> Vec<bf16> {
    bf16_gpu(x, Bf16Accumulation::Bf16)
}

/// `f32` accumulation on the GPU: no worse than the CPU's.
#[dual_delta_test(oracle = matmul_f64_bf16, baseline = matmul_cpu_bf16, input = bf16_long_k, n = 64)]
fn bf16_f32_accumulation_long_k_is_no_worse(x: &MatmulInput<bf16>) -> Vec<bf16> {
    bf16_gpu(x, Bf16Accumulation::F32)
}

/// Row sums of 4096 `bf16` values accumulated in `bf16`: caught.
#[dual_delta_test(
    oracle = matmul_f64_bf16,
    baseline = matmul_cpu_bf16,
    input = bf16_row_sums,
    n = 64,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn bf16_accumulation_row_sum_is_caught(x: &MatmulInput<bf16>) -> Vec<bf16> {
    bf16_gpu(x, Bf16Accumulation::Bf16)
}

/// The same row sums accumulated in `f32`: no worse.
#[dual_delta_test(
    oracle = matmul_f64_bf16,
    baseline = matmul_cpu_bf16,
    input = bf16_row_sums,
    n = 64
)]
fn bf16_f32_accumulation_row_sum_is_no_worse(x: &MatmulInput<bf16>) -> Vec<bf16> {
    bf16_gpu(x, Bf16Accumulation::F32)
}
