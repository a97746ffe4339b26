//! Run settings, and the one place where they are read at run time.
//!
//! Every setting is a row of one table, [`SETTINGS`] (from the
//! `dual-delta-settings` crate, which the attribute reads as well): its
//! key, its environment variable, its builder method, its default and its
//! rule. Precedence, highest first: the environment, then what the test or
//! builder set, then the defaults. A value that is set but invalid is an
//! error naming its source; it is never ignored. The guide's
//! configuration chapter is this table in words ([`crate::guide`]).

mod ci;
mod paths;
mod settings;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use self::ci::{commit, step_summary_file};
pub(crate) use self::paths::baseline_dir_env;
pub use self::paths::{report_root, report_root_with};
pub use self::settings::{Baselines, Overrides, Process, SeedSource, Settings};
pub use dual_delta_settings::{Kind, SETTINGS, Setting, parse_seed};

/// Environment variable overriding the base seed (a `u64`, decimal or
/// `0x`-prefixed hexadecimal, or `random` for a fresh one that is printed).
pub(crate) const ENV_SEED: &str = "DUAL_DELTA_SEED";

/// The default per-trial time limit: five minutes, far beyond any trial
/// of a test meant for `cargo test`.
pub(crate) const DEFAULT_TRIAL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Environment variable naming the directory the reports go to.
pub(crate) const ENV_HOME: &str = "DUAL_DELTA_HOME";
/// The environment variable GitHub Actions sets to the job summary's file.
pub(crate) const ENV_STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

/// How many times larger than the reference error a candidate's error must
/// be to count as a gross error (see [`Settings::gross_factor`]).
pub(crate) const DEFAULT_GROSS_FACTOR: f64 = 100.0;

/// A setting that could not be used: the same message from the attribute,
/// the builder and the environment (`invalid NAME="VALUE": expected ...`).
pub use dual_delta_settings::Invalid as ConfigError;

/// The process environment: every variable the runtime reads is read
/// through here (by [`Settings::resolve`] and the functions below).
pub(crate) fn env_var(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

pub(crate) fn invalid(source: &str, value: &str, expected: &'static str) -> ConfigError {
    ConfigError {
        source: source.to_owned(),
        value: value.to_owned(),
        expected,
    }
}
