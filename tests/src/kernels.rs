//! The case studies beyond matmul, shared by the `kernels` example: each
//! pairs one GPU kernel variant (the candidate) with the careful CPU
//! baseline of `gpu_backend::reference` and the f64 oracle, on inputs that
//! expose the variant's mistake, and says which verdict is expected.
//!
//! The annotated tests in `tests/kernel_case_studies.rs` assert the same
//! verdicts one by one; this table runs them all and prints one line each.

use core::fmt;

use dual_delta_runtime::{DualDelta, Expect, Names, Outcome, RunError, TrialRng};
use gpu_backend::reference::{
    RowsInput, random_outlier_rows, random_rows, softmax_cpu, softmax_f64, sum_cpu, sum_f64,
};
use gpu_backend::{ReduceStrategy, SoftmaxVariant};
use half::f16;

use crate::gpu;

/// The GPU kernel and variant a case study runs as its candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// A row sum ([`gpu_backend::Gpu::reduce_sum`]).
    Sum(ReduceStrategy),
    /// A softmax over each row ([`gpu_backend::Gpu::softmax`]).
    Softmax(SoftmaxVariant),
}

impl Kernel {
    /// The kernel family, for the table.
    pub fn family(&self) -> &'static str {
        match self {
            Kernel::Sum(_) => "row sum",
            Kernel::Softmax(_) => "softmax",
        }
    }

    /// The variant, for the table.
    pub fn variant(&self) -> String {
        match self {
            Kernel::Sum(s) => s.to_string(),
            Kernel::Softmax(v) => v.to_string(),
        }
    }
}

/// The rows a case study draws: `rows × len` `torch.randn` values rounded
/// to `f16`, with `outliers` entries per row set to `±magnitude` where
/// present.
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
    /// The generator of these rows.
    pub fn generator(self) -> impl Fn(&mut TrialRng) -> RowsInput<f16> + Send + Sync {
        move |rng: &mut TrialRng| match self.outliers {
            None => random_rows::<f16>(self.rows, self.len)(rng),
            Some((count, magnitude)) => {
                random_outlier_rows::<f16>(self.rows, self.len, count, magnitude)(rng)
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

/// One case study: a kernel variant, its inputs and the verdict expected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCase {
    /// Short name, also the report's directory.
    pub name: &'static str,
    /// The candidate.
    pub kernel: Kernel,
    /// The inputs.
    pub rows: Rows,
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

const fn case(name: &'static str, kernel: Kernel, rows: Rows, expect: Expect) -> KernelCase {
    KernelCase {
        name,
        kernel,
        rows,
        expect,
    }
}

/// Every case study beyond matmul, mistaken variants first within each
/// kernel.
pub const KERNEL_CASES: [KernelCase; 8] = [
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
];

impl KernelCase {
    /// Runs this case study with at most `n` trials, stopping as soon as the
    /// verdict is known where `stop_early`; every trial's GPU work goes out
    /// in batches of 32.
    pub fn run(&self, n: usize, stop_early: bool) -> Result<Outcome, RunError> {
        let input = self.rows.generator();
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
                    input,
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
                    input,
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
        let (baseline, oracle) = match self.kernel {
            Kernel::Sum(_) => ("sum_cpu", "sum_f64"),
            Kernel::Softmax(_) => ("softmax_cpu", "softmax_f64"),
        };
        Names {
            test: format!("kernels::{}", self.name),
            candidate: format!("GPU {} ({})", self.kernel.family(), self.kernel.variant()),
            baseline: baseline.into(),
            oracle: oracle.into(),
            input: self.rows.to_string(),
        }
    }
}
