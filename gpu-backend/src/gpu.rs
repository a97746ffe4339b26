//! The wgpu context: adapter choice, capability checks, pipelines, and the
//! matmul entry points.

use core::fmt;
use std::borrow::Borrow;
use std::sync::OnceLock;
use std::sync::mpsc;

use half::f16;
use wgpu::util::DeviceExt as _;

use crate::shader::{self, Kernel, Params};
use crate::{Accumulation, GpuError, MatmulInput};

/// Environment variable: the GPU test policy (`require`, the default, or
/// `skip`). See [`GpuPolicy`].
pub const ENV_GPU: &str = "DUAL_DELTA_GPU";
/// Environment variable: which adapter to use (a substring of its name or
/// driver, or a backend name). See [`GpuOptions::adapter`].
pub const ENV_ADAPTER: &str = "DUAL_DELTA_ADAPTER";
/// Environment variable: which `f16` path to use (`auto`, the default,
/// `native` or `fallback`). See [`F16Path`].
pub const ENV_F16: &str = "DUAL_DELTA_GPU_F16";

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
    Native,
    /// The fallback, even where `SHADER_F16` exists: `f16` bits packed two
    /// per `u32`, converted with `unpack2x16float` / `pack2x16float`, all
    /// arithmetic in `f32` (rounded to `f16` through `pack2x16float` where
    /// [`Accumulation::F16`] needs it).
    Fallback,
}

impl F16Path {
    fn parse(value: &str) -> Result<Self, GpuError> {
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

/// How to create a [`Gpu`].
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
}

impl GpuOptions {
    /// Options from `DUAL_DELTA_ADAPTER` and `DUAL_DELTA_GPU_F16` (unset or
    /// empty: the defaults).
    pub fn from_env() -> Result<Self, GpuError> {
        let adapter = std::env::var(ENV_ADAPTER)
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        let f16 = F16Path::parse(&std::env::var(ENV_F16).unwrap_or_default())?;
        Ok(Self { adapter, f16 })
    }
}

/// What to do when no GPU is usable, from `DUAL_DELTA_GPU`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GpuPolicy {
    /// Fail the test, with a message saying how to get an adapter (the
    /// default: a GPU test never passes silently).
    #[default]
    Require,
    /// Skip the test, printing why to stderr.
    Skip,
}

impl GpuPolicy {
    /// The policy from `DUAL_DELTA_GPU`: unset, empty or `require` is
    /// [`GpuPolicy::Require`], `skip` is [`GpuPolicy::Skip`]; anything else
    /// is an error.
    pub fn from_env() -> Result<Self, GpuError> {
        Self::parse(&std::env::var(ENV_GPU).unwrap_or_default())
    }

    /// Parses a `DUAL_DELTA_GPU` value.
    pub fn parse(value: &str) -> Result<Self, GpuError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "require" => Ok(GpuPolicy::Require),
            "skip" => Ok(GpuPolicy::Skip),
            _ => Err(GpuError::InvalidSetting {
                name: ENV_GPU,
                value: value.to_owned(),
                expected: "`skip` or `require`",
            }),
        }
    }

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
/// let Some(gpu) = gpu_backend::require_gpu() else { return };
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
/// [`dual_delta_runtime::skip`], which reports the test as skipped with the
/// reason instead of failing it.
///
/// ```no_run
/// use gpu_backend::{Accumulation, MatmulInput, f16};
///
/// fn gpu_matmul(x: &MatmulInput) -> Vec<f16> {
///     gpu_backend::shared_or_skip().matmul(x, Accumulation::F32).unwrap()
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
            dual_delta_runtime::skip(format!("no GPU ({ENV_GPU}=skip): {e}"))
        }
        Err(e) => panic!("{e}"),
    }
}

/// The adapter a [`Gpu`] runs on, as recorded in reports.
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
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}, driver {} {}), f16 {}",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            self.driver_info,
            if self.shader_f16 {
                "native"
            } else {
                "fallback (packed u32)"
            }
        )
    }
}

