//! The adapter: which adapters are looked for, which one is chosen, the
//! device requested on it, and what was found ([`AdapterSummary`]): whether
//! the kernels use native `f16` on it, and which paths the matmuls take.

use core::fmt;

use super::options::{F16Path, GpuOptions, Subgroups};
use crate::env::ENV_F16;
use crate::error::GpuError;

/// The fewest invocations a subgroup must hold for the register-block
/// matmul kernels to share `B` through it ([`Subgroups::Auto`]): their
/// workgroup, one llvmpipe SIMD vector at 256 bits.
pub(crate) const SUBGROUP_MIN: u32 = 8;

/// The adapter a [`Gpu`](crate::Gpu) runs on, as recorded in reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AdapterSummary {
    /// The adapter's name (`llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// The backend (`vulkan`, `metal`, `dx12`, `gl`).
    pub backend: String,
    /// The kind of device (`DiscreteGpu`, `IntegratedGpu`, `Cpu`, ...).
    pub device_type: String,
    /// The driver's name (`llvmpipe`).
    pub driver: String,
    /// The driver's version information (`Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver_info: String,
    /// Whether the kernels use native `f16` (`true`) or the packed-`u32`
    /// fallback (`false`).
    pub shader_f16: bool,
    /// Whether the matmul kernels share `B` through subgroup operations
    /// ([`Subgroups`]).
    pub subgroups: bool,
    /// Whether the matmul kernels stage `A` and `B` in workgroup memory
    /// ([`MatmulTiling::Shared`](super::MatmulTiling::Shared)).
    pub shared_tiles: bool,
}

impl AdapterSummary {
    /// The summary of a device on the adapter of `info`, with `features`,
    /// created under `options`; `native`: whether the kernels use native
    /// `f16` on it. The matmuls stage their tiles in workgroup memory
    /// where [`MatmulTiling`](super::MatmulTiling) chooses it on this type
    /// of device; else they share `B` through subgroup operations where
    /// [`Subgroups`] allows it and the device's subgroups hold at least
    /// [`SUBGROUP_MIN`] invocations.
    pub(super) fn new(
        info: &wgpu::AdapterInfo,
        features: wgpu::Features,
        options: &GpuOptions,
        native: bool,
    ) -> Self {
        let shared_tiles = options.tiling.shared_on(info.device_type);
        let subgroups = !shared_tiles
            && options.subgroups == Subgroups::Auto
            && features.contains(wgpu::Features::SUBGROUP)
            && info.subgroup_min_size >= SUBGROUP_MIN;
        AdapterSummary {
            name: info.name.clone(),
            backend: info.backend.to_string(),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            shader_f16: native,
            subgroups,
            shared_tiles,
        }
    }
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}, driver {} {}), f16 {}{}",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            self.driver_info,
            if self.shader_f16 {
                "native"
            } else {
                "fallback (packed u32)"
            },
            if self.subgroups { ", subgroups" } else { "" }
        )?;
        f.write_str(if self.shared_tiles {
            ", shared tiles"
        } else {
            ""
        })
    }
}

pub(super) fn describe(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} [{}, {:?}, driver {} {}]",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    )
}

fn device_rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn backend_rank(b: wgpu::Backend) -> u8 {
    match b {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::Gl | wgpu::Backend::BrowserWebGpu => 1,
        wgpu::Backend::Noop => 2,
    }
}

/// The backend a `DUAL_DELTA_ADAPTER` value names, if it names one.
fn backend_named(filter: &str) -> Option<wgpu::Backend> {
    match filter.to_ascii_lowercase().as_str() {
        "vulkan" | "vk" => Some(wgpu::Backend::Vulkan),
        "metal" => Some(wgpu::Backend::Metal),
        "dx12" | "d3d12" => Some(wgpu::Backend::Dx12),
        "gl" | "gles" | "opengl" => Some(wgpu::Backend::Gl),
        _ => None,
    }
}

