//! Run settings, and the one place where they are read at run time.
//!
//! Precedence, highest first: the environment (`DUAL_DELTA_N`,
//! `DUAL_DELTA_SEED`, `DUAL_DELTA_ALPHA`, `DUAL_DELTA_THREADS`,
//! `DUAL_DELTA_STOP_EARLY`, `DUAL_DELTA_SCREEN`), then what the test or
//! builder set,
//! then the defaults. An environment variable that is set but invalid is an
//! error naming the variable; it is never ignored.

use core::fmt;
use std::path::{Path, PathBuf};

use crate::expect::Expect;
use crate::metric::Metric;
use crate::verdict::AccuracyTest;

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

/// The settings a test or builder gives; `None` leaves the default.
///
/// This is what `#[dual_delta_test]` fills from its attribute.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// Number of trials.
    pub n: Option<usize>,
    /// Base seed.
    pub seed: Option<u64>,
    /// Significance level.
    pub alpha: Option<f64>,
    /// Error metric.
    pub metric: Option<Metric>,
    /// The accuracy expectation that decides pass or fail.
    pub expect: Option<Expect>,
    /// The paired test deciding accuracy.
    pub test: Option<AccuracyTest>,
    /// Non-inferiority margin δ ≥ 0.
    pub margin: Option<f64>,
    /// The stability expectation, if any.
    pub stability: Option<Expect>,
    /// Threads for trials (`Some(1)` for implementations that must not run
    /// concurrently).
    pub threads: Option<usize>,
    /// Accept non-finite candidate outputs (see
    /// [`Settings::allow_non_finite`]).
    pub allow_non_finite: Option<bool>,
    /// Stop as soon as the sequential verdict is known (see
    /// [`Settings::stop_early`]).
    pub stop_early: Option<bool>,
    /// Screen every remaining input before an early pass is final (see
    /// [`Settings::screen`]).
    pub screen: Option<bool>,
    /// The factor of the gross-error gate (see [`Settings::gross_factor`]).
    pub gross_factor: Option<f64>,
    /// The per-trial time limit (see [`Settings::trial_timeout`]).
    pub trial_timeout: Option<std::time::Duration>,
    /// Baselines to save and compare with (see [`Settings::baselines`]);
    /// each `DUAL_DELTA_*BASELINE*` variable that is set overrides its
    /// field.
    pub baselines: Option<Baselines>,
}

/// Fully resolved settings of one run. Invariants: `n ≥ 1`,
/// `0 < alpha < 1`, `margin ≥ 0` and finite, `threads ≥ 1` when set.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Number of trials.
    pub n: usize,
    /// Base seed; trial `i` uses [`crate::trial_seed`]`(seed, i)`.
    pub seed: u64,
    /// Where the seed came from, for the report.
    pub seed_source: SeedSource,
    /// Significance level α.
    pub alpha: f64,
    /// Error metric.
    pub metric: Metric,
    /// Accuracy expectation.
    pub expect: Expect,
    /// Paired test for accuracy.
    pub test: AccuracyTest,
    /// The non-inferiority margin δ ≥ 0 (default
    /// [`DEFAULT_MARGIN`](crate::stats::sequential::DEFAULT_MARGIN), 5 %):
    /// the candidate counts as less accurate only when its errors are shown
    /// to exceed `(1 + δ)` × the baseline's. The same margin serves the
    /// early decision (both sides) and the fixed-N test, so `stop_early` on
    /// or off answers the same question.
    pub margin: f64,
    /// Stability expectation, if any.
    pub stability: Option<Expect>,
    /// Thread limit (`None`: all cores).
    pub threads: Option<usize>,
    /// Whether a candidate may return a NaN or an infinity where the
    /// baseline and the oracle are finite (default `false`: such a trial
    /// fails the run, whatever the expectation; with `expect = worse` it
    /// counts as the candidate being worse).
    pub allow_non_finite: bool,
    /// Whether the run stops as soon as the anytime-valid sequential test
    /// decides (default `true`); `n` is then the most trials a run takes.
    /// Off, every run takes `n` trials and the fixed-N test decides at α.
    pub stop_early: bool,
    /// Whether an early pass waits for the screen (default `true`): the
    /// candidate and the baseline run on every input the sequential test
    /// did not need, and the oracle on each input where the candidate
    /// returns a non-finite value, panics, or lands far from the baseline,
    /// so that rare NaN, panics and gross errors fail the run as they would
    /// at fixed N (see [`crate::screen`]). Off, an early pass is final and
    /// the report says that rare events were not checked.
    pub screen: bool,
    /// Whether the progress line may be drawn (`DUAL_DELTA_PROGRESS`, else
    /// outside CI); it is drawn only on a terminal.
    pub progress: bool,
    /// The baselines this run saves and compares with
    /// (`DUAL_DELTA_SAVE_BASELINE`, `DUAL_DELTA_BASELINE`, see
    /// [`crate::baseline`]).
    pub baselines: Baselines,
    /// The gross-error gate's factor `G` (default 100; `+inf` turns the
    /// gate off): a trial
    /// on which the candidate's error exceeds `G` × the larger of the
    /// baseline's error on that input and the median reference error fails
    /// the run, as a non-finite output does (see [`crate::screen`]).
    pub gross_factor: f64,
    /// The per-trial time limit (`DUAL_DELTA_TRIAL_TIMEOUT` in seconds,
    /// default 300 s; `None` when turned off with `0`): a call of the
    /// candidate, the baseline, the oracle or the generator that runs
    /// longer ends the process with a message naming the trial, its seed
    /// and the command that replays it, so that CI does not hang without a
    /// word. A hung call cannot be interrupted in-process, hence the exit.
    pub trial_timeout: Option<std::time::Duration>,
}

