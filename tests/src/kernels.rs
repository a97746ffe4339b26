//! The case studies beyond matmul, shared by the `kernels` example: each
//! pairs one GPU kernel variant (the candidate) with the careful CPU
//! baseline of `dual_delta_gpu::reference` and the f64 oracle, on inputs that
//! expose the variant's mistake, and says which verdict is expected.
//!
//! The annotated tests in `tests/kernel_case_studies.rs` and
//! `tests/norm_attention_case_studies.rs` assert the same verdicts one by
//! one; this table runs them all and prints one line each.

use core::fmt;

use dual_delta_gpu::{
    Gpu,
    attention::AttentionStrategy,
    norm::{LayerNormStrategy, RmsNormStrategy},
    reductions::{SoftmaxStrategy, SumStrategy},
};
use dual_delta_gpu::{
    attention::{
        AttentionInput, AttentionShape, attention_cpu, attention_f64, random_attention_input,
    },
    norm::{
        NormInput, layer_norm_cpu, layer_norm_f64, random_offset_norm_input, rms_norm_cpu,
        rms_norm_f64,
    },
    reductions::{
        RowsInput, random_outlier_rows, random_rows, softmax_cpu, softmax_f64, sum_cpu, sum_f64,
    },
};
use dual_delta_runtime::{
    DualDelta, Expect, TrialRng, error::RunError, outcome::Names, outcome::Outcome,
};
use half::f16;

use crate::gpu;

/// The GPU kernel and variant a case study runs as its candidate, with the
/// inputs it draws (all `torch.randn` values rounded to `f16`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// A row sum ([`SumStrategy`] through [`dual_delta_gpu::Gpu::run`]).
    Sum(SumStrategy, Rows),
    /// A softmax over each row ([`SoftmaxStrategy`]).
    Softmax(SoftmaxStrategy, Rows),
    /// LayerNorm over each row ([`LayerNormStrategy`]).
    LayerNorm(LayerNormStrategy, Activations),
    /// RMSNorm over each row ([`RmsNormStrategy`]).
    RmsNorm(RmsNormStrategy, Activations),
    /// Scaled-dot-product attention ([`AttentionStrategy`]), no
    /// mask.
    Attention(AttentionStrategy, AttentionShape),
}

impl Kernel {
    /// The kernel family, for the table.
    pub fn family(&self) -> &'static str {
        match self {
            Kernel::Sum(..) => "row sum",
            Kernel::Softmax(..) => "softmax",
            Kernel::LayerNorm(..) => "LayerNorm",
            Kernel::RmsNorm(..) => "RMSNorm",
            Kernel::Attention(..) => "attention",
        }
    }

    /// The variant, for the table.
    pub fn variant(&self) -> String {
        match self {
            Kernel::Sum(s, _) => s.to_string(),
            Kernel::Softmax(v, _) => v.to_string(),
            Kernel::LayerNorm(v, _) => v.to_string(),
            Kernel::RmsNorm(v, _) => v.to_string(),
            Kernel::Attention(v, _) => v.to_string(),
        }
    }

    /// The inputs, for the table.
    pub fn inputs(&self) -> String {
        match self {
            Kernel::Sum(_, rows) | Kernel::Softmax(_, rows) => rows.to_string(),
            Kernel::LayerNorm(_, a) | Kernel::RmsNorm(_, a) => {
                format!("{} × {}, {} ± {}", a.rows, a.len, a.offset, a.spread)
            }
            Kernel::Attention(_, s) => format!(
                "{} head{}, {} queries × {} keys, d = {}",
                s.heads,
                if s.heads == 1 { "" } else { "s" },
                s.seq_q,
                s.seq_k,
                s.d
            ),
        }
    }

    /// The names of the baseline and the oracle.
    fn references(&self) -> (&'static str, &'static str) {
        match self {
            Kernel::Sum(..) => ("sum_cpu", "sum_f64"),
            Kernel::Softmax(..) => ("softmax_cpu", "softmax_f64"),
            Kernel::LayerNorm(..) => ("layer_norm_cpu", "layer_norm_f64"),
            Kernel::RmsNorm(..) => ("rms_norm_cpu", "rms_norm_f64"),
            Kernel::Attention(..) => ("attention_cpu", "attention_f64"),
        }
    }
}

/// `rows × len` values, with `outliers = (count, magnitude)` entries per
/// row set to `±magnitude` where present.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rows {
    /// Rows per input.
    pub rows: usize,
    /// Elements per row.
    pub len: usize,
    /// `(count, magnitude)` of the outliers per row.
    pub outliers: Option<(usize, f64)>,
}

