//! Case studies of LayerNorm, RMSNorm and attention, as annotated tests: the GPU
//! kernels (wgpu; lavapipe in CI) with the mistakes real implementations
//! made and their careful counterparts, against the `f32` CPU baselines of
//! `dual_delta_gpu::reference`, every one measured against an `f64` oracle.
//! Each asserts its verdict.

use dual_delta_gpu::{
    attention::AttentionStrategy,
    norm::{LayerNormStrategy, RmsNormStrategy},
};
use dual_delta_gpu::{
    attention::{AttentionInput, attention_cpu, attention_f64, random_attention_input},
    norm::{
        NormInput, layer_norm_cpu, layer_norm_f64, random_offset_norm_input, rms_norm_cpu,
        rms_norm_f64,
    },
};
use dual_delta_runtime::prelude::*;
use dual_delta_tests::kernels::{HEAD, LONG_HEAD};

fn rms_norm(x: &NormInput<f16>, variant: RmsNormStrategy) -> Vec<f16> {
    dual_delta_tests::gpu()
        .run(x, variant)
        .expect("GPU RMSNorm")
}

fn layer_norm(x: &NormInput<f16>, variant: LayerNormStrategy) -> Vec<f16> {
    dual_delta_tests::gpu()
        .run(x, variant)
        .expect("GPU LayerNorm")
}

fn attention(x: &AttentionInput<f16>, variant: AttentionStrategy) -> Vec<f16> {
    dual_delta_tests::gpu()
        .run(x, variant)
        .expect("GPU attention")
}

/// LayerNorm with the one-pass variance `E[x²] − E[x]²` in `f32`, on
/// activations `1000 ± 1` (4 rows of 1024, with weight and bias): the two
/// terms are ≈ 10⁶ and cancel, leaving a variance made mostly of rounding
/// errors. Caught as significantly less accurate than the two-pass baseline.
#[dual_delta_test(
    oracle = layer_norm_f64,
    baseline = layer_norm_cpu,
    input = random_offset_norm_input::<f16>(4, 1024, 1000.0, 1.0, true, 1e-5),
    n = 100,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn layer_norm_one_pass_is_caught(x: &NormInput<f16>) -> Vec<f16> {
    layer_norm(x, LayerNormStrategy::OnePass)
}

/// The same activations with two-pass statistics (mean, then the squared
/// deviations from it) in `f32`: no worse than the baseline.
#[dual_delta_test(
    oracle = layer_norm_f64,
    baseline = layer_norm_cpu,
    input = random_offset_norm_input::<f16>(4, 1024, 1000.0, 1.0, true, 1e-5),
    n = 100
)]
fn layer_norm_two_pass_is_no_worse(x: &NormInput<f16>) -> Vec<f16> {
    layer_norm(x, LayerNormStrategy::TwoPass)
}

/// Welford's per-invocation updates merged by Chan's formula, on the same
/// activations: no worse than the baseline.
#[dual_delta_test(
    oracle = layer_norm_f64,
    baseline = layer_norm_cpu,
    input = random_offset_norm_input::<f16>(4, 1024, 1000.0, 1.0, true, 1e-5),
    n = 100
)]
fn layer_norm_welford_is_no_worse(x: &NormInput<f16>) -> Vec<f16> {
    layer_norm(x, LayerNormStrategy::Welford)
}

/// RMSNorm with the sum of squares accumulated in `f16` (each square added
/// and the sum rounded to `f16`), on centred activations of unit spread,
/// 4 rows of 1024 with weight and bias: the sum is about 1024, where `f16`
/// values are 1 apart. Measured on lavapipe: mean max-hybrid error 4.6e-4
/// against the baseline's 3.2e-4. Caught as significantly less accurate.
#[dual_delta_test(
    oracle = rms_norm_f64,
    baseline = rms_norm_cpu,
    input = random_offset_norm_input::<f16>(4, 1024, 0.0, 1.0, true, 1e-5),
    n = 100,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn rms_norm_f16_squares_is_caught(x: &NormInput<f16>) -> Vec<f16> {
    rms_norm(x, RmsNormStrategy::F16Accumulation)
}

/// The same activations with the sum of squares in `f32`: no worse than
/// the baseline.
#[dual_delta_test(
    oracle = rms_norm_f64,
    baseline = rms_norm_cpu,
    input = random_offset_norm_input::<f16>(4, 1024, 0.0, 1.0, true, 1e-5),
    n = 100
)]
fn rms_norm_f32_is_no_worse(x: &NormInput<f16>) -> Vec<f16> {
    rms_norm(x, RmsNormStrategy::F32)
}

/// Flash attention with the `P·V` accumulators kept in `f16`, over 1024
/// keys: 1024 updates per output (and 64 rescalings), each rounded to
/// `f16`, against the baseline's one rounding. Caught as significantly
/// less accurate.
#[dual_delta_test(
    oracle = attention_f64,
    baseline = attention_cpu,
    input = random_attention_input::<f16>(LONG_HEAD, false),
    n = 50,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn attention_f16_accumulation_is_caught(x: &AttentionInput<f16>) -> Vec<f16> {
    attention(x, AttentionStrategy::FlashF16Accumulation)
}

/// Flash attention with `f32` running max, denominator and accumulators,
/// one division and one rounding at the end: no worse than the baseline.
#[dual_delta_test(
    oracle = attention_f64,
    baseline = attention_cpu,
    input = random_attention_input::<f16>(HEAD, false),
    n = 50
)]
fn attention_flash_f32_is_no_worse(x: &AttentionInput<f16>) -> Vec<f16> {
    attention(x, AttentionStrategy::Flash)
}

/// The unfused attention of `f16` tensors: scores materialised in `f16`,
/// which keeps 11 significant bits where `f32` keeps 24 (a score in
/// `[2, 4)` is moved by up to 2⁻⁹, its weight `eˢ` by up to 0.2%), and
/// probabilities rounded to `f16`, then `P·V` in `f32`. Measured on
/// lavapipe: mean error 3.3e-4 against the baseline's 8.9e-5, judged
/// significantly less accurate after 17 trials; the assertion records that
/// measured verdict.
#[dual_delta_test(
    oracle = attention_f64,
    baseline = attention_cpu,
    input = random_attention_input::<f16>(HEAD, false),
    n = 50,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn attention_naive_f16_scores_is_caught(x: &AttentionInput<f16>) -> Vec<f16> {
    attention(x, AttentionStrategy::Naive)
}