/// What a run does with baselines: read from the environment only (a test
/// never hard-codes one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baselines {
    /// Save this run as the baseline of this name.
    pub save: Option<String>,
    /// Compare this run with the baseline of this name.
    pub compare: Option<String>,
    /// The directory of the baselines (`DUAL_DELTA_BASELINE_DIR`), or
    /// `None` for `baselines/` under the report directory.
    pub dir: Option<std::path::PathBuf>,
    /// Compare with a baseline saved on another device.
    pub any_device: bool,
}

/// Where a run's base seed came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedSource {
    /// The default: derived from the test's name, so fixed per test.
    Default,
    /// Set by the test's attribute or the builder.
    Explicit,
    /// Set by `DUAL_DELTA_SEED`.
    Environment,
    /// Drawn fresh because `DUAL_DELTA_SEED=random`.
    Random,
}

impl SeedSource {
    /// Where the seed came from, in words: `derived from the test's name`,
    /// `set by the test`, `from DUAL_DELTA_SEED`, `drawn at random`.
    pub fn describe(self) -> &'static str {
        match self {
            SeedSource::Default => "derived from the test's name",
            SeedSource::Explicit => "set by the test",
            SeedSource::Environment => "from DUAL_DELTA_SEED",
            SeedSource::Random => "drawn at random (DUAL_DELTA_SEED=random)",
        }
    }
}

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

const N_EXPECTED: &str = "a whole number of trials, at least 1";
const SEED_EXPECTED: &str = "an unsigned 64-bit integer (decimal or 0x-hex), or `random`";
const ALPHA_EXPECTED: &str = "a number strictly between 0 and 1";
const MARGIN_EXPECTED: &str = "a finite number >= 0";
const THREADS_EXPECTED: &str = "a whole number of threads, at least 1";
const STOP_EARLY_EXPECTED: &str =
    "`1` or `true` (stop as soon as decided), `0` or `false` (run all n trials)";
const SCREEN_EXPECTED: &str = "`1` or `true` (screen every input before an early pass), `0` or `false` (an early pass is final)";
const PROGRESS_EXPECTED: &str = "`1` or `true` (show the progress line), `0` or `false` (hide it)";
const HOME_EXPECTED: &str = "a directory for the reports (unset it for the default)";
const BASELINE_DIR_EXPECTED: &str = "a directory for the baselines (unset it for the default)";
const BASELINE_EXPECTED: &str =
    "a baseline name of letters, digits, `.`, `_` and `-`, such as `main`";