impl Rows {
    fn generator(self) -> impl Fn(&mut TrialRng) -> RowsInput<f16> + Send + Sync {
        let Rows {
            rows,
            len,
            outliers,
        } = self;
        move |rng: &mut TrialRng| match outliers {
            None => random_rows::<f16>(rows, len)(rng),
            Some((count, magnitude)) => {
                random_outlier_rows::<f16>(rows, len, count, magnitude)(rng)
            }
        }
    }
}

impl fmt::Display for Rows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} × {} randn", self.rows, self.len)?;
        if let Some((count, magnitude)) = self.outliers {
            write!(f, ", {count} × ±{magnitude} per row")?;
        }
        Ok(())
    }
}

/// LayerNorm inputs: `rows × len` activations `offset + spread · z`, with
/// a random weight and bias, `eps = 1e-5`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Activations {
    /// Rows per input.
    pub rows: usize,
    /// Elements per row.
    pub len: usize,
    /// The activations' mean.
    pub offset: f64,
    /// Their standard deviation.
    pub spread: f64,
}

impl Activations {
    fn generator(self) -> impl Fn(&mut TrialRng) -> NormInput<f16> + Send + Sync {
        random_offset_norm_input::<f16>(self.rows, self.len, self.offset, self.spread, true, 1e-5)
    }
}

/// One case study: a kernel variant, its inputs and the verdict expected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCase {
    /// Short name, also the report's directory.
    pub name: &'static str,
    /// The candidate and its inputs.
    pub kernel: Kernel,
    /// The verdict expected: [`Expect::Worse`] for a mistaken variant,
    /// [`Expect::NoWorse`] for a careful one.
    pub expect: Expect,
}

const SUM_ROWS: Rows = Rows {
    rows: 4,
    len: 4096,
    outliers: None,
};

const SOFTMAX_ROWS: Rows = Rows {
    rows: 4,
    len: 1024,
    outliers: None,
};

const SOFTMAX_OUTLIER_ROWS: Rows = Rows {
    rows: 4,
    len: 1024,
    outliers: Some((4, 20.0)),
};

/// Activations with a mean large against their spread, as in real models.
const OFFSET_ACTIVATIONS: Activations = Activations {
    rows: 4,
    len: 1024,
    offset: 1000.0,
    spread: 1.0,
};

/// Centred activations of unit spread, as RMSNorm sees them in real
/// models: the sum of squares of a row is about 1024, where `f16` values
/// are 1 apart.
pub const RMS_ACTIVATIONS: Activations = Activations {
    rows: 4,
    len: 1024,
    offset: 0.0,
    spread: 1.0,
};

/// One head of 128 queries over 512 keys, head dimension 64.
pub const HEAD: AttentionShape = AttentionShape {
    heads: 1,
    seq_q: 128,
    seq_k: 512,
    d: 64,
    d_v: 64,
};

/// One head of 64 queries over 1024 keys, head dimension 64.
pub const LONG_HEAD: AttentionShape = AttentionShape {
    seq_q: 64,
    seq_k: 1024,
    ..HEAD
};

const fn case(name: &'static str, kernel: Kernel, expect: Expect) -> KernelCase {
    KernelCase {
        name,
        kernel,
        expect,
    }
}

/// Every case study beyond matmul, mistaken variants first within each
/// kernel.
pub const KERNEL_CASES: [KernelCase; 16] = [
    case(
        "sum_f16_serial",
        Kernel::Sum(SumStrategy::F16Serial, SUM_ROWS),
        Expect::Worse,
    ),
    case(
        "sum_f16",
        Kernel::Sum(SumStrategy::F16, SUM_ROWS),
        Expect::Worse,
    ),
    case(
        "sum_f32",
        Kernel::Sum(SumStrategy::F32, SUM_ROWS),
        Expect::NoWorse,
    ),
    case(
        "sum_pairwise",
        Kernel::Sum(SumStrategy::Pairwise, SUM_ROWS),
        Expect::NoWorse,
    ),
    case(
        "softmax_no_max_subtraction",
        Kernel::Softmax(SoftmaxStrategy::NoMaxSubtraction, SOFTMAX_OUTLIER_ROWS),
        Expect::Worse,
    ),
    case(
        "softmax_f16_denominator",
        Kernel::Softmax(SoftmaxStrategy::F16Denominator, SOFTMAX_ROWS),
        Expect::Worse,
    ),
    case(
        "softmax_careful",
        Kernel::Softmax(SoftmaxStrategy::Careful, SOFTMAX_OUTLIER_ROWS),
        Expect::NoWorse,
    ),
    case(
        "softmax_online",
        Kernel::Softmax(SoftmaxStrategy::Online, SOFTMAX_OUTLIER_ROWS),
        Expect::NoWorse,
    ),
    case(
        "layer_norm_one_pass",
        Kernel::LayerNorm(LayerNormStrategy::OnePass, OFFSET_ACTIVATIONS),
        Expect::Worse,
    ),
    case(
        "layer_norm_two_pass",
        Kernel::LayerNorm(LayerNormStrategy::TwoPass, OFFSET_ACTIVATIONS),
        Expect::NoWorse,
    ),
    case(
        "layer_norm_welford",
        Kernel::LayerNorm(LayerNormStrategy::Welford, OFFSET_ACTIVATIONS),
        Expect::NoWorse,
    ),
    case(
        "rms_norm_f16_squares",
        Kernel::RmsNorm(RmsNormStrategy::F16Accumulation, RMS_ACTIVATIONS),
        Expect::Worse,
    ),
    case(
        "rms_norm_f32",
        Kernel::RmsNorm(RmsNormStrategy::F32, RMS_ACTIVATIONS),
        Expect::NoWorse,
    ),
    case(
        "attention_naive_f16_scores",
        Kernel::Attention(AttentionStrategy::Naive, HEAD),
        Expect::Worse,
    ),
    case(
        "attention_flash_f16_accumulation",
        Kernel::Attention(AttentionStrategy::FlashF16Accumulation, LONG_HEAD),
        Expect::Worse,
    ),
    case(
        "attention_flash_f32",
        Kernel::Attention(AttentionStrategy::Flash, HEAD),
        Expect::NoWorse,
    ),
];

