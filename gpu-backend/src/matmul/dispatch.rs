//! [`Accumulation`] as a [`Kernel`]: the split-K layout of a batch, the
//! inputs uploaded as textures, and the tile kernel (then the split-K
//! reduction) recorded for each group of a batch.

use half::f16;

use super::shader::{self, MatmulKernel, MatmulKey, Params, Tiling};
use super::{Accumulation, MatmulInput};
use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::launch::Kernel;
use crate::launch::{Batching, Dispatch, Launch};
use crate::submit::Resource;

impl Kernel for Accumulation {
    type Input = MatmulInput<f16>;
    type Output = f16;
    type Plan = Plan;

    fn plan(self, gpu: &Gpu, inputs: &[&MatmulInput]) -> Result<Batching<Plan>, GpuError> {
        let (m, k, n) = one_shape(inputs.iter().map(|x| x.shape()))?;
        let (kernel, splits) = match self {
            Accumulation::F32 | Accumulation::SplitK { splits: 1 } => (MatmulKernel::TileF32, 1),
            Accumulation::SplitK { splits: 0 } => {
                return Err(GpuError::InvalidInput(
                    "split-K needs at least one split".into(),
                ));
            }
            Accumulation::SplitK { splits } => (MatmulKernel::TileF32, splits),
            Accumulation::F16 => (MatmulKernel::TileF16, 1),
        };
        plan(gpu, (m, k, n), splits, kernel)
    }

    fn launch(self, gpu: &Gpu, plan: &Plan, group: &[&MatmulInput]) -> Launch {
        let mut p = Params {
            batch: group.len() as u32,
            ..plan.params
        };
        let count = group.len() as u64;
        let mn = u64::from(p.m) * u64::from(p.n);
        let layout = Layout::of(&p);
        let (a, la) = upload(gpu, &layout, Operand::A, group);
        let (b, lb) = upload(gpu, &layout, Operand::B, group);
        p.la = la;
        p.lb = lb;
        let params = gpu.uniform(&p);
        let bytes = count * mn * gpu.out_elem();
        let out = gpu.writable("C", bytes, true);
        let tiling = Tiling::of(gpu.adapter_info());
        let tiles = count
            * u64::from(p.tiles_m)
            * u64::from(p.tiles_n)
            * u64::from(p.splits)
            * u64::from(tiling.invocations());
        let pipeline = |kernel| gpu.pipeline(MatmulKey { kernel, tiling });
        let tile = |target: &wgpu::Buffer| Dispatch {
            pipeline: pipeline(plan.kernel),
            resources: vec![
                params.clone(),
                Resource::Texture(a.clone()),
                Resource::Texture(b.clone()),
                Resource::Buffer(target.clone()),
            ],
            invocations: tiles,
            workgroup: tiling.workgroup(),
        };
        let dispatches = if p.splits > 1 {
            let partials = gpu.writable("split-K partials", bytes * u64::from(p.splits), false);
            // The reduction reads the partials (binding 2 is unused).
            let reduce = Dispatch {
                pipeline: pipeline(MatmulKernel::ReduceSplits),
                resources: vec![
                    params.clone(),
                    Resource::Buffer(partials.clone()),
                    Resource::Buffer(partials.clone()),
                    Resource::Buffer(out.clone()),
                ],
                invocations: count * mn,
                workgroup: shader::REDUCE_WORKGROUP,
            };
            vec![tile(&partials), reduce]
        } else {
            vec![tile(&out)]
        };
        Launch {
            dispatches,
            output: out,
            bytes,
        }
    }

    fn output_len(self, input: &MatmulInput) -> usize {
        input.output_len()
    }

    fn decode(gpu: &Gpu, bytes: &[u8]) -> Vec<f16> {
        gpu.f16_outputs(bytes)
    }
}

/// The one shape of a batch's inputs, or an error naming two that differ.
pub(crate) fn one_shape(
    mut shapes: impl Iterator<Item = (usize, usize, usize)>,
) -> Result<(usize, usize, usize), GpuError> {
    let first = shapes.next().expect("a batch has an input");
    match shapes.find(|&s| s != first) {
        None => Ok(first),
        Some(other) => {
            let (m, k, n) = first;
            Err(GpuError::InvalidInput(format!(
                "a batch must have one shape: {m}×{k}×{n} and {other:?}"
            )))
        }
    }
}

