//! The one way a shader becomes a pipeline: its WGSL after the context's
//! [`SourceTransform`](crate::wgsl::SourceTransform), compiled against the bind group layout its
//! bindings describe. The kernels reach it through
//! [`Pipelines`](crate::pipelines::Pipelines); the probe calls it directly.

/// What one binding of a kernel holds, bound at the binding numbered by
/// its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Binding {
    /// The kernel's parameters, a uniform buffer.
    Uniform,
    /// A storage buffer the kernel only reads.
    Read,
    /// A storage buffer the kernel writes.
    ReadWrite,
    /// A 2-D `texture_2d<u32>` the kernel loads texels from.
    Texture,
}

impl Binding {
    /// The layout entry of this binding at `binding`, visible to compute
    /// shaders.
    fn entry(self, binding: u32) -> wgpu::BindGroupLayoutEntry {
        let buffer = |ty| wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let ty = match self {
            Binding::Uniform => buffer(wgpu::BufferBindingType::Uniform),
            Binding::Read => buffer(wgpu::BufferBindingType::Storage { read_only: true }),
            Binding::ReadWrite => buffer(wgpu::BufferBindingType::Storage { read_only: false }),
            Binding::Texture => wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Uint,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
        };
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        }
    }
}

/// The bind group layout with `bindings` at `0, 1, …`, and the pipeline
/// layout of that one group.
pub(crate) fn layouts(
    device: &wgpu::Device,
    label: &str,
    bindings: &[Binding],
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let entries: Vec<_> = (0u32..)
        .zip(bindings)
        .map(|(i, binding)| binding.entry(i))
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

/// The compute pipeline of the WGSL `source` (entry point `main`), as
/// compiled (after the context's
/// [`SourceTransform`](crate::wgsl::SourceTransform)): the one place a
/// shader is compiled.
pub(crate) fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    label: &str,
    source: &str,
) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.to_owned().into()),
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
