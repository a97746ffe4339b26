//! Why a run could not produce a verdict.

use core::fmt;

use crate::config::ConfigError;
use crate::stats::StatsError;

/// One of the functions a run calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
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

/// Why a run produced no verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// A setting is invalid.
    Config(ConfigError),
    /// Fewer trials than the accuracy test needs to ever reject at α.
    TooFewTrials {
        /// The test.
        test: &'static str,
        /// The number of trials asked for.
        n: usize,
        /// The smallest number that can reject.
        min: usize,
        /// The significance level.
        alpha: f64,
    },
    /// The candidate's mean error is beyond the margin on too few inputs
    /// for any test at this `n` to establish it (too few differing
    /// outputs, or an excess concentrated on a handful of inputs): a loss
    /// the run can see but not show, which names the `n` that could
    /// ([`crate::claim::Short`]).
    ShortOfInputs {
        /// The paired test.
        test: &'static str,
        /// The inputs checked.
        n: usize,
        /// What the loss rests on, and the `n` needed.
        short: crate::decide::claim::Short,
    },
    /// A function panicked.
    Panicked {
        /// Which function.
        role: Role,
        /// The trial.
        trial: TrialId,
        /// The panic message.
        message: String,
    },
    /// The oracle produced a NaN or an infinity: no error can be measured
    /// against it.
    OracleNotFinite {
        /// The trial.
        trial: TrialId,
        /// Position in the oracle's output.
        position: usize,
        /// The value.
        value: f64,
    },
    /// An implementation's output length differs from the oracle's.
    LengthMismatch {
        /// The implementation at fault.
        role: Role,
        /// The trial.
        trial: TrialId,
        /// Its output length.
        len: usize,
        /// The oracle's output length.
        oracle_len: usize,
    },
    /// A batched candidate returned a different number of outputs than it
    /// received inputs.
    BatchLength {
        /// The batch's first trial.
        first: TrialId,
        /// The index of the batch's last trial.
        last: usize,
        /// The number of outputs returned.
        len: usize,
        /// The number of inputs given.
        expected: usize,
    },
    /// A custom metric returned NaN or a negative error.
    InvalidError {
        /// The implementation whose error it was.
        role: Role,
        /// The trial.
        trial: TrialId,
        /// The value returned.
        value: f64,
    },
    /// A statistic could not be computed.
    Stats(StatsError),
    /// A trial's input or oracle output differs from the baseline's for the
    /// same seed: the input generator or the oracle changed since it was
    /// saved, so the comparison would pair different inputs.
    BaselineMismatch {
        /// The baseline's name.
        baseline: String,
        /// The first trial that differs.
        trial: TrialId,
        /// Its fingerprint now.
        now: String,
        /// Its fingerprint in the baseline.
        then: String,
    },
    /// The baseline was saved with another metric, seed, margin or
    /// expectation: its errors do not answer the same question.
    BaselineSettings {
        /// The baseline's name.
        baseline: String,
        /// The setting that differs.
        setting: &'static str,
        /// Its value now.
        now: String,
        /// Its value in the baseline.
        then: String,
    },
    /// The baseline was saved on another GPU, and comparing across devices
    /// was not asked for.
    BaselineDevice {
        /// The baseline's name.
        baseline: String,
        /// The adapter now.
        now: String,
        /// The adapter of the baseline.
        then: String,
    },
    /// A baseline could not be read or written.
    Baseline {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The screen after an early pass (see [`crate::screen`]) met an error
    /// on an input the sequential test had not needed: a panic of the
    /// candidate, say. The run fails, as it would have at fixed `N`.
    InScreen {
        /// The trials the early decision took.
        after: usize,
        /// The error, naming its trial.
        error: Box<RunError>,
    },
    /// A function declared, through [`crate::skip`], that this environment
    /// cannot run the test (for example: no GPU, and `DUAL_DELTA_GPU=skip`).
    Skipped {
        /// Which function.
        role: Role,
        /// Why.
        reason: String,
    },
}

