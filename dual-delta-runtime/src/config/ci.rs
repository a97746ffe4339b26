//! What CI and version control tell a run: the job summary's file and the
//! commit being tested.

use super::*;

/// `GITHUB_STEP_SUMMARY`: the job summary's file, when set and not empty.
pub(crate) fn step_summary_file() -> Option<std::path::PathBuf> {
    env_var(ENV_STEP_SUMMARY)
        .filter(|v| !v.is_empty())
        .map(Into::into)
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
