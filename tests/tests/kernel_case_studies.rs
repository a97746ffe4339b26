//! Case studies beyond matmul, as annotated tests: the row-sum and softmax
//! kernels on the GPU (wgpu; lavapipe in CI) with the strategies and the
//! mistakes real libraries had, against the careful CPU baselines of
//! `dual_delta_gpu::reference`, every one measured against an f64 oracle.
//! Each asserts its verdict.

use dual_delta_gpu::reductions::{
    RowsInput, random_outlier_rows, random_rows, softmax_cpu, softmax_f64, sum_cpu, sum_f64,
};
use dual_delta_gpu::reductions::{SoftmaxStrategy, SumStrategy};
use dual_delta_runtime::prelude::*;

fn sum(x: &RowsInput<f16>, strategy: SumStrategy) -> Vec<f16> {
    dual_delta_tests::gpu()
        .run(x, strategy)
        .expect("GPU row sum")
}

fn softmax(x: &RowsInput<f16>, variant: SoftmaxStrategy) -> Vec<f16> {
    dual_delta_tests::gpu()
        .run(x, variant)
        .expect("GPU softmax")
}

/// A row sum accumulated serially in f16 (4096 ones sum to 2048): caught as
/// significantly less accurate than the f32-accumulating baseline.
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_cpu,
    input = random_rows::<f16>(4, 4096),
    n = 200,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn sum_f16_serial_is_caught(x: &RowsInput<f16>) -> Vec<f16> {
    sum(x, SumStrategy::F16Serial)
}

/// The sum accumulated in f16 across the workgroup (each invocation's
/// strided slice in f16, then an f16 tree): shorter serial chains than
/// `F16Serial`, still caught (mean error about 30 times the baseline's).
#[dual_delta_test(
    oracle = sum_f64,
    baseline = sum_cpu,
    input = random_rows::<f16>(4, 4096),
    n = 200,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn sum_f16_strided_is_caught(x: &RowsInput<f16>) -> Vec<f16> {
    sum(x, SumStrategy::F16)
}

/// The same sum with per-thread f32 partial sums and an f32 tree, rounded
/// once: no worse than the baseline.
#[dual_delta_test(oracle = sum_f64, baseline = sum_cpu, input = random_rows::<f16>(4, 4096), n = 200)]
fn sum_f32_is_no_worse(x: &RowsInput<f16>) -> Vec<f16> {
    sum(x, SumStrategy::F32)
}

/// The pairwise f32 tree over the whole row: no worse either.
#[dual_delta_test(oracle = sum_f64, baseline = sum_cpu, input = random_rows::<f16>(4, 4096), n = 200)]
fn sum_pairwise_is_no_worse(x: &RowsInput<f16>) -> Vec<f16> {
    sum(x, SumStrategy::Pairwise)
}

/// Softmax without the max subtraction on rows with ±20 outliers: exp(20)
/// overflows f16, so the candidate returns NaN where the baseline and the
/// oracle are finite, and the non-finite gate counts it as worse.
#[dual_delta_test(
    oracle = softmax_f64,
    baseline = softmax_cpu,
    input = random_outlier_rows::<f16>(4, 1024, 4, 20.0),
    n = 100,
    expect = worse,
    check = |o| if o.non_finite_gate() { Ok(()) } else { Err("no non-finite output".into()) },
)]
fn softmax_without_max_subtraction_is_caught(x: &RowsInput<f16>) -> Vec<f16> {
    softmax(x, SoftmaxStrategy::NoMaxSubtraction)
}

/// Softmax with max subtraction but `e^{x − max}` rounded to f16 and the
/// denominator summed in f16: no overflow, but about twice the baseline's
/// error on plain `randn` logits, caught as less accurate.
#[dual_delta_test(
    oracle = softmax_f64,
    baseline = softmax_cpu,
    input = random_rows::<f16>(4, 1024),
    n = 200,
    expect = worse,
    check = dual_delta_tests::less_accurate,
)]
fn softmax_f16_denominator_is_caught(x: &RowsInput<f16>) -> Vec<f16> {
    softmax(x, SoftmaxStrategy::F16Denominator)
}

/// The careful softmax (max subtraction, f32 denominator) is no worse than
/// the baseline on the same rows, on a device that keeps f16 subnormals as
/// the baseline does. A device that flushes them (imitated by
/// `DUAL_DELTA_GPU_IMITATE=ftz16`) returns 0 for every output below 2⁻¹⁴:
/// there the run fails, less accurate, and its worst input is such an
/// output. The expectation is the device's, read from its probe after the
/// run, not a fallback.
#[test]
fn softmax_careful_is_no_worse_where_the_device_keeps_f16_subnormals() {
    let run = DualDelta::new(
        |x: &RowsInput<f16>| softmax(x, SoftmaxStrategy::Careful),
        softmax_cpu,
        softmax_f64,
        random_outlier_rows::<f16>(4, 1024, 4, 20.0),
    )
    .test_name("kernel_case_studies::softmax_careful_is_no_worse")
    .show_inputs()
    .n(100)
    .run();
    let o = match run {
        Err(dual_delta_runtime::error::RunError::Skipped(dual_delta_runtime::error::Skip {
            reason,
            ..
        })) => {
            eprintln!("skipped: {reason}");
            return;
        }
        other => other.expect("the run completes"),
    };
    let kept = dual_delta_gpu::Gpu::shared()
        .expect("the GPU the run used")
        .semantics()
        .f16_subnormals()
        == dual_delta_gpu::semantics::Subnormals::Kept;
    if kept {
        assert!(o.passed(), "{}", o.verdict_sentence());
    } else {
        // Outputs below 2⁻¹⁴ are 0 here, where the baseline keeps them:
        // a real loss, and found where it is.
        assert!(!o.passed(), "{}", o.verdict_sentence());
        assert_eq!(
            o.judgement().accuracy(),
            dual_delta_runtime::decision::Accuracy::LessAccurate
        );
        let worst = &o.worst_inputs()[0].at;
        assert!(
            worst.oracle.abs() < 2f64.powi(-14) && worst.candidate == 0.0,
            "{worst:?}"
        );
    }
}

/// The online one-pass softmax is no worse than the baseline on the same
/// rows.
#[dual_delta_test(
    oracle = softmax_f64,
    baseline = softmax_cpu,
    input = random_outlier_rows::<f16>(4, 1024, 4, 20.0),
    n = 100
)]
fn softmax_online_is_no_worse(x: &RowsInput<f16>) -> Vec<f16> {
    softmax(x, SoftmaxStrategy::Online)
}