const ANY_DEVICE_EXPECTED: &str =
    "`1` or `true` (compare across devices), `0` or `false` (only on the same device)";
const GROSS_FACTOR_EXPECTED: &str = "a number > 1, or inf to turn the gross-error gate off";

impl Settings {
    /// Resolves settings from the process environment over `overrides` over
    /// the defaults. `name` seeds the default base seed.
    pub fn resolve(name: &str, overrides: &Overrides) -> Result<Settings, ConfigError> {
        Self::resolve_with(name, overrides, env_var)
    }

    /// [`Settings::resolve`] with an explicit environment lookup (for tests).
    pub fn resolve_with(
        name: &str,
        overrides: &Overrides,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        let n = match env(ENV_N) {
            Some(v) => parse_n(ENV_N, &v)?,
            None => overrides.n.unwrap_or(DEFAULT_N),
        };
        if n == 0 {
            return Err(invalid("n", "0", N_EXPECTED));
        }

        let (seed, seed_source) = match env(ENV_SEED) {
            Some(v) if v.trim() == "random" => (rand::random::<u64>(), SeedSource::Random),
            Some(v) => (
                parse_seed(&v).ok_or_else(|| invalid(ENV_SEED, &v, SEED_EXPECTED))?,
                SeedSource::Environment,
            ),
            None => match overrides.seed {
                Some(s) => (s, SeedSource::Explicit),
                None => (crate::rng::seed_from_name(name), SeedSource::Default),
            },
        };

        let alpha = match env(ENV_ALPHA) {
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|a| valid_alpha(*a))
                .ok_or_else(|| invalid(ENV_ALPHA, &v, ALPHA_EXPECTED))?,
            None => overrides.alpha.unwrap_or(DEFAULT_ALPHA),
        };
        if !valid_alpha(alpha) {
            return Err(invalid("alpha", &alpha.to_string(), ALPHA_EXPECTED));
        }

        let margin = overrides
            .margin
            .unwrap_or(crate::stats::sequential::DEFAULT_MARGIN);
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(invalid("margin", &margin.to_string(), MARGIN_EXPECTED));
        }

        let threads = match env(ENV_THREADS) {
            Some(v) => Some(
                v.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&t| t >= 1)
                    .ok_or_else(|| invalid(ENV_THREADS, &v, THREADS_EXPECTED))?,
            ),
            None => overrides.threads,
        };
        if threads == Some(0) {
            return Err(invalid("threads", "0", THREADS_EXPECTED));
        }

        let stop_early = match env(ENV_STOP_EARLY) {
            Some(v) => parse_bool(ENV_STOP_EARLY, &v, STOP_EARLY_EXPECTED)?,
            None => overrides.stop_early.unwrap_or(true),
        };
        let screen = match env(ENV_SCREEN) {
            Some(v) => parse_bool(ENV_SCREEN, &v, SCREEN_EXPECTED)?,
            None => overrides.screen.unwrap_or(true),
        };
        let progress = match env(ENV_PROGRESS) {
            Some(v) => parse_bool(ENV_PROGRESS, &v, PROGRESS_EXPECTED)?,
            None => env("CI").is_none_or(|v| v.is_empty()),
        };
        let baseline_name = |key: &str| match env(key) {
            Some(v) if valid_baseline_name(v.trim()) => Ok(Some(v.trim().to_owned())),
            Some(v) => Err(invalid(key, &v, BASELINE_EXPECTED)),
            None => Ok(None),
        };
        let given = overrides.baselines.clone().unwrap_or_default();
        for name in [&given.save, &given.compare].into_iter().flatten() {
            if !valid_baseline_name(name) {
                return Err(invalid("baseline", name, BASELINE_EXPECTED));
            }
        }
        let baselines = Baselines {
            save: baseline_name(ENV_SAVE_BASELINE)?.or(given.save),
            compare: baseline_name(ENV_BASELINE)?.or(given.compare),
            dir: baseline_dir_env(&env)?.or(given.dir),
            any_device: match env(ENV_BASELINE_ANY_DEVICE) {
                Some(v) => parse_bool(ENV_BASELINE_ANY_DEVICE, &v, ANY_DEVICE_EXPECTED)?,
                None => given.any_device,
            },
        };
        let gross_factor = overrides.gross_factor.unwrap_or(DEFAULT_GROSS_FACTOR);
        if gross_factor.is_nan() || gross_factor <= 1.0 {
            return Err(invalid(
                "gross_factor",
                &gross_factor.to_string(),
                GROSS_FACTOR_EXPECTED,
            ));
        }

        let trial_timeout = match env(ENV_TRIAL_TIMEOUT) {
            Some(v) => {
                let secs = v
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| invalid(ENV_TRIAL_TIMEOUT, &v, TRIAL_TIMEOUT_EXPECTED))?;
                (secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
            }
            None => match overrides.trial_timeout {
                Some(d) if d.is_zero() => None,
                Some(d) => Some(d),
                None => Some(DEFAULT_TRIAL_TIMEOUT),
            },
        };

        Ok(Settings {
            n,
            seed,
            seed_source,
            alpha,
            metric: overrides.metric.clone().unwrap_or_default(),
            expect: overrides.expect.unwrap_or_default(),
            test: overrides.test.unwrap_or_default(),
            margin,
            stability: overrides.stability,
            threads,
            allow_non_finite: overrides.allow_non_finite.unwrap_or(false),
            stop_early,
            screen,
            progress,
            baselines,
            gross_factor,
            trial_timeout,
        })
    }
}

