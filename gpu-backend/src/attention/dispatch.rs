//! [`Gpu::attention`] and [`Gpu::attention_batch`].

use std::borrow::Borrow;

use half::f16;

use super::{ATTENTION_THREADS, AttentionVariant, MAX_HEAD_DIM, MAX_KEYS};
use crate::launch::{Launch, LazyKernel};
use crate::{
    Gpu, GpuError,
    reference::{AttentionInput, AttentionShape},
};

impl Gpu {
    /// Scaled-dot-product attention of `input` with the given variant,
    /// `[heads, seq_q, d_v]` row-major `f16`; bit for bit
    /// [`attention_emulated`](crate::attention::attention_emulated). `d` and `d_v` may
    /// be at most [`MAX_HEAD_DIM`](crate::attention::MAX_HEAD_DIM), `seq_k` at most
    /// [`MAX_KEYS`](crate::attention::MAX_KEYS).
    ///
    /// ```no_run
    /// use dual_delta_runtime::TrialRng;
    /// use dual_delta_gpu::{Gpu, reference::{AttentionShape, random_attention_input}, attention::AttentionVariant};
    ///
    /// let gpu = Gpu::shared()?;
    /// let shape = AttentionShape { heads: 1, seq_q: 256, seq_k: 256, d: 64, d_v: 64 };
    /// let input = random_attention_input(shape, true)(&mut TrialRng::for_trial(7, 0));
    /// let out = gpu.attention(&input, AttentionVariant::Flash)?; // 256 × 64 f16
    /// # let _ = out;
    /// # Ok::<(), dual_delta_gpu::GpuError>(())
    /// ```
    pub fn attention(
        &self,
        input: &AttentionInput<f16>,
        variant: AttentionVariant,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.attention_batch(core::slice::from_ref(input), variant)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// [`Gpu::attention`] of many inputs in one submission (their heads
    /// dispatched together). The inputs must agree on `seq_q`, `seq_k`,
    /// `d`, `d_v` and the causal flag; the number of heads may differ.
    /// Results are in the order of `inputs`.
    pub fn attention_batch<I: Borrow<AttentionInput<f16>>>(
        &self,
        inputs: &[I],
        variant: AttentionVariant,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        let Some(first) = inputs.first().map(Borrow::borrow) else {
            return Ok(Vec::new());
        };
        let shape = first.shape();
        let same = |s: AttentionShape| AttentionShape { heads: 1, ..s };
        for x in inputs.iter().map(Borrow::borrow) {
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
        let heads: usize = inputs.iter().map(|x| x.borrow().shape().heads).sum();
        let pairs = heads as u64 * seq_q as u64;
        let outputs = pairs * d_v as u64;
        // Buffer sizes are checked against the device's limits on launch.
        if pairs > u64::from(u32::MAX) {
            return Err(GpuError::InvalidInput(format!(
                "{heads} heads of {shape:?} are more than one dispatch can index"
            )));
        }
        let scratch = if variant == AttentionVariant::Naive {
            pairs * seq_k as u64
        } else {
            1
        };
        let gather = |part: fn(&AttentionInput<f16>) -> &[f16]| -> Vec<f16> {
            inputs
                .iter()
                .flat_map(|x| part(x.borrow()).iter().copied())
                .collect()
        };
        let (q, k, v) = (
            gather(AttentionInput::q),
            gather(AttentionInput::k),
            gather(AttentionInput::v),
        );
        let scale = 1.0f32 / (d as f32).sqrt();
        let values = self.launch(&Launch {
            kernel: LazyKernel::Attention {
                variant,
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
            outputs,
            scratch,
            workgroups: pairs.div_ceil(ATTENTION_THREADS as u64),
        })?;
        let mut rest = &values[..];
        Ok(inputs
            .iter()
            .map(|x| {
                let (head, tail) = rest.split_at(x.borrow().output_len());
                rest = tail;
                head.to_vec()
            })
            .collect())
    }
}
