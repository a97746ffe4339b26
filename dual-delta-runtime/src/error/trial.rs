//! A trial's fault: which function failed, on which trial (its seed, and
//! the run's), and how.

use core::fmt;

use super::{Role, TrialId};

/// A function that failed on a trial.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TrialFault {
    /// The function at fault.
    pub role: Role,
    /// The trial (for a batch, its first).
    pub trial: TrialId,
    /// How it failed.
    pub kind: Fault,
}

/// How a function failed on a trial.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// It panicked.
    Panicked {
        /// The panic message.
        message: String,
    },
    /// The oracle returned a NaN or an infinity: no error can be measured
    /// against it.
    OracleNotFinite {
        /// Position in the oracle's output.
        position: usize,
        /// The value.
        value: f64,
    },
    /// Its output's length differs from the oracle's.
    Length {
        /// Its output length.
        len: usize,
        /// The oracle's output length.
        oracle_len: usize,
    },
    /// A batched candidate returned another number of outputs than it
    /// received inputs.
    Batch {
        /// The index of the batch's last trial.
        last: usize,
        /// The number of outputs returned.
        len: usize,
        /// The number of inputs given.
        expected: usize,
    },
    /// A custom metric returned NaN or a negative error for its output.
    InvalidError {
        /// The value returned.
        value: f64,
    },
}

impl TrialFault {
    /// `role` failed on `trial` as `kind` says.
    pub(crate) fn new(role: Role, trial: TrialId, kind: Fault) -> TrialFault {
        TrialFault { role, trial, kind }
    }
}

impl fmt::Display for TrialFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (role, trial) = (self.role, self.trial);
        match &self.kind {
            Fault::Panicked { message } => write!(f, "the {role} panicked in {trial}: {message}"),
            Fault::OracleNotFinite { position, value } => write!(
                f,
                "the oracle returned {value} at position {position} in {trial}; an oracle must be \
                 finite"
            ),
            Fault::Length { len, oracle_len } => write!(
                f,
                "the {role} returned {} but the oracle {oracle_len}, in {trial}",
                values(*len)
            ),
            Fault::Batch {
                last,
                len,
                expected,
            } => write!(
                f,
                "the batched candidate returned {len} outputs for the {expected} inputs of \
                 trials {} to {last}, one per input expected; first {trial}",
                trial.index
            ),
            Fault::InvalidError { value } => write!(
                f,
                "the metric returned {value} for the {role} in {trial}; errors must be >= 0 \
                 (+inf allowed)"
            ),
        }
    }
}

impl std::error::Error for TrialFault {}

/// `1 value`, `0 values`, `7 values`.
pub(crate) fn values(n: usize) -> String {
    if n == 1 {
        "1 value".to_owned()
    } else {
        format!("{n} values")
    }
}
