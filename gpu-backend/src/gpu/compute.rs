//! What every kernel family does the same way: bind group layouts of
//! buffers, compute pipelines from WGSL, buffers, and one dispatch whose
//! output is read back.

use std::sync::mpsc;

use half::f16;
use wgpu::util::DeviceExt as _;

use super::Gpu;
use crate::GpuError;
use crate::wgsl::SourceTransform;

/// What one binding of a kernel holds: a buffer, bound at the binding
/// numbered by its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// The kernel's parameters.
    Uniform,
    /// A storage buffer the kernel only reads.
    Read,
    /// A storage buffer the kernel writes.
    ReadWrite,
}

/// The bind group layout with `bindings` at `0, 1, …` (all visible to
/// compute shaders), and the pipeline layout of that one group.
pub(crate) fn layouts(
    device: &wgpu::Device,
    label: &str,
    bindings: &[Binding],
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let entries: Vec<_> = bindings
        .iter()
        .enumerate()
        .map(|(i, binding)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match binding {
                    Binding::Uniform => wgpu::BufferBindingType::Uniform,
                    Binding::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Binding::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    (layout, pipeline_layout)
}

/// The compute pipeline of the WGSL `source` (entry point `main`),
/// compiled after `transform`.
pub(crate) fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    label: &str,
    source: &str,
    transform: SourceTransform,
) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(transform.apply(source).into_owned().into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// `bytes` rounded up to a whole number of 4-byte words, at least one
/// (storage buffers are read in words, and may not be empty).
pub(crate) fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1) * 4
}

impl Gpu {
    /// The most bytes one binding may hold (element indices are `u32` in
    /// the shaders), or [`GpuError::TooLarge`] when `needed` is more.
    pub(crate) fn binding_limit(&self, needed: u64) -> Result<u64, GpuError> {
        let limit = self.max_binding.min(u64::from(u32::MAX));
        if needed > limit {
            return Err(GpuError::TooLarge { needed, limit });
        }
        Ok(limit)
    }

    /// Bytes per `f16` output element: 2 on the native path, 4 on the
    /// fallback (the bits in the low half of a `u32`).
    pub(crate) fn out_elem(&self) -> u64 {
        if self.summary.shader_f16 { 2 } else { 4 }
    }

    /// The `f16` values of an output read back, [`Gpu::out_elem`] bytes
    /// each.
    pub(crate) fn f16_outputs(&self, bytes: &[u8]) -> Vec<f16> {
        bytes
            .chunks_exact(self.out_elem() as usize)
            .map(|b| f16::from_le_bytes([b[0], b[1]]))
            .collect()
    }

    /// A 2-D grid of workgroups covering `items` invocations, workgroups of
    /// `workgroup` (callers keep `items` within one dispatch).
    pub(crate) fn grid(&self, items: u64, workgroup: u32) -> (u32, u32) {
        let groups = items.div_ceil(u64::from(workgroup)).max(1);
        let x = groups.min(u64::from(self.max_dispatch));
        (x as u32, groups.div_ceil(x) as u32)
    }

    /// A uniform buffer holding `value`.
    pub(crate) fn uniform<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::bytes_of(value),
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// A read-only storage buffer holding `bytes`, zero-padded to
    /// [`padded`] length.
    pub(crate) fn storage(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        let mut contents = bytes.to_vec();
        contents.resize(padded(bytes.len() as u64) as usize, 0);
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
    }

    /// A storage buffer of `bytes` (at least [`padded`]) the kernel writes;
    /// `readable` where its contents are copied back.
    pub(crate) fn writable(&self, label: &str, bytes: u64, readable: bool) -> wgpu::Buffer {
        let mut usage = wgpu::BufferUsages::STORAGE;
        if readable {
            usage |= wgpu::BufferUsages::COPY_SRC;
        }
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: padded(bytes),
            usage,
            mapped_at_creation: false,
        })
    }

    /// [`dispatch_and_read`] on this context's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dispatch_and_read(
        &self,
        what: &str,
        pipeline: &wgpu::ComputePipeline,
        layout: &wgpu::BindGroupLayout,
        buffers: &[&wgpu::Buffer],
        grid: (u32, u32),
        output: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>, GpuError> {
        dispatch_and_read(
            &self.device,
            &self.queue,
            what,
            pipeline,
            layout,
            buffers,
            grid,
            output,
            bytes,
        )
    }

    /// [`submit_and_read`] on this context's device.
    pub(crate) fn submit_and_read(
        &self,
        what: &str,
        encoder: wgpu::CommandEncoder,
        output: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>, GpuError> {
        submit_and_read(&self.device, &self.queue, what, encoder, output, bytes)
    }
}

/// Binds `buffers` at `0, 1, …` of `layout`, dispatches `pipeline` on a
/// `grid` of workgroups, waits for it, and returns the first `bytes` of
/// `output` (one of `buffers`, a storage buffer that can be copied from).
/// `what` names the kernel in errors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatch_and_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    what: &str,
    pipeline: &wgpu::ComputePipeline,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
    grid: (u32, u32),
    output: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>, GpuError> {
    let entries: Vec<_> = buffers
        .iter()
        .enumerate()
        .map(|(i, buffer)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(what),
        layout,
        entries: &entries,
    });
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(what) });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(what),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
    }
    submit_and_read(device, queue, what, encoder, output, bytes)
}

/// Submits `encoder`'s commands, then copies the first `bytes` of `output`
/// back once they have run.
pub(crate) fn submit_and_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    what: &str,
    mut encoder: wgpu::CommandEncoder,
    output: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>, GpuError> {
    let size = padded(bytes);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(output, 0, &staging, 0, size);
    let index = queue.submit([encoder.finish()]);
    let (tx, rx) = mpsc::channel();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .map_err(|e| GpuError::Device(format!("waiting for the {what} kernel: {e}")))?;
    rx.recv()
        .map_err(|_| GpuError::Device("the result buffer was never mapped".into()))?
        .map_err(|e| GpuError::Device(format!("mapping the result buffer: {e}")))?;
    let view = staging
        .get_mapped_range(..)
        .map_err(|e| GpuError::Device(format!("reading results: {e}")))?;
    let out = view[..bytes as usize].to_vec();
    drop(view);
    staging.unmap();
    Ok(out)
}
