//! The settings of a run and their resolution: the environment over the
//! attribute or builder over the defaults.
//!
//! [`Overrides`], [`Settings`] and [`Process`] are expanded from the one
//! table (`dual_delta_settings::settings_table!`): each field is declared
//! there, once, with its type, its default and its documentation.

use std::path::PathBuf;
use std::time::Duration;

use dual_delta_settings::{Setting, Value, setting};

use super::*;
use crate::expect::Expect;
use crate::metric::Metric;
use crate::rule::Rule;
use crate::stats::sequential::DEFAULT_MARGIN;
use crate::verdict::AccuracyTest;

/// The type a row of the table resolves to.
macro_rules! resolved {
    (optional $given:ty) => { Option<$given> };
    (timeout $given:ty) => { Option<$given> };
    ($shape:ident $given:ty) => { $given };
}

/// What a setting's reader returns: a copy, or a reference to the
/// baselines.
macro_rules! read_as {
    (baselines $given:ty) => { &$given };
    ($shape:ident $given:ty) => { resolved!($shape $given) };
    (baselines, $field:expr) => { &$field };
    ($shape:ident, $field:expr) => { Clone::clone(&$field) };
}

/// How a row of the table resolves, by its shape (see
/// `dual_delta_settings::settings_table!`).
macro_rules! resolve {
    (value, $row:expr, $given:expr, $env:expr, $ctx:tt, ($($init:tt)*)) => {
        read($row, $given, $env)?.unwrap_or_else(|| $($init)*)
    };
    (optional, $row:expr, $given:expr, $env:expr, $ctx:tt, ()) => {
        read($row, $given, $env)?
    };
    (timeout, $row:expr, $given:expr, $env:expr, $ctx:tt, ($($init:tt)*)) => {
        read::<Duration>($row, $given, $env)?
            .map_or(Some($($init)*), |d| (!d.is_zero()).then_some(d))
    };
    (seed, $row:expr, $given:expr, $env:expr, ($name:expr, $source:ident, $process:ident), ()) => {{
        let (seed, source) = base_seed($row, $given, $env, $name)?;
        $source = source;
        seed
    }};
    (baselines, $row:expr, $given:expr, $env:expr, ($name:expr, $source:ident, $process:ident), ($($init:tt)*)) => {
        Baselines::resolve($given.unwrap_or_else(|| $($init)*), &$process)?
    };
}

