//! Baselines: a run's errors kept under a name, and a later run compared
//! with them trial by trial.
//!
//! With the same base seed the same trials see the same inputs, so the
//! candidate now and the candidate when a baseline was saved form a sample
//! paired by trial, measured against the same oracle. That answers the
//! question a pull request asks: is the candidate less accurate than it was
//! on `main`?
//!
//! - `DUAL_DELTA_SAVE_BASELINE=main` writes, for every run (annotated test
//!   or builder), the file `<dir>/main/<test dir>.json` (one file per test
//!   and name, so CI shards never write the same file; `<test dir>` is
//!   [`crate::report::test_dir_name`]).
//! - `DUAL_DELTA_BASELINE=main` compares each run with that file: the run
//!   takes at least as many trials as the baseline holds (up to `n`), then
//!   the candidate's error now and at the baseline, paired by trial seed,
//!   go through the same machinery as the main comparison: the
//!   anytime-valid sequential test and the one-sided Wilcoxon test at the
//!   test's margin and α, with α split as for `no_worse`. The test fails
//!   when the candidate is significantly less accurate than at the
//!   baseline, even when it is still no worse than the reference baseline
//!   f2 (see [`Regression`]).
//!
//! `<dir>` is `DUAL_DELTA_BASELINE_DIR`, or `baselines/` under the report
//! directory ([`crate::report::report_root`]).
//!
//! A trial's *fingerprint* is a hash of the oracle's output bits (FNV-1a
//! over each `f64`'s bits): cheap, generic, and it changes when the input
//! generator or the oracle does. When the fingerprints of a trial seed
//! differ, the comparison would pair different inputs: the run fails with
//! [`BaselineError::Mismatch`](crate::BaselineError) naming
//! the first such trial. A baseline saved on another GPU (its
//! `gpu.adapter` differs) is compared only with
//! `DUAL_DELTA_BASELINE_ANY_DEVICE=1`. A test with no baseline file under
//! that name (a test new since the baseline) is reported as such and not
//! compared.
//!
//! # The file, format 1
//!
//! One JSON object: `format` (`1`), `name`, `test`, `commit` (the
//! `GITHUB_SHA` or `git rev-parse HEAD` of the run that saved it, or
//! `null`), `time_utc`, `crate_version`, `settings` (`n`, `seed_hex`,
//! `alpha`, `metric`, `margin`, `expect`), `environment` (the facts the
//! process recorded, such as `gpu.adapter`), and `trials`: one object per
//! trial run, in trial order, with `index`, `seed_hex` (the trial's seed),
//! `delta1` and `delta2` (the candidate's and the baseline's errors; `"inf"`
//! where infinite) and `fingerprint` (16 hexadecimal digits).

mod compare;

pub use self::compare::{Regression, RegressionDecision, compare_errors};

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::dirname::test_dir_name;
use crate::error::{BaselineError, RunError};
use crate::rng::seed_hex;

/// The version of the file format documented in this module.
pub const FORMAT: u32 = 1;

/// A saved baseline: one test's trials under one name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The file format ([`FORMAT`]).
    pub format: u32,
    /// The baseline's name (`main`).
    pub name: String,
    /// The test's path.
    pub test: String,
    /// The commit of the run that saved it, when known.
    pub commit: Option<String>,
    /// When it was saved, `YYYY-MM-DDTHH:MM:SSZ`.
    pub time_utc: String,
    /// The version of `dual-delta-runtime` that saved it.
    pub crate_version: String,
    /// The settings of the run that saved it.
    pub settings: BaselineSettings,
    /// The facts the process recorded (`gpu.adapter`, ...).
    pub environment: BTreeMap<String, String>,
    /// The trials, in trial order.
    pub trials: Vec<BaselineTrial>,
}

/// The settings a baseline was saved with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineSettings {
    /// The cap on trials.
    pub n: usize,
    /// The base seed, `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// The significance level.
    pub alpha: f64,
    /// The metric's name.
    pub metric: String,
    /// The margin.
    pub margin: f64,
    /// The accuracy expectation.
    pub expect: crate::expect::Expect,
}

impl BaselineSettings {
    /// The settings of `s` that a baseline records: the rows of the table
    /// ([`crate::SETTINGS`]) marked `baseline`, the seed in hexadecimal.
    pub(crate) fn of(s: &Settings) -> Self {
        BaselineSettings {
            n: s.n,
            seed_hex: seed_hex(s.seed),
            alpha: s.alpha,
            metric: s.metric.name().to_owned(),
            margin: s.margin,
            expect: s.expect,
        }
    }
}

/// One trial of a baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineTrial {
    /// The trial's index.
    pub index: usize,
    /// The trial's seed, `0x` and 16 hexadecimal digits.
    pub seed_hex: String,
    /// The candidate's error.
    #[serde(with = "crate::json_number")]
    pub delta1: f64,
    /// The baseline implementation's error.
    #[serde(with = "crate::json_number")]
    pub delta2: f64,
    /// The oracle output's fingerprint, 16 hexadecimal digits.
    pub fingerprint: String,
}

/// The directory of the baselines: `DUAL_DELTA_BASELINE_DIR`, or
/// `baselines/` under the report directory.
///
/// # Errors
///
/// When the report directory cannot be resolved.
pub fn baseline_dir(settings: &Settings) -> io::Result<PathBuf> {
    match &settings.baselines.dir {
        Some(dir) => Ok(dir.clone()),
        None => crate::config::report_root()
            .map(|r| r.join("baselines"))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e)),
    }
}

