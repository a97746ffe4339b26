//! FP16 matrix multiplication on the GPU through [wgpu], with the
//! accumulation strategies real GPU libraries use, and the CPU references
//! to compare them with in dual-delta tests.
//!
//! **The [`guide`]** has the GPU chapters of dual-delta's guide: the
//! kernels and their references, real GPUs, the paper reproduced.
//!
//! It reproduces the three FP16 matmul case studies of the Dual-Delta
//! Testing paper, with inputs `torch.randn(...).half()`
//! ([`random_matmul_input`](matmul::random_matmul_input)), the oracle in `f64` ([`matmul_f64`](matmul::matmul_f64)) and
//! PyTorch's CPU half matmul as the baseline ([`matmul_cpu_f16`](matmul::matmul_cpu_f16)):
//!
//! | case | shape | GPU strategy ([`GemmConfig::strategy_for`](matmul::GemmConfig::strategy_for)) | GPU vs CPU |
//! |------|-------|-----------------------------------------------|------------|
//! | 1 | `128×128 @ 128×128` | [`Accumulation::F32`](matmul::Accumulation::F32) | equal |
//! | 2 | `128×4096 @ 4096×128`, PyTorch's default | [`Accumulation::SplitK`](matmul::Accumulation::SplitK) (8 splits) | worse: ≈3.1e-2 against ≈4.8e-4 |
//! | 3 | the same, `allow_fp16_reduced_precision_reduction = False` | [`Accumulation::F32`](matmul::Accumulation::F32) | equal again |
//!
//! ```no_run
//! use dual_delta_gpu::f16;
//! use dual_delta_gpu::matmul::{Accumulation, GemmConfig, matmul_cpu_f16, matmul_f64, random_matmul_input};
//! use dual_delta_runtime::TrialRng;
//!
//! let gpu = dual_delta_gpu::Gpu::shared()?;
//! let input = random_matmul_input::<f16>(128, 4096, 128)(&mut TrialRng::for_trial(7, 0));
//! let strategy = GemmConfig::default().strategy_for(128, 4096, 128);
//! assert_eq!(strategy, Accumulation::split_k());
//! let candidate = gpu.run(&input, strategy)?;   // Vec<f16>
//! let baseline = matmul_cpu_f16(&input);          // Vec<f16>
//! let oracle = matmul_f64(&input);                // Vec<f64>
//! # let _ = (candidate, baseline, oracle);
//! # Ok::<(), dual_delta_gpu::GpuError>(())
//! ```
//!
//! # Device
//!
//! One context per process, [`Gpu::shared`], is created on first use and
//! shared by every thread (tests run on parallel threads); each kernel is
//! compiled the first time it runs, and kept. [`Gpu::new`] creates others, for example to force the
//! fallback path, and [`Gpu::from_device`] makes one on a wgpu device the
//! caller already has (the wgpu it takes is re-exported as [`wgpu`]); the
//! probe below is [`DeviceSemantics::probe`](semantics::DeviceSemantics::probe)
//! on any device. The adapter chosen (name, backend, driver, `f16` path) is
//! [`Gpu::adapter_info`], and is recorded under the key `gpu.adapter` in
//! the report of every dual-delta run whose functions dispatch a kernel on
//! the context.
//!
//! When a context is created, a probe of a few small shaders measures what
//! the device does to floating-point arithmetic ([`Gpu::semantics`],
//! [`semantics::DeviceSemantics`]): whether `f16` arithmetic rounds each
//! operation, whether the driver removes conversion round trips, `fma`
//! fusion and contraction, subnormals, the rounding of conversions,
//! division and square root, subgroup sizes, NaN and infinities. Its
//! one-line summary is recorded under `gpu.semantics`, and what differs from
//! the emulations' assumptions, in words, under `gpu.caveats`
//! (`cargo run --release -p dual-delta-gpu --example probe` prints it all).
//!
//! Where there is no GPU (as in CI), Mesa's lavapipe is the adapter: a
//! Vulkan driver running on the CPU (`apt-get install mesa-vulkan-drivers
//! libvulkan1`). With no adapter at all, [`Gpu::shared`] returns
//! [`GpuError::NoAdapter`], whose message says exactly that and how to
//! install lavapipe.
//!
//! Capabilities are checked when the context is created. With wgpu's
//! `SHADER_F16` the kernels use native `f16` (`enable f16;`, `array<f16>`
//! buffers); without it, or when forced, a fallback keeps the same `f16`
//! bits packed two per `u32` and converts with `unpack2x16float` /
//! `pack2x16float` ([`F16Path`](device::F16Path)). Both give identical results for
//! [`Accumulation::F32`](matmul::Accumulation::F32) and [`Accumulation::SplitK`](matmul::Accumulation::SplitK). With wgpu's
//! `SUBGROUP` and subgroups of at least eight invocations (llvmpipe at 256
//! bits has exactly eight), the matmul kernels' workgroups read each row of
//! `B` once and share it with `subgroupBroadcast`; elsewhere, or with
//! [`Subgroups::Off`](device::Subgroups::Off), each invocation reads its own. Both give identical
//! results. Those register-block kernels are tuned for llvmpipe; on
//! discrete and integrated GPUs the matmuls use workgroup-shared tiles
//! instead ([`MatmulTiling`](device::MatmulTiling): workgroups of 64 invocations staging `A` and
//! `B` in workgroup memory), which sum every output in the same order and
//! give the same bits.
//!
//! ## Environment variables
//!
//! | variable | values | default | effect |
//! |----------|--------|---------|--------|
//! | `DUAL_DELTA_GPU` | `skip`, `require` or `require-hardware` | `require` | With `skip`, [`require_gpu`] skips a GPU test (printing why to stderr) when no GPU is usable; by default such a test fails, never passes silently. With `require-hardware`, a CPU adapter (llvmpipe) fails too ([`GpuOptions::require_hardware`]). |
//! | `DUAL_DELTA_ADAPTER` | a backend (`vulkan`, `metal`, `dx12`, `gl`; `gl` needs the crate's `gles` feature) or part of an adapter's name or driver (`llvmpipe`) | the best adapter: discrete, integrated, virtual GPUs, then CPU drivers | Which adapter [`Gpu::shared`] uses ([`GpuOptions::adapter`]). |
//! | `DUAL_DELTA_GPU_F16` | `auto`, `native` or `fallback` | `auto` | The `f16` path ([`F16Path`](device::F16Path)). |
//! | `DUAL_DELTA_GPU_SUBGROUPS` | `auto` or `off` | `auto` | Whether the matmul kernels share `B` through subgroup operations ([`Subgroups`](device::Subgroups)); the same bits either way. |
//! | `DUAL_DELTA_GPU_TILING` | `auto`, `registers` or `shared` | `auto` | The matmul tile kernels ([`MatmulTiling`](device::MatmulTiling)): workgroup-shared tiles on discrete and integrated GPUs, register blocks on llvmpipe; the same bits either way. |
//! | `DUAL_DELTA_GPU_ROUND_TRIPS` | `keep` or `strip` | `keep` | With `strip`, every shader is compiled with its conversion round trips removed, as NVIDIA's Vulkan driver does ([`GpuOptions::strip_round_trips`]): on lavapipe, the results such a driver gives. |
//! | `DUAL_DELTA_GPU_IMITATE` | `all`, `none` or a comma-separated list of `strip`, `div-sqrt`, `nan-fold`, `contract`, `f16-store`, `ftz32`, `ftz16`, `fold-identities`, `nan-times-zero`, `reassoc` | `none` | Every shader compiled with these driver freedoms imitated on its WGSL ([`SourceTransform`](device::SourceTransform), [`GpuOptions::imitate`]). |
//! | `DUAL_DELTA_WGSL_DUMP` | a folder | none | For the ignored unit test `dump_wgsl` (`DUAL_DELTA_WGSL_DUMP=DIR cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored`): writes the compiled WGSL of every kernel there, to compare two versions byte for byte. |
//!
//! Unset or blank, each takes its default; a value it does not take is an
//! error ([`GpuError::InvalidSetting`]), never a silent default. The table
//! is dual-delta's settings crate's (`dual_delta_settings::gpu`), whose
//! rules read them; their names are the constants of [`env`](mod@env).
//! wgpu's own variables (`WGPU_BACKEND`, ...) apply as well.
//!
//! # Kernels
//!
//! `C = A · B` with `A` `m × k` and `B` `k × n` row-major `f16`, `C`
//! `m × n` `f16`, any `m, k, n ≥ 1`. [`Accumulation`](matmul::Accumulation) documents each
//! strategy and the hardware behaviour it stands for; [`GemmConfig`](matmul::GemmConfig)
//! mirrors PyTorch's `allow_fp16_reduced_precision_reduction` flag and
//! documents when it splits.
//!
//! The kernels read `A` and `B` from `Rgba32Uint` textures, eight `f16`
//! per texel, with their loops unrolled when the WGSL is generated. On
//! lavapipe the cost is in the loads: a storage-buffer load is done one
//! lane and one 32-bit word at a time, while a texel fetch is vectorised.
//! Workgroups are 8 invocations, one llvmpipe SIMD vector, so that even a
//! `128 × 128` output spreads over every CPU core. Where the adapter has
//! subgroups of at least 8, a workgroup owns a `32 × 32` block of `C`: each
//! invocation sums 4 rows of it, fetches one of each step's eight rows of
//! `B`, and `subgroupBroadcast` shares the rows of `B` (one fetch per
//! workgroup instead of one per invocation); elsewhere each invocation
//! owns an `8 × 16` block and reads its own. The `f16`-accumulating kernel
//! uses `4 × 8` blocks either way, steps all its sums together and rounds
//! with integer operations (its time is in the chains of roundings; larger
//! blocks were slower and took LLVM up to 28 s to compile). Measured at `128×4096 @
//! 4096×128` with `f32` accumulation on a 2-core Zen 4, llvmpipe compiled
//! for AVX2 (`GALLIUM_OVERRIDE_CPU_CAPS=avx`, as on AVX2-only CI
//! machines), medians of 11: 3.7 ms with subgroups, 5.2 ms without,
//! against 34 ms for the first kernels (`16 × 16` blocks, one `f16` per
//! storage load) and 1.43 ms for [`matmul_cpu_f16`](matmul::matmul_cpu_f16); split-K 4.5 ms,
//! `f16` accumulation 25 ms (see `examples/matmul_timing.rs` and the
//! README's Speed section). Other lane blocks, against `8 × 16`: `8 × 8`
//! about as fast, `4 × 16` 1.2× slower, `16 × 16` 1.3×, `4 × 8` 2.2×;
//! `vec4<u32>` storage loads instead of textures 1.7×; shared-memory
//! tiling does not pay on lavapipe. To keep every texel inside one
//! split-K chunk, `A` and `B` are uploaded with each chunk of `k` padded
//! with zeros to a multiple of 8 (`-0` in `A`, `+0` in `B`: the padding
//! adds `-0` terms after the chunk's last product, which change no sum,
//! not even one rounded to `-0`). Loads are clamped to the
//! matrix so the inner loop has no bounds checks; stores outside `C` are
//! skipped. Split-K runs the tile kernel once per chunk into an `f16`
//! partials buffer and a second kernel sums the partials.
//! [`Gpu::run_batch`] runs many matmuls of one shape in a few
//! submissions (groups of at most 8 MiB of input).
//!
//! Kernel families, each in its own module with its strategies (each a
//! [`Kernel`], run by [`Gpu::run`] and [`Gpu::run_batch`]), its shaders,
//! its CPU references and a CPU emulation that gives the GPU's result bit
//! for bit on lavapipe:
//!
//! * Matmul: [`Accumulation`](matmul::Accumulation) (`f32`, split-K, `f16`);
//!   emulation [`matmul_cpu_emulated`](matmul::matmul_cpu_emulated), and
//!   [`matmul_emulated_with`](matmul::matmul_emulated_with) on a device
//!   that flushes `f16` subnormals.
//! * Row sums: [`SumStrategy`](reductions::SumStrategy) (serial `f16`,
//!   strided `f16`, strided `f32`, pairwise `f32`); emulation
//!   [`reduce_sum_emulated`](reductions::reduce_sum_emulated), and
//!   [`reduce_sum_emulated_with`](reductions::reduce_sum_emulated_with)
//!   on a device that flushes `f16` subnormals.
//! * Softmax over the last axis: [`SoftmaxStrategy`](reductions::SoftmaxStrategy)
//!   (careful, no max subtraction, `f16` denominator, online); emulation
//!   [`softmax_emulated`](reductions::softmax_emulated), with `exp` computed as [`kernel_exp`](reductions::kernel_exp).
//! * LayerNorm over the last axis: [`LayerNormStrategy`](norm::LayerNormStrategy)
//!   (one-pass `E[x²] − E[x]²`, two-pass, Welford), one workgroup per row
//!   like the row kernels; emulation [`layer_norm_emulated`](norm::layer_norm_emulated).
//! * RMSNorm over the last axis: [`RmsNormStrategy`](norm::RmsNormStrategy)
//!   (sum of squares in `f32`, or accumulated in `f16`); emulation
//!   [`rms_norm_emulated`](norm::rms_norm_emulated).
//! * Scaled-dot-product attention: [`AttentionStrategy`](attention::AttentionStrategy)
//!   (naive with `f16` scores, flash with `f32` or `f16` accumulation), one
//!   invocation per (head, query); emulation [`attention_emulated`](attention::attention_emulated).
//! * `bf16` matmul ([`MatmulInput<bf16>`](matmul::MatmulInput)): [`Bf16Accumulation`](matmul_lowp::Bf16Accumulation) (`f32`,
//!   `bf16`); emulation [`matmul_emulated_bf16`](matmul_lowp::matmul_emulated_bf16); oracle
//!   [`matmul_f64_bf16`](matmul_lowp::matmul_f64_bf16), baseline [`matmul_cpu_bf16`](matmul_lowp::matmul_cpu_bf16).
//! * FP8 GEMM, E4M3 × E4M3 with per-tensor scales
//!   ([`MatmulInput<E4m3>`](matmul::MatmulInput)):
//!   [`Fp8Accumulation`](matmul_lowp::Fp8Accumulation) (`f32`; the limited accumulation of Hopper's FP8
//!   tensor cores, [`fp8_fused_dot_add`](matmul_lowp::fp8_fused_dot_add); that promoted to `f32` every 128
//!   products); emulation [`matmul_emulated_fp8`](matmul_lowp::matmul_emulated_fp8); oracle
//!   [`matmul_f64_fp8`](matmul_lowp::matmul_f64_fp8), baseline [`matmul_cpu_fp8`](matmul_lowp::matmul_cpu_fp8).
//!
//! Every rounding to `f16` (or `bf16`) inside a kernel is done with integer
//! operations on the bits, never as a conversion round trip
//! (`f32(f16(v))`, `unpack2x16float(pack2x16float(..))`), which NVIDIA's
//! Vulkan driver removes: the `f16` mistakes show on every device, and
//! `DUAL_DELTA_GPU_ROUND_TRIPS=strip` shows on lavapipe what such a driver
//! would give ([`GpuOptions::strip_round_trips`]).
//!
//! The row kernels run one workgroup of [`ROW_THREADS`](reductions::ROW_THREADS) invocations per
//! row, each invocation over a strided slice, combined by a fixed tree
//! (documented on [`SumStrategy`](reductions::SumStrategy)); `*_batch` versions take many inputs
//! of one row length in one submission.
//!
//! # CPU references
//!
//! * [`matmul_cpu_f16`](matmul::matmul_cpu_f16): PyTorch's CPU half matmul (`f32` accumulation,
//!   one rounding), through the `gemm` crate's `f32` kernel.
//! * [`matmul_f64`](matmul::matmul_f64): the oracle, on the exact input values, through the
//!   `gemm` crate's `f64` kernel.
//! * [`matmul_cpu_emulated`](matmul::matmul_cpu_emulated) and [`matmul_cpu_split_k`](matmul::matmul_cpu_split_k): the GPU kernels'
//!   arithmetic replayed on the CPU, step for step.
//!
//! The other families have theirs in their modules: reductions
//! ([`sum_f64`](reductions::sum_f64), [`mean_f64`](reductions::mean_f64),
//! [`dot_f64`](reductions::dot_f64)), [`softmax_f64`](reductions::softmax_f64) and
//! [`log_softmax_f64`](reductions::log_softmax_f64),
//! [`layer_norm_f64`](norm::layer_norm_f64) and
//! [`rms_norm_f64`](norm::rms_norm_f64), and scaled-dot-product
//! [`attention_f64`](attention::attention_f64), each an `f64` oracle
//! (every sum in double-double, rounded once) with its `f32`-accumulating
//! CPU baseline (`sum_cpu`, ..., [`attention_cpu`](attention::attention_cpu)),
//! PyTorch's CPU "opmath" rule: inputs widened to `f32`, each output
//! rounded once; generic over `f16`, `bf16` and `f32` inputs
//! ([`KernelElement`]).
//!
//! # Modules
//!
//! The root holds the context, [`Gpu`] with [`Gpu::run`] and
//! [`Gpu::run_batch`], its options [`GpuOptions`], its errors
//! [`GpuError`], the trait every strategy implements ([`Kernel`]), the
//! element types [`f16`](struct@f16), [`bf16`] and [`KernelElement`], and
//! the policy for tests without a GPU ([`require_gpu`],
//! [`shared_or_skip`]). Everything else lives in one module, under one
//! path:
//!
//! | module | contents |
//! |--------|----------|
//! | [`matmul`] | the matmuls: [`Accumulation`](matmul::Accumulation), [`GemmConfig`](matmul::GemmConfig), the input [`MatmulInput`](matmul::MatmulInput) over `f16`, `bf16` or FP8, CPU baseline, oracles and emulations |
//! | [`matmul_lowp`] | the `bf16` and FP8 matmuls: their strategies, emulations, baselines and oracles |
//! | [`reductions`] | row sums and softmax: [`SumStrategy`](reductions::SumStrategy), [`SoftmaxStrategy`](reductions::SoftmaxStrategy), their inputs, references, emulations and limits |
//! | [`norm`] | LayerNorm and RMSNorm: [`LayerNormStrategy`](norm::LayerNormStrategy), [`RmsNormStrategy`](norm::RmsNormStrategy), their input, references, emulations and limits |
//! | [`attention`] | scaled-dot-product attention: [`AttentionStrategy`](attention::AttentionStrategy), its input, references, emulation and limits |
//! | [`device`] | the adapter policy ([`F16Path`](device::F16Path), [`Subgroups`](device::Subgroups), [`MatmulTiling`](device::MatmulTiling)), what was found ([`AdapterSummary`](device::AdapterSummary)), and the GPU test policy ([`GpuPolicy`](device::GpuPolicy)) |
//! | [`semantics`] | the probe of the device's floating-point arithmetic |
//! | [`randn`] | standard normal samples drawn a block at a time: the inputs of every generator here |
//! | [`env`](mod@env) | the names of the environment variables |
//!
//! [wgpu]: https://wgpu.rs

#![warn(missing_docs)]

#[macro_use]
mod strategy;

pub mod attention;
mod compile;
pub mod device;
#[cfg(test)]
mod dump;
mod element;
pub mod env;
mod error;
pub mod guide;
mod launch;
pub mod matmul;
pub mod matmul_lowp;
pub mod norm;
mod pipelines;
pub mod randn;
pub mod reductions;
#[cfg(test)]
mod registry;
pub mod semantics;
mod submit;
mod wgsl;

pub use crate::device::context::Gpu;
pub use crate::device::options::GpuOptions;
pub use crate::device::policy::{require_gpu, shared_or_skip};
pub use crate::element::KernelElement;
pub use crate::error::GpuError;
pub use crate::launch::Kernel;

/// `f16`, the element type of inputs and outputs (re-exported from `half`).
pub use half::f16;

/// `bf16`, an element type of the references (re-exported from `half`).
pub use half::bf16;

/// The wgpu this crate is built on, for [`Gpu::from_device`]: a device
/// created through it is one this crate can take.
pub use wgpu;
