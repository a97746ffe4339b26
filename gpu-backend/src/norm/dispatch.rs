//! [`LayerNormStrategy`] and [`RmsNormStrategy`] as [`Kernel`]s: a batch
//! of inputs of one row length, weight and bias presence and `eps`, one
//! workgroup per row.

use half::f16;

use super::shader::{HAS_BIAS, HAS_WEIGHT, NormKernel};
use super::{LayerNormStrategy, MAX_NORM_LEN, NormInput, RmsNormStrategy};
use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::launch::{Batching, Dispatch, Launch};
use crate::pipelines::PipelineKey;
use crate::reductions::ROW_THREADS;
use crate::submit::Resource;

f16_kernel!(
    LayerNormStrategy,
    NormInput<f16>,
    NormKernel::Layer,
    plan,
    launch,
    |x| x.x().data().len()
);
f16_kernel!(
    RmsNormStrategy,
    NormInput<f16>,
    NormKernel::Rms,
    plan,
    launch,
    |x| x.x().data().len()
);

/// Checks that the inputs agree on their row length, weight, bias and
/// `eps`, within the kernels' limits: the batch goes in one submission.
fn plan(gpu: &Gpu, inputs: &[&NormInput<f16>], _: NormKernel) -> Result<Batching<()>, GpuError> {
    let first = inputs[0];
    let len = first.x().row_len();
    let key = |x: &NormInput<f16>| (x.weight().is_some(), x.bias().is_some(), x.eps());
    for &x in inputs {
        if x.x().row_len() != len {
            return Err(GpuError::InvalidInput(format!(
                "a batch must have one row length: {len} and {}",
                x.x().row_len()
            )));
        }
        let (k0, k1) = (key(first), key(x));
        if (k0.0, k0.1) != (k1.0, k1.1) {
            return Err(GpuError::InvalidInput(
                "the inputs of a batch must agree on whether weight and bias are present".into(),
            ));
        }
        if (k0.2 as f32).to_bits() != (k1.2 as f32).to_bits() {
            return Err(GpuError::InvalidInput(format!(
                "the inputs of a batch must share eps: {} and {}",
                k0.2, k1.2
            )));
        }
    }
    if len > MAX_NORM_LEN {
        return Err(GpuError::InvalidInput(format!(
            "the normalisation kernels take rows of up to {MAX_NORM_LEN} elements, got {len}"
        )));
    }
    let rows: usize = inputs.iter().map(|x| x.x().rows()).sum();
    let elements = rows as u64 * len as u64;
    if rows > u32::MAX as usize || elements > u64::from(u32::MAX) {
        return Err(GpuError::InvalidInput(format!(
            "{rows} rows of {len} are more than one dispatch can index"
        )));
    }
    gpu.binding_limit(elements * gpu.out_elem().max(2))?;
    Ok(Batching {
        plan: (),
        per_submission: inputs.len(),
    })
}

/// The rows of `group` one after another, each with its weight and bias.
fn launch(gpu: &Gpu, group: &[&NormInput<f16>], kernel: NormKernel) -> Launch {
    let first = group[0];
    let len = first.x().row_len();
    let rows: usize = group.iter().map(|x| x.x().rows()).sum();
    let x: Vec<f16> = group
        .iter()
        .flat_map(|x| x.x().data().iter().copied())
        .collect();
    // The weight and bias repeated for every row of their input.
    let repeat = |part: fn(&NormInput<f16>) -> Option<&[f16]>| -> Vec<f16> {
        group
            .iter()
            .flat_map(|&x| {
                let v = part(x).unwrap_or(&[]);
                core::iter::repeat_n(v, x.x().rows()).flatten().copied()
            })
            .collect()
    };
    let weight = repeat(NormInput::weight);
    let bias = repeat(NormInput::bias);
    let flags = if first.weight().is_some() {
        HAS_WEIGHT
    } else {
        0
    } | if first.bias().is_some() { HAS_BIAS } else { 0 };
    let eps = first.eps() as f32;
    let elements = rows as u64 * len as u64;
    SixBindings {
        kernel,
        params: [rows as u32, len as u32, flags, eps.to_bits(), 0, 0, 0, 0],
        inputs: [&x, &weight, &bias],
        outputs: elements,
        scratch: 1,
        invocations: rows as u64 * ROW_THREADS as u64,
        workgroup: ROW_THREADS as u32,
    }
    .launch(gpu)
}

/// One dispatch of a kernel with the six bindings the norm and attention
/// kernels share (see [`prelude`](super::shader::prelude)).
pub(crate) struct SixBindings<'a, K> {
    /// The family's key of the kernel.
    pub(crate) kernel: K,
    /// The 8-word uniform.
    pub(crate) params: [u32; 8],
    /// Bindings 1 to 3 (an empty slice binds a 4-byte placeholder).
    pub(crate) inputs: [&'a [f16]; 3],
    /// `f16` values the kernel writes.
    pub(crate) outputs: u64,
    /// `f32` values of scratch.
    pub(crate) scratch: u64,
    /// Invocations to cover.
    pub(crate) invocations: u64,
    /// Invocations per workgroup.
    pub(crate) workgroup: u32,
}

impl<K: PipelineKey> SixBindings<'_, K> {
    /// Uploads the inputs and describes the dispatch.
    pub(crate) fn launch(self, gpu: &Gpu) -> Launch {
        let bytes = self.outputs * gpu.out_elem();
        let output = gpu.writable("output", bytes, true);
        let [a, b, c] = self
            .inputs
            .map(|x| Resource::Buffer(gpu.storage("input", bytemuck::cast_slice(x))));
        let scratch = gpu.writable("scratch", self.scratch * 4, false);
        Launch {
            dispatches: vec![Dispatch {
                pipeline: gpu.pipeline(self.kernel),
                resources: vec![
                    gpu.uniform(&self.params),
                    a,
                    b,
                    c,
                    Resource::Buffer(output.clone()),
                    Resource::Buffer(scratch),
                ],
                invocations: self.invocations,
                workgroup: self.workgroup,
            }],
            output,
            bytes,
        }
    }
}