fn describe(info: &wgpu::AdapterInfo) -> String {
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

/// A wgpu device with the matmul pipelines compiled.
///
/// One context serves any number of threads: [`Gpu::shared`] gives the
/// process-wide one; [`Gpu::new`] makes others (to force the fallback path,
/// or pick another adapter).
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: wgpu::BindGroupLayout,
    tile_f32: wgpu::ComputePipeline,
    tile_f16: wgpu::ComputePipeline,
    reduce: wgpu::ComputePipeline,
    summary: AdapterSummary,
    /// Bytes one storage binding (and buffer) may hold.
    max_binding: u64,
    /// Workgroups per dispatch dimension.
    max_dispatch: u32,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.summary)
            .finish_non_exhaustive()
    }
}

static SHARED: OnceLock<Result<Gpu, GpuError>> = OnceLock::new();

impl Gpu {
    /// The process-wide context, created on first use from
    /// [`GpuOptions::from_env`] and shared by every thread. A failure is
    /// remembered: later calls return the same error.
    pub fn shared() -> Result<&'static Gpu, GpuError> {
        SHARED
            .get_or_init(|| GpuOptions::from_env().and_then(|o| Gpu::new(&o)))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A new context on the adapter `options` choose, with its pipelines
    /// compiled. The adapter is recorded (key `gpu.adapter`) in the report
    /// of every later dual-delta run of this process.
    pub fn new(options: &GpuOptions) -> Result<Gpu, GpuError> {
        // Vulkan, Metal and DX12 first; GL only when they find nothing (its
        // EGL set-up is slow and noisy on headless machines), when asked for
        // by `DUAL_DELTA_ADAPTER=gl`, or through `WGPU_BACKEND`.
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
        let info = adapter.get_info();
        let has_f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        let native = match options.f16 {
            F16Path::Auto => has_f16,
            F16Path::Fallback => false,
            F16Path::Native if has_f16 => true,
            F16Path::Native => {
                return Err(GpuError::Unsupported(format!(
                    "{} lacks SHADER_F16, which {ENV_F16}=native requires",
                    describe(&info)
                )));
            }
        };
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("dual-delta matmul"),
            required_features: if native {
                wgpu::Features::SHADER_F16
            } else {
                wgpu::Features::empty()
            },
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::RequestDevice(format!("{}: {e}", describe(&info))))?;

        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("matmul"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("matmul"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |kernel: Kernel| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("matmul"),
                source: wgpu::ShaderSource::Wgsl(shader::source(kernel, native).into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("matmul"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let tile_f32 = pipeline(Kernel::TileF32);
        let tile_f16 = pipeline(Kernel::TileF16);
        let reduce = pipeline(Kernel::ReduceSplits);

        let summary = AdapterSummary {
            name: info.name.clone(),
            backend: info.backend.to_string(),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            shader_f16: native,
        };
        dual_delta_runtime::record_environment("gpu.adapter", summary.to_string());
        Ok(Gpu {
            device,
            queue,
            layout,
            tile_f32,
            tile_f16,
            reduce,
            summary,
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_dispatch: limits.max_compute_workgroups_per_dimension,
        })
    }

    /// The adapter this context runs on and the `f16` path in use.
    pub fn adapter_info(&self) -> &AdapterSummary {
        &self.summary
    }

    /// `C = A · B` with the given accumulation, `m × n`, row-major.
    pub fn matmul(
        &self,
        input: &MatmulInput,
        accumulation: Accumulation,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.matmul_batch(core::slice::from_ref(input), accumulation)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// Many matmuls of one shape in one command submission: the inputs are
    /// uploaded into shared buffers and each kernel is dispatched once for
    /// the whole batch (in as few groups as the device's buffer limits
    /// allow). Results are in the order of `inputs`, each identical to what
    /// [`Gpu::matmul`] returns for it.
    pub fn matmul_batch<I: Borrow<MatmulInput>>(
        &self,
        inputs: &[I],
        accumulation: Accumulation,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        let Some(first) = inputs.first() else {
            return Ok(Vec::new());
        };
        let (m, k, n) = first.borrow().shape();
        if let Some(other) = inputs
            .iter()
            .map(|x| x.borrow().shape())
            .find(|&s| s != (m, k, n))
        {
            return Err(GpuError::InvalidInput(format!(
                "a batch must have one shape: {m}×{k}×{n} and {other:?}"
            )));
        }
        let (kernel, splits) = match accumulation {
            Accumulation::F32 | Accumulation::SplitK { splits: 1 } => (Kernel::TileF32, 1),
            Accumulation::SplitK { splits: 0 } => {
                return Err(GpuError::InvalidInput(
                    "split-K needs at least one split".into(),
                ));
            }
            Accumulation::SplitK { splits } => (Kernel::TileF32, splits),
            Accumulation::F16 => (Kernel::TileF16, 1),
        };
        let plan = self.plan(m, k, n, splits)?;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("matmul"),
            });
        let mut readbacks = Vec::new();
        for group in inputs.chunks(plan.group) {
            let staging = self.encode_group(&mut encoder, group, kernel, &plan);
            readbacks.push((staging, group.len()));
        }
        let index = self.queue.submit([encoder.finish()]);
        let (tx, rx) = mpsc::channel();
        for (i, (staging, _)) in readbacks.iter().enumerate() {
            let tx = tx.clone();
            staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send((i, r));
            });
        }
        drop(tx);
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map_err(|e| GpuError::Device(format!("waiting for the matmul: {e}")))?;
        for _ in 0..readbacks.len() {
            let (i, r) = rx
                .recv()
                .map_err(|_| GpuError::Device("a result buffer was never mapped".into()))?;
            r.map_err(|e| GpuError::Device(format!("mapping result buffer {i}: {e}")))?;
        }
        let mn = m * n;
        let mut results = Vec::with_capacity(inputs.len());
        for (staging, count) in &readbacks {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| GpuError::Device(format!("reading results: {e}")))?;
            let values: Vec<f16> = if self.summary.shader_f16 {
                view.chunks_exact(2)
                    .take(count * mn)
                    .map(|b| f16::from_le_bytes([b[0], b[1]]))
                    .collect()
            } else {
                view.chunks_exact(4)
                    .take(count * mn)
                    .map(|b| f16::from_le_bytes([b[0], b[1]]))
                    .collect()
            };
            drop(view);
            staging.unmap();
            results.extend(values.chunks_exact(mn).map(<[f16]>::to_vec));
        }
        Ok(results)
    }

    /// Buffer sizes and batch grouping for one shape.
    fn plan(&self, m: usize, k: usize, n: usize, splits: u32) -> Result<Plan, GpuError> {
        let (m64, k64, n64, s64) = (m as u64, k as u64, n as u64, u64::from(splits));
        let out_elem = if self.summary.shader_f16 { 2 } else { 4 };
        let a = m64 * k64 * 2;
        let b = k64 * n64 * 2;
        let c = m64 * n64 * out_elem;
        let part = if splits > 1 { c * s64 } else { 0 };
        let largest = a.max(b).max(part).max(c);
        // Element indices are u32 in the shaders.
        let limit = self.max_binding.min(u64::from(u32::MAX));
        if largest > limit {
            return Err(GpuError::TooLarge {
                needed: largest,
                limit,
            });
        }
        let tiles_m = m.div_ceil(shader::TM as usize) as u64;
        let tiles_n = n.div_ceil(shader::TN as usize) as u64;
        let items_per = tiles_m * tiles_n * s64;
        let max_items = u64::from(self.max_dispatch).pow(2) * u64::from(shader::TILE_WORKGROUP);
        let group = (limit / largest)
            .min(max_items / items_per.max(1))
            .min(max_items / (m64 * n64))
            .max(1);
        Ok(Plan {
            params: Params {
                m: m as u32,
                k: k as u32,
                n: n as u32,
                splits,
                chunk: k.div_ceil(splits as usize) as u32,
                tiles_m: tiles_m as u32,
                tiles_n: tiles_n as u32,
                batch: 0,
            },
            group: usize::try_from(group).unwrap_or(usize::MAX),
            out_elem,
        })
    }

    /// Uploads one group of inputs and records its dispatches; returns the
    /// buffer the results will be copied into.
    fn encode_group<I: Borrow<MatmulInput>>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        group: &[I],
        kernel: Kernel,
        plan: &Plan,
    ) -> wgpu::Buffer {
        let p = Params {
            batch: group.len() as u32,
            ..plan.params
        };
        let count = group.len() as u64;
        let mn = u64::from(p.m) * u64::from(p.n);
        let a = self.upload("A", group.iter().map(|x| x.borrow().a()));
        let b = self.upload("B", group.iter().map(|x| x.borrow().b()));
        let params = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: bytemuck::bytes_of(&p),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let out_bytes = padded(count * mn * plan.out_elem);
        let out = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("C"),
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let split = p.splits > 1;
        let partials = split.then(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("split-K partials"),
                size: padded(count * mn * u64::from(p.splits) * plan.out_elem),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        });
        let bind = |input: &wgpu::Buffer, output: &wgpu::Buffer| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("matmul"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: input.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: b.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: output.as_entire_binding(),
                    },
                ],
            })
        };
        let tile_group = bind(&a, partials.as_ref().unwrap_or(&out));
        let reduce_group = partials.as_ref().map(|part| bind(part, &out));
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("matmul"),
                timestamp_writes: None,
            });
            pass.set_pipeline(match kernel {
                Kernel::TileF16 => &self.tile_f16,
                _ => &self.tile_f32,
            });
            pass.set_bind_group(0, &tile_group, &[]);
            let items = count * u64::from(p.tiles_m) * u64::from(p.tiles_n) * u64::from(p.splits);
            let (x, y) = self.grid(items, shader::TILE_WORKGROUP);
            pass.dispatch_workgroups(x, y, 1);
            if let Some(reduce_group) = &reduce_group {
                pass.set_pipeline(&self.reduce);
                pass.set_bind_group(0, reduce_group, &[]);
                let (x, y) = self.grid(count * mn, shader::REDUCE_WORKGROUP);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("C readback"),
            size: out_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, out_bytes);
        staging
    }

    /// A storage buffer holding the concatenation of `parts` (`f16` values;
    /// the bytes are the same for the native and the packed path).
    fn upload<'a>(
        &self,
        label: &str,
        parts: impl Iterator<Item = &'a [f16]> + Clone,
    ) -> wgpu::Buffer {
        let bytes: u64 = parts.clone().map(|p| 2 * p.len() as u64).sum();
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: padded(bytes),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        {
            let mut view = buffer
                .get_mapped_range_mut(..)
                .expect("a buffer mapped at creation can be written");
            let mut offset = 0usize;
            for part in parts {
                let src: &[u8] = bytemuck::cast_slice(part);
                view.slice(offset..offset + src.len()).copy_from_slice(src);
                offset += src.len();
            }
        }
        buffer.unmap();
        buffer
    }

    /// A 2-D grid of workgroups covering `items` invocations.
    fn grid(&self, items: u64, workgroup: u32) -> (u32, u32) {
        let groups = items.div_ceil(u64::from(workgroup)).max(1);
        let max = u64::from(self.max_dispatch);
        let x = groups.min(max);
        let y = groups.div_ceil(x);
        (x as u32, y as u32)
    }
}

/// Buffer sizes for one shape.
struct Plan {
    /// Shape fields of the uniform (batch filled per group).
    params: Params,
    /// Matmuls per dispatch group.
    group: usize,
    /// Bytes per output element (2 native, 4 packed).
    out_elem: u64,
}

/// `bytes` rounded up to a multiple of 4 (wgpu's copy alignment), at least 4.
fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        assert_eq!(GpuPolicy::parse("").unwrap(), GpuPolicy::Require);
        assert_eq!(GpuPolicy::parse("require").unwrap(), GpuPolicy::Require);
        assert_eq!(GpuPolicy::parse(" SKIP ").unwrap(), GpuPolicy::Skip);
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
    #[should_panic(expected = "is not understood")]
    fn skip_policy_does_not_hide_bad_settings() {
        GpuPolicy::Skip.apply(Err(GpuError::InvalidSetting {
            name: ENV_F16,
            value: "x".into(),
            expected: "`auto`, `native` or `fallback`",
        }));
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

    #[test]
    fn padding() {
        assert_eq!(padded(0), 4);
        assert_eq!(padded(2), 4);
        assert_eq!(padded(4), 4);
        assert_eq!(padded(6), 8);
    }
}
