//! [`AttentionStrategy`] as a [`Kernel`]: a batch of inputs that agree on
//! everything but their number of heads, one invocation per (head, query).

use half::f16;

use super::shader::AttentionKey;
use super::{
    ATTENTION_THREADS, AttentionInput, AttentionShape, AttentionStrategy, MAX_HEAD_DIM, MAX_KEYS,
};
use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::launch::Kernel;
use crate::launch::{Batching, Launch};
use crate::norm::dispatch::SixBindings;

impl Kernel for AttentionStrategy {
    type Input = AttentionInput<f16>;
    type Output = f16;
    type Plan = ();

    fn plan(self, gpu: &Gpu, inputs: &[&AttentionInput<f16>]) -> Result<Batching<()>, GpuError> {
        let first = inputs[0];
        let shape = first.shape();
        let same = |s: AttentionShape| AttentionShape { heads: 1, ..s };
        for &x in inputs {
            if same(x.shape()) != same(shape) || x.causal() != first.causal() {
                return Err(GpuError::InvalidInput(format!(
                    "the inputs of a batch must agree on everything but the number of heads: \
                     {shape:?} (causal: {}) and {:?} (causal: {})",
                    first.causal(),
                    x.shape(),
                    x.causal()
                )));
            }
        }
        let AttentionShape {
            seq_q,
            seq_k,
            d,
            d_v,
            ..
        } = shape;
        if d > MAX_HEAD_DIM || d_v > MAX_HEAD_DIM {
            return Err(GpuError::InvalidInput(format!(
                "the attention kernels take d and d_v up to {MAX_HEAD_DIM}, got d = {d}, d_v = {d_v}"
            )));
        }
        if seq_k > MAX_KEYS {
            return Err(GpuError::InvalidInput(format!(
                "the attention kernels take seq_k up to {MAX_KEYS}, got {seq_k}"
            )));
        }
        let heads: usize = inputs.iter().map(|x| x.shape().heads).sum();
        let pairs = heads as u64 * seq_q as u64;
        let outputs = pairs * d_v as u64;
        if pairs > u64::from(u32::MAX) {
            return Err(GpuError::InvalidInput(format!(
                "{heads} heads of {shape:?} are more than one dispatch can index"
            )));
        }
        let scratch = if self == AttentionStrategy::Naive {
            pairs * seq_k as u64
        } else {
            1
        };
        let largest = (outputs * gpu.out_elem())
            .max(scratch * 4)
            .max(heads as u64 * seq_q.max(seq_k) as u64 * d.max(d_v) as u64 * 2);
        gpu.binding_limit(largest)?;
        Ok(Batching {
            plan: (),
            per_submission: inputs.len(),
        })
    }

    fn launch(self, gpu: &Gpu, _: &(), group: &[&AttentionInput<f16>]) -> Launch {
        let first = group[0];
        let AttentionShape {
            seq_q,
            seq_k,
            d,
            d_v,
            ..
        } = first.shape();
        let heads: usize = group.iter().map(|x| x.shape().heads).sum();
        let pairs = heads as u64 * seq_q as u64;
        let scratch = if self == AttentionStrategy::Naive {
            pairs * seq_k as u64
        } else {
            1
        };
        let gather = |part: fn(&AttentionInput<f16>) -> &[f16]| -> Vec<f16> {
            group.iter().flat_map(|x| part(x).iter().copied()).collect()
        };
        let (q, k, v) = (
            gather(AttentionInput::q),
            gather(AttentionInput::k),
            gather(AttentionInput::v),
        );
        let scale = 1.0f32 / (d as f32).sqrt();
        SixBindings {
            kernel: AttentionKey {
                strategy: self,
                d: d as u32,
                d_v: d_v as u32,
            },
            params: [
                pairs as u32,
                seq_q as u32,
                seq_k as u32,
                d as u32,
                d_v as u32,
                u32::from(first.causal()),
                scale.to_bits(),
                0,
            ],
            inputs: [&q, &k, &v],
            outputs: pairs * d_v as u64,
            scratch,
            invocations: pairs,
            workgroup: ATTENTION_THREADS as u32,
        }
        .launch(gpu)
    }

    fn output_len(self, input: &AttentionInput<f16>) -> usize {
        input.output_len()
    }

    fn decode(gpu: &Gpu, bytes: &[u8]) -> Vec<f16> {
        gpu.f16_outputs(bytes)
    }
}
