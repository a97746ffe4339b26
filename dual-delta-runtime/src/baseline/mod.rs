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
//!   measures every input, then the candidate's error now and at the
//!   baseline, paired by trial seed, go through the claim's rule
//!   ([`crate::decision::claim`]) with the errors then in the baseline's place, each
//!   criterion at α/2 (its typical input by the sign test at the margin and
//!   the run's one-sided paired test at margin 0). The test fails
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
//! [`BaselineError::Mismatch`](crate::error::BaselineError) naming
//! the first such trial. A baseline saved on another GPU (its
//! `gpu.adapter` differs) is compared only with
//! `DUAL_DELTA_BASELINE_ANY_DEVICE=1`. A test with no baseline file under
//! that name (a test new since the baseline) is reported as such and not
//! compared.
//!
//! # The file, format 2
//!
//! One JSON object: `format` (`2`), `name`, `test`, `commit` (the
//! `GITHUB_SHA` or `git rev-parse HEAD` of the run that saved it, or
//! `null`), `time_utc`, `crate_version`, `settings` (`n`, `seed_hex`,
//! `alpha`, `metric`, `margin`, `expect`), `environment` (the facts the
//! run recorded, the process's and its device's, such as `gpu.adapter`),
//! and `trials`: one object per
//! trial run, in trial order, with `index`, `seed_hex` (the trial's seed),
//! `delta1` and `delta2` (the candidate's and the baseline's errors; `"inf"`
//! where infinite) and `fingerprint` (16 hexadecimal digits); then
//! `trial_count`, the number of trials, and `checksum`, FNV-1a (64 bits,
//! 16 hexadecimal digits, [`checksum`]) over `trials` written as compact
//! JSON. Format 1 had neither.
//!
//! # Reading it
//!
//! A file is checked when it is read ([`Baseline::read`]): one cut short,
//! empty or not JSON, of another format, or whose trials differ from its
//! own `trial_count` and `checksum` is an error naming the file and what
//! is wrong, never a smaller comparison. A file of format 1 is read
//! without those two checks (it has no record of them; a cut makes its
//! JSON unreadable all the same). A baseline is of one test: read for
//! another (a file copied from another test's), it is refused
//! ([`Baseline::read_for`]); its name is the folder it is found in, so a
//! file copied to another name's folder is that name's.
//!
//! A save writes a hidden temporary file beside the baseline and renames
//! it over the file: a reader sees the old baseline or the new one. A save
//! killed on the way leaves the temporary, which the next save in that
//! folder removes once the process that wrote it is gone.

mod checksum;
mod compare;
mod file;

pub use self::checksum::checksum;
pub(crate) use self::compare::against;
pub use self::compare::{Regression, RegressionDecision, compare_errors};
pub use self::file::{
    Baseline, BaselineSettings, BaselineTrial, FORMAT, FORMAT_WITHOUT_CHECKSUM, Listed, entries,
    list,
};

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::config::Settings;
use crate::dirname::test_dir_name;
use crate::error::{BaselineError, BaselineFault, RunError};
use crate::rng::seed_hex;

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

/// The baseline a run with `settings` of test `test` compares with: `None`
/// when none is asked for, or when no file of that name exists for this
/// test (a test new since the baseline).
///
/// # Errors
///
/// [`BaselineError::Damaged`] when the file exists but cannot be read or
/// compared with.
pub(crate) fn load(settings: &Settings, test: &str) -> Result<Option<Baseline>, RunError> {
    let Some(name) = &settings.baselines.compare else {
        return Ok(None);
    };
    let dir = baseline_dir(settings).map_err(|e| baseline_error(Path::new("."), &e))?;
    let path = baseline_file(&dir, name, test);
    match Baseline::read_for(&path, name, test) {
        Ok(b) => Ok(Some(b)),
        Err(BaselineFault::Io {
            kind: io::ErrorKind::NotFound,
            ..
        }) => Ok(None),
        Err(fault) => Err(BaselineError::Damaged {
            path: path.display().to_string(),
            fault,
        }
        .into()),
    }
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
        trial_count: None,
        checksum: None,
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
