//! The adapter policy: which adapters are looked for, which one is chosen,
//! and whether the kernels use native `f16` on it.

use core::fmt;

use super::env::{
    ENV_ADAPTER, ENV_F16, ENV_GPU, ENV_IMITATE, ENV_ROUND_TRIPS, ENV_SUBGROUPS, ENV_TILING,
};
use super::policy::GpuPolicy;
use crate::GpuError;
use crate::wgsl::SourceTransform;

/// How the kernels store and convert `f16` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum F16Path {
    /// Native `f16` when the adapter has `SHADER_F16`, the fallback
    /// otherwise.
    #[default]
    Auto,
    /// Native `f16` (`enable f16;`, `array<f16>` buffers, `f16` arithmetic
    /// for [`Accumulation::F16`]); an error when the adapter lacks
    /// `SHADER_F16`.
    ///
    /// [`Accumulation::F16`]: crate::matmul::Accumulation::F16
    Native,
    /// The fallback, even where `SHADER_F16` exists: `f16` bits packed two
    /// per `u32`, converted with `unpack2x16float` / `pack2x16float`, all
    /// arithmetic in `f32` (rounded to `f16` through `pack2x16float` where
    /// [`Accumulation::F16`] needs it).
    ///
    /// [`Accumulation::F16`]: crate::matmul::Accumulation::F16
    Fallback,
}

impl F16Path {
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(F16Path::Auto),
            "native" => Ok(F16Path::Native),
            "fallback" => Ok(F16Path::Fallback),
            _ => Err(GpuError::InvalidSetting {
                name: ENV_F16,
                value: value.to_owned(),
                expected: "`auto`, `native` or `fallback`",
            }),
        }
    }
}

/// Whether the matmul kernels share values through subgroup operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Subgroups {
    /// Where the adapter has wgpu's `SUBGROUP` feature with subgroups of
    /// at least 8 invocations (llvmpipe at 256 bits: exactly 8), the
    /// workgroups of eight invocations of the matmul kernels share the
    /// rows of `B` they read with `subgroupBroadcast` (1.3–1.4× faster on
    /// llvmpipe); elsewhere each invocation reads its own.
    #[default]
    Auto,
    /// Each invocation reads its own inputs, even where subgroups exist.
    /// The results are the same bits either way.
    Off,
}

impl Subgroups {
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(Subgroups::Auto),
            "off" => Ok(Subgroups::Off),
            _ => Err(GpuError::InvalidSetting {
                name: ENV_SUBGROUPS,
                value: value.to_owned(),
                expected: "`auto` or `off`",
            }),
        }
    }
}

/// Which tile kernels the matmuls use. Every choice gives the same bits:
/// each output sums its products in the same order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MatmulTiling {
    /// [`MatmulTiling::Shared`] on discrete and integrated GPUs,
    /// [`MatmulTiling::Registers`] elsewhere (CPU drivers such as llvmpipe,
    /// virtual and unknown devices).
    #[default]
    Auto,
    /// Register blocks, tuned for llvmpipe: workgroups of 8 invocations,
    /// each (or each subgroup of 8, see [`Subgroups`]) keeping a block of
    /// `C` in registers and fetching `A` and `B` from the textures itself.
    Registers,
    /// Workgroup-shared tiles, for GPUs: workgroups of 64 invocations (two
    /// 32-wide subgroups or one 64-wide) own a `16 × 16` block of `C`,
    /// stage `A` and `B` in workgroup memory 32 products at a time, and
    /// each invocation sums `2 × 2` outputs.
    Shared,
}

impl MatmulTiling {
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(MatmulTiling::Auto),
            "registers" => Ok(MatmulTiling::Registers),
            "shared" => Ok(MatmulTiling::Shared),
            _ => Err(GpuError::InvalidSetting {
                name: ENV_TILING,
                value: value.to_owned(),
                expected: "`auto`, `registers` or `shared`",
            }),
        }
    }

    /// Whether the shared tiles are used on a device of type `device`.
    pub(super) fn shared_on(self, device: wgpu::DeviceType) -> bool {
        match self {
            MatmulTiling::Auto => matches!(
                device,
                wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::IntegratedGpu
            ),
            MatmulTiling::Registers => false,
            MatmulTiling::Shared => true,
        }
    }
}

/// How to create a [`Gpu`](crate::Gpu).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuOptions {
    /// Which adapter to use: a backend name (`vulkan`, `metal`, `dx12`,
    /// `gl`) keeps the adapters of that backend; anything else keeps the
    /// adapters whose name or driver contains it, ignoring case
    /// (`llvmpipe`, `nvidia`). `None` keeps them all. Among those kept, the
    /// choice prefers discrete, then integrated, then virtual GPUs, then
    /// CPU drivers, and Vulkan, Metal or DX12 over GL.
    pub adapter: Option<String>,
    /// The `f16` path.
    pub f16: F16Path,
    /// Whether the register-block matmul kernels use subgroup operations.
    pub subgroups: Subgroups,
    /// Which tile kernels the matmuls use.
    pub tiling: MatmulTiling,
    /// Compile every shader (the probe's included) with each conversion
    /// round trip (`f32(f16(v))`, `unpack2x16float(pack2x16float(..))`)
    /// replaced by its operand, as NVIDIA's Vulkan driver compiles them
    /// (seen on an H100). On lavapipe this shows what such a driver does to
    /// a kernel: the kernels of this crate round on the bits and give the
    /// same results, while the probe reports the round trips removed. Off
    /// by default.
    pub strip_round_trips: bool,
    /// The driver freedoms every shader (the probe's included) is compiled
    /// with, imitated on its WGSL ([`SourceTransform`]; with
    /// [`GpuOptions::strip_round_trips`], `strip` is added). On lavapipe
    /// this shows what a driver that takes them does to the kernels. None
    /// by default.
    pub imitate: SourceTransform,
    /// Fail with [`GpuError::NotHardware`] when the adapter is a CPU driver
    /// (`wgpu::DeviceType::Cpu`: llvmpipe, lavapipe): set by
    /// `DUAL_DELTA_GPU=require-hardware` ([`GpuPolicy::RequireHardware`]).
    /// Off by default.
    pub require_hardware: bool,
}