/// Expands the table's rows into the settings types.
macro_rules! declare {
    (
        run {$(
            $(#[doc = $doc:literal])*
            $name:ident: $shape:ident($given:ty) = ($($init:tt)*) {
                key: $key:tt, env: $env:expr, default: $default:expr,
                kind: $kind:expr, expected: $expected:expr,
                baseline: $baseline:expr, recorded: $recorded:expr,
                $(serde: ($($serde:tt)*),)?
                doc: $md:expr $(,)?
            }
        )*}
        candidate { $($candidate:tt)* }
        process {$(
            $(#[doc = $pdoc:literal])*
            $pname:ident: env($pgiven:ty) = () { $($prow:tt)* }
        )*}
    ) => {
        /// The settings a test or builder gives; `None` leaves the default.
        ///
        /// This is what `#[dual_delta_test]` fills from its attribute.
        #[derive(Clone, Debug, Default)]
        pub struct Overrides {$(
            $(#[doc = $doc])*
            pub $name: Option<$given>,
        )*}

        /// Fully resolved settings of one run. Invariants: every value
        /// follows its row's rule in the table ([`crate::settings::SETTINGS`]):
        /// `n ≥ 1`, `0 < alpha < 1`, `margin ≥ 0` and finite,
        /// `threads ≥ 1` when set, `gross_factor > 1`.
        ///
        /// Serialised (in `summary.json`'s `settings`), it holds the
        /// settings the table marks `recorded` and the seed's source:
        /// floats as [`crate::report::summary`] writes them, the metric by
        /// its name, `trial_timeout` in seconds.
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
        pub struct Settings {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])?
                pub(crate) $name: resolved!($shape $given),
            )*
            /// Where the seed came from, for the report.
            pub(crate) seed_source: SeedSource,
        }

        /// Each setting, read: a `Settings` is made only by resolving
        /// (its invariants hold), and grows without breaking its readers.
        impl Settings {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self) -> read_as!($shape $given) {
                    read_as!($shape, self.$name)
                }
            )*

            /// Where the seed came from, for the report.
            pub fn seed_source(&self) -> SeedSource {
                self.seed_source
            }
        }

        /// The process's configuration: what the environment says for
        /// every test of the process (`None`: unset). Read by
        /// [`Process::read`]; each variable is a row of the table.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Process {$(
            $(#[doc = $pdoc])*
            pub $pname: Option<$pgiven>,
        )*}

        impl Process {
            /// Reads the process's variables from `env`.
            ///
            /// # Errors
            ///
            /// When a variable is set but breaks its rule.
            pub fn read(env: impl Fn(&str) -> Option<String>) -> Result<Process, ConfigError> {
                Ok(Process {$(
                    $pname: read(setting(stringify!($pname)), None, &env)?,
                )*})
            }
        }

        impl Settings {
            /// [`Settings::resolve`] with an explicit environment lookup
            /// (for tests).
            ///
            /// Each setting is read by its row of the one table
            /// ([`crate::config::SETTINGS`]): its variable, if set, by the
            /// row's rule; else the value given, checked by the same rule,
            /// so that an invalid value gets the same message whichever
            /// way it came.
            pub fn resolve_with(
                name: &str,
                overrides: &Overrides,
                env: impl Fn(&str) -> Option<String>,
            ) -> Result<Settings, ConfigError> {
                let process = Process::read(&env)?;
                let seed_source;
                $(
                    let $name = resolve!(
                        $shape,
                        setting(stringify!($name)),
                        overrides.$name.clone(),
                        &env,
                        (name, seed_source, process),
                        ($($init)*)
                    );
                )*
                Settings { $($name,)* seed_source }.under_rule(overrides)
            }
        }
    };
}

dual_delta_settings::settings_table!(declare);

/// What a run does with baselines: the builder's, under the process's
/// `DUAL_DELTA_*BASELINE*` variables (a test never hard-codes one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baselines {
    /// Save this run as the baseline of this name.
    pub save: Option<String>,
    /// Compare this run with the baseline of this name.
    pub compare: Option<String>,
    /// The directory of the baselines (`DUAL_DELTA_BASELINE_DIR`), or
    /// `None` for `baselines/` under the report directory.
    pub dir: Option<PathBuf>,
    /// Compare with a baseline saved on another device.
    pub any_device: bool,
}

impl Baselines {
    /// `given`, each field checked by its process variable's rule, under
    /// the variables that `process` has set.
    fn resolve(given: Baselines, process: &Process) -> Result<Baselines, ConfigError> {
        let none = |_: &str| None;
        let row = |name| setting(name);
        Ok(Baselines {
            save: process
                .save_baseline
                .clone()
                .or(read(row("save_baseline"), given.save, &none)?),
            compare: process.compare_baseline.clone().or(read(
                row("compare_baseline"),
                given.compare,
                &none,
            )?),
            dir: process
                .baseline_dir
                .clone()
                .or(read(row("baseline_dir"), given.dir, &none)?),
            any_device: process.baseline_any_device.unwrap_or(given.any_device),
        })
    }
}

impl Process {
    /// Reads the process's variables from the process environment.
    ///
    /// # Errors
    ///
    /// When a variable is set but breaks its rule.
    pub fn from_env() -> Result<Process, ConfigError> {
        Process::read(env_var)
    }

    /// Whether the progress line may be drawn: as `DUAL_DELTA_PROGRESS`
    /// says, else outside CI (`CI` unset or empty).
    pub fn shows_progress(&self, env: impl Fn(&str) -> Option<String>) -> bool {
        self.progress
            .unwrap_or_else(|| env("CI").is_none_or(|v| v.is_empty()))
    }
}

