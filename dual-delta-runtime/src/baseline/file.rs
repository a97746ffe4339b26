//! The baseline file, format 2 (see [`crate::baseline`]): written, read
//! and checked against its own record, and listed.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checksum;
use crate::config::Settings;
use crate::dirname::{abandoned, hidden_kind, process_gone, unique_hidden_name};
use crate::error::BaselineFault;
use crate::rng::seed_hex;

/// The version of the file format documented in this module.
pub const FORMAT: u32 = 2;

/// The earlier format this version still reads (without the trials'
/// count and checksum).
pub const FORMAT_WITHOUT_CHECKSUM: u32 = 1;

/// A saved baseline: one test's trials under one name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// The facts the run that saved it recorded: the process's, and those
    /// of the device its functions used (`gpu.adapter`, ...).
    pub environment: BTreeMap<String, String>,
    /// The trials, in trial order.
    pub trials: Vec<BaselineTrial>,
    /// The number of trials, as written (`None` in format 1; a save
    /// writes it whatever it holds).
    #[serde(default)]
    pub trial_count: Option<usize>,
    /// The trials' [`checksum`] as written (`None` in format 1; a save
    /// writes it whatever it holds).
    #[serde(default)]
    pub checksum: Option<String>,
}

/// The settings a baseline was saved with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// ([`crate::settings::SETTINGS`]) marked `baseline`, the seed in hexadecimal.
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
#[non_exhaustive]
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

impl Baseline {
    /// Reads a baseline file, checked against its own record (see the
    /// module docs).
    ///
    /// # Errors
    ///
    /// [`BaselineFault`]: what is wrong with it (`Io` of kind `NotFound`
    /// where there is no file); the caller names the file.
    pub fn read(path: &Path) -> Result<Baseline, BaselineFault> {
        let text = std::fs::read_to_string(path).map_err(|e| BaselineFault::Io {
            kind: e.kind(),
            message: e.to_string(),
        })?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            if e.is_eof() {
                BaselineFault::Truncated(e.to_string())
            } else {
                BaselineFault::NotBaseline(e.to_string())
            }
        })?;
        match b.format {
            FORMAT => {
                let (Some(count), Some(sum)) = (b.trial_count, b.checksum.as_deref()) else {
                    return Err(BaselineFault::Unrecorded);
                };
                if count != b.trials.len() {
                    return Err(BaselineFault::Count {
                        holds: b.trials.len(),
                        records: count,
                    });
                }
                let now = b.trials_checksum();
                if now != sum {
                    return Err(BaselineFault::Checksum {
                        now,
                        recorded: sum.to_owned(),
                    });
                }
            }
            FORMAT_WITHOUT_CHECKSUM => {}
            other => return Err(BaselineFault::Format(other)),
        }
        Ok(b)
    }

    /// Reads the baseline `name` of test `test` from `path` ([`read`]): a
    /// file that records another test is refused, and the baseline takes
    /// the name of the folder it is found in.
    ///
    /// [`read`]: Baseline::read
    ///
    /// # Errors
    ///
    /// As [`Baseline::read`], and [`BaselineFault::OtherTest`] where the
    /// file records another test.
    pub fn read_for(path: &Path, name: &str, test: &str) -> Result<Baseline, BaselineFault> {
        let mut b = Baseline::read(path)?;
        if b.test != test {
            return Err(BaselineFault::OtherTest {
                recorded: b.test,
                test: test.to_owned(),
                name: name.to_owned(),
            });
        }
        b.name = name.to_owned();
        Ok(b)
    }

    /// The [`checksum`] of the trials as compact JSON.
    fn trials_checksum(&self) -> String {
        checksum(
            serde_json::to_string(&self.trials)
                .unwrap_or_default()
                .as_bytes(),
        )
    }

    /// Writes the baseline to `path` in format [`FORMAT`], its trials'
    /// count and checksum computed from what it holds, atomically (a
    /// hidden temporary file renamed over it), creating its folder, and
    /// removes what killed saves left in that folder.
    ///
    /// # Errors
    ///
    /// When the folder or the file cannot be written (a file where the
    /// folder should be is named as such).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Err(e) = std::fs::create_dir_all(dir) {
            let why = match dir.ancestors().find(|a| a.is_file()) {
                Some(file) => format!("{} is a file, where a folder should be", file.display()),
                None => format!("cannot create the folder {}: {e}", dir.display()),
            };
            return Err(io::Error::new(e.kind(), why));
        }
        remove_abandoned(dir);
        let mut b = self.clone();
        b.format = FORMAT;
        b.trial_count = Some(b.trials.len());
        b.checksum = Some(b.trials_checksum());
        let text = serde_json::to_string_pretty(&b).map_err(io::Error::other)?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(unique_hidden_name(&file));
        std::fs::write(&tmp, text + "\n")
            .and_then(|()| std::fs::rename(&tmp, path))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
    }

    /// The GPU adapter the baseline was saved on, if a GPU ran.
    pub fn adapter(&self) -> Option<&str> {
        self.environment.get("gpu.adapter").map(String::as_str)
    }
}

/// A baseline file found under the baselines' folder.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Listed {
    /// The baseline's name: its folder's.
    pub name: String,
    /// The file.
    pub file: PathBuf,
    /// The test's path as the file records it, or what is wrong with the
    /// file ([`Baseline::read`]).
    pub test: Result<String, BaselineFault>,
}

/// Every baseline file under `dir`, sorted by name and test (unreadable
/// files first), each with the
/// test it records or what is wrong with it. Hidden files (a save's
/// temporaries) are passed over.
///
/// # Errors
///
/// When `dir` exists but cannot be read.
pub fn entries(dir: &Path) -> io::Result<Vec<Listed>> {
    let mut out = Vec::new();
    let names = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for name in names {
        let name = name?;
        if !name.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(name.path())? {
            let file = file?.path();
            let hidden = file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !hidden && file.extension().is_some_and(|e| e == "json") {
                out.push(Listed {
                    name: name.file_name().to_string_lossy().into_owned(),
                    test: Baseline::read(&file).map(|b| b.test),
                    file,
                });
            }
        }
    }
    let key = |l: &Listed| {
        (
            l.name.clone(),
            l.test.as_ref().ok().cloned(),
            l.file.clone(),
        )
    };
    out.sort_by_key(key);
    Ok(out)
}

/// Every baseline under `dir`: `(name, test)` pairs, sorted, with the
/// test's path as the baseline records it (`module::function`, as every
/// command writes it); a file that is not a readable baseline is listed
/// by its file name ([`entries`] says what is wrong with it).
///
/// # Errors
///
/// When `dir` exists but cannot be read.
pub fn list(dir: &Path) -> io::Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = entries(dir)?
        .into_iter()
        .map(|l| {
            let test = l.test.unwrap_or_else(|_| {
                l.file
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            (l.name, test)
        })
        .collect();
    out.sort();
    Ok(out)
}

/// Removes what saves killed on the way left in the folder `dir`: hidden
/// temporaries (and the `<file>.json.<pid>.tmp` of earlier builds) whose
/// process is gone.
fn remove_abandoned(dir: &Path) {
    let Ok(files) = std::fs::read_dir(dir) else {
        return;
    };
    for file in files.flatten() {
        let path = file.path();
        let name = file.file_name().to_string_lossy().into_owned();
        let earlier = name
            .strip_suffix(".tmp")
            .and_then(|n| n.rsplit_once(".json."))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
            .is_some_and(|pid| pid != std::process::id() && process_gone(pid));
        if earlier || (hidden_kind(&name).is_some() && abandoned(&path)) {
            let _ = std::fs::remove_file(&path);
        }
    }
}
