//! The case studies beyond matmul, shared by the `kernels` example: each
//! pairs one GPU kernel variant (the candidate) with the careful CPU
//! baseline of `gpu_backend::reference` and the f64 oracle, on inputs that
//! expose the variant's mistake, and says which verdict is expected.
//!
//! The annotated tests in `tests/kernel_case_studies.rs` and
//! `tests/norm_attention_case_studies.rs` assert the same verdicts one by
//! one; this table runs them all and prints one line each.

use core::fmt;

use dual_delta_runtime::{DualDelta, Expect, Names, Outcome, RunError, TrialRng};
use gpu_backend::reference::{
    AttentionInput, AttentionShape, NormInput, RowsInput, attention_cpu, attention_f64,
    layer_norm_cpu, layer_norm_f64, random_attention_input, random_offset_norm_input,
    random_outlier_rows, random_rows, softmax_cpu, softmax_f64, sum_cpu, sum_f64,
};
use gpu_backend::{AttentionVariant, LayerNormVariant, ReduceStrategy, SoftmaxVariant};
use half::f16;

use crate::gpu;

/// The GPU kernel and variant a case study runs as its candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// A row sum ([`gpu_backend::Gpu::reduce_sum`]).
    Sum(ReduceStrategy),
    /// A softmax over each row ([`gpu_backend::Gpu::softmax`]).
    Softmax(SoftmaxVariant),
    /// LayerNorm over each row ([`gpu_backend::Gpu::layer_norm`]).
    LayerNorm(LayerNormVariant),
    /// Scaled-dot-product attention ([`gpu_backend::Gpu::attention`]).
    Attention(AttentionVariant),
}

impl Kernel {
    /// The kernel family, for the table.
    pub fn family(&self) -> &'static str {
        match self {
            Kernel::Sum(_) => "row sum",
            Kernel::Softmax(_) => "softmax",
            Kernel::LayerNorm(_) => "LayerNorm",
            Kernel::Attention(_) => "attention",
        }
    }

    /// The variant, for the table.
    pub fn variant(&self) -> String {
        match self {
            Kernel::Sum(s) => s.to_string(),
            Kernel::Softmax(v) => v.to_string(),
            Kernel::LayerNorm(v) => v.to_string(),
            Kernel::Attention(v) => v.to_string(),
        }
    }

    /// The names of the baseline and the oracle.
    fn references(&self) -> (&'static str, &'static str) {
        match self {
            Kernel::Sum(_) => ("sum_cpu", "sum_f64"),
            Kernel::Softmax(_) => ("softmax_cpu", "softmax_f64"),
            Kernel::LayerNorm(_) => ("layer_norm_cpu", "layer_norm_f64"),
            Kernel::Attention(_) => ("attention_cpu", "attention_f64"),
        }
    }
}

/// The inputs a case study draws, all `torch.randn` values rounded to
/// `f16`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Inputs {
    /// `rows × len` values, with `outliers = (count, magnitude)` entries
    /// per row set to `±magnitude` where present.
    Rows {
        /// Rows per input.
        rows: usize,
        /// Elements per row.
        len: usize,
        /// `(count, magnitude)` of the outliers per row.
        outliers: Option<(usize, f64)>,
    },
    /// LayerNorm inputs: `rows × len` activations `offset + spread · z`,
    /// with a random weight and bias, `eps = 1e-5`.
    Activations {
        /// Rows per input.
        rows: usize,
        /// Elements per row.
        len: usize,
        /// The activations' mean.
        offset: f64,
        /// Their standard deviation.
        spread: f64,
    },
    /// Attention inputs `Q`, `K`, `V` of this shape, no mask.
    Attention(AttentionShape),
}

impl Inputs {
    fn rows(self) -> impl Fn(&mut TrialRng) -> RowsInput<f16> + Send + Sync {
        let Inputs::Rows {
            rows,
            len,
            outliers,
        } = self
        else {
            panic!("{self} are not rows");
        };
        move |rng: &mut TrialRng| match outliers {
            None => random_rows::<f16>(rows, len)(rng),
            Some((count, magnitude)) => {
                random_outlier_rows::<f16>(rows, len, count, magnitude)(rng)
            }
        }
    }

