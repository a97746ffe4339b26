//! Every kernel case study's verdict, and the paper's three, on a context
//! whose shaders are compiled with every driver freedom imitated
//! (`DUAL_DELTA_GPU_IMITATE=all`: division and square root a few ulps off,
//! NaN and infinity comparisons folded, `a * b + c` contracted, `f32 → f16`
//! conversions toward zero, round trips removed): what a GPU's driver is
//! allowed to do to the kernels changes no verdict. On lavapipe in CI.
//!
//! Passes cover every input, so the careful variants run at `n = 100`
//! here (the standing case-study tests run them at 1000); the mistaken
//! ones fail within their first rounds either way.

use std::sync::OnceLock;

use dual_delta_gpu::device::SourceTransform;
use dual_delta_gpu::matmul::{matmul_cpu_f16, matmul_f64};
use dual_delta_gpu::{Gpu, GpuOptions};
use dual_delta_runtime::{DualDelta, Expect};
use dual_delta_tests::CASE_STUDIES;
use dual_delta_tests::kernels::KERNEL_CASES;

const N: usize = 100;

/// A context like the process's, with every driver freedom imitated; `None`
/// (the test skipped) where no GPU is usable and `DUAL_DELTA_GPU=skip`.
fn imitating() -> Option<&'static Gpu> {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    let shared = dual_delta_gpu::require_gpu()?;
    Some(GPU.get_or_init(|| {
        let options = GpuOptions {
            imitate: SourceTransform::ALL,
            ..GpuOptions::from_env().expect("valid settings")
        };
        shared
            .with_options(&options)
            .expect("a context with the freedoms imitated")
    }))
}

#[test]
fn every_kernel_case_study_keeps_its_verdict_under_the_imitated_freedoms() {
    let Some(gpu) = imitating() else { return };
    let mut wrong = Vec::new();
    for case in &KERNEL_CASES {
        let outcome = case.run_on(gpu, N, true).unwrap();
        let met = outcome.meets_accuracy();
        println!(
            "{}: {} ({})",
            case.name,
            outcome.verdict_sentence(),
            case.expect
        );
        if !met {
            wrong.push(format!("{}: {}", case.name, outcome.verdict_sentence()));
        }
    }
    assert!(wrong.is_empty(), "verdicts changed:\n{}", wrong.join("\n"));
}

#[test]
fn the_papers_case_studies_keep_their_verdicts_under_the_imitated_freedoms() {
    let Some(gpu) = imitating() else { return };
    for (i, case) in CASE_STUDIES.iter().enumerate() {
        let (m, k, n) = (case.m, case.k, case.n);
        let expect =
            if case.config.strategy_for(m, k, n) == dual_delta_gpu::matmul::Accumulation::F32 {
                Expect::NoWorse
            } else {
                Expect::Worse
            };
        let outcome = DualDelta::batched(
            move |xs: &[_]| case.gpu_matmul_batch_on(gpu, xs),
            matmul_cpu_f16,
            matmul_f64,
            move |rng: &mut _| case.input(rng),
        )
        .test_name(format!("freedoms::paper_case_{}", i + 1))
        .n(N)
        .expect(expect)
        .rule(dual_delta_runtime::Rule::Paper)
        .run()
        .unwrap();
        println!("case {}: {}", i + 1, outcome.verdict_sentence());
        assert!(
            outcome.meets_accuracy(),
            "case {}: {}",
            i + 1,
            outcome.verdict_sentence()
        );
        case.check(&outcome)
            .unwrap_or_else(|e| panic!("case {}: {e}", i + 1));
    }
}