/// Where a run's base seed came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
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
    /// The settings under their rule: `rule = paper` has no margin and never
    /// stops early, whatever `DUAL_DELTA_STOP_EARLY` says;
    /// a margin other than 0, or `stop_early = true`, given with it is an
    /// error rather than a setting silently ignored.
    fn under_rule(mut self, overrides: &Overrides) -> Result<Settings, ConfigError> {
        if self.rule == Rule::Paper {
            let conflict = match (overrides.margin, overrides.stop_early) {
                (Some(m), _) if m != 0.0 => Some((
                    "margin",
                    m.to_string(),
                    "0 or nothing under `rule = paper`: the paper's test has no margin",
                )),
                (_, Some(true)) => Some((
                    "stop_early",
                    "true".to_owned(),
                    "`false` or nothing under `rule = paper`: the paper's test runs every input",
                )),
                _ => None,
            };
            if let Some((setting, value, expected)) = conflict {
                return Err(ConfigError {
                    source: setting.to_owned(),
                    value,
                    expected,
                });
            }
            self.margin = 0.0;
            self.stop_early = false;
        }
        Ok(self)
    }

    /// Resolves settings from the process environment over `overrides` over
    /// the defaults. `name` seeds the default base seed.
    pub fn resolve(name: &str, overrides: &Overrides) -> Result<Settings, ConfigError> {
        Self::resolve_with(name, overrides, env_var)
    }
}

/// The base seed and where it came from: `DUAL_DELTA_SEED` (`random`
/// draws one), else the one given, else one derived from the test's name.
fn base_seed(
    row: &Setting,
    given: Option<u64>,
    env: &impl Fn(&str) -> Option<String>,
    name: &str,
) -> Result<(u64, SeedSource), ConfigError> {
    if env(row.env_var()).is_some_and(|v| v.trim() == "random") {
        return Ok((rand::random::<u64>(), SeedSource::Random));
    }
    let from_env = env(row.env_var()).is_some();
    Ok(match read(row, given, env)? {
        Some(s) if from_env => (s, SeedSource::Environment),
        Some(s) => (s, SeedSource::Explicit),
        None => (crate::rng::seed_from_name(name), SeedSource::Default),
    })
}

/// The value of a setting: its environment variable's, if it has one and
/// it is set, read by its row's rule; else `given` (the attribute's or the
/// builder's), checked by the same rule. Values stay typed: only the
/// environment's text is parsed.
fn read<T: Typed>(
    row: &Setting,
    given: Option<T>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<T>, ConfigError> {
    if let Some(var) = row.env
        && let Some(text) = env(var)
    {
        return row.parse(var, &text).map(|v| Some(T::from_value(v)));
    }
    if let Some(value) = given.as_ref().and_then(Typed::to_value) {
        row.check(row.name, &value)?;
    }
    Ok(given)
}

/// A setting's Rust type, and its value in the table's terms.
trait Typed: Sized {
    /// The typed value of text that passed the row's rule.
    fn from_value(value: Value) -> Self;
    /// The value to check by the row's rule (`None`: valid by its type).
    fn to_value(&self) -> Option<Value>;
}

macro_rules! typed {
    ($($t:ty: |$v:ident| $from:expr, |$s:ident| $to:expr;)*) => {$(
        impl Typed for $t {
            fn from_value($v: Value) -> Self {
                $from
            }
            fn to_value(&self) -> Option<Value> {
                let $s = self;
                $to
            }
        }
    )*};
}

typed! {
    usize: |v| v.count(), |s| Some(Value::Count(*s));
    u64: |v| v.unsigned(), |s| Some(Value::Seed(*s));
    f64: |v| v.number(), |s| Some(Value::Number(*s));
    bool: |v| v.bool(), |s| Some(Value::Bool(*s));
    String: |v| v.text(), |s| Some(Value::Text(s.clone()));
    PathBuf: |v| PathBuf::from(v.text()), |s| Some(Value::Text(s.display().to_string()));
    Duration: |v| Duration::from_secs_f64(v.number()), |s| Some(Value::Number(s.as_secs_f64()));
    Metric: |v| unreachable!("no variable names a metric: {v:?}"), |_s| None;
    Expect: |v| unreachable!("no variable names an expectation: {v:?}"), |_s| None;
    AccuracyTest: |v| unreachable!("no variable names a test: {v:?}"), |_s| None;
    Rule: |v| unreachable!("no variable names a rule: {v:?}"), |_s| None;
}