/// Buffer sizes and batch grouping for one shape.
fn plan(
    gpu: &Gpu,
    (m, k, n): (usize, usize, usize),
    splits: u32,
    kernel: MatmulKernel,
) -> Result<Batching<Plan>, GpuError> {
    let (m64, n64, s64) = (m as u64, n as u64, u64::from(splits));
    let out_elem = gpu.out_elem();
    let chunk = k.div_ceil(splits as usize);
    let kc = chunk.next_multiple_of(8);
    let kt = kc * splits as usize;
    let np = n.next_multiple_of(8);
    // A and B are textures of TEXTURE_WIDTH texels per row, 8 f16 per
    // texel, each matmul's part `rows` rows high (a power of two).
    let texels = (m64 * kt as u64).max(kt as u64 * np as u64) / 8;
    let rows = texels
        .div_ceil(u64::from(shader::TEXTURE_WIDTH))
        .next_power_of_two();
    if rows > u64::from(gpu.max_texture) {
        return Err(GpuError::TooLarge {
            needed: texels * 16,
            limit: u64::from(gpu.max_texture) * u64::from(shader::TEXTURE_WIDTH) * 16,
        });
    }
    let c = m64 * n64 * out_elem;
    let part = if splits > 1 { c * s64 } else { 0 };
    let largest = part.max(c);
    let limit = gpu.binding_limit(largest)?;
    let tiling = Tiling::of(gpu.adapter_info());
    let (rows_per, cols_per) = tiling.block(kernel);
    let tiles_m = m.div_ceil(rows_per as usize) as u64;
    let tiles_n = n.div_ceil(cols_per as usize) as u64;
    let items_per = tiles_m * tiles_n * s64;
    let max_items = u64::from(gpu.max_dispatch).pow(2) * u64::from(tiling.workgroup());
    let group = (limit / largest)
        .min(max_items / items_per.max(1))
        .min(max_items / (m64 * n64))
        .min(prev_power_of_two(u64::from(gpu.max_texture) / rows))
        .min((GROUP_TEXTURE_BYTES / (rows * u64::from(shader::TEXTURE_WIDTH) * 16)).max(1))
        .max(1);
    Ok(Batching {
        plan: Plan {
            kernel,
            params: Params {
                m: m as u32,
                k: k as u32,
                n: n as u32,
                splits,
                chunk: chunk as u32,
                tiles_m: tiles_m as u32,
                tiles_n: tiles_n as u32,
                batch: 0,
                kc: kc as u32,
                kt: kt as u32,
                np: np as u32,
                la: 0,
                lb: 0,
                zero: 0,
                pad: [0; 2],
            },
        },
        per_submission: usize::try_from(group).unwrap_or(usize::MAX),
    })
}

/// A texture of `Rgba32Uint` texels (eight `f16` each),
/// [`shader::TEXTURE_WIDTH`] texels per row, holding `operand` of every
/// input of `group` one after another, each in `layout`'s padded form
/// (zero where it writes nothing); returns its view and the texels from
/// one input to the next. The plan keeps the parts within the device's texture height.
fn upload(
    gpu: &Gpu,
    layout: &Layout,
    operand: Operand,
    group: &[&MatmulInput],
) -> (wgpu::TextureView, u32) {
    let (label, len) = match operand {
        Operand::A => ("A", layout.a_len()),
        Operand::B => ("B", layout.b_len()),
    };
    let count = group.len();
    let texels = len.div_ceil(8);
    let row = shader::TEXTURE_WIDTH as usize;
    // Power-of-two sides: llvmpipe compiles a kernel variant per
    // combination of power-of-two and other texture sizes, so one kind
    // of size keeps it to one compilation per kernel.
    let width = row;
    let height = texels.div_ceil(row).next_power_of_two();
    let total_height = (height * count).next_power_of_two();
    let layer = width * height * 8;
    let mut data = vec![f16::ZERO; total_height * width * 8];
    for (x, dst) in group.iter().zip(data.chunks_exact_mut(layer)) {
        match operand {
            Operand::A => layout.place_a(x.a(), &mut dst[..len]),
            Operand::B => layout.place_b(x.b(), &mut dst[..len]),
        }
    }
    let size = wgpu::Extent3d {
        width: width as u32,
        height: total_height as u32,
        depth_or_array_layers: 1,
    };
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Uint,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    gpu.queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        bytemuck::cast_slice(&data),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(16 * width as u32),
            rows_per_image: Some(total_height as u32),
        },
        size,
    );
    (
        texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2),
            ..Default::default()
        }),
        (width * height) as u32,
    )
}

