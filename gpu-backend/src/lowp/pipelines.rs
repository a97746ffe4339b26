//! The low-precision kernels' bind group layout and pipelines, each
//! pipeline compiled the first time it is used, so that creating a [`Gpu`](crate::Gpu)
//! does not wait for them.

use std::sync::OnceLock;

use super::shader::{self, LowpKernel};

/// The bind group layout of the low-precision kernels, and their pipelines,
/// each compiled the first time it is used.
pub(crate) struct LowpPipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    pipelines: [OnceLock<wgpu::ComputePipeline>; LowpKernel::COUNT],
}

impl LowpPipelines {
    /// The layouts; no shader is compiled yet.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let entry = |binding: u32, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = |read_only| wgpu::BufferBindingType::Storage { read_only };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lowp"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, storage(true)),
                entry(2, storage(true)),
                entry(3, storage(false)),
                entry(4, storage(true)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lowp"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        LowpPipelines {
            layout,
            pipeline_layout,
            pipelines: Default::default(),
        }
    }

    pub(super) fn get(&self, device: &wgpu::Device, kernel: LowpKernel) -> &wgpu::ComputePipeline {
        self.pipelines[kernel.index()].get_or_init(|| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("lowp"),
                source: wgpu::ShaderSource::Wgsl(shader::source(kernel).into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("lowp"),
                layout: Some(&self.pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        })
    }
}
