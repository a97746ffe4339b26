//! The [`Gpu`] entry points of the low-precision kernels: upload a batch,
//! dispatch, read back.

use std::borrow::Borrow;

use half::bf16;

use super::shader::{self, LowpKernel, LowpParams};
use super::{Bf16Accumulation, Bf16MatmulInput, Fp8Accumulation, Fp8MatmulInput, LOWP_TILE};
use crate::{Gpu, GpuError};

/// One matmul of a batch: its packed `A` and `B` bytes and output scale.
struct Job {
    a: Vec<u8>,
    b: Vec<u8>,
    scale: f32,
}

impl Gpu {
    /// `C = A · B` for `bf16` inputs with the given accumulation, `m × n`
    /// `bf16`, row-major; bit for bit
    /// [`matmul_emulated_bf16`](crate::lowp::matmul_emulated_bf16) on lavapipe.
    pub fn matmul_bf16(
        &self,
        x: &Bf16MatmulInput,
        accumulation: Bf16Accumulation,
    ) -> Result<Vec<bf16>, GpuError> {
        let mut out = self.matmul_batch_bf16(core::slice::from_ref(x), accumulation)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// Many `bf16` matmuls of one shape in one submission; results in the
    /// order of `inputs`, each what [`Gpu::matmul_bf16`] returns for it.
    pub fn matmul_batch_bf16<I: Borrow<Bf16MatmulInput>>(
        &self,
        inputs: &[I],
        accumulation: Bf16Accumulation,
    ) -> Result<Vec<Vec<bf16>>, GpuError> {
        let shapes: Vec<_> = inputs.iter().map(|x| x.borrow().shape()).collect();
        let jobs = inputs.iter().map(|x| {
            let x = x.borrow();
            Job {
                a: bytemuck::cast_slice::<bf16, u8>(x.a()).to_vec(),
                b: bytemuck::cast_slice::<bf16, u8>(x.b()).to_vec(),
                scale: 1.0,
            }
        });
        let words = self.run_tiles(LowpKernel::Bf16(accumulation), &shapes, 0, jobs)?;
        Ok(words
            .into_iter()
            .map(|w| w.into_iter().map(|v| bf16::from_bits(v as u16)).collect())
            .collect())
    }

    /// The FP8 GEMM `C = scale_a·scale_b · (A · B)` with E4M3 inputs and the
    /// given accumulation, `m × n` `f32`, row-major; bit for bit
    /// [`matmul_emulated_fp8`](crate::lowp::matmul_emulated_fp8) on lavapipe.
    ///
    /// ```no_run
    /// use dual_delta_runtime::TrialRng;
    /// use dual_delta_gpu::{Gpu, lowp::{Fp8Accumulation, matmul_f64_fp8, random_matmul_input_fp8}};
    ///
    /// let x = random_matmul_input_fp8(128, 4096, 128)(&mut TrialRng::for_trial(1, 0));
    /// let limited = Gpu::shared()?.matmul_fp8(&x, Fp8Accumulation::Limited)?;
    /// let oracle = matmul_f64_fp8(&x);
    /// # let _ = (limited, oracle);
    /// # Ok::<(), dual_delta_gpu::GpuError>(())
    /// ```
    pub fn matmul_fp8(
        &self,
        x: &Fp8MatmulInput,
        accumulation: Fp8Accumulation,
    ) -> Result<Vec<f32>, GpuError> {
        let mut out = self.matmul_batch_fp8(core::slice::from_ref(x), accumulation)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// Many FP8 GEMMs of one shape in one submission; results in the order
    /// of `inputs`, each what [`Gpu::matmul_fp8`] returns for it.
    pub fn matmul_batch_fp8<I: Borrow<Fp8MatmulInput>>(
        &self,
        inputs: &[I],
        accumulation: Fp8Accumulation,
    ) -> Result<Vec<Vec<f32>>, GpuError> {
        let shapes: Vec<_> = inputs.iter().map(|x| x.borrow().shape()).collect();
        let k = shapes.first().map_or(1, |s| s.1);
        let (kernel, chunk) = match accumulation.chunk(k) {
            None => (LowpKernel::Fp8F32, 0),
            Some(chunk) => (LowpKernel::Fp8Limited, chunk),
        };
        let codes = |v: &[dual_delta_runtime::E4m3]| v.iter().map(|c| c.to_bits()).collect();
        let jobs = inputs.iter().map(|x| {
            let x = x.borrow();
            Job {
                a: codes(x.a()),
                b: codes(x.b()),
                scale: x.output_scale(),
            }
        });
        let words = self.run_tiles(kernel, &shapes, chunk, jobs)?;
        Ok(words
            .into_iter()
            .map(|w| w.into_iter().map(f32::from_bits).collect())
            .collect())
    }

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
        let input = bytemuck::cast_slice::<f32, u8>(values).to_vec();
        let groups = self.grid(u64::from(count), shader::ROUND_WORKGROUP);
        let words = self.submit(
            LowpKernel::Bf16Round,
            params,
            &input,
            &[0; 4],
            &[1.0],
            groups,
        )?;
        Ok(words[..values.len()]
            .iter()
            .map(|&v| bf16::from_bits(v as u16))
            .collect())
    }

    /// Runs a tile kernel over `jobs` (all of shape `shapes[0]`), in groups
    /// that fit the device's buffer limits, one output `u32` per element.
    fn run_tiles(
        &self,
        kernel: LowpKernel,
        shapes: &[(usize, usize, usize)],
        chunk: usize,
        jobs: impl Iterator<Item = Job>,
    ) -> Result<Vec<Vec<u32>>, GpuError> {
        let Some(&(m, k, n)) = shapes.first() else {
            return Ok(Vec::new());
        };
        if let Some(other) = shapes.iter().find(|&&s| s != (m, k, n)) {
            return Err(GpuError::InvalidInput(format!(
                "a batch must have one shape: {m}×{k}×{n} and {other:?}"
            )));
        }
        let largest = (m as u64 * k as u64 * 2)
            .max(k as u64 * n as u64 * 2)
            .max(m as u64 * n as u64 * 4);
        let limit = self.binding_limit(largest)?;
        let (tiles_m, tiles_n) = (m.div_ceil(LOWP_TILE) as u64, n.div_ceil(LOWP_TILE) as u64);
        let max_items = u64::from(self.max_dispatch).pow(2) * u64::from(shader::TILE_WORKGROUP);
        let group = (limit / largest)
            .min(max_items / (tiles_m * tiles_n))
            .max(1) as usize;
        let jobs: Vec<Job> = jobs.collect();
        let mut results = Vec::with_capacity(jobs.len());
        for part in jobs.chunks(group) {
            let params = LowpParams {
                m: m as u32,
                k: k as u32,
                n: n as u32,
                tiles_m: tiles_m as u32,
                tiles_n: tiles_n as u32,
                batch: part.len() as u32,
                chunk: chunk as u32,
                count: 0,
            };
            let a: Vec<u8> = part.iter().flat_map(|j| j.a.iter().copied()).collect();
            let b: Vec<u8> = part.iter().flat_map(|j| j.b.iter().copied()).collect();
            let scales: Vec<f32> = part.iter().map(|j| j.scale).collect();
            let items = part.len() as u64 * tiles_m * tiles_n;
            let groups = self.grid(items, shader::TILE_WORKGROUP);
            let words = self.submit(kernel, params, &a, &b, &scales, groups)?;
            results.extend(
                words
                    .chunks_exact(m * n)
                    .take(part.len())
                    .map(<[u32]>::to_vec),
            );
        }
        Ok(results)
    }

    /// Uploads, dispatches `kernel` on a `groups` grid, waits, and reads
    /// back the output words (`batch · m · n`, or `count`, of them).
    fn submit(
        &self,
        kernel: LowpKernel,
        params: LowpParams,
        a: &[u8],
        b: &[u8],
        scales: &[f32],
        groups: (u32, u32),
    ) -> Result<Vec<u32>, GpuError> {
        let words = (params.batch * params.m * params.n).max(params.count) as u64;
        let uniform = self.uniform("lowp params", &params);
        let (a, b) = (self.storage("A", a), self.storage("B", b));
        let scales = self.storage("scales", bytemuck::cast_slice(scales));
        let out = self.writable("lowp C", words * 4, true);
        let bytes = self.dispatch_and_read(
            "lowp",
            self.lowp.get(&self.device, kernel),
            &self.lowp.layout,
            &[&uniform, &a, &b, &out, &scales],
            groups,
            &out,
            words * 4,
        )?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}