impl GpuOptions {
    /// Options from `DUAL_DELTA_ADAPTER`, `DUAL_DELTA_GPU_F16`,
    /// `DUAL_DELTA_GPU_SUBGROUPS`, `DUAL_DELTA_GPU_TILING`,
    /// `DUAL_DELTA_GPU_ROUND_TRIPS`, `DUAL_DELTA_GPU_IMITATE` and
    /// `DUAL_DELTA_GPU` (`require-hardware`) (unset or empty: the
    /// defaults).
    pub fn from_env() -> Result<Self, GpuError> {
        let adapter = std::env::var(ENV_ADAPTER)
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        let f16 = F16Path::parse(&std::env::var(ENV_F16).unwrap_or_default())?;
        let subgroups = Subgroups::parse(&std::env::var(ENV_SUBGROUPS).unwrap_or_default())?;
        let tiling = MatmulTiling::parse(&std::env::var(ENV_TILING).unwrap_or_default())?;
        let strip_round_trips =
            parse_round_trips(&std::env::var(ENV_ROUND_TRIPS).unwrap_or_default())?;
        let imitate = SourceTransform::parse(&std::env::var(ENV_IMITATE).unwrap_or_default())?;
        let require_hardware = GpuPolicy::parse(&std::env::var(ENV_GPU).unwrap_or_default())?
            == GpuPolicy::RequireHardware;
        Ok(Self {
            adapter,
            f16,
            subgroups,
            tiling,
            strip_round_trips,
            imitate,
            require_hardware,
        })
    }

    /// The transform every shader is compiled after: [`GpuOptions::imitate`],
    /// with `strip` where [`GpuOptions::strip_round_trips`] asks for it.
    pub(crate) fn transform(&self) -> SourceTransform {
        if self.strip_round_trips {
            self.imitate.union(SourceTransform::STRIP_ROUND_TRIPS)
        } else {
            self.imitate
        }
    }
}

/// Parses a `DUAL_DELTA_GPU_ROUND_TRIPS` value: whether to strip.
fn parse_round_trips(value: &str) -> Result<bool, GpuError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "keep" => Ok(false),
        "strip" => Ok(true),
        _ => Err(GpuError::InvalidSetting {
            name: ENV_ROUND_TRIPS,
            value: value.to_owned(),
            expected: "`keep` or `strip`",
        }),
    }
}

/// The adapter a [`Gpu`](crate::Gpu) runs on, as recorded in reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// ([`MatmulTiling::Shared`]).
    pub shared_tiles: bool,
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
    fn subgroup_settings_parse() {
        assert_eq!(Subgroups::parse("").unwrap(), Subgroups::Auto);
        assert_eq!(Subgroups::parse(" AUTO ").unwrap(), Subgroups::Auto);
        assert_eq!(Subgroups::parse("off").unwrap(), Subgroups::Off);
        let e = Subgroups::parse("on").unwrap_err().to_string();
        assert!(e.contains("DUAL_DELTA_GPU_SUBGROUPS"), "{e}");
    }

    #[test]
    fn tiling_settings_parse() {
        assert_eq!(MatmulTiling::parse("").unwrap(), MatmulTiling::Auto);
        assert_eq!(MatmulTiling::parse("Shared").unwrap(), MatmulTiling::Shared);
        assert_eq!(
            MatmulTiling::parse(" registers ").unwrap(),
            MatmulTiling::Registers
        );
        let e = MatmulTiling::parse("tiles").unwrap_err().to_string();
        assert!(e.contains("DUAL_DELTA_GPU_TILING"), "{e}");
        assert!(MatmulTiling::Auto.shared_on(wgpu::DeviceType::DiscreteGpu));
        assert!(MatmulTiling::Auto.shared_on(wgpu::DeviceType::IntegratedGpu));
        assert!(!MatmulTiling::Auto.shared_on(wgpu::DeviceType::Cpu));
        assert!(MatmulTiling::Shared.shared_on(wgpu::DeviceType::Cpu));
        assert!(!MatmulTiling::Registers.shared_on(wgpu::DeviceType::DiscreteGpu));
    }

    #[test]
    fn round_trip_settings_parse() {
        assert!(!parse_round_trips("").unwrap());
        assert!(!parse_round_trips("keep").unwrap());
        assert!(parse_round_trips(" Strip ").unwrap());
        let e = parse_round_trips("remove").unwrap_err().to_string();
        assert!(e.contains("DUAL_DELTA_GPU_ROUND_TRIPS"), "{e}");
    }

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
