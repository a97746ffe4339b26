//! Why a run could not produce a verdict, by cause: its configuration, a
//! trial's fault, the baseline store, a statistic; and a skip.

use core::fmt;

use crate::config::ConfigError;
use crate::stats::StatsError;

/// One of the functions a run calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// The implementation under test, f1.
    Candidate,
    /// The reference implementation, f2.
    Baseline,
    /// The high-precision oracle, fΩ.
    Oracle,
    /// The input generator.
    Input,
    /// The error metric.
    Metric,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Candidate => "candidate",
            Role::Baseline => "baseline",
            Role::Oracle => "oracle",
            Role::Input => "input generator",
            Role::Metric => "metric",
        })
    }
}

/// Where a trial failed: enough to replay it alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrialId {
    /// The trial's index in the run.
    pub index: usize,
    /// The trial's seed ([`crate::TrialRng::from_trial_seed`] replays it).
    pub seed: u64,
    /// The run's base seed (`DUAL_DELTA_SEED` replays the run).
    pub base_seed: u64,
}

impl TrialId {
    /// Trial `index` of a run with base seed `base_seed`.
    pub fn of(base_seed: u64, index: usize) -> TrialId {
        TrialId {
            index,
            seed: crate::rng::trial_seed(base_seed, index),
            base_seed,
        }
    }
}

impl fmt::Display for TrialId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trial {} (trial seed {:#018x}; replay the run with DUAL_DELTA_SEED={:#x})",
            self.index, self.seed, self.base_seed
        )
    }
}

/// Why a run produced no verdict, by cause. Each variant holds the error
/// of its cause: match on the variant, and read the detail there. Its
/// message is the cause's own, and its [`std::error::Error::source`] the
/// cause's source (as `#[error(transparent)]` would make them), so that a
/// printer of the error chain says each message once.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RunError {
    /// A setting is invalid.
    Config(ConfigError),
    /// The run could never decide: `n` is below what its tests need.
    TooFewTrials(TooFewTrials),
    /// No output element was compared on any input: the outputs were
    /// empty, or the metric was undefined for both on every element. A
    /// test that compared nothing has no verdict to give.
    NothingCompared(NothingCompared),
    /// A function failed on a trial: which, on which trial and seed, how.
    Trial(TrialFault),
    /// A saved baseline cannot be compared with, read or written.
    Baseline(BaselineError),
    /// A statistic could not be computed.
    Stats(StatsError),
    /// A function declared that this environment cannot run the test
    /// ([`skip`]): an ending, not a failure (see
    /// [`crate::ended::Ended::Skipped`]).
    Skipped(Skip),
}

/// Fewer trials than the accuracy test needs to ever reject at its level
/// ([`dual_delta_settings::levels::Deciding::min_n`], which the attribute
/// checks at compile time too).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TooFewTrials {
    /// The test, as the attribute writes it (`wilcoxon`, `sign`, `t`).
    pub test: &'static str,
    /// The number of trials asked for.
    pub n: usize,
    /// The smallest number that can reject.
    pub min: usize,
    /// The level the test is held to.
    pub alpha: f64,
}

/// A run that compared no output element on any of its inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct NothingCompared {
    /// The inputs whose outputs the oracle measured.
    pub measured: usize,
}

impl fmt::Display for NothingCompared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no output element was compared on any of the {} inputs measured: the outputs were \
             empty, or the metric was undefined for both implementations on every element; a \
             test that compares nothing has no verdict (check the input generator and the \
             outputs' lengths)",
            self.measured
        )
    }
}

impl std::error::Error for NothingCompared {}

/// A run skipped by one of its functions, and why.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Skip {
    /// Which function.
    pub role: Role,
    /// Why.
    pub reason: String,
}

impl RunError {
    /// The trial the error names, if it names one.
    pub fn trial(&self) -> Option<TrialId> {
        match self {
            RunError::Trial(t) => Some(t.trial),
            RunError::Baseline(BaselineError::Mismatch { trial, .. }) => Some(*trial),
            _ => None,
        }
    }
}

/// The payload [`skip`] unwinds with.
#[derive(Debug)]
pub(crate) struct SkipPayload(pub(crate) String);

/// Stops the current run and marks it skipped, from inside a candidate,
/// baseline, oracle or input generator: for an environment that lacks what
/// the test needs (a GPU, a device feature) where the user asked to skip
/// rather than fail. The run returns [`RunError::Skipped`]; an annotated
/// test prints the reason and passes.
///
/// Use it only behind an explicit opt-in (such as `DUAL_DELTA_GPU=skip`):
/// by default a missing capability must fail the test.
pub fn skip(reason: impl Into<String>) -> ! {
    // `resume_unwind` does not run the panic hook: no backtrace noise.
    std::panic::resume_unwind(Box::new(SkipPayload(reason.into())))
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::TooFewTrials(e) => write!(f, "{e}"),
            RunError::NothingCompared(e) => write!(f, "{e}"),
            RunError::Trial(e) => write!(f, "{e}"),
            RunError::Baseline(e) => write!(f, "{e}"),
            RunError::Stats(e) => write!(f, "{e}"),
            RunError::Skipped(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Config(e) => e.source(),
            RunError::TooFewTrials(e) => e.source(),
            RunError::NothingCompared(e) => e.source(),
            RunError::Trial(e) => e.source(),
            RunError::Baseline(e) => e.source(),
            RunError::Stats(e) => e.source(),
            RunError::Skipped(e) => e.source(),
        }
    }
}

impl fmt::Display for TooFewTrials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&dual_delta_settings::levels::too_few(
            self.n, self.min, self.test, self.alpha,
        ))
    }
}

impl std::error::Error for TooFewTrials {}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped by the {}: {}", self.role, self.reason)
    }
}

impl std::error::Error for Skip {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
    }
}

impl From<StatsError> for RunError {
    fn from(e: StatsError) -> Self {
        RunError::Stats(e)
    }
}

impl From<TrialFault> for RunError {
    fn from(e: TrialFault) -> Self {
        RunError::Trial(e)
    }
}

impl From<BaselineError> for RunError {
    fn from(e: BaselineError) -> Self {
        RunError::Baseline(e)
    }
}

mod baseline;
mod deltas;
mod trial;

pub use self::baseline::{BaselineError, BaselineFault};
pub use self::deltas::{DeltasError, DeltasFault};
pub(crate) use self::trial::values;
pub use self::trial::{Fault, TrialFault};