    fn activations(self) -> impl Fn(&mut TrialRng) -> NormInput<f16> + Send + Sync {
        let Inputs::Activations {
            rows,
            len,
            offset,
            spread,
        } = self
        else {
            panic!("{self} are not activations");
        };
        random_offset_norm_input::<f16>(rows, len, offset, spread, true, 1e-5)
    }

    fn attention(self) -> impl Fn(&mut TrialRng) -> AttentionInput<f16> + Send + Sync {
        let Inputs::Attention(shape) = self else {
            panic!("{self} are not attention inputs");
        };
        random_attention_input::<f16>(shape, false)
    }
}

impl fmt::Display for Inputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Inputs::Rows {
                rows,
                len,
                outliers,
            } => {
                write!(f, "{rows} × {len} randn")?;
                if let Some((count, magnitude)) = outliers {
                    write!(f, ", {count} × ±{magnitude} per row")?;
                }
                Ok(())
            }
            Inputs::Activations {
                rows,
                len,
                offset,
                spread,
            } => write!(f, "{rows} × {len}, {offset} ± {spread}"),
            Inputs::Attention(s) => write!(
                f,
                "{} head{}, {} queries × {} keys, d = {}",
                s.heads,
                if s.heads == 1 { "" } else { "s" },
                s.seq_q,
                s.seq_k,
                s.d
            ),
        }
    }
}

/// One case study: a kernel variant, its inputs and the verdict expected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCase {
    /// Short name, also the report's directory.
    pub name: &'static str,
    /// The candidate.
    pub kernel: Kernel,
    /// The inputs.
    pub inputs: Inputs,
    /// The verdict expected: [`Expect::Worse`] for a mistaken variant,
    /// [`Expect::NoWorse`] for a careful one.
    pub expect: Expect,
}

const SUM_ROWS: Inputs = Inputs::Rows {
    rows: 4,
    len: 4096,
    outliers: None,
};

const SOFTMAX_ROWS: Inputs = Inputs::Rows {
    rows: 4,
    len: 1024,
    outliers: None,
};

const SOFTMAX_OUTLIER_ROWS: Inputs = Inputs::Rows {
    rows: 4,
    len: 1024,
    outliers: Some((4, 20.0)),
};

/// Activations with a mean large against their spread, as in real models.
const OFFSET_ACTIVATIONS: Inputs = Inputs::Activations {
    rows: 4,
    len: 1024,
    offset: 1000.0,
    spread: 1.0,
};

/// One head of 128 queries over 512 keys, head dimension 64.
const HEAD: Inputs = Inputs::Attention(AttentionShape {
    heads: 1,
    seq_q: 128,
    seq_k: 512,
    d: 64,
    d_v: 64,
});

/// One head of 64 queries over 1024 keys, head dimension 64.
const LONG_HEAD: Inputs = Inputs::Attention(AttentionShape {
    heads: 1,
    seq_q: 64,
    seq_k: 1024,
    d: 64,
    d_v: 64,
});

const fn case(name: &'static str, kernel: Kernel, inputs: Inputs, expect: Expect) -> KernelCase {
    KernelCase {
        name,
        kernel,
        inputs,
        expect,
    }
}