impl KernelCase {
    /// Runs this case study with at most `n` trials, stopping as soon as the
    /// verdict is known where `stop_early`; every trial's GPU work goes out
    /// in batches of 32.
    pub fn run(&self, n: usize, stop_early: bool) -> Result<Outcome, RunError> {
        self.run_on(gpu(), n, stop_early)
    }

    /// [`KernelCase::run`] on the context `gpu` (one compiled with
    /// imitated driver freedoms, say) instead of the process's.
    pub fn run_on(
        &self,
        gpu: &'static Gpu,
        n: usize,
        stop_early: bool,
    ) -> Result<Outcome, RunError> {
        match self.kernel {
            Kernel::Sum(strategy, rows) => self.finish(
                DualDelta::batched(
                    move |xs: &[RowsInput<f16>]| {
                        gpu.run_batch(xs, strategy)
                            .unwrap_or_else(|e| panic!("GPU row sum failed: {e}"))
                    },
                    sum_cpu,
                    sum_f64,
                    rows.generator(),
                ),
                n,
                stop_early,
            ),
            Kernel::Softmax(variant, rows) => self.finish(
                DualDelta::batched(
                    move |xs: &[RowsInput<f16>]| {
                        gpu.run_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU softmax failed: {e}"))
                    },
                    softmax_cpu,
                    softmax_f64,
                    rows.generator(),
                ),
                n,
                stop_early,
            ),
            Kernel::LayerNorm(variant, activations) => self.finish(
                DualDelta::batched(
                    move |xs: &[NormInput<f16>]| {
                        gpu.run_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU LayerNorm failed: {e}"))
                    },
                    layer_norm_cpu,
                    layer_norm_f64,
                    activations.generator(),
                ),
                n,
                stop_early,
            ),
            Kernel::RmsNorm(variant, activations) => self.finish(
                DualDelta::batched(
                    move |xs: &[NormInput<f16>]| {
                        gpu.run_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU RMSNorm failed: {e}"))
                    },
                    rms_norm_cpu,
                    rms_norm_f64,
                    activations.generator(),
                ),
                n,
                stop_early,
            ),
            Kernel::Attention(variant, shape) => self.finish(
                DualDelta::batched(
                    move |xs: &[AttentionInput<f16>]| {
                        gpu.run_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU attention failed: {e}"))
                    },
                    attention_cpu,
                    attention_f64,
                    random_attention_input::<f16>(shape, false),
                ),
                n,
                stop_early,
            ),
        }
    }

    fn finish<I: Send + Sync>(
        &self,
        study: DualDelta<'_, I>,
        n: usize,
        stop_early: bool,
    ) -> Result<Outcome, RunError> {
        study
            .names(self.names())
            .n(n)
            .expect(self.expect)
            .stop_early(stop_early)
            .run()
    }

    /// The names in the table and the report.
    pub fn names(&self) -> Names {
        let (baseline, oracle) = self.kernel.references();
        Names {
            test: format!("kernels::{}", self.name),
            candidate: format!("GPU {} ({})", self.kernel.family(), self.kernel.variant()),
            baseline: baseline.into(),
            oracle: oracle.into(),
            input: self.kernel.inputs(),
        }
    }
}
