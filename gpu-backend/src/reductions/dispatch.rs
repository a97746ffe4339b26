//! [`SumStrategy`] and [`SoftmaxStrategy`] as [`Kernel`]s: a batch of row
//! tensors of one row length, one workgroup per row.

use half::f16;

use super::shader::{RowKernel, RowParams};
use super::{MAX_ROW_LEN, MAX_SERIAL_LEN, ROW_THREADS, RowsInput, SoftmaxStrategy, SumStrategy};
use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::launch::{Batching, Dispatch, Launch};
use crate::submit::Resource;

f16_kernel!(
    SumStrategy,
    RowsInput<f16>,
    RowKernel::Sum,
    plan,
    launch,
    |x| x.rows()
);
f16_kernel!(
    SoftmaxStrategy,
    RowsInput<f16>,
    RowKernel::Softmax,
    plan,
    launch,
    |x| x.data().len()
);

/// Outputs per row of `kernel`.
fn per_row(kernel: RowKernel, len: usize) -> u64 {
    match kernel {
        RowKernel::Sum(_) => 1,
        RowKernel::Softmax(_) => len as u64,
    }
}

/// Checks one row length within the kernel's limit and the buffers within
/// the device's: the whole batch goes in one submission.
fn plan(
    gpu: &Gpu,
    inputs: &[&RowsInput<f16>],
    kernel: RowKernel,
) -> Result<Batching<()>, GpuError> {
    let len = inputs[0].row_len();
    if let Some(other) = inputs.iter().map(|x| x.row_len()).find(|&l| l != len) {
        return Err(GpuError::InvalidInput(format!(
            "a batch must have one row length: {len} and {other}"
        )));
    }
    let longest = match kernel {
        RowKernel::Sum(SumStrategy::F16Serial) => MAX_SERIAL_LEN,
        _ => MAX_ROW_LEN,
    };
    if len > longest {
        return Err(GpuError::InvalidInput(format!(
            "this row kernel takes rows of up to {longest} elements, got {len} \
             (llvmpipe ends an invocation after 65535 loop iterations)"
        )));
    }
    let rows: u64 = inputs.iter().map(|x| x.rows() as u64).sum();
    let elements = rows * len as u64;
    gpu.binding_limit((elements * 4).max(rows * per_row(kernel, len) * gpu.out_elem()))?;
    Ok(Batching {
        plan: (),
        per_submission: inputs.len(),
    })
}

/// The rows of `group` one after another, one workgroup per row.
fn launch(gpu: &Gpu, group: &[&RowsInput<f16>], kernel: RowKernel) -> Launch {
    let len = group[0].row_len();
    let rows: usize = group.iter().map(|x| x.rows()).sum();
    let elements = rows as u64 * len as u64;
    let data: Vec<f16> = group
        .iter()
        .flat_map(|x| x.data().iter().copied())
        .collect();
    let bytes = rows as u64 * per_row(kernel, len) * gpu.out_elem();
    let output = gpu.writable("row results", bytes, true);
    let pairwise = kernel == RowKernel::Sum(SumStrategy::Pairwise);
    let scratch = gpu.writable(
        "row scratch",
        if pairwise { elements * 4 } else { 4 },
        false,
    );
    let params = RowParams {
        rows: rows as u32,
        len: len as u32,
        pad: [0; 2],
    };
    Launch {
        dispatches: vec![Dispatch {
            pipeline: gpu.pipeline(kernel),
            resources: vec![
                gpu.uniform(&params),
                Resource::Buffer(gpu.storage("rows", bytemuck::cast_slice(&data))),
                Resource::Buffer(output.clone()),
                Resource::Buffer(scratch),
            ],
            invocations: rows as u64 * ROW_THREADS as u64,
            workgroup: ROW_THREADS as u32,
        }],
        output,
        bytes,
    }
}
