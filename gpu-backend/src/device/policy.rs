//! The policy of GPU tests on a machine without a usable GPU, applied:
//! [`require_gpu`], [`shared_or_skip`] and [`GpuPolicy::apply`].

use super::context::Gpu;
use super::options::GpuPolicy;
use crate::env::ENV_GPU;
use crate::error::GpuError;

impl GpuPolicy {
    /// Applies the policy to the outcome of getting a context: the context
    /// when there is one; `None` after printing why to stderr when no GPU is
    /// usable ([`GpuError::is_unavailable`]) and the policy is
    /// [`GpuPolicy::Skip`].
    ///
    /// # Panics
    ///
    /// Panics with the error's message (which says how to install lavapipe
    /// or how to skip) in every other case.
    pub fn apply(self, result: Result<&Gpu, GpuError>) -> Option<&Gpu> {
        match result {
            Ok(gpu) => Some(gpu),
            Err(e) if self == GpuPolicy::Skip && e.is_unavailable() => {
                eprintln!("skipping GPU test ({ENV_GPU}=skip): {e}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// The shared context for a GPU test, under the `DUAL_DELTA_GPU` policy:
/// `Some` when a GPU is usable; `None` (after printing why to stderr) when
/// none is and `DUAL_DELTA_GPU=skip`; a panic saying how to install lavapipe
/// otherwise.
///
/// ```no_run
/// # fn test() {
/// let Some(gpu) = dual_delta_gpu::require_gpu() else { return };
/// # let _ = gpu; }
/// ```
///
/// # Panics
///
/// When no GPU is usable and `DUAL_DELTA_GPU` is not `skip`, and when an
/// environment variable of this crate has a value it does not understand.
pub fn require_gpu() -> Option<&'static Gpu> {
    let policy = GpuPolicy::from_env().unwrap_or_else(|e| panic!("{e}"));
    policy.apply(Gpu::shared())
}

/// The shared context for code that runs inside a dual-delta run (a
/// candidate or baseline passed to `#[dual_delta_test]` or
/// [`DualDelta`](dual_delta_runtime::DualDelta)): the context when a GPU is
/// usable; when none is and `DUAL_DELTA_GPU=skip`, the run is skipped with
/// [`dual_delta_runtime::error::skip`], which reports the test as skipped with the
/// reason instead of failing it.
///
/// ```no_run
/// use dual_delta_gpu::{f16, matmul::{Accumulation, MatmulInput}};
///
/// fn gpu_matmul(x: &MatmulInput) -> Vec<f16> {
///     dual_delta_gpu::shared_or_skip().run(x, Accumulation::F32).unwrap()
/// }
/// ```
///
/// # Panics
///
/// When no GPU is usable and `DUAL_DELTA_GPU` is not `skip` (with the
/// message saying how to install lavapipe), and when an environment variable
/// of this crate has a value it does not understand.
pub fn shared_or_skip() -> &'static Gpu {
    let policy = GpuPolicy::from_env().unwrap_or_else(|e| panic!("{e}"));
    match Gpu::shared() {
        Ok(gpu) => gpu,
        Err(e) if policy == GpuPolicy::Skip && e.is_unavailable() => {
            dual_delta_runtime::error::skip(format!("no GPU ({ENV_GPU}=skip): {e}"))
        }
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::ENV_F16;

    #[test]
    fn skip_policy_skips_only_when_no_gpu_is_usable() {
        let no_adapter = || GpuError::NoAdapter {
            requested: None,
            available: vec![],
        };
        assert!(GpuPolicy::Skip.apply(Err(no_adapter())).is_none());
        let unsupported = GpuError::Unsupported("no compute".into());
        assert!(GpuPolicy::Skip.apply(Err(unsupported)).is_none());
    }

    #[test]
    #[should_panic(expected = "apt-get install mesa-vulkan-drivers libvulkan1")]
    fn require_policy_fails_with_install_instructions() {
        GpuPolicy::Require.apply(Err(GpuError::NoAdapter {
            requested: None,
            available: vec![],
        }));
    }

    #[test]
    #[should_panic(expected = "invalid DUAL_DELTA_GPU_F16=\"x\"")]
    fn skip_policy_does_not_hide_bad_settings() {
        GpuPolicy::Skip.apply(Err(GpuError::InvalidSetting {
            name: ENV_F16,
            value: "x".into(),
            expected: "`auto`, `native` or `fallback`",
        }));
    }
}
