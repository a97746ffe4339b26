//! Work submitted to a wgpu device and its output read back, on any device
//! and with no context: the path every kernel's results come through (the
//! launch path's submissions) and the probe's.

use std::sync::mpsc;

use crate::error::GpuError;

/// What one binding of a dispatch is bound to (handles: cloning one is
/// cheap).
#[derive(Clone, Debug)]
pub(crate) enum Resource {
    /// A buffer, bound whole.
    Buffer(wgpu::Buffer),
    /// A texture view.
    Texture(wgpu::TextureView),
}

/// `bytes` rounded up to a whole number of 4-byte words, at least one
/// (storage buffers are read in words, and may not be empty).
pub(crate) fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1) * 4
}

/// The bind group of `layout` with `resources` at `0, 1, …`.
pub(crate) fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    resources: &[Resource],
) -> wgpu::BindGroup {
    let entries: Vec<_> = (0u32..)
        .zip(resources)
        .map(|(binding, resource)| wgpu::BindGroupEntry {
            binding,
            resource: match resource {
                Resource::Buffer(buffer) => buffer.as_entire_binding(),
                Resource::Texture(view) => wgpu::BindingResource::TextureView(view),
            },
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout,
        entries: &entries,
    })
}

/// Binds `buffers` at `0, 1, …` of `layout`, dispatches `pipeline` on a
/// `grid` of workgroups, waits for it, and returns the first `bytes` of
/// `output` (one of `buffers`, a storage buffer that can be copied from).
/// `what` names the kernel in errors. The probe's path, outside the
/// kernels' cache.
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
    let resources: Vec<_> = buffers
        .iter()
        .map(|&b| Resource::Buffer(b.clone()))
        .collect();
    let bind = bind_group(device, layout, &resources);
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
