//! The one pipeline cache: every kernel a [`Gpu`](crate::Gpu) runs is
//! compiled on first use, through [`compile`](crate::compile), and kept
//! under its [`KernelKey`] for the context's life.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::compile::{self, Binding};
use crate::matmul::shader::{MatmulKernel, Tiling};
use crate::wgsl::SourceTransform;
use crate::{attention, lowp, norm, rows};

/// Which kernel: its family and strategy (and what else its source is
/// generated for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum KernelId {
    /// A matmul tile kernel or the split-K reduction.
    Matmul(MatmulKernel),
    /// A row sum or softmax.
    Rows(rows::shader::RowKernel),
    /// A LayerNorm or RMSNorm.
    Norm(norm::shader::NormKernel),
    /// Scaled-dot-product attention, generated for one `d` and `d_v`.
    Attention {
        /// The strategy.
        strategy: attention::AttentionStrategy,
        /// The dimension of queries and keys.
        d: u32,
        /// The dimension of values.
        d_v: u32,
    },
    /// A `bf16` or FP8 kernel.
    Lowp(lowp::shader::LowpKernel),
}

impl KernelId {
    /// The family's name, the label of its pipelines.
    pub(crate) fn label(self) -> &'static str {
        match self {
            KernelId::Matmul(_) => "matmul",
            KernelId::Rows(_) => "rows",
            KernelId::Norm(_) => "norm",
            KernelId::Attention { .. } => "attention",
            KernelId::Lowp(_) => "lowp",
        }
    }

    /// What the kernel binds at `0, 1, …`.
    pub(crate) fn bindings(self) -> &'static [Binding] {
        use Binding::{Read, ReadWrite, Texture, Uniform};
        match self {
            KernelId::Matmul(MatmulKernel::ReduceSplits) => &[Uniform, Read, Read, ReadWrite],
            KernelId::Matmul(_) => &[Uniform, Texture, Texture, ReadWrite],
            KernelId::Rows(_) => &[Uniform, Read, ReadWrite, ReadWrite],
            KernelId::Norm(_) | KernelId::Attention { .. } => {
                &[Uniform, Read, Read, Read, ReadWrite, ReadWrite]
            }
            KernelId::Lowp(_) => &[Uniform, Read, Read, ReadWrite, Read],
        }
    }

    /// The WGSL source, for the native-`f16` path or the fallback, and the
    /// matmul tiling (which only the matmul kernels read).
    pub(crate) fn source(self, native: bool, tiling: Tiling) -> String {
        match self {
            KernelId::Matmul(kernel) => crate::matmul::shader::source(kernel, native, tiling),
            KernelId::Rows(kernel) => rows::shader::source(kernel, native),
            KernelId::Norm(kernel) => norm::shader::source(kernel, native),
            KernelId::Attention { strategy, d, d_v } => {
                attention::shader::source(strategy, d as usize, d_v as usize, native)
            }
            KernelId::Lowp(kernel) => lowp::shader::source(kernel),
        }
    }
}

/// Everything a compiled pipeline depends on: the kernel, the `f16` path,
/// the matmul tiling and the source transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KernelKey {
    /// Which kernel.
    pub(crate) kernel: KernelId,
    /// Native `f16` (`true`) or the packed fallback.
    pub(crate) native: bool,
    /// How the matmul tile kernels divide `C`.
    pub(crate) tiling: Tiling,
    /// How the source is transformed before compilation.
    pub(crate) transform: SourceTransform,
}

impl KernelKey {
    /// The WGSL source as generated (before [`KernelKey::transform`]).
    pub(crate) fn source(&self) -> String {
        self.kernel.source(self.native, self.tiling)
    }
}

/// A compiled kernel: its pipeline and the bind group layout its bindings
/// are made for.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The pipeline.
    pub(crate) pipeline: wgpu::ComputePipeline,
    /// The layout of its one bind group.
    pub(crate) layout: wgpu::BindGroupLayout,
}

/// The pipelines compiled so far, one per key. Each is compiled by the
/// first thread that asks for it, while other kernels compile in parallel.
#[derive(Debug, Default)]
pub(crate) struct Pipelines {
    slots: Mutex<HashMap<KernelKey, Arc<OnceLock<Arc<Compiled>>>>>,
}

impl Pipelines {
    /// The pipeline of `key`, compiled on `device` on the first call.
    pub(crate) fn get(&self, device: &wgpu::Device, key: KernelKey) -> Arc<Compiled> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(slots.entry(key).or_default())
        };
        Arc::clone(slot.get_or_init(|| {
            let label = key.kernel.label();
            let (layout, pipeline_layout) = compile::layouts(device, label, key.kernel.bindings());
            let source = key.source();
            let pipeline =
                compile::pipeline(device, &pipeline_layout, label, &source, key.transform);
            Arc::new(Compiled { pipeline, layout })
        }))
    }
}