/// The directory `DUAL_DELTA_BASELINE_DIR` names, or `None` when it is
/// unset (for tools that resolve the rest themselves, as `cargo
/// dual-delta` does).
///
/// # Errors
///
/// When it is set but blank.
pub fn baseline_dir_from_env() -> Result<Option<PathBuf>, crate::config::ConfigError> {
    crate::config::baseline_dir_env(crate::config::env_var)
}

/// The file of test `test`'s baseline `name` under `dir`.
pub fn baseline_file(dir: &Path, name: &str, test: &str) -> PathBuf {
    dir.join(name).join(format!("{}.json", test_dir_name(test)))
}

impl Baseline {
    /// Reads a baseline file.
    ///
    /// # Errors
    ///
    /// When it cannot be read or is not a baseline of [`FORMAT`].
    pub fn read(path: &Path) -> io::Result<Baseline> {
        let text = std::fs::read_to_string(path)?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })?;
        if b.format != FORMAT {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: baseline format {} (this version reads {FORMAT})",
                    path.display(),
                    b.format
                ),
            ));
        }
        Ok(b)
    }

    /// Writes the baseline to `path` atomically (a temporary file renamed
    /// over it), creating its directory.
    ///
    /// # Errors
    ///
    /// When the directory or the file cannot be written.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&tmp, text + "\n")?;
        std::fs::rename(&tmp, path)
    }

    /// The GPU adapter the baseline was saved on, if a GPU ran.
    pub fn adapter(&self) -> Option<&str> {
        self.environment.get("gpu.adapter").map(String::as_str)
    }
}

/// The baseline a run with `settings` of test `test` compares with: `None`
/// when none is asked for, or when no file of that name exists for this
/// test (a test new since the baseline).
///
/// # Errors
///
/// [`BaselineError::File`] when the file exists but cannot be read.
pub(crate) fn load(settings: &Settings, test: &str) -> Result<Option<Baseline>, RunError> {
    let Some(name) = &settings.baselines.compare else {
        return Ok(None);
    };
    let dir = baseline_dir(settings).map_err(|e| baseline_error(Path::new("."), &e))?;
    let path = baseline_file(&dir, name, test);
    match Baseline::read(&path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(baseline_error(&path, &e)),
    }
}

/// The run's errors `delta1` (fingerprints `fingerprints`, facts
/// `environment`) against `baseline`.
///
/// # Errors
///
/// [`BaselineError::Device`] when the baseline was saved on another GPU
/// and `DUAL_DELTA_BASELINE_ANY_DEVICE` is off;
/// [`BaselineError::Mismatch`] when a paired trial's fingerprint
/// differs.
pub(crate) fn against(
    baseline: &Baseline,
    settings: &Settings,
    trials: &[(usize, f64, u64)],
    environment: &BTreeMap<String, String>,
) -> Result<Regression, RunError> {
    let now = environment.get("gpu.adapter");
    if let (Some(now), Some(then)) = (now, baseline.adapter())
        && now != then
        && !settings.baselines.any_device
    {
        return Err(BaselineError::Device {
            baseline: baseline.name.clone(),
            now: now.clone(),
            then: then.to_owned(),
        }
        .into());
    }
    compare_errors(baseline, settings, trials)
}

/// Saves the run as the baseline `DUAL_DELTA_SAVE_BASELINE` names, if it
/// names one.
///
/// # Errors
///
/// [`BaselineError::File`] when the file cannot be written: a baseline asked
/// for and not saved fails the run.
pub(crate) fn save_if_asked(
    s: &Settings,
    test: &str,
    delta1: &[f64],
    delta2: &[f64],
    fingerprints: &[u64],
    environment: &BTreeMap<String, String>,
) -> Result<(), RunError> {
    let Some(name) = &s.baselines.save else {
        return Ok(());
    };
    let dir = baseline_dir(s).map_err(|e| baseline_error(Path::new("."), &e))?;
    let path = baseline_file(&dir, name, test);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let baseline = Baseline {
        format: FORMAT,
        name: name.clone(),
        test: test.to_owned(),
        commit: crate::config::commit(),
        time_utc: crate::clock::utc(secs),
        crate_version: env!("CARGO_PKG_VERSION").to_owned(),
        settings: BaselineSettings::of(s),
        environment: environment.clone(),
        trials: (0..delta1.len())
            .map(|i| BaselineTrial {
                index: i,
                seed_hex: seed_hex(crate::rng::trial_seed(s.seed, i)),
                delta1: delta1[i],
                delta2: delta2[i],
                fingerprint: format!("{:016x}", fingerprints[i]),
            })
            .collect(),
    };
    baseline.write(&path).map_err(|e| baseline_error(&path, &e))
}

fn baseline_error(path: &Path, e: &io::Error) -> RunError {
    BaselineError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    }
    .into()
}

/// Every baseline under `dir`: `(name, test)` pairs, sorted, with the
/// test's path as the baseline records it (`module::function`, as every
/// command writes it); a file that is not a readable baseline is listed
/// by its file name.
///
/// # Errors
///
/// When `dir` exists but cannot be read.
pub fn list(dir: &Path) -> io::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let names = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for name in names {
        let name = name?;
        if !name.file_type()?.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(name.path())? {
            let file = file?.path();
            if file.extension().is_some_and(|e| e == "json") {
                let test = Baseline::read(&file).map(|b| b.test).unwrap_or_else(|_| {
                    file.file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                });
                out.push((name.file_name().to_string_lossy().into_owned(), test));
            }
        }
    }
    out.sort();
    Ok(out)
}
