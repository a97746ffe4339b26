//! Run settings, and the one place where they are read at run time.
//!
//! Precedence, highest first: the environment (`DUAL_DELTA_N`,
//! `DUAL_DELTA_SEED`, `DUAL_DELTA_ALPHA`, `DUAL_DELTA_THREADS`,
//! `DUAL_DELTA_STOP_EARLY`, `DUAL_DELTA_SCREEN`), then what the test or
//! builder set,
//! then the defaults. An environment variable that is set but invalid is an
//! error naming the variable; it is never ignored.

mod ci;
mod paths;
mod settings;
#[cfg(test)]
mod tests;

use core::fmt;

pub(crate) use self::ci::{commit, step_summary_file};
pub(crate) use self::paths::baseline_dir_env;
pub use self::paths::{report_root, report_root_with};
pub use self::settings::{Baselines, Overrides, SeedSource, Settings, parse_seed};

/// Number of trials when nothing else is said.
pub(crate) const DEFAULT_N: usize = 1000;
/// Significance level when nothing else is said.
pub(crate) const DEFAULT_ALPHA: f64 = 0.01;

/// Environment variable overriding the number of trials.
pub(crate) const ENV_N: &str = "DUAL_DELTA_N";
/// Environment variable overriding the base seed (a `u64`, decimal or
/// `0x`-prefixed hexadecimal, or `random` for a fresh one that is printed).
pub(crate) const ENV_SEED: &str = "DUAL_DELTA_SEED";
/// Environment variable overriding the significance level α.
pub(crate) const ENV_ALPHA: &str = "DUAL_DELTA_ALPHA";
/// Environment variable limiting the number of threads running trials
/// (`1` runs them serially; results are identical either way).
pub(crate) const ENV_THREADS: &str = "DUAL_DELTA_THREADS";
/// Environment variable turning early stopping off (`0`, `false`) or on
/// (`1`, `true`).
pub(crate) const ENV_STOP_EARLY: &str = "DUAL_DELTA_STOP_EARLY";

/// Environment variable turning the screen after an early pass off (`0`,
/// `false`) or on (`1`, `true`).
pub(crate) const ENV_SCREEN: &str = "DUAL_DELTA_SCREEN";

/// Environment variable: the per-trial time limit in seconds (`0` turns it
/// off); see [`Settings::trial_timeout`].
pub(crate) const ENV_TRIAL_TIMEOUT: &str = "DUAL_DELTA_TRIAL_TIMEOUT";
/// The default per-trial time limit: five minutes, far beyond any trial
/// of a test meant for `cargo test`.
pub(crate) const DEFAULT_TRIAL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);
const TRIAL_TIMEOUT_EXPECTED: &str = "a number of seconds > 0, or 0 to turn the limit off";

/// Environment variable hiding (`0`, `false`) or showing (`1`, `true`)
/// the progress line, which is only ever drawn on a terminal; unset, it is
/// shown outside CI (`CI` unset or empty).
pub(crate) const ENV_PROGRESS: &str = "DUAL_DELTA_PROGRESS";
/// Environment variable naming the directory the reports go to.
pub(crate) const ENV_HOME: &str = "DUAL_DELTA_HOME";
/// The environment variable GitHub Actions sets to the job summary's file.
pub(crate) const ENV_STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

/// Environment variable: save this run's errors as the baseline of this
/// name (see [`crate::baseline`]).
pub(crate) const ENV_SAVE_BASELINE: &str = "DUAL_DELTA_SAVE_BASELINE";
/// Environment variable: compare this run with the baseline of this name.
pub(crate) const ENV_BASELINE: &str = "DUAL_DELTA_BASELINE";
/// Environment variable: the directory of the baselines.
pub(crate) const ENV_BASELINE_DIR: &str = "DUAL_DELTA_BASELINE_DIR";
/// Environment variable: `1`/`true` compares with a baseline saved on
/// another device.
pub(crate) const ENV_BASELINE_ANY_DEVICE: &str = "DUAL_DELTA_BASELINE_ANY_DEVICE";

/// How many times larger than the reference error a candidate's error must
/// be to count as a gross error (see [`Settings::gross_factor`]).
pub(crate) const DEFAULT_GROSS_FACTOR: f64 = 100.0;

/// A setting that could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The environment variable or setting at fault.
    pub source: String,
    /// The value given.
    pub value: String,
    /// What a valid value looks like.
    pub expected: &'static str,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {}={:?}: expected {}",
            self.source, self.value, self.expected
        )
    }
}

impl std::error::Error for ConfigError {}

/// The process environment: every variable the runtime reads is read
/// through here (by [`Settings::resolve`] and the functions below).
pub(crate) fn env_var(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

fn invalid(source: &str, value: &str, expected: &'static str) -> ConfigError {
    ConfigError {
        source: source.to_owned(),
        value: value.to_owned(),
        expected,
    }
}