/// Bytes of input texture per group of a batch (more when one matmul needs
/// more): a batch runs as groups, one submission each, so that each group
/// reuses the memory the last one freed. Allocations above the C library's
/// `mmap` threshold (32 MiB at most in glibc) go back to the system when
/// freed and come back as fresh pages to fault in: a batch of 32 matmuls of
/// `128×4096×128` (32 MiB per texture) in one group took 6.6 ms per matmul
/// on llvmpipe, against 4.0 ms in groups of 8 MiB (and 4.1 ms for 8
/// matmuls in one group), 2-core Zen 4, AVX2 path.
const GROUP_TEXTURE_BYTES: u64 = 8 << 20;

/// What a batch of one shape needs: the shape fields of the uniform (the
/// batch and texture strides filled per group) and the kernel.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    params: Params,
    kernel: MatmulKernel,
}

/// The largest power of two not above `x` (1 for 0).
fn prev_power_of_two(x: u64) -> u64 {
    if x == 0 {
        1
    } else {
        1 << (63 - x.leading_zeros())
    }
}

/// Which input matrix a texture holds.
#[derive(Clone, Copy, Debug)]
enum Operand {
    /// `A`, `m × k`.
    A,
    /// `B`, `k × n`.
    B,
}

/// Where the tile kernels read `A` and `B`: `k` is cut into the split-K
/// chunks (one for the non-split kernels), each padded with zeros to a
/// multiple of 8 (`kc`), so that every chunk starts on a `vec4<u32>`
/// boundary; rows of `B` are padded with zeros to `np`, a multiple of 8.
/// `A` is padded with `-0` and `B` with `+0`, so the padding adds products
/// `-0` after the last product of a chunk, and `x + (-0) = x` for every
/// `x`, `-0` included (a `+0` product would turn an `f16` sum rounded to
/// `-0` into `+0`): the results are those of the unpadded sums.
struct Layout {
    m: usize,
    k: usize,
    n: usize,
    chunk: usize,
    kc: usize,
    kt: usize,
    np: usize,
}

impl Layout {
    fn of(p: &Params) -> Self {
        Layout {
            m: p.m as usize,
            k: p.k as usize,
            n: p.n as usize,
            chunk: p.chunk as usize,
            kc: p.kc as usize,
            kt: p.kt as usize,
            np: p.np as usize,
        }
    }

    fn a_len(&self) -> usize {
        self.m * self.kt
    }

    fn b_len(&self) -> usize {
        self.kt * self.np
    }

    /// `(source start, destination start, length)` along `k` of each chunk.
    fn chunks(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (0..self.kt / self.kc.max(1)).map(|c| {
            let from = (c * self.chunk).min(self.k);
            let len = self.chunk.min(self.k - from);
            (from, c * self.kc, len)
        })
    }

    fn place_a(&self, src: &[f16], dst: &mut [f16]) {
        if self.kt == self.k {
            dst.copy_from_slice(src);
            return;
        }
        for (row, out) in src.chunks_exact(self.k).zip(dst.chunks_exact_mut(self.kt)) {
            out.fill(f16::NEG_ZERO);
            for (from, to, len) in self.chunks() {
                out[to..to + len].copy_from_slice(&row[from..from + len]);
            }
        }
    }

    fn place_b(&self, src: &[f16], dst: &mut [f16]) {
        if self.kt == self.k && self.np == self.n {
            dst.copy_from_slice(src);
            return;
        }
        for (from, to, len) in self.chunks() {
            for i in 0..len {
                let row = &src[(from + i) * self.n..(from + i + 1) * self.n];
                dst[(to + i) * self.np..(to + i) * self.np + self.n].copy_from_slice(row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two() {
        assert_eq!(prev_power_of_two(0), 1);
        assert_eq!(prev_power_of_two(512), 512);
        assert_eq!(prev_power_of_two(16383), 8192);
    }
}