impl RunError {
    /// The trial the error names, if it names one (an error in the screen,
    /// the trial of the error inside).
    pub fn trial(&self) -> Option<TrialId> {
        match self {
            RunError::Panicked { trial, .. }
            | RunError::OracleNotFinite { trial, .. }
            | RunError::LengthMismatch { trial, .. }
            | RunError::InvalidError { trial, .. }
            | RunError::BaselineMismatch { trial, .. } => Some(*trial),
            RunError::BatchLength { first, .. } => Some(*first),
            RunError::InScreen { error, .. } => error.trial(),
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
            RunError::TooFewTrials {
                test,
                n,
                min,
                alpha,
            } => write!(
                f,
                "n = {n} trials is too few for the one-sided {test} at α = {alpha}: it could never \
                 reject; use n >= {min}"
            ),
            RunError::ShortOfInputs { test, n, short } => write!(
                f,
                "the candidate's mean error is ×{:.3} the baseline's over the {n} inputs, but the \
                 loss rests on {} of them, too few for the test of the mean (or the one-sided \
                 {test}) at α = {} to ever reject however large it is: it cannot be established \
                 at this n; raise n to at least {}",
                short.ratio, short.carriers, short.level, short.n_needed,
            ),
            RunError::Panicked {
                role,
                trial,
                message,
            } => {
                write!(f, "the {role} panicked in {trial}: {message}")
            }
            RunError::BaselineMismatch {
                baseline,
                trial,
                now,
                then,
            } => write!(
                f,
                "the input generator or the oracle changed since baseline `{baseline}` was saved: \
                 {trial} has oracle fingerprint {now} now and {then} in the baseline, so the two \
                 runs would compare different inputs; save the baseline again \
                 (DUAL_DELTA_SAVE_BASELINE={baseline})"
            ),
            RunError::BaselineSettings {
                baseline,
                setting,
                now,
                then,
            } => write!(
                f,
                "baseline `{baseline}` was saved with {setting} = {then}, and this run has \
                 {setting} = {now}: a comparison needs the same {setting}; save the baseline \
                 again (DUAL_DELTA_SAVE_BASELINE={baseline}) or run with the baseline's {setting}"
            ),
            RunError::BaselineDevice {
                baseline,
                now,
                then,
            } => write!(
                f,
                "baseline `{baseline}` was saved on another device ({then}; now {now}): set \
                 DUAL_DELTA_BASELINE_ANY_DEVICE=1 to compare across devices"
            ),
            RunError::Baseline { path, message } => {
                write!(f, "baseline file {path}: {message}")
            }
            RunError::InScreen { after, error } => write!(
                f,
                "{error} [found by the screen of every input, after the sequential test had \
                 passed the run on the first {after} trials]"
            ),
            RunError::OracleNotFinite {
                trial,
                position,
                value,
            } => write!(
                f,
                "the oracle returned {value} at position {position} in {trial}; an oracle must be \
                 finite"
            ),
            RunError::LengthMismatch {
                role,
                trial,
                len,
                oracle_len,
            } => write!(
                f,
                "the {role} returned {len} values but the oracle {oracle_len}, in {trial}"
            ),
            RunError::BatchLength {
                first,
                last,
                len,
                expected,
            } => write!(
                f,
                "the batched candidate returned {len} outputs for the {expected} inputs of \
                 trials {} to {last}, one per input expected; first {first}",
                first.index
            ),
            RunError::InvalidError { role, trial, value } => write!(
                f,
                "the metric returned {value} for the {role} in {trial}; errors must be >= 0 \
                 (+inf allowed)"
            ),
            RunError::Stats(e) => write!(f, "{e}"),
            RunError::Skipped { role, reason } => write!(f, "skipped by the {role}: {reason}"),
        }
    }
}

impl std::error::Error for RunError {}

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
