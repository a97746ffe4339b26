//! The settings of a run and their resolution: the environment over the
//! attribute or builder over the defaults.

use super::*;
use crate::expect::Expect;
use crate::metric::Metric;
use crate::verdict::AccuracyTest;

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

const N_EXPECTED: &str = "a whole number of trials, at least 1";
const SEED_EXPECTED: &str = "an unsigned 64-bit integer (decimal or 0x-hex), or `random`";
const ALPHA_EXPECTED: &str = "a number strictly between 0 and 1";
const MARGIN_EXPECTED: &str = "a finite number >= 0";
const THREADS_EXPECTED: &str = "a whole number of threads, at least 1";
const STOP_EARLY_EXPECTED: &str =
    "`1` or `true` (stop as soon as decided), `0` or `false` (run all n trials)";
const SCREEN_EXPECTED: &str = "`1` or `true` (a pass covers every input), `0` or `false` (the quick mode: an early pass is final)";
const PROGRESS_EXPECTED: &str = "`1` or `true` (show the progress line), `0` or `false` (hide it)";
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

/// A baseline name: a file name of letters, digits, `.`, `_` and `-`, not
/// starting with `.`.
fn valid_baseline_name(v: &str) -> bool {
    !v.is_empty()
        && !v.starts_with('.')
        && v.len() <= 100
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
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
