//! The names of the environment variables that choose the device and its
//! paths (see the crate documentation's table).

/// Environment variable: the GPU test policy (`require`, the default, or
/// `skip`). See [`GpuPolicy`](crate::device::GpuPolicy).
pub const ENV_GPU: &str = "DUAL_DELTA_GPU";
/// Environment variable: which adapter to use (a substring of its name or
/// driver, or a backend name). See [`GpuOptions::adapter`](crate::GpuOptions::adapter).
pub const ENV_ADAPTER: &str = "DUAL_DELTA_ADAPTER";
/// Environment variable: which `f16` path to use (`auto`, the default,
/// `native` or `fallback`). See [`F16Path`](crate::device::F16Path).
pub const ENV_F16: &str = "DUAL_DELTA_GPU_F16";
/// Environment variable: whether the matmul kernels use subgroup
/// operations (`auto`, the default, or `off`). See [`Subgroups`](crate::device::Subgroups).
pub const ENV_SUBGROUPS: &str = "DUAL_DELTA_GPU_SUBGROUPS";
/// Environment variable: which tile kernels the matmuls use (`auto`, the
/// default, `registers` or `shared`). See [`MatmulTiling`](crate::device::MatmulTiling).
pub const ENV_TILING: &str = "DUAL_DELTA_GPU_TILING";
/// Environment variable: `strip` compiles every shader with its conversion
/// round trips removed, as NVIDIA's Vulkan driver does (`keep`, the
/// default, compiles them as written). See
/// [`GpuOptions::strip_round_trips`](crate::GpuOptions::strip_round_trips).
pub const ENV_ROUND_TRIPS: &str = "DUAL_DELTA_GPU_ROUND_TRIPS";
/// Environment variable: the driver freedoms every shader is compiled
/// with, imitated on its WGSL (`all`, `none`, the default, or a
/// comma-separated list of `strip`, `div-sqrt`, `nan-fold`, `contract`,
/// `f16-store`, `ftz32`, `ftz16`, `fold-identities`, `nan-times-zero`, `reassoc`). See
/// [`GpuOptions::imitate`](crate::GpuOptions::imitate).
pub const ENV_IMITATE: &str = "DUAL_DELTA_GPU_IMITATE";
