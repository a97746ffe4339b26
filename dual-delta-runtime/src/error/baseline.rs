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
    /// A baseline file is there and cannot be compared with: unreadable,
    /// damaged, of another format, or of another test.
    Damaged {
        /// The file.
        path: String,
        /// What is wrong with it.
        fault: BaselineFault,
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
            BaselineError::Damaged { path, fault } => write!(f, "baseline file {path}: {fault}"),
            BaselineError::File { path, message } => write!(f, "baseline file {path}: {message}"),
        }
    }
}

impl std::error::Error for BaselineError {}

/// What is wrong with a baseline file that is there
/// ([`crate::baseline::Baseline::read`]); its sentence names no file, the
/// caller does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BaselineFault {
    /// It cannot be read (`kind`: the system's reason, `NotFound` where
    /// there is no file).
    Io {
        /// The kind of failure.
        kind: std::io::ErrorKind,
        /// The system's words.
        message: String,
    },
    /// It is cut short or empty (the parser's words).
    Truncated(String),
    /// It is not a baseline file (the parser's words).
    NotBaseline(String),
    /// It is of a format this version does not read.
    Format(u32),
    /// It is of format 2 without its trials' count and checksum.
    Unrecorded,
    /// It holds another number of trials than it records.
    Count {
        /// The trials it holds.
        holds: usize,
        /// The trials it records.
        records: usize,
    },
    /// Its trials' checksum differs from the one it records.
    Checksum {
        /// The checksum of its trials.
        now: String,
        /// The checksum it records.
        recorded: String,
    },
    /// It records another test.
    OtherTest {
        /// The test it records.
        recorded: String,
        /// The test it was read for.
        test: String,
        /// The baseline's name asked for.
        name: String,
    },
}

impl fmt::Display for BaselineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DAMAGED: &str = "edited or damaged; save it again";
        match self {
            BaselineFault::Io { message, .. } => f.write_str(message),
            BaselineFault::Truncated(e) => write!(f, "truncated or empty ({e})"),
            BaselineFault::NotBaseline(e) => write!(f, "not a baseline file ({e})"),
            BaselineFault::Format(other) => write!(
                f,
                "baseline format {other} (this version reads {} and {})",
                crate::baseline::FORMAT_WITHOUT_CHECKSUM,
                crate::baseline::FORMAT
            ),
            BaselineFault::Unrecorded => write!(
                f,
                "format {} without its trials' trial_count and checksum: {DAMAGED}",
                crate::baseline::FORMAT
            ),
            BaselineFault::Count { holds, records } => {
                write!(
                    f,
                    "holds {holds} trials where it records {records}: {DAMAGED}"
                )
            }
            BaselineFault::Checksum { now, recorded } => write!(
                f,
                "its trials' checksum is {now} where it records {recorded}: {DAMAGED}"
            ),
            BaselineFault::OtherTest {
                recorded,
                test,
                name,
            } => write!(
                f,
                "a baseline of `{recorded}`, not of `{test}`: a file copied from another test's \
                 would compare different inputs; save one for `{test}` \
                 (DUAL_DELTA_SAVE_BASELINE={name})"
            ),
        }
    }
}

impl std::error::Error for BaselineFault {}