/// Every case study beyond matmul, mistaken variants first within each
/// kernel.
pub const KERNEL_CASES: [KernelCase; 14] = [
    case(
        "sum_f16_serial",
        Kernel::Sum(ReduceStrategy::F16Serial),
        SUM_ROWS,
        Expect::Worse,
    ),
    case(
        "sum_f16",
        Kernel::Sum(ReduceStrategy::F16),
        SUM_ROWS,
        Expect::Worse,
    ),
    case(
        "sum_f32",
        Kernel::Sum(ReduceStrategy::F32),
        SUM_ROWS,
        Expect::NoWorse,
    ),
    case(
        "sum_pairwise",
        Kernel::Sum(ReduceStrategy::Pairwise),
        SUM_ROWS,
        Expect::NoWorse,
    ),
    case(
        "softmax_no_max_subtraction",
        Kernel::Softmax(SoftmaxVariant::NoMaxSubtraction),
        SOFTMAX_OUTLIER_ROWS,
        Expect::Worse,
    ),
    case(
        "softmax_f16_denominator",
        Kernel::Softmax(SoftmaxVariant::F16Denominator),
        SOFTMAX_ROWS,
        Expect::Worse,
    ),
    case(
        "softmax_careful",
        Kernel::Softmax(SoftmaxVariant::Careful),
        SOFTMAX_OUTLIER_ROWS,
        Expect::NoWorse,
    ),
    case(
        "softmax_online",
        Kernel::Softmax(SoftmaxVariant::Online),
        SOFTMAX_OUTLIER_ROWS,
        Expect::NoWorse,
    ),
    case(
        "layer_norm_one_pass",
        Kernel::LayerNorm(LayerNormVariant::OnePass),
        OFFSET_ACTIVATIONS,
        Expect::Worse,
    ),
    case(
        "layer_norm_two_pass",
        Kernel::LayerNorm(LayerNormVariant::TwoPass),
        OFFSET_ACTIVATIONS,
        Expect::NoWorse,
    ),
    case(
        "layer_norm_welford",
        Kernel::LayerNorm(LayerNormVariant::Welford),
        OFFSET_ACTIVATIONS,
        Expect::NoWorse,
    ),
    case(
        "attention_naive_f16_scores",
        Kernel::Attention(AttentionVariant::Naive),
        HEAD,
        Expect::Worse,
    ),
    case(
        "attention_flash_f16_accumulation",
        Kernel::Attention(AttentionVariant::FlashF16Accumulation),
        LONG_HEAD,
        Expect::Worse,
    ),
    case(
        "attention_flash_f32",
        Kernel::Attention(AttentionVariant::Flash),
        HEAD,
        Expect::NoWorse,
    ),
];

impl KernelCase {
    /// Runs this case study with at most `n` trials, stopping as soon as the
    /// verdict is known where `stop_early`; every trial's GPU work goes out
    /// in batches of 32.
    pub fn run(&self, n: usize, stop_early: bool) -> Result<Outcome, RunError> {
        let inputs = self.inputs;
        match self.kernel {
            Kernel::Sum(strategy) => self.finish(
                DualDelta::batched(
                    move |xs: &[RowsInput<f16>]| {
                        gpu()
                            .reduce_sum_batch(xs, strategy)
                            .unwrap_or_else(|e| panic!("GPU row sum failed: {e}"))
                    },
                    sum_cpu,
                    sum_f64,
                    inputs.rows(),
                ),
                n,
                stop_early,
            ),
            Kernel::Softmax(variant) => self.finish(
                DualDelta::batched(
                    move |xs: &[RowsInput<f16>]| {
                        gpu()
                            .softmax_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU softmax failed: {e}"))
                    },
                    softmax_cpu,
                    softmax_f64,
                    inputs.rows(),
                ),
                n,
                stop_early,
            ),
            Kernel::LayerNorm(variant) => self.finish(
                DualDelta::batched(
                    move |xs: &[NormInput<f16>]| {
                        gpu()
                            .layer_norm_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU LayerNorm failed: {e}"))
                    },
                    layer_norm_cpu,
                    layer_norm_f64,
                    inputs.activations(),
                ),
                n,
                stop_early,
            ),
            Kernel::Attention(variant) => self.finish(
                DualDelta::batched(
                    move |xs: &[AttentionInput<f16>]| {
                        gpu()
                            .attention_batch(xs, variant)
                            .unwrap_or_else(|e| panic!("GPU attention failed: {e}"))
                    },
                    attention_cpu,
                    attention_f64,
                    inputs.attention(),
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
            input: self.inputs.to_string(),
        }
    }
}
