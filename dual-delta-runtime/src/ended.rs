//! How a test ended: the one event every reporter consumes
//! ([`crate::report::Reporter`], [`crate::report::publish`]). A run with
//! its outcome, a skip, or a run that could not finish: each an ending,
//! none of them an error to be matched back out.

use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::outcome::Outcome;

/// How a test ended.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Ended {
    /// A run that finished, with its outcome (decided, its check
    /// included).
    Ran(Box<Outcome>),
    /// A test that its candidate, baseline, oracle or generator skipped
    /// (`dual_delta_runtime::error::skip`): counted, never hidden.
    Skipped(Skipped),
    /// A run that could not finish: a failure of the test.
    Stopped(Stopped),
}

/// A test that did not run: what it leaves as `skipped.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skipped {
    /// The test's path.
    pub test: String,
    /// The function that skipped it (`candidate`, ...).
    pub role: String,
    /// Why.
    pub reason: String,
    /// When, in Unix milliseconds.
    pub timestamp_ms: u64,
}

/// A run that could not finish (an error before or during the trials, a
/// panic, a call past its time limit): what it leaves as `stopped.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Stopped {
    /// The test's path.
    pub test: String,
    /// Why, as the test's failure message says it.
    pub reason: String,
    /// The command that replays the run.
    pub replay: String,
    /// Where the test is (`file:line`), where it is known.
    #[serde(default)]
    pub place: Option<String>,
    /// When, in Unix milliseconds.
    pub timestamp_ms: u64,
}

impl Ended {
    /// The ending of the run of test `test` that returned `result` (its
    /// base seed from `seed`, where its settings resolve): its outcome, a skip, or
    /// a stop with the command that replays it.
    pub(crate) fn of(
        test: &str,
        seed: impl FnOnce() -> Option<u64>,
        result: Result<Outcome, RunError>,
    ) -> Ended {
        match result {
            Ok(o) => Ended::Ran(Box::new(o)),
            Err(RunError::Skipped(skip)) => Ended::Skipped(Skipped {
                test: test.to_owned(),
                role: skip.role.to_string(),
                reason: skip.reason,
                timestamp_ms: now_ms(),
            }),
            Err(e) => {
                // The seed the run used: from the trial the error names,
                // else the settings', else the one the name derives.
                let seed = e
                    .trial()
                    .map(|t| t.base_seed)
                    .or_else(seed)
                    .unwrap_or_else(|| crate::rng::seed_from_name(test));
                Ended::stopped(test, &e.to_string(), &crate::replay::command(test, seed))
            }
        }
    }

    /// A run of `test` that could not finish, for `reason`, replayed by
    /// `replay`.
    pub fn stopped(test: &str, reason: &str, replay: &str) -> Ended {
        Ended::Stopped(Stopped {
            test: test.to_owned(),
            reason: reason.to_owned(),
            replay: replay.to_owned(),
            place: None,
            timestamp_ms: now_ms(),
        })
    }

    /// A test `test` skipped by `role` for `reason`.
    pub fn skipped(test: &str, role: &str, reason: &str) -> Ended {
        Ended::Skipped(Skipped {
            test: test.to_owned(),
            role: role.to_owned(),
            reason: reason.to_owned(),
            timestamp_ms: now_ms(),
        })
    }

    /// The test's path.
    pub fn test(&self) -> &str {
        match self {
            Ended::Ran(o) => &o.names().test,
            Ended::Skipped(s) => &s.test,
            Ended::Stopped(s) => &s.test,
        }
    }

    /// Whether the test passes: a run that met its expectations, or a skip.
    pub fn passed(&self) -> bool {
        match self {
            Ended::Ran(o) => o.passed(),
            Ended::Skipped(_) => true,
            Ended::Stopped(_) => false,
        }
    }

    /// The run's outcome, for a run that finished.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            Ended::Ran(o) => Some(o),
            _ => None,
        }
    }
}

/// Now, in Unix milliseconds.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
