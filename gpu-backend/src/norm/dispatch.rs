//! [`Gpu::layer_norm`], [`Gpu::rms_norm`] and their batches.

use std::borrow::Borrow;

use half::f16;

use super::shader::{HAS_BIAS, HAS_WEIGHT};
use super::{LayerNormVariant, MAX_NORM_LEN, NormKernel, RmsNormVariant};
use crate::launch::{Launch, LazyKernel};
use crate::{Gpu, GpuError, reference::NormInput};

impl Gpu {
    /// The LayerNorm of every row of `input` with the given variant,
    /// `rows × len` row-major `f16`; bit for bit
    /// [`layer_norm_emulated`](crate::norm::layer_norm_emulated). Rows may hold
    /// up to [`MAX_NORM_LEN`](crate::norm::MAX_NORM_LEN) elements.
    ///
    /// ```no_run
    /// use dual_delta_gpu::{Gpu, f16, norm::LayerNormVariant, reference::{NormInput, RowsInput}};
    ///
    /// let gpu = Gpu::shared()?;
    /// let row = [1000.0, 1001.0, 999.0, 1000.5].map(f16::from_f32).to_vec();
    /// let x = NormInput::new(RowsInput::new(1, 4, row)?, None, None, 1e-5)?;
    /// let careful = gpu.layer_norm(&x, LayerNormVariant::TwoPass)?;
    /// let one_pass = gpu.layer_norm(&x, LayerNormVariant::OnePass)?; // cancellation
    /// # let _ = (careful, one_pass);
    /// # Ok::<(), dual_delta_gpu::GpuError>(())
    /// ```
    pub fn layer_norm(
        &self,
        input: &NormInput<f16>,
        variant: LayerNormVariant,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.layer_norm_batch(core::slice::from_ref(input), variant)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// [`Gpu::layer_norm`] of many inputs in one submission (their rows
    /// dispatched together). The inputs must share the row length and
    /// agree on whether a weight and a bias are present; `ε` and the
    /// weights themselves may differ. Results are in the order of `inputs`.
    pub fn layer_norm_batch<I: Borrow<NormInput<f16>>>(
        &self,
        inputs: &[I],
        variant: LayerNormVariant,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        self.norm_batch(inputs, NormKernel::Layer(variant))
    }

    /// The RMSNorm of every row of `input` with the given variant,
    /// `rows × len` row-major `f16`; bit for bit
    /// [`rms_norm_emulated`](crate::norm::rms_norm_emulated). Rows may hold up to
    /// [`MAX_NORM_LEN`](crate::norm::MAX_NORM_LEN) elements.
    pub fn rms_norm(
        &self,
        input: &NormInput<f16>,
        variant: RmsNormVariant,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.rms_norm_batch(core::slice::from_ref(input), variant)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// [`Gpu::rms_norm`] of many inputs in one submission, with the
    /// conditions of [`Gpu::layer_norm_batch`].
    pub fn rms_norm_batch<I: Borrow<NormInput<f16>>>(
        &self,
        inputs: &[I],
        variant: RmsNormVariant,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        self.norm_batch(inputs, NormKernel::Rms(variant))
    }

    fn norm_batch<I: Borrow<NormInput<f16>>>(
        &self,
        inputs: &[I],
        kernel: NormKernel,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        let Some(first) = inputs.first().map(Borrow::borrow) else {
            return Ok(Vec::new());
        };
        let len = first.x().row_len();
        let key = |x: &NormInput<f16>| (x.weight().is_some(), x.bias().is_some(), x.eps());
        for x in inputs.iter().map(Borrow::borrow) {
            if x.x().row_len() != len {
                return Err(GpuError::InvalidInput(format!(
                    "a batch must have one row length: {len} and {}",
                    x.x().row_len()
                )));
            }
            let (k0, k1) = (key(first), key(x));
            if (k0.0, k0.1) != (k1.0, k1.1) {
                return Err(GpuError::InvalidInput(
                    "the inputs of a batch must agree on whether weight and bias are present"
                        .into(),
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
        let rows: usize = inputs.iter().map(|x| x.borrow().x().rows()).sum();
        let elements = rows as u64 * len as u64;
        if rows > u32::MAX as usize || elements > u64::from(u32::MAX) {
            return Err(GpuError::InvalidInput(format!(
                "{rows} rows of {len} are more than one dispatch can index"
            )));
        }
        let x: Vec<f16> = inputs
            .iter()
            .flat_map(|x| x.borrow().x().data().iter().copied())
            .collect();
        // The weight and bias repeated for every row of their input.
        let repeat = |part: fn(&NormInput<f16>) -> Option<&[f16]>| -> Vec<f16> {
            inputs
                .iter()
                .map(Borrow::borrow)
                .flat_map(|x| {
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
        let values = self.launch(&Launch {
            kernel: LazyKernel::Norm(kernel),
            params: [rows as u32, len as u32, flags, eps.to_bits(), 0, 0, 0, 0],
            inputs: [&x, &weight, &bias],
            outputs: elements,
            scratch: 1,
            workgroups: rows as u64,
        })?;
        let mut rest = &values[..];
        Ok(inputs
            .iter()
            .map(|x| {
                let (head, tail) = rest.split_at(x.borrow().x().data().len());
                rest = tail;
                head.to_vec()
            })
            .collect())
    }
}
