//! The settings of a run and their resolution: the environment over the
//! attribute or builder over the defaults.

use dual_delta_settings::{Value, setting};

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
///
/// Serialised (in `summary.json`'s `settings`), it holds the settings the
/// table ([`crate::SETTINGS`]) marks `recorded` and the seed's source:
/// floats as [`crate::report::summary`] writes them, the metric by its
/// name, `trial_timeout` in seconds; `progress` and `baselines` are the
/// process's, not the run's, and are not written.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// Number of trials.
    pub n: usize,
    /// Base seed; trial `i` uses [`crate::trial_seed`]`(seed, i)`.
    pub seed: u64,
    /// Where the seed came from, for the report.
    pub seed_source: SeedSource,
    /// Significance level α.
    #[serde(with = "crate::json_number")]
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
    #[serde(with = "crate::json_number")]
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
    #[serde(skip)]
    pub progress: bool,
    /// The baselines this run saves and compares with
    /// (`DUAL_DELTA_SAVE_BASELINE`, `DUAL_DELTA_BASELINE`, see
    /// [`crate::baseline`]).
    #[serde(skip)]
    pub baselines: Baselines,
    /// The gross-error gate's factor `G` (default 100; `+inf` turns the
    /// gate off): a trial
    /// on which the candidate's error exceeds `G` × the larger of the
    /// baseline's error on that input and the median reference error fails
    /// the run, as a non-finite output does (see [`crate::screen`]).
    #[serde(with = "crate::json_number")]
    pub gross_factor: f64,
    /// The per-trial time limit (`DUAL_DELTA_TRIAL_TIMEOUT` in seconds,
    /// default 300 s; `None` when turned off with `0`): a call of the
    /// candidate, the baseline, the oracle or the generator that runs
    /// longer ends the process with a message naming the trial, its seed
    /// and the command that replays it, so that CI does not hang without a
    /// word. A hung call cannot be interrupted in-process, hence the exit.
    #[serde(with = "crate::json_number::seconds")]
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

impl Settings {
    /// Resolves settings from the process environment over `overrides` over
    /// the defaults. `name` seeds the default base seed.
    pub fn resolve(name: &str, overrides: &Overrides) -> Result<Settings, ConfigError> {
        Self::resolve_with(name, overrides, env_var)
    }

    /// [`Settings::resolve`] with an explicit environment lookup (for tests).
    ///
    /// Each setting is read by its row of the one table
    /// ([`crate::config::SETTINGS`]): its variable, if set, by the table's
    /// rule; else the value given, by the same rule, so that an invalid
    /// value gets the same message whichever way it came.
    pub fn resolve_with(
        name: &str,
        overrides: &Overrides,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        let pick = |setting: &str, given: Option<String>| pick(&env, setting, given);
        let text = |v: Option<&dyn ToString>| v.map(ToString::to_string);
        let o = overrides;

        let n = pick("n", text(o.n.as_ref().map(|v| v as _)))?.map_or(DEFAULT_N, |v| v.count());
        let seed_setting = setting("seed");
        let (seed, seed_source) = match env(seed_setting.env_var()) {
            Some(v) if v.trim() == "random" => (rand::random::<u64>(), SeedSource::Random),
            Some(v) => match seed_setting.parse(seed_setting.env_var(), &v)? {
                Value::Seed(s) => (s, SeedSource::Environment),
                other => unreachable!("a seed reads as a seed, not {other:?}"),
            },
            None => match o.seed {
                Some(s) => (s, SeedSource::Explicit),
                None => (crate::rng::seed_from_name(name), SeedSource::Default),
            },
        };
        let number = |setting: &str, v: Option<f64>, default: f64| {
            pick(setting, text(v.as_ref().map(|v| v as _)))
                .map(|v| v.map_or(default, |v| v.number()))
        };
        let flag = |setting: &str, v: Option<bool>| {
            pick(setting, text(v.as_ref().map(|v| v as _))).map(|v| v.map(|v| v.bool()))
        };
        let alpha = number("alpha", o.alpha, DEFAULT_ALPHA)?;
        let margin = number("margin", o.margin, crate::stats::sequential::DEFAULT_MARGIN)?;
        let gross_factor = number("gross_factor", o.gross_factor, DEFAULT_GROSS_FACTOR)?;
        let threads = pick("threads", text(o.threads.as_ref().map(|v| v as _)))?.map(|v| v.count());
        let stop_early = flag("stop_early", o.stop_early)?.unwrap_or(true);
        let screen = flag("screen", o.screen)?.unwrap_or(true);
        let allow_non_finite = flag("allow_non_finite", o.allow_non_finite)?.unwrap_or(false);
        let progress =
            flag("progress", None)?.unwrap_or_else(|| env("CI").is_none_or(|v| v.is_empty()));

        let b = o.baselines.clone().unwrap_or_default();
        let name = |setting: &str, v: Option<String>| pick(setting, v).map(|v| v.map(Value::text));
        let baselines = Baselines {
            save: name("baselines.save", b.save)?,
            compare: name("baselines.compare", b.compare)?,
            dir: name("baselines.dir", b.dir.map(|d| d.display().to_string()))?.map(Into::into),
            any_device: flag("baselines.any_device", Some(b.any_device))?.unwrap_or(false),
        };

        let timeout = setting("trial_timeout");
        let trial_timeout = match env(timeout.env_var()) {
            Some(v) => {
                let secs = timeout.parse(timeout.env_var(), &v)?.number();
                (secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
            }
            None => match o.trial_timeout {
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
            metric: o.metric.clone().unwrap_or_default(),
            expect: o.expect.unwrap_or_default(),
            test: o.test.unwrap_or_default(),
            margin,
            stability: o.stability,
            threads,
            allow_non_finite,
            stop_early,
            screen,
            progress,
            baselines,
            gross_factor,
            trial_timeout,
        })
    }
}

/// The value of the setting `name`: its environment variable's, if it has
/// one and it is set; else `given`'s (the attribute's or the builder's);
/// each read by the table's rule.
fn pick(
    env: &impl Fn(&str) -> Option<String>,
    name: &str,
    given: Option<String>,
) -> Result<Option<Value>, ConfigError> {
    let s = setting(name);
    if let Some(var) = s.env
        && let Some(v) = env(var)
    {
        return s.parse(var, &v).map(Some);
    }
    given.map(|g| s.parse(name, &g)).transpose()
}
