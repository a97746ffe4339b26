//! The baseline store's errors: a saved baseline that cannot be compared
//! with, read or written.

use core::fmt;

use super::TrialId;

/// Why a saved baseline cannot be compared with, read or written.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BaselineError {
    /// A trial's input or oracle output differs from the baseline's for
    /// the same seed: the input generator or the oracle changed since it
    /// was saved, so the comparison would pair different inputs.
    Mismatch {
        /// The baseline's name.
        baseline: String,
        /// The first trial that differs.
        trial: TrialId,
        /// Its fingerprint now.
        now: String,
        /// Its fingerprint in the baseline.
        then: String,
    },
    /// The baseline was saved with another metric, seed, `n`, α, margin or
    /// expectation: its errors do not answer the same question.
    Settings {
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
    Device {
        /// The baseline's name.
        baseline: String,
        /// The adapter now.
        now: String,
        /// The adapter of the baseline.
        then: String,
    },
    /// A baseline file could not be read or written.
    File {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Mismatch {
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
            BaselineError::Settings {
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
            BaselineError::Device {
                baseline,
                now,
                then,
            } => write!(
                f,
                "baseline `{baseline}` was saved on another device ({then}; now {now}): set \
                 DUAL_DELTA_BASELINE_ANY_DEVICE=1 to compare across devices"
            ),
            BaselineError::File { path, message } => write!(f, "baseline file {path}: {message}"),
        }
    }
}

impl std::error::Error for BaselineError {}
