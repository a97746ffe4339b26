//! Where reports and baselines go: `DUAL_DELTA_HOME`, Cargo's target
//! directory, the workspace root, `DUAL_DELTA_BASELINE_DIR`.

use std::path::{Path, PathBuf};

use super::*;

const HOME_EXPECTED: &str = "a directory for the reports (unset it for the default)";

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
    let dir = dual_delta_settings::setting("baseline_dir");
    env(dir.env_var())
        .map(|v| dir.parse(dir.env_var(), &v).map(|v| v.text().into()))
        .transpose()
}
