//! The low-precision kernels' bind group layout and pipelines, each
//! pipeline compiled the first time it is used, so that creating a [`Gpu`](crate::Gpu)
//! does not wait for them.

use std::sync::OnceLock;

use super::shader::{self, LowpKernel};
use crate::gpu::compute::{self, Binding};
use crate::wgsl::SourceTransform;

/// The bind group layout of the low-precision kernels, and their pipelines,
/// each compiled the first time it is used.
pub(crate) struct LowpPipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    transform: SourceTransform,
    pipeline_layout: wgpu::PipelineLayout,
    pipelines: [OnceLock<wgpu::ComputePipeline>; LowpKernel::COUNT],
}

impl LowpPipelines {
    /// The layouts; no shader is compiled yet (each will be after
    /// `transform`).
    pub(crate) fn new(device: &wgpu::Device, transform: SourceTransform) -> Self {
        use Binding::{Read, ReadWrite, Uniform};
        let (layout, pipeline_layout) =
            compute::layouts(device, "lowp", &[Uniform, Read, Read, ReadWrite, Read]);
        LowpPipelines {
            layout,
            transform,
            pipeline_layout,
            pipelines: Default::default(),
        }
    }

    pub(super) fn get(&self, device: &wgpu::Device, kernel: LowpKernel) -> &wgpu::ComputePipeline {
        self.pipelines[kernel.index()].get_or_init(|| {
            compute::pipeline(
                device,
                &self.pipeline_layout,
                "lowp",
                &shader::source(kernel),
                self.transform,
            )
        })
    }
}
