//! What is asked of the device, from the environment or in code: the
//! [`GpuOptions`] a context is created with ([`F16Path`], [`Subgroups`],
//! [`MatmulTiling`], the driver freedoms imitated) and the [`GpuPolicy`] of
//! GPU tests. Each variable is read by its row of the settings table.

use dual_delta_settings::Value;
use dual_delta_settings::gpu;

use crate::env;
use crate::error::GpuError;
use crate::wgsl::SourceTransform;

/// How the kernels store and convert `f16` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// Parses a `DUAL_DELTA_GPU_F16` value.
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        env::choice(&gpu::GPU_F16, value, |variant| match variant {
            "Native" => F16Path::Native,
            "Fallback" => F16Path::Fallback,
            _ => F16Path::Auto,
        })
    }
}

/// Whether the matmul kernels share values through subgroup operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// Parses a `DUAL_DELTA_GPU_SUBGROUPS` value.
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        env::choice(&gpu::GPU_SUBGROUPS, value, |variant| match variant {
            "Off" => Subgroups::Off,
            _ => Subgroups::Auto,
        })
    }
}

/// Which tile kernels the matmuls use. Every choice gives the same bits:
/// each output sums its products in the same order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// Parses a `DUAL_DELTA_GPU_TILING` value.
    pub(super) fn parse(value: &str) -> Result<Self, GpuError> {
        env::choice(&gpu::GPU_TILING, value, |variant| match variant {
            "Registers" => MatmulTiling::Registers,
            "Shared" => MatmulTiling::Shared,
            _ => MatmulTiling::Auto,
        })
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
        let adapter = env::read(&gpu::ADAPTER)?.map(Value::text);
        let f16 = F16Path::parse(&env::text(&gpu::GPU_F16))?;
        let subgroups = Subgroups::parse(&env::text(&gpu::GPU_SUBGROUPS))?;
        let tiling = MatmulTiling::parse(&env::text(&gpu::GPU_TILING))?;
        let strip_round_trips = parse_round_trips(&env::text(&gpu::GPU_ROUND_TRIPS))?;
        let imitate = SourceTransform::parse(&env::text(&gpu::GPU_IMITATE))?;
        let require_hardware = GpuPolicy::from_env()? == GpuPolicy::RequireHardware;
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
    env::choice(&gpu::GPU_ROUND_TRIPS, value, |variant| variant == "Strip")
}

/// What to do when no GPU is usable, and whether a CPU adapter counts as
/// one, from `DUAL_DELTA_GPU`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GpuPolicy {
    /// Fail the test, with a message saying how to get an adapter (the
    /// default: a GPU test never passes silently).
    #[default]
    Require,
    /// Skip the test, printing why to stderr.
    Skip,
    /// As [`GpuPolicy::Require`], and the adapter must be a hardware GPU:
    /// creating a context on a CPU driver (llvmpipe, lavapipe, any
    /// `wgpu::DeviceType::Cpu`) fails with [`GpuError::NotHardware`]
    /// ([`GpuOptions::require_hardware`](crate::GpuOptions::require_hardware)). For runs that are meant to run
    /// on a GPU, where a missing vendor driver would otherwise fall back to
    /// llvmpipe and pass.
    RequireHardware,
}

impl GpuPolicy {
    /// The policy from `DUAL_DELTA_GPU`: unset, empty or `require` is
    /// [`GpuPolicy::Require`], `skip` is [`GpuPolicy::Skip`],
    /// `require-hardware` is [`GpuPolicy::RequireHardware`]; anything else
    /// is an error.
    pub fn from_env() -> Result<Self, GpuError> {
        Self::parse(&env::text(&gpu::GPU))
    }

    /// Parses a `DUAL_DELTA_GPU` value.
    pub fn parse(value: &str) -> Result<Self, GpuError> {
        env::choice(&gpu::GPU, value, |variant| match variant {
            "Skip" => GpuPolicy::Skip,
            "RequireHardware" => GpuPolicy::RequireHardware,
            _ => GpuPolicy::Require,
        })
    }
}

#[cfg(test)]
mod tests {
    use dual_delta_settings::Kind;

    use super::*;

    /// The names of a choice's row, each with its variant.
    fn choices(variable: &gpu::Variable) -> &'static [(&'static str, &'static str)] {
        match variable.kind {
            Kind::Choice(choices) => choices,
            kind => panic!("{} is no choice: {kind:?}", variable.env),
        }
    }

    #[test]
    fn every_name_of_a_row_gives_the_variant_it_names() {
        fn check<T: core::fmt::Debug>(
            variable: &gpu::Variable,
            parse: fn(&str) -> Result<T, GpuError>,
        ) {
            for (name, variant) in choices(variable) {
                let parsed = format!("{:?}", parse(name).unwrap());
                assert_eq!(parsed, *variant, "{}={name}", variable.env);
            }
        }
        check(&gpu::GPU, GpuPolicy::parse);
        check(&gpu::GPU_F16, F16Path::parse);
        check(&gpu::GPU_SUBGROUPS, Subgroups::parse);
        check(&gpu::GPU_TILING, MatmulTiling::parse);
        for (name, variant) in choices(&gpu::GPU_ROUND_TRIPS) {
            assert_eq!(parse_round_trips(name).unwrap(), *variant == "Strip");
        }
    }

    #[test]
    fn settings_parse() {
        assert_eq!(GpuPolicy::parse("").unwrap(), GpuPolicy::Require);
        assert_eq!(GpuPolicy::parse("require").unwrap(), GpuPolicy::Require);
        assert_eq!(GpuPolicy::parse(" SKIP ").unwrap(), GpuPolicy::Skip);
        assert_eq!(
            GpuPolicy::parse("require-hardware").unwrap(),
            GpuPolicy::RequireHardware
        );
        assert!(matches!(
            GpuPolicy::parse("yes"),
            Err(GpuError::InvalidSetting {
                name: "DUAL_DELTA_GPU",
                ..
            })
        ));
        assert_eq!(F16Path::parse("").unwrap(), F16Path::Auto);
        assert_eq!(F16Path::parse("fallback").unwrap(), F16Path::Fallback);
        assert_eq!(F16Path::parse("Native").unwrap(), F16Path::Native);
        assert!(F16Path::parse("packed").is_err());
    }

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
}
