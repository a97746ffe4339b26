//! Errors of the GPU backend.

use core::fmt;

/// The command that installs Mesa's lavapipe, the CPU Vulkan driver every GPU
/// test of this crate can run on.
pub const LAVAPIPE_INSTALL: &str = "apt-get install mesa-vulkan-drivers libvulkan1";

/// What went wrong in the GPU backend. Every message says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter (GPU, or CPU Vulkan driver) was found, or none matched
    /// `DUAL_DELTA_ADAPTER`.
    NoAdapter {
        /// The adapter filter in force (`DUAL_DELTA_ADAPTER` or
        /// [`GpuOptions::adapter`](crate::GpuOptions::adapter)), if any.
        requested: Option<String>,
        /// The adapters that were found, one line each (empty when there
        /// were none at all).
        available: Vec<String>,
    },
    /// An adapter was found but cannot run these kernels.
    Unsupported(String),
    /// The adapter refused to create a device.
    RequestDevice(String),
    /// An environment variable has a value its row of the settings table
    /// (`dual_delta_settings::gpu`) does not take: the message reads as
    /// dual-delta's own (`invalid NAME="VALUE": expected ...`).
    InvalidSetting {
        /// The variable (or option) name.
        name: &'static str,
        /// The value given.
        value: String,
        /// The values accepted.
        expected: &'static str,
    },
    /// The arguments of a call are inconsistent (shapes of a batch differ,
    /// zero splits, ...).
    InvalidInput(String),
    /// A matmul needs a buffer larger than the device allows.
    TooLarge {
        /// Bytes needed by one matmul.
        needed: u64,
        /// The device's limit, in bytes.
        limit: u64,
    },
    /// Waiting for the device or reading results back failed.
    Device(String),
    /// A hardware GPU was asked for (`DUAL_DELTA_GPU=require-hardware`,
    /// [`GpuOptions::require_hardware`](crate::GpuOptions::require_hardware))
    /// and the adapter is a CPU driver such as llvmpipe: a run on it has
    /// not run on a GPU. Never turned into a skipped test.
    NotHardware(String),
}

impl GpuError {
    /// Whether this error means that no usable GPU is available on this
    /// machine (as opposed to a wrong setting or a bad call). These are the
    /// errors `DUAL_DELTA_GPU=skip` turns into a skipped test.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            GpuError::NoAdapter { .. } | GpuError::Unsupported(_) | GpuError::RequestDevice(_)
        )
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoAdapter {
                requested,
                available,
            } => {
                match requested {
                    Some(filter) => {
                        write!(f, "no GPU adapter matches DUAL_DELTA_ADAPTER={filter:?}")?
                    }
                    None => f.write_str("no GPU adapter found")?,
                }
                if available.is_empty() {
                    f.write_str(" (wgpu found no adapter at all)")?;
                } else {
                    f.write_str(" (adapters found: ")?;
                    for (i, a) in available.iter().enumerate() {
                        if i > 0 {
                            f.write_str("; ")?;
                        }
                        f.write_str(a)?;
                    }
                    f.write_str(")")?;
                }
                write!(
                    f,
                    ". GPU tests run on any Vulkan, Metal or DX12 adapter; without a GPU, \
                     install Mesa's lavapipe CPU Vulkan driver (`{LAVAPIPE_INSTALL}`)"
                )?;
                if requested.is_some() {
                    f.write_str(", or unset DUAL_DELTA_ADAPTER")?;
                }
                f.write_str(", or set DUAL_DELTA_GPU=skip to skip GPU tests")
            }
            GpuError::Unsupported(why) => write!(
                f,
                "the GPU adapter cannot run the matmul kernels: {why}. Choose another adapter \
                 with DUAL_DELTA_ADAPTER, install lavapipe (`{LAVAPIPE_INSTALL}`), or set \
                 DUAL_DELTA_GPU=skip to skip GPU tests"
            ),
            GpuError::RequestDevice(why) => write!(
                f,
                "the GPU adapter refused to create a device: {why}. Choose another adapter \
                 with DUAL_DELTA_ADAPTER, or set DUAL_DELTA_GPU=skip to skip GPU tests"
            ),
            GpuError::InvalidSetting {
                name,
                value,
                expected,
            } => {
                let invalid = dual_delta_settings::Invalid {
                    source: (*name).to_owned(),
                    value: value.clone(),
                    expected,
                };
                fmt::Display::fmt(&invalid, f)
            }
            GpuError::InvalidInput(why) => write!(f, "invalid matmul call: {why}"),
            GpuError::TooLarge { needed, limit } => write!(
                f,
                "one matmul needs a {needed}-byte buffer but the device allows at most \
                 {limit} bytes per storage binding; use smaller shapes or a device with \
                 larger limits"
            ),
            GpuError::Device(why) => write!(f, "GPU device error: {why}"),
            GpuError::NotHardware(adapter) => write!(
                f,
                "a hardware GPU was asked for (DUAL_DELTA_GPU=require-hardware) but the adapter \
                 is a CPU driver: {adapter}. Install the GPU's Vulkan driver (its ICD file in \
                 /usr/share/vulkan/icd.d), choose the GPU with DUAL_DELTA_ADAPTER, or unset \
                 DUAL_DELTA_GPU to accept a CPU adapter"
            ),
        }
    }
}

impl std::error::Error for GpuError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_adapter_message_says_how_to_install_lavapipe() {
        let e = GpuError::NoAdapter {
            requested: None,
            available: vec![],
        };
        let msg = e.to_string();
        assert!(msg.starts_with("no GPU adapter found"), "{msg}");
        assert!(
            msg.contains("apt-get install mesa-vulkan-drivers libvulkan1"),
            "{msg}"
        );
        assert!(msg.contains("DUAL_DELTA_GPU=skip"), "{msg}");
        assert!(e.is_unavailable());
    }

    #[test]
    fn no_matching_adapter_lists_what_exists() {
        let e = GpuError::NoAdapter {
            requested: Some("no-such".into()),
            available: vec!["llvmpipe [vulkan]".into(), "other [gl]".into()],
        };
        let msg = e.to_string();
        assert!(msg.contains("DUAL_DELTA_ADAPTER=\"no-such\""), "{msg}");
        assert!(msg.contains("llvmpipe [vulkan]; other [gl]"), "{msg}");
        assert!(msg.contains("unset DUAL_DELTA_ADAPTER"), "{msg}");
    }

    #[test]
    fn bad_settings_are_not_unavailability() {
        let e = GpuError::InvalidSetting {
            name: "DUAL_DELTA_GPU",
            value: "skipp".into(),
            expected: "`skip` or `require`",
        };
        assert!(!e.is_unavailable());
        assert_eq!(
            e.to_string(),
            "invalid DUAL_DELTA_GPU=\"skipp\": expected `skip` or `require`"
        );
    }
}
