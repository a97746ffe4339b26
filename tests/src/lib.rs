//! The paper's matrix-multiplication case studies (section 5), shared by the
//! annotated tests in `tests/` and the `paper` example.
//!
//! In all three, the candidate f1 is the FP16 matmul on the GPU (through
//! wgpu), the baseline f2 is PyTorch's CPU half matmul (f32 accumulation,
//! one rounding) and the oracle is the f64 matmul of the same f16 inputs;
//! inputs are `torch.randn(...).half()`; the metric is the maximum hybrid
//! error; N = 1000.
//!
//! The case studies beyond matmul (row sums, softmax, ...) are in
//! [`kernels`]; the inputs of the FP8 and `bf16` case study in [`lowp`].

pub mod kernels;
pub mod lowp;

use dual_delta_gpu::{
    Gpu,
    matmul::{Accumulation, GemmConfig, MatmulInput},
};
use dual_delta_runtime::{decision::Equivalence, outcome::Outcome};
use half::f16;

/// The figures the paper reports for one implementation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperFigures {
    /// Mean of the error sample.
    pub mean: f64,
    /// Standard deviation of the error sample (NumPy's `np.std`, ddof = 0).
    pub std: f64,
}

/// One case study.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaseStudy {
    /// Short name, also the report's directory (`case1_square`, ...).
    pub name: &'static str,
    /// What the paper calls it.
    pub title: &'static str,
    /// Rows of A.
    pub m: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Columns of B.
    pub n: usize,
    /// The GPU library's configuration.
    pub config: GemmConfig,
    /// The paper's GPU figures.
    pub paper_gpu: PaperFigures,
    /// The paper's CPU figures.
    pub paper_cpu: PaperFigures,
}

/// Case study 1: 128×128 @ 128×128, the well-behaved configuration.
pub const CASE_1: CaseStudy = CaseStudy {
    name: "case1_square",
    title: "Case 1: 128×128 @ 128×128, default GPU configuration",
    m: 128,
    k: 128,
    n: 128,
    config: GemmConfig {
        allow_fp16_reduced_precision_reduction: true,
    },
    paper_gpu: PaperFigures {
        mean: 4.570838e-4,
        std: 6.079639e-6,
    },
    paper_cpu: PaperFigures {
        mean: 4.570844e-4,
        std: 6.080522e-6,
    },
};

/// Case study 2: 128×4096 @ 4096×128 with PyTorch's default
/// `allow_fp16_reduced_precision_reduction = True`: the problem detected.
pub const CASE_2: CaseStudy = CaseStudy {
    name: "case2_deep_k_reduced_precision",
    title: "Case 2: 128×4096 @ 4096×128, reduced-precision reduction allowed (default)",
    m: 128,
    k: 4096,
    n: 128,
    config: GemmConfig {
        allow_fp16_reduced_precision_reduction: true,
    },
    paper_gpu: PaperFigures {
        mean: 3.106403e-2,
        std: 5.460945e-3,
    },
    paper_cpu: PaperFigures {
        mean: 4.768127e-4,
        std: 3.262880e-6,
    },
};

/// Case study 3: the same shape with
/// `allow_fp16_reduced_precision_reduction = False`: the fix validated.
pub const CASE_3: CaseStudy = CaseStudy {
    name: "case3_deep_k_fixed",
    title: "Case 3: 128×4096 @ 4096×128, reduced-precision reduction disallowed",
    m: 128,
    k: 4096,
    n: 128,
    config: GemmConfig {
        allow_fp16_reduced_precision_reduction: false,
    },
    paper_gpu: PaperFigures {
        mean: 4.767338e-4,
        std: 3.124869e-6,
    },
    paper_cpu: PaperFigures {
        mean: 4.767371e-4,
        std: 3.127470e-6,
    },
};

/// The three case studies, in the paper's order.
pub const CASE_STUDIES: [CaseStudy; 3] = [CASE_1, CASE_2, CASE_3];

impl CaseStudy {
    /// The candidate f1: the GPU matmul with the accumulation this case's
    /// configuration selects for its shape.
    pub fn gpu_matmul(&self, x: &MatmulInput) -> Vec<f16> {
        let (m, k, n) = x.shape();
        gpu()
            .run(x, self.config.strategy_for(m, k, n))
            .unwrap_or_else(|e| panic!("GPU matmul failed: {e}"))
    }