/// The process environment: every variable the runtime reads is read
/// through here (by [`Settings::resolve`] and the functions below).
pub(crate) fn env_var(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// `DUAL_DELTA_HOME`: the reports' directory, or `None` when unset.
///
/// # Errors
///
/// When it is set but empty or blank: an error naming the variable.
pub(crate) fn report_home(
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<std::path::PathBuf>, ConfigError> {
    match env(ENV_HOME) {
        Some(v) if v.trim().is_empty() => Err(invalid(ENV_HOME, &v, HOME_EXPECTED)),
        Some(v) => Ok(Some(v.into())),
        None => Ok(None),
    }
}

/// The directory holding the reports.
///
/// The rule, first match wins:
///
/// 1. `DUAL_DELTA_HOME`, if set and not empty, as given.
/// 2. `$CARGO_TARGET_DIR/dual-delta`, if `CARGO_TARGET_DIR` is set and not
///    empty. A relative `CARGO_TARGET_DIR` is taken relative to the
///    workspace root found as in 3 (where Cargo is usually run).
/// 3. `<workspace>/target/dual-delta`, where `<workspace>` is found by
///    walking up from `CARGO_MANIFEST_DIR` (set by Cargo when it runs tests,
///    benchmarks and `cargo run`) or else from the current directory: the
///    nearest directory holding a `Cargo.lock`, else the nearest holding a
///    `target` directory, else the starting directory itself.
///
/// So `cargo test` in any member of a workspace writes into the workspace's
/// `target/dual-delta/`, next to Cargo's own output.
///
/// # Errors
///
/// When `DUAL_DELTA_HOME` is set but blank.
pub fn report_root() -> Result<PathBuf, ConfigError> {
    let start = env_var("CARGO_MANIFEST_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    report_root_with(env_var, &start)
}

/// [`report_root`] with an explicit environment lookup and starting
/// directory (for tests).
///
/// # Errors
///
/// When `DUAL_DELTA_HOME` is set but blank.
pub fn report_root_with(
    env: impl Fn(&str) -> Option<String>,
    start: &Path,
) -> Result<PathBuf, ConfigError> {
    if let Some(home) = report_home(&env)? {
        return Ok(home);
    }
    let set = |key: &str| env(key).filter(|v| !v.trim().is_empty());
    if let Some(target) = set("CARGO_TARGET_DIR") {
        let target = PathBuf::from(target);
        let target = if target.is_absolute() {
            target
        } else {
            workspace_root(start).join(target)
        };
        return Ok(target.join("dual-delta"));
    }
    Ok(workspace_root(start).join("target").join("dual-delta"))
}

/// The nearest ancestor of `start` (itself included) holding a `Cargo.lock`,
/// else the nearest holding a `target` directory, else `start`.
fn workspace_root(start: &Path) -> PathBuf {
    if let Some(dir) = start.ancestors().find(|d| d.join("Cargo.lock").is_file()) {
        return dir.to_path_buf();
    }
    if let Some(dir) = start.ancestors().find(|d| d.join("target").is_dir()) {
        return dir.to_path_buf();
    }
    start.to_path_buf()
}

/// `DUAL_DELTA_BASELINE_DIR`: the directory of the baselines, or `None`
/// when unset.
///
/// # Errors
///
/// When it is set but blank: an error naming the variable.
pub(crate) fn baseline_dir_env(
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<PathBuf>, ConfigError> {
    match env(ENV_BASELINE_DIR) {
        Some(v) if v.trim().is_empty() => Err(invalid(ENV_BASELINE_DIR, &v, BASELINE_DIR_EXPECTED)),
        v => Ok(v.map(Into::into)),
    }
}

/// `GITHUB_STEP_SUMMARY`: the job summary's file, when set and not empty.
pub(crate) fn step_summary_file() -> Option<std::path::PathBuf> {
    env_var(ENV_STEP_SUMMARY)
        .filter(|v| !v.is_empty())
        .map(Into::into)
}

/// A baseline name: a file name of letters, digits, `.`, `_` and `-`, not
/// starting with `.`.
fn valid_baseline_name(v: &str) -> bool {
    !v.is_empty()
        && !v.starts_with('.')
        && v.len() <= 100
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The commit being tested: `GITHUB_SHA`, else `git rev-parse HEAD` in the
/// current directory, else `None`.
pub(crate) fn commit() -> Option<String> {
    env_var("GITHUB_SHA")
        .filter(|v| !v.trim().is_empty())
        .or_else(|| {
            let out = std::process::Command::new("git")
                .args(["rev-parse", "HEAD"])
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            let sha = String::from_utf8(out.stdout).ok()?.trim().to_owned();
            (out.status.success() && !sha.is_empty()).then_some(sha)
        })
}

/// `1`/`true` or `0`/`false`.
fn parse_bool(key: &str, v: &str, expected: &'static str) -> Result<bool, ConfigError> {
    match v.trim() {
        "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        _ => Err(invalid(key, v, expected)),
    }
}

fn valid_alpha(a: f64) -> bool {
    a > 0.0 && a < 1.0
}

fn parse_n(key: &str, v: &str) -> Result<usize, ConfigError> {
    v.trim()
        .replace('_', "")
        .parse::<usize>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| invalid(key, v, N_EXPECTED))
}

/// Parses a seed as printed by reports: decimal or `0x`-prefixed hex.
pub fn parse_seed(v: &str) -> Option<u64> {
    let v = v.trim().replace('_', "");
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

fn invalid(source: &str, value: &str, expected: &'static str) -> ConfigError {
    ConfigError {
        source: source.to_owned(),
        value: value.to_owned(),
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn env_over_attribute_over_default() {
        let attr = Overrides {
            n: Some(200),
            alpha: Some(0.05),
            seed: Some(9),
            ..Overrides::default()
        };
        let s = Settings::resolve_with("t", &attr, env(&[])).unwrap();
        assert_eq!((s.n, s.alpha, s.seed), (200, 0.05, 9));
        assert_eq!(s.seed_source, SeedSource::Explicit);

        let s = Settings::resolve_with(
            "t",
            &attr,
            env(&[(ENV_N, "50"), (ENV_ALPHA, "0.001"), (ENV_SEED, "0x10")]),
        )
        .unwrap();
        assert_eq!((s.n, s.alpha, s.seed), (50, 0.001, 16));
        assert_eq!(s.seed_source, SeedSource::Environment);

        let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
        assert_eq!((s.n, s.alpha), (DEFAULT_N, DEFAULT_ALPHA));
        assert_eq!(s.seed, crate::rng::seed_from_name("t"));
        assert_eq!(s.seed_source, SeedSource::Default);
    }

    #[test]
    fn invalid_env_names_the_variable() {
        for (k, v) in [
            (ENV_N, "0"),
            (ENV_N, "ten"),
            (ENV_ALPHA, "1.5"),
            (ENV_ALPHA, "nan"),
            (ENV_SEED, "-3"),
            (ENV_THREADS, "0"),
            (ENV_STOP_EARLY, "sometimes"),
            (ENV_SCREEN, "maybe"),
            (ENV_PROGRESS, "junk"),
            (ENV_SAVE_BASELINE, "../main"),
            (ENV_BASELINE, ""),
            (ENV_BASELINE_DIR, " "),
            (ENV_BASELINE_ANY_DEVICE, "perhaps"),
        ] {
            let e = Settings::resolve_with("t", &Overrides::default(), env(&[(k, v)])).unwrap_err();
            assert_eq!(e.source, k);
            assert!(e.to_string().contains(k), "{e}");
        }
    }

    #[test]
    fn invalid_overrides_are_errors() {
        let bad = [
            Overrides {
                n: Some(0),
                ..Overrides::default()
            },
            Overrides {
                alpha: Some(0.0),
                ..Overrides::default()
            },
            Overrides {
                margin: Some(-0.1),
                ..Overrides::default()
            },
            Overrides {
                threads: Some(0),
                ..Overrides::default()
            },
        ];
        for o in bad {
            assert!(Settings::resolve_with("t", &o, env(&[])).is_err(), "{o:?}");
        }
    }

    #[test]
    fn early_stopping_and_the_screen_are_on_unless_turned_off_and_one_margin_serves_both() {
        let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
        assert!(s.stop_early && s.screen);
        assert_eq!(s.margin, crate::stats::sequential::DEFAULT_MARGIN);
        assert_eq!(s.gross_factor, DEFAULT_GROSS_FACTOR);
        let off = Overrides {
            stop_early: Some(false),
            screen: Some(false),
            margin: Some(0.2),
            ..Overrides::default()
        };
        let s = Settings::resolve_with("t", &off, env(&[])).unwrap();
        assert!(!s.stop_early && !s.screen);
        assert_eq!(s.margin, 0.2);
        let s = Settings::resolve_with(
            "t",
            &off,
            env(&[(ENV_STOP_EARLY, "1"), (ENV_SCREEN, "true")]),
        )
        .unwrap();
        assert!(s.stop_early && s.screen);
        let s = Settings::resolve_with("t", &Overrides::default(), env(&[(ENV_STOP_EARLY, "0")]))
            .unwrap();
        assert!(!s.stop_early);
        for factor in [1.0, 0.5, f64::NAN] {
            let bad = Overrides {
                gross_factor: Some(factor),
                ..Overrides::default()
            };
            assert!(Settings::resolve_with("t", &bad, env(&[])).is_err());
        }
        let no_gate = Overrides {
            gross_factor: Some(f64::INFINITY),
            ..Overrides::default()
        };
        assert!(Settings::resolve_with("t", &no_gate, env(&[])).is_ok());
    }

    #[test]
    fn progress_is_shown_outside_ci_unless_turned_off_and_home_must_name_a_directory() {
        let p = |pairs: &[(&str, &str)]| {
            Settings::resolve_with("t", &Overrides::default(), env(pairs))
                .unwrap()
                .progress
        };
        assert!(p(&[]));
        assert!(!p(&[("CI", "true")]));
        assert!(p(&[("CI", "")]));
        assert!(!p(&[(ENV_PROGRESS, "0")]));
        assert!(p(&[(ENV_PROGRESS, "1"), ("CI", "true")]));
        assert_eq!(report_home(env(&[])), Ok(None));
        assert_eq!(report_home(env(&[(ENV_HOME, "/r")])), Ok(Some("/r".into())));
        let e = report_home(env(&[(ENV_HOME, " ")])).unwrap_err();
        assert_eq!(e.source, ENV_HOME);
    }

    #[test]
    fn random_seed_is_recorded_as_random() {
        let s = Settings::resolve_with("t", &Overrides::default(), env(&[(ENV_SEED, "random")]))
            .unwrap();
        assert_eq!(s.seed_source, SeedSource::Random);
    }
}
