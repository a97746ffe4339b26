//! The context: the device and queue, what the device can do, and the
//! cache of its compiled kernels.

use core::fmt;
use std::sync::{Arc, OnceLock};

use dual_delta_runtime::device::DeviceFacts;

use super::adapter::{AdapterSummary, choose_adapter, describe, native_f16, request_device};
use super::options::GpuOptions;
use crate::error::GpuError;
use crate::pipelines::{Compiled, DeviceKernels, KernelKey, PipelineKey, Pipelines};
use crate::semantics::DeviceSemantics;
use crate::wgsl::SourceTransform;

/// A wgpu device and the kernels compiled on it so far.
///
/// One context serves any number of threads: [`Gpu::shared`] gives the
/// process-wide one; [`Gpu::new`] makes others (to force the fallback path,
/// or pick another adapter); [`Gpu::from_device`] makes one on a wgpu
/// device its user already has; [`Gpu::with_options`] another on the same
/// device. Kernels are compiled on first use ([`Gpu::run`]) and kept for
/// the device's life, shared by its contexts where the source they compile
/// is the same.
pub struct Gpu {
    adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    /// Every kernel compiled so far.
    pub(crate) pipelines: Pipelines,
    pub(crate) summary: AdapterSummary,
    /// Bytes one storage binding (and buffer) may hold.
    pub(crate) max_binding: u64,
    /// Workgroups per dispatch dimension.
    pub(crate) max_dispatch: u32,
    /// Texels per side of a 2-D texture.
    pub(crate) max_texture: u32,
    /// How every shader's source is transformed before compilation.
    transform: SourceTransform,
    /// What the device does to floating-point arithmetic.
    semantics: DeviceSemantics,
    /// This context's facts for reports: its adapter, the probe's summary
    /// and caveats (`gpu.adapter`, `gpu.semantics`, `gpu.caveats`).
    pub(crate) facts: DeviceFacts,
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

    /// A new context on the adapter `options` choose, with the device
    /// probed ([`Gpu::semantics`]). The adapter
    /// (key `gpu.adapter`), the probe's one-line summary (`gpu.semantics`)
    /// and, where there are any, its caveats (`gpu.caveats`) are recorded
    /// as those of a device the process opened
    /// ([`Gpu::record_environment`]); the report of a dual-delta run names
    /// them where its functions dispatch a kernel on this context.
    pub fn new(options: &GpuOptions) -> Result<Gpu, GpuError> {
        let adapter = choose_adapter(options)?;
        let info = adapter.get_info();
        if options.require_hardware && info.device_type == wgpu::DeviceType::Cpu {
            return Err(GpuError::NotHardware(describe(&info)));
        }
        let (device, queue) = request_device(&adapter, options)?;
        let gpu = Gpu::from_device_with(&adapter, device, queue, options)?;
        gpu.record_environment();
        Ok(gpu)
    }

    /// Another context on this context's device, under `options` (its
    /// `f16` path, subgroups, tiling, round trips and imitated driver
    /// freedoms; `options.adapter` is not used): the kernels whose source
    /// `options` leave as this context compiles it are not compiled again.
    /// The device is probed under the new options ([`Gpu::semantics`]);
    /// like [`Gpu::from_device`], this records nothing in later reports.
    pub fn with_options(&self, options: &GpuOptions) -> Result<Gpu, GpuError> {
        Gpu::on_device(
            &self.adapter,
            self.device.clone(),
            self.queue.clone(),
            options,
            Arc::clone(self.pipelines.device()),
        )
    }

    /// Another context on this context's adapter, under `options` as
    /// [`Gpu::with_options`] takes them, on a device of its own: it shares
    /// no kernel with this context, and its kernels compile apart from this
    /// context's (lavapipe compiles a kernel at its first dispatch, one at
    /// a time on a device), so contexts on devices of their own compile in
    /// parallel. Like [`Gpu::with_options`], this records nothing in later
    /// reports.
    pub fn on_another_device(&self, options: &GpuOptions) -> Result<Gpu, GpuError> {
        let (device, queue) = request_device(&self.adapter, options)?;
        Gpu::on_device(&self.adapter, device, queue, options, Arc::default())
    }