/// Whether `info` passes the `DUAL_DELTA_ADAPTER`-style `filter`.
fn adapter_matches(info: &wgpu::AdapterInfo, filter: &str) -> bool {
    let f = filter.to_ascii_lowercase();
    match backend_named(&f) {
        Some(b) => info.backend == b,
        None => {
            info.name.to_ascii_lowercase().contains(&f)
                || info.driver.to_ascii_lowercase().contains(&f)
        }
    }
}

/// The adapter `options` choose.
pub(super) fn choose_adapter(options: &GpuOptions) -> Result<wgpu::Adapter, GpuError> {
    // Vulkan, Metal and DX12 first; GL only when they find nothing (its
    // EGL set-up is slow and noisy on headless machines), when asked for
    // by `DUAL_DELTA_ADAPTER=gl`, or through `WGPU_BACKEND`. (GL adapters
    // exist only with the `gles` feature.)
    let tries = match (
        wgpu::Backends::from_env(),
        options.adapter.as_deref().and_then(backend_named),
    ) {
        (Some(from_env), _) => vec![from_env],
        (None, Some(wgpu::Backend::Gl)) => vec![wgpu::Backends::GL],
        (None, Some(_)) => vec![wgpu::Backends::PRIMARY],
        (None, None) => vec![wgpu::Backends::PRIMARY, wgpu::Backends::GL],
    };
    let mut adapters = Vec::new();
    for backends in tries {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        adapters = pollster::block_on(instance.enumerate_adapters(backends));
        if !adapters.is_empty() {
            break;
        }
    }
    let available: Vec<String> = adapters.iter().map(|a| describe(&a.get_info())).collect();
    let matching: Vec<wgpu::Adapter> = adapters
        .into_iter()
        .filter(|a| {
            let info = a.get_info();
            info.backend != wgpu::Backend::Noop
                && options
                    .adapter
                    .as_deref()
                    .is_none_or(|f| adapter_matches(&info, f))
        })
        .collect();
    if matching.is_empty() {
        return Err(GpuError::NoAdapter {
            requested: options.adapter.clone(),
            available,
        });
    }
    let adapter = matching
        .into_iter()
        .filter(|a| {
            a.get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        })
        .min_by_key(|a| {
            let info = a.get_info();
            (device_rank(info.device_type), backend_rank(info.backend))
        })
        .ok_or_else(|| {
            GpuError::Unsupported(format!(
                "no compute shader support on the adapters found ({})",
                available.join("; ")
            ))
        })?;
    Ok(adapter)
}

/// The device and queue of `adapter`, with its limits, and native `f16`
/// and subgroups wherever it has them (the probe measures both, whichever
/// path the kernels take). Fails when `options` ask for native `f16` and
/// the adapter has none.
pub(super) fn request_device(
    adapter: &wgpu::Adapter,
    options: &GpuOptions,
) -> Result<(wgpu::Device, wgpu::Queue), GpuError> {
    let info = adapter.get_info();
    native_f16(options.f16, adapter.features(), &describe(&info))?;
    let features = adapter.features() & (wgpu::Features::SHADER_F16 | wgpu::Features::SUBGROUP);
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("dual-delta"),
        required_features: features,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| GpuError::RequestDevice(format!("{}: {e}", describe(&info))))
}

/// Whether the kernels use native `f16` under `path` on a device (or
/// adapter) with `features`; `what` names it in the error of
/// [`F16Path::Native`] without `SHADER_F16`.
pub(super) fn native_f16(
    path: F16Path,
    features: wgpu::Features,
    what: &str,
) -> Result<bool, GpuError> {
    let has_f16 = features.contains(wgpu::Features::SHADER_F16);
    match path {
        F16Path::Auto => Ok(has_f16),
        F16Path::Fallback => Ok(false),
        F16Path::Native if has_f16 => Ok(true),
        F16Path::Native => Err(GpuError::Unsupported(format!(
            "{what} lacks SHADER_F16, which {ENV_F16}=native requires"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapter_filters() {
        let info = wgpu::AdapterInfo {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            driver: "llvmpipe".into(),
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan)
        };
        assert!(adapter_matches(&info, "vulkan"));
        assert!(adapter_matches(&info, "LLVMpipe"));
        assert!(!adapter_matches(&info, "gl"));
        assert!(!adapter_matches(&info, "nvidia"));
    }
}