    /// The candidate f1 on many inputs of this case's shape at once: one
    /// GPU submission for the whole batch (see [`dual_delta_gpu::Gpu::run_batch`]),
    /// each output identical to [`CaseStudy::gpu_matmul`]'s.
    pub fn gpu_matmul_batch(&self, xs: &[MatmulInput]) -> Vec<Vec<f16>> {
        self.gpu_matmul_batch_on(gpu(), xs)
    }

    /// [`CaseStudy::gpu_matmul_batch`] on the context `gpu`.
    pub fn gpu_matmul_batch_on(&self, gpu: &Gpu, xs: &[MatmulInput]) -> Vec<Vec<f16>> {
        let Some((m, k, n)) = xs.first().map(MatmulInput::shape) else {
            return Vec::new();
        };
        let strategy = self.config.strategy_for(m, k, n);
        gpu.run_batch(xs, strategy)
            .unwrap_or_else(|e| panic!("GPU matmul failed: {e}"))
    }

    /// Checks a run of this case against the paper's figures:
    ///
    /// - the CPU baseline's mean error within 2% of the paper's (it is fixed
    ///   by f16 rounding of the outputs, so it must match closely);
    /// - where the GPU accumulates in f32 (cases 1 and 3): its mean within 2%
    ///   of the CPU's, and the two error distributions indistinguishable (KS);
    /// - where it uses the reduced-precision reduction (case 2): a mean error
    ///   ratio above 10 and a GPU mean of the paper's order (within a factor
    ///   of 2 of 3.106e-2).
    pub fn check(&self, outcome: &Outcome) -> Result<(), String> {
        let gpu = outcome.summaries().candidate.mean;
        let cpu = outcome.summaries().baseline.mean;
        let mut problems = Vec::new();
        // Under `rule = paper` the paper's test decided, and no gate.
        if outcome.settings().rule() == dual_delta_runtime::Rule::Paper
            && !matches!(
                outcome.judgement().decided_by(),
                dual_delta_runtime::decision::DecidedBy::Paper { .. }
            )
        {
            problems.push(format!(
                "decided by {:?}, not by the paper's test",
                outcome.judgement().decided_by()
            ));
        }
        let off = |measured: f64, expected: f64| (measured / expected - 1.0).abs();
        if off(cpu, self.paper_cpu.mean) > 0.02 {
            problems.push(format!(
                "CPU mean error {cpu:.6e} is not within 2% of the paper's {:.6e}",
                self.paper_cpu.mean
            ));
        }
        let (m, k, n) = (self.m, self.k, self.n);
        if self.config.strategy_for(m, k, n) == Accumulation::F32 {
            if off(gpu, cpu) > 0.02 {
                problems.push(format!(
                    "GPU mean error {gpu:.6e} is not within 2% of the CPU's {cpu:.6e}"
                ));
            }
            if outcome.verdict().equivalence != Equivalence::Indistinguishable {
                problems.push("KS distinguishes the GPU and CPU error distributions".into());
            }
        } else {
            if gpu / cpu <= 10.0 {
                problems.push(format!("mean error ratio {:.2} is not above 10", gpu / cpu));
            }
            if off(gpu, self.paper_gpu.mean) > 1.0 {
                problems.push(format!(
                    "GPU mean error {gpu:.6e} is not of the paper's order ({:.6e})",
                    self.paper_gpu.mean
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    /// Draws this case's input, `torch.randn(m, k).half()` and
    /// `torch.randn(k, n).half()`.
    pub fn input(&self, rng: &mut dual_delta_runtime::TrialRng) -> MatmulInput {
        MatmulInput::random(self.m, self.k, self.n, rng)
    }
}

/// The process's GPU context, or the end of the run: skipped (printing why)
/// when no GPU is usable and `DUAL_DELTA_GPU=skip`, failed otherwise.
pub fn gpu() -> &'static Gpu {
    dual_delta_gpu::shared_or_skip()
}

/// A `check` for annotated tests that expect a mistaken kernel to be
/// caught: the accuracy verdict must be "less accurate" (not merely a
/// failed run for another reason).
pub fn less_accurate(outcome: &Outcome) -> Result<(), String> {
    match outcome.judgement().accuracy() {
        dual_delta_runtime::decision::Accuracy::LessAccurate => Ok(()),
        other => Err(format!("expected less accurate, got {other:?}")),
    }
}