    /// A context on a device its user already has: the kernels of this
    /// crate run on `device` (each compiled on first use) and the device probed
    /// ([`DeviceSemantics::probe`]), with the default [`GpuOptions`].
    /// `adapter` is the adapter `device` was requested from.
    ///
    /// The kernels use what the device was created with: native `f16`
    /// where its features include `SHADER_F16` (else the packed fallback),
    /// subgroup operations where they include `SUBGROUP`, and its limits
    /// (a larger `max_storage_buffer_binding_size` allows larger inputs).
    /// Unlike [`Gpu::new`], this writes nothing to the process's state:
    /// [`Gpu::record_environment`] records the adapter as a device the
    /// process opened, and [`Gpu::shared`] is untouched (the report of a
    /// run whose functions dispatch a kernel on this context names the
    /// adapter either way). `device` and `queue` are handles:
    /// pass clones to keep using them.
    ///
    /// ```no_run
    /// use dual_delta_gpu::Gpu;
    /// use dual_delta_gpu::wgpu;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    /// let gpu = Gpu::from_device(&adapter, device.clone(), queue.clone())?;
    /// println!("{}", gpu.semantics());
    /// # Ok(()) }
    /// ```
    pub fn from_device(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Result<Gpu, GpuError> {
        Gpu::from_device_with(adapter, device, queue, &GpuOptions::default())
    }

    /// [`Gpu::from_device`] with `options`: the `f16` path (where
    /// [`F16Path::Native`](crate::device::F16Path::Native) needs `SHADER_F16` among
    /// the device's features), subgroups, tiling and round trips as
    /// [`Gpu::new`] takes them. `options.adapter` is not used: the device
    /// is given.
    pub fn from_device_with(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: &GpuOptions,
    ) -> Result<Gpu, GpuError> {
        Gpu::on_device(adapter, device, queue, options, Arc::default())
    }

    /// [`Gpu::from_device_with`], sharing the device's `kernels` with its
    /// other contexts.
    fn on_device(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: &GpuOptions,
        kernels: Arc<DeviceKernels>,
    ) -> Result<Gpu, GpuError> {
        let info = adapter.get_info();
        if options.require_hardware && info.device_type == wgpu::DeviceType::Cpu {
            return Err(GpuError::NotHardware(describe(&info)));
        }
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            return Err(GpuError::Unsupported(format!(
                "{} has no compute shaders",
                describe(&info)
            )));
        }
        let features = device.features();
        let limits = device.limits();
        let native = native_f16(
            options.f16,
            features,
            &format!("the device on {}", describe(&info)),
        )?;
        let transform = options.transform();
        let semantics = DeviceSemantics::probe_compiled(&device, &queue, transform)?;
        let summary = AdapterSummary::new(&info, features, options, native);
        let mut facts = vec![
            ("gpu.adapter", summary.to_string()),
            ("gpu.semantics", semantics.to_string()),
        ];
        let caveats = semantics.caveats();
        if !caveats.is_empty() {
            facts.push(("gpu.caveats", caveats.join("; ")));
        }
        Ok(Gpu {
            facts: DeviceFacts::new(facts),
            adapter: adapter.clone(),
            device,
            queue,
            pipelines: Pipelines::new(kernels),
            summary,
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_dispatch: limits.max_compute_workgroups_per_dimension,
            max_texture: limits.max_texture_dimension_2d,
            transform,
            semantics,
        })
    }

    /// The pipeline of a family's `kernel` on this context (its `f16` path
    /// and source transform), compiled on first use.
    pub(crate) fn pipeline<K: PipelineKey>(&self, kernel: K) -> Arc<Compiled> {
        let key = KernelKey {
            kernel,
            native: self.summary.shader_f16,
            transform: self.transform,
        };
        self.pipelines.get(&self.device, key)
    }

    /// Records this context's adapter (key `gpu.adapter`), the probe's
    /// one-line summary (`gpu.semantics`) and, where there are any, its
    /// caveats (`gpu.caveats`) as those of a device the process opened
    /// ([`dual_delta_runtime::device::opened`]), which
    /// [`dual_delta_runtime::environment`] lists. A run's report names a
    /// context's facts only where its functions dispatched a kernel on it
    /// (each dispatch notes them, [`dual_delta_runtime::device::used`]),
    /// whether this was called or not. [`Gpu::new`] does this itself.
    pub fn record_environment(&self) {
        dual_delta_runtime::device::opened(&self.facts);
    }

    /// This context's facts for reports: its adapter (`gpu.adapter`), the
    /// probe's summary (`gpu.semantics`) and caveats (`gpu.caveats`).
    pub fn facts(&self) -> &std::collections::BTreeMap<String, String> {
        self.facts.as_map()
    }

    /// The adapter this context runs on and the `f16` path in use.
    pub fn adapter_info(&self) -> &AdapterSummary {
        &self.summary
    }

    /// What the device does to floating-point arithmetic, as the probe run
    /// when this context was created measured it.
    pub fn semantics(&self) -> &DeviceSemantics {
        &self.semantics
    }
}
