//! The row kernels' pipelines, and the [`Gpu`] entry points that upload a
//! batch of row tensors, dispatch one workgroup per row and read back.

use std::borrow::Borrow;
use std::collections::HashMap;

use half::f16;

use super::shader::{self, RowKernel, RowParams};
use super::{MAX_ROW_LEN, MAX_SERIAL_LEN, ReduceStrategy, SoftmaxVariant};
use crate::gpu::compute::{self, Binding};
use crate::wgsl::SourceTransform;
use crate::{Gpu, GpuError, reference::RowsInput};

/// The bind group layout and one compiled pipeline per row kernel.
pub(crate) struct RowPipelines {
    layout: wgpu::BindGroupLayout,
    pipelines: HashMap<RowKernel, wgpu::ComputePipeline>,
}

impl RowPipelines {
    /// Compiles every row kernel for the native path or the fallback, after
    /// `transform`.
    pub(crate) fn new(device: &wgpu::Device, native: bool, transform: SourceTransform) -> Self {
        use Binding::{ReadWrite, Uniform};
        let (layout, pipeline_layout) = compute::layouts(
            device,
            "rows",
            &[Uniform, Binding::Read, ReadWrite, ReadWrite],
        );
        let kernels = ReduceStrategy::ALL
            .map(RowKernel::Sum)
            .into_iter()
            .chain(SoftmaxVariant::ALL.map(RowKernel::Softmax));
        let pipelines = kernels
            .map(|kernel| {
                let source = shader::source(kernel, native);
                let pipeline =
                    compute::pipeline(device, &pipeline_layout, "rows", &source, transform);
                (kernel, pipeline)
            })
            .collect();
        RowPipelines { layout, pipelines }
    }
}

impl Gpu {
    /// The sum of every row of `x` with the given strategy, one `f16` per
    /// row; bit for bit [`reduce_sum_emulated`](crate::rows::reduce_sum_emulated).
    ///
    /// ```no_run
    /// use dual_delta_gpu::{Gpu, f16, rows::{ReduceStrategy, SoftmaxVariant}, reference::RowsInput};
    ///
    /// let gpu = Gpu::shared()?;
    /// let ones = RowsInput::new(1, 4096, vec![f16::ONE; 4096])?;
    /// assert_eq!(gpu.reduce_sum(&ones, ReduceStrategy::F16Serial)?[0], f16::from_f32(2048.0));
    /// assert_eq!(gpu.reduce_sum(&ones, ReduceStrategy::F32)?[0], f16::from_f32(4096.0));
    /// let probabilities = gpu.softmax(&ones, SoftmaxVariant::Careful)?; // 1/4096 each
    /// # let _ = probabilities;
    /// # Ok::<(), dual_delta_gpu::GpuError>(())
    /// ```
    pub fn reduce_sum(
        &self,
        x: &RowsInput<f16>,
        strategy: ReduceStrategy,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.reduce_sum_batch(core::slice::from_ref(x), strategy)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// [`Gpu::reduce_sum`] of many inputs with one row length, in one
    /// submission (their rows dispatched together). Results are in the order
    /// of `inputs`.
    pub fn reduce_sum_batch<I: Borrow<RowsInput<f16>>>(
        &self,
        inputs: &[I],
        strategy: ReduceStrategy,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        self.run_rows(inputs, RowKernel::Sum(strategy))
    }

    /// The softmax of every row of `x` with the given variant, `rows × len`
    /// row-major; bit for bit [`softmax_emulated`](crate::rows::softmax_emulated).
    pub fn softmax(
        &self,
        x: &RowsInput<f16>,
        variant: SoftmaxVariant,
    ) -> Result<Vec<f16>, GpuError> {
        let mut out = self.softmax_batch(core::slice::from_ref(x), variant)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// [`Gpu::softmax`] of many inputs with one row length, in one
    /// submission. Results are in the order of `inputs`.
    pub fn softmax_batch<I: Borrow<RowsInput<f16>>>(
        &self,
        inputs: &[I],
        variant: SoftmaxVariant,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        self.run_rows(inputs, RowKernel::Softmax(variant))
    }

    fn run_rows<I: Borrow<RowsInput<f16>>>(
        &self,
        inputs: &[I],
        kernel: RowKernel,
    ) -> Result<Vec<Vec<f16>>, GpuError> {
        let Some(first) = inputs.first() else {
            return Ok(Vec::new());
        };
        let len = first.borrow().row_len();
        if let Some(other) = inputs
            .iter()
            .map(|x| x.borrow().row_len())
            .find(|&l| l != len)
        {
            return Err(GpuError::InvalidInput(format!(
                "a batch must have one row length: {len} and {other}"
            )));
        }
        let longest = match kernel {
            RowKernel::Sum(ReduceStrategy::F16Serial) => MAX_SERIAL_LEN,
            _ => MAX_ROW_LEN,
        };
        if len > longest {
            return Err(GpuError::InvalidInput(format!(
                "this row kernel takes rows of up to {longest} elements, got {len} \
                 (llvmpipe ends an invocation after 65535 loop iterations)"
            )));
        }
        let rows: usize = inputs.iter().map(|x| x.borrow().rows()).sum();
        let per_row = match kernel {
            RowKernel::Sum(_) => 1,
            RowKernel::Softmax(_) => len,
        };
        let out_elem = self.out_elem();
        let elements = rows as u64 * len as u64;
        let scratch = matches!(kernel, RowKernel::Sum(ReduceStrategy::Pairwise));
        let largest = (elements * 4).max(rows as u64 * per_row as u64 * out_elem);
        self.binding_limit(largest)?;
        // One workgroup per row, on a 2-D grid.
        let max = u64::from(self.max_dispatch);
        let gx = (rows as u64).min(max);
        let gy = (rows as u64).div_ceil(gx);
        if gy > max {
            return Err(GpuError::InvalidInput(format!(
                "{rows} rows are more than one dispatch can hold ({})",
                max * max
            )));
        }
        let grid = (gx as u32, gy as u32);
        let params = self.uniform(
            "row params",
            &RowParams {
                rows: rows as u32,
                len: len as u32,
                pad: [0; 2],
            },
        );
        let data: Vec<f16> = inputs
            .iter()
            .flat_map(|x| x.borrow().data().iter().copied())
            .collect();
        let input = self.storage("rows", bytemuck::cast_slice(&data));
        let out_bytes = rows as u64 * per_row as u64 * out_elem;
        let out = self.writable("row results", out_bytes, true);
        let scratch = self.writable("row scratch", if scratch { elements * 4 } else { 4 }, false);
        let bytes = self.dispatch_and_read(
            "row",
            &self.rows.pipelines[&kernel],
            &self.rows.layout,
            &[&params, &input, &out, &scratch],
            grid,
            &out,
            out_bytes,
        )?;
        let values = self.f16_outputs(&bytes);
        let mut rest = &values[..];
        Ok(inputs
            .iter()
            .map(|x| {
                let (head, tail) = rest.split_at(x.borrow().rows() * per_row);
                rest = tail;
                head.to_vec()
            })
            .collect())
    }
}
