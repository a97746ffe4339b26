//! [`Bf16Accumulation`] and [`Fp8Accumulation`] as [`Kernel`]s on
//! [`MatmulInput`]s of `bf16` and E4M3 values (packed into `u32` words),
//! and the kernels' own rounding to `bf16`.

use dual_delta_runtime::E4m3;
use half::bf16;

use super::shader::{self, LowpKernel, LowpParams};
use super::{Bf16Accumulation, Fp8Accumulation, LOWP_COLS, LOWP_ROWS};
use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::launch::Kernel;
use crate::launch::{Batching, Dispatch, Launch};
use crate::matmul::{MatmulElement, MatmulInput};
use crate::submit::Resource;

/// Implements [`Kernel`] for a low-precision strategy: its kernel and the
/// K chunk of limited accumulation (0 for none) from the strategy `$s` and
/// the depth `$k`, `$pack` the bytes of a matrix, `$unpack`
/// an output from its word.
macro_rules! lowp_kernel {
    ($strategy:ty, $element:ty, $output:ty, |$s:ident, $k:ident| $kernel_chunk:expr,
     $pack:expr, $unpack:expr) => {
        impl Kernel for $strategy {
            type Input = MatmulInput<$element>;
            type Output = $output;
            type Plan = Plan;

            fn plan(
                self,
                gpu: &Gpu,
                inputs: &[&Self::Input],
            ) -> Result<Batching<Self::Plan>, GpuError> {
                let ($s, $k) = (self, inputs[0].k());
                let (kernel, chunk) = $kernel_chunk;
                plan(gpu, inputs, kernel, chunk)
            }

            fn launch(self, gpu: &Gpu, plan: &Self::Plan, group: &[&Self::Input]) -> Launch {
                launch(gpu, plan, group, $pack)
            }

            fn output_len(self, input: &Self::Input) -> usize {
                input.output_len()
            }

            fn decode(_: &Gpu, bytes: &[u8]) -> Vec<$output> {
                words(bytes).map($unpack).collect()
            }
        }
    };
}

lowp_kernel!(
    Bf16Accumulation,
    bf16,
    bf16,
    |s, _k| (LowpKernel::Bf16(s), 0),
    |v: &[bf16]| bytemuck::cast_slice::<bf16, u8>(v).to_vec(),
    |w| bf16::from_bits(w as u16)
);
lowp_kernel!(
    Fp8Accumulation,
    E4m3,
    f32,
    |s, k| match s {
        Fp8Accumulation::F32 => (LowpKernel::Fp8F32, 0),
        _ => (LowpKernel::Fp8Limited, s.chunk(k).unwrap_or(0)),
    },
    |v: &[E4m3]| v.iter().map(|c| c.to_bits()).collect(),
    f32::from_bits
);

/// What a batch of one shape needs: the kernel, and the uniform's shape
/// fields (the batch filled per group).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    kernel: LowpKernel,
    params: LowpParams,
}

/// The `u32` words of `bytes`.
fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// Checks one shape, and groups the batch within the device's limits.
fn plan<E: MatmulElement>(
    gpu: &Gpu,
    inputs: &[&MatmulInput<E>],
    kernel: LowpKernel,
    chunk: usize,
) -> Result<Batching<Plan>, GpuError> {
    let (m, k, n) = crate::matmul::one_shape(inputs.iter().map(|x| x.shape()))?;
    let largest = (m as u64 * k as u64 * 2)
        .max(k as u64 * n as u64 * 2)
        .max(m as u64 * n as u64 * 4);
    let limit = gpu.binding_limit(largest)?;
    let (tiles_m, tiles_n) = (m.div_ceil(LOWP_ROWS) as u64, n.div_ceil(LOWP_COLS) as u64);
    let max_items = u64::from(gpu.max_dispatch).pow(2) * u64::from(shader::TILE_WORKGROUP);
    let group = (limit / largest)
        .min(max_items / (tiles_m * tiles_n))
        .max(1) as usize;
    Ok(Batching {
        plan: Plan {
            kernel,
            params: LowpParams {
                m: m as u32,
                k: k as u32,
                n: n as u32,
                tiles_m: tiles_m as u32,
                tiles_n: tiles_n as u32,
                batch: 0,
                chunk: chunk as u32,
                count: 0,
                zero: 0,
                pad: [0; 3],
            },
        },
        per_submission: group,
    })
}

/// Uploads `group` (each matrix as the bytes `pack` gives) and describes
/// the tile kernel's dispatch.
fn launch<E: MatmulElement>(
    gpu: &Gpu,
    plan: &Plan,
    group: &[&MatmulInput<E>],
    pack: impl Fn(&[E]) -> Vec<u8>,
) -> Launch {
    let params = LowpParams {
        batch: group.len() as u32,
        ..plan.params
    };
    let a: Vec<u8> = group.iter().flat_map(|x| pack(x.a())).collect();
    let b: Vec<u8> = group.iter().flat_map(|x| pack(x.b())).collect();
    let scales: Vec<f32> = group.iter().map(|x| x.output_scale()).collect();
    let items = u64::from(params.batch) * u64::from(params.tiles_m) * u64::from(params.tiles_n);
    let words = u64::from(params.batch * params.m * params.n);
    lowp_launch(
        gpu,
        plan.kernel,
        params,
        [&a, &b],
        &scales,
        words,
        (items, shader::TILE_WORKGROUP),
    )
}

/// The dispatch of a low-precision kernel: `params`, `A` and `B` bytes,
/// the scales, `words` of output, and `(invocations, workgroup)`.
fn lowp_launch(
    gpu: &Gpu,
    kernel: LowpKernel,
    params: LowpParams,
    [a, b]: [&[u8]; 2],
    scales: &[f32],
    words: u64,
    (invocations, workgroup): (u64, u32),
) -> Launch {
    let output = gpu.writable("lowp C", words * 4, true);
    Launch {
        dispatches: vec![Dispatch {
            pipeline: gpu.pipeline(kernel),
            resources: vec![
                gpu.uniform(&params),
                Resource::Buffer(gpu.storage("A", a)),
                Resource::Buffer(gpu.storage("B", b)),
                Resource::Buffer(output.clone()),
                Resource::Buffer(gpu.storage("scales", bytemuck::cast_slice(scales))),
            ],
            invocations,
            workgroup,
        }],
        output,
        bytes: words * 4,
    }
}

impl Gpu {
    /// Every value rounded to `bf16` by the kernels' own conversion (the
    /// shaders' `rbf` of `crate::wgsl`, on the bits): nearest, ties to even, overflow to
    /// `±∞`, subnormals kept, a NaN kept a quiet NaN with its sign and top
    /// payload bits. It equals `half::bf16::from_f32`, which the emulations
    /// use; this entry point is how that is checked.
    pub fn round_to_bf16(&self, values: &[f32]) -> Result<Vec<bf16>, GpuError> {
        if values.is_empty() {
            return Ok(Vec::new());
        }
        let count = values.len() as u32;
        let params = LowpParams {
            count,
            ..<LowpParams as bytemuck::Zeroable>::zeroed()
        };
        let input = bytemuck::cast_slice::<f32, u8>(values);
        let launch = lowp_launch(
            self,
            LowpKernel::Bf16Round,
            params,
            [input, &[0; 4]],
            &[1.0],
            u64::from(count),
            (u64::from(count), shader::ROUND_WORKGROUP),
        );
        Ok(words(&self.submit(&launch)?)
            .map(|v| bf16::from_bits(v as u16))
            .collect())
    }
}
