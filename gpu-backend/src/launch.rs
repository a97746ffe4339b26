//! The pipelines of the LayerNorm and attention kernels, compiled on first
//! use (so that creating a [`Gpu`] costs nothing more), and the one routine
//! that uploads their buffers, dispatches them and reads the result back.
//!
//! Both families share one bind group layout:
//!
//! | binding | contents                                                 |
//! |---------|----------------------------------------------------------|
//! | 0       | the kernel's parameters (uniform, 8 words)               |
//! | 1, 2, 3 | inputs, `f16` (read): `x`, `γ`, `β` or `Q`, `K`, `V`     |
//! | 4       | the output, `f16` (write)                                |
//! | 5       | `f32` scratch (the materialised attention scores)        |

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use half::f16;

use crate::attention::{self, AttentionVariant};
use crate::gpu::compute::{self, Binding};
use crate::norm::{self, NormKernel};
use crate::wgsl::{EXACT, ROUND16, SourceTransform};
use crate::{Gpu, GpuError};

/// A kernel compiled on first use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LazyKernel {
    /// A LayerNorm or RMSNorm over each row.
    Norm(NormKernel),
    /// Scaled-dot-product attention, generated for one `d` and `d_v`.
    Attention {
        /// The variant.
        variant: AttentionVariant,
        /// The dimension of queries and keys.
        d: u32,
        /// The dimension of values.
        d_v: u32,
    },
}

/// The bind group layout and the pipelines, each compiled on first use.
pub(crate) struct LazyPipelines {
    native: bool,
    transform: SourceTransform,
    layout: OnceLock<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>,
    pipelines: Mutex<HashMap<LazyKernel, wgpu::ComputePipeline>>,
}

impl LazyPipelines {
    /// Nothing compiled yet; `native` picks the `f16` path of the sources,
    /// which are compiled after `transform`.
    pub(crate) fn new(native: bool, transform: SourceTransform) -> Self {
        LazyPipelines {
            native,
            transform,
            layout: OnceLock::new(),
            pipelines: Mutex::new(HashMap::new()),
        }
    }

    fn layout(&self, device: &wgpu::Device) -> &(wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        use Binding::{Read, ReadWrite, Uniform};
        self.layout.get_or_init(|| {
            compute::layouts(
                device,
                "norm/attention",
                &[Uniform, Read, Read, Read, ReadWrite, ReadWrite],
            )
        })
    }

    /// The pipeline of `kernel`, compiled on the first call that asks.
    fn pipeline(&self, device: &wgpu::Device, kernel: LazyKernel) -> wgpu::ComputePipeline {
        let mut pipelines = self.pipelines.lock().unwrap_or_else(|e| e.into_inner());
        let pipeline = pipelines.entry(kernel).or_insert_with(|| {
            let source = match kernel {
                LazyKernel::Norm(v) => norm::source(v, self.native),
                LazyKernel::Attention { variant, d, d_v } => {
                    attention::source(variant, d as usize, d_v as usize, self.native)
                }
            };
            compute::pipeline(
                device,
                &self.layout(device).1,
                "norm/attention",
                &source,
                self.transform,
            )
        });
        pipeline.clone()
    }
}

/// One dispatch of a lazily compiled kernel.
pub(crate) struct Launch<'a> {
    pub(crate) kernel: LazyKernel,
    /// The 8-word uniform.
    pub(crate) params: [u32; 8],
    /// Bindings 1 to 3 (an empty slice binds a 4-byte placeholder).
    pub(crate) inputs: [&'a [f16]; 3],
    /// `f16` values the kernel writes.
    pub(crate) outputs: u64,
    /// `f32` values of scratch.
    pub(crate) scratch: u64,
    /// Workgroups to dispatch.
    pub(crate) workgroups: u64,
}

impl Gpu {
    /// Uploads, dispatches `launch` and reads back its `outputs` values.
    pub(crate) fn launch(&self, launch: &Launch<'_>) -> Result<Vec<f16>, GpuError> {
        let out_elem = self.out_elem();
        let largest = [
            launch.outputs * out_elem,
            launch.scratch * 4,
            launch
                .inputs
                .iter()
                .map(|x| x.len() as u64 * 2)
                .max()
                .unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        self.binding_limit(largest)?;
        let max = u64::from(self.max_dispatch);
        let gx = launch.workgroups.clamp(1, max);
        let gy = launch.workgroups.div_ceil(gx).max(1);
        if gy > max {
            return Err(GpuError::InvalidInput(format!(
                "{} workgroups are more than one dispatch can hold ({})",
                launch.workgroups,
                max * max
            )));
        }
        let device = &self.device;
        let pipeline = self.lazy.pipeline(device, launch.kernel);
        let params = self.uniform("params", &launch.params);
        let inputs = launch
            .inputs
            .map(|x| self.storage("input", bytemuck::cast_slice(x)));
        let out_bytes = launch.outputs * out_elem;
        let out = self.writable("output", out_bytes, true);
        let scratch = self.writable("scratch", launch.scratch * 4, false);
        let bytes = self.dispatch_and_read(
            "norm/attention",
            &pipeline,
            &self.lazy.layout(device).0,
            &[&params, &inputs[0], &inputs[1], &inputs[2], &out, &scratch],
            (gx as u32, gy as u32),
            &out,
            out_bytes,
        )?;
        Ok(self.f16_outputs(&bytes))
    }
}

/// The WGSL that declares the six bindings of the layout, with `Params`
/// (declared by the caller) at binding 0, and the helpers `ld1`, `ld2`,
/// `ld3` (an `f16` input as `f32`), `st` (round to `f16` and store) for
/// the native path or the fallback, `round16` (round to `f16` on the
/// bits) and the correctly rounded `div_rn` and `sqrt_rn` (see
/// `crate::wgsl`).
pub(crate) fn prelude(native: bool) -> String {
    let elem = if native { "f16" } else { "u32" };
    let mut s = String::new();
    if native {
        s.push_str("enable f16;\n\n");
    }
    s.push_str("@group(0) @binding(0) var<uniform> p: Params;\n");
    for b in 1..=3 {
        s.push_str(&format!(
            "@group(0) @binding({b}) var<storage, read> in{b}: array<{elem}>;\n"
        ));
    }
    s.push_str(&format!(
        "@group(0) @binding(4) var<storage, read_write> out: array<{elem}>;\n\
         @group(0) @binding(5) var<storage, read_write> scratch: array<f32>;\n"
    ));
    for b in 1..=3 {
        if native {
            s.push_str(&format!(
                "fn ld{b}(i: u32) -> f32 {{ return f32(in{b}[i]); }}\n"
            ));
        } else {
            s.push_str(&format!(
                "fn ld{b}(i: u32) -> f32 {{ return unpack2x16float(in{b}[i >> 1u] >> ((i & 1u) << 4u)).x; }}\n"
            ));
        }
    }
    if native {
        s.push_str("fn st(i: u32, v: f32) { out[i] = f16(round16(v)); }\n");
    } else {
        s.push_str(
            "fn st(i: u32, v: f32) { out[i] = pack2x16float(vec2<f32>(round16(v), 0.0)); }\n",
        );
    }
    s.push_str(ROUND16);
    s.push_str(EXACT);
    s
}
