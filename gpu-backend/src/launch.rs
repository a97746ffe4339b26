//! The one launch path: a family's [`Kernel`] checks a batch of inputs and
//! describes each submission ([`Launch`]: its dispatches, their bindings
//! and sizes), and [`Gpu::run_batch`] uploads, dispatches, reads back and
//! splits the results per input for every family alike.

use std::borrow::Borrow;
use std::sync::Arc;

use half::f16;
use wgpu::util::DeviceExt as _;

use crate::device::context::Gpu;
use crate::error::GpuError;
use crate::pipelines::Compiled;
use crate::submit::{Resource, bind_group, padded, submit_and_read};

/// A kernel family's strategy: what [`Gpu::run`] and [`Gpu::run_batch`]
/// take to run that family's kernel on its input. Implemented by the
/// strategies of every family: [`matmul::Accumulation`](crate::matmul::Accumulation),
/// [`lowp::Bf16Accumulation`](crate::matmul_lowp::Bf16Accumulation),
/// [`lowp::Fp8Accumulation`](crate::matmul_lowp::Fp8Accumulation),
/// [`rows::SumStrategy`](crate::reductions::SumStrategy),
/// [`rows::SoftmaxStrategy`](crate::reductions::SoftmaxStrategy),
/// [`norm::LayerNormStrategy`](crate::norm::LayerNormStrategy),
/// [`norm::RmsNormStrategy`](crate::norm::RmsNormStrategy) and
/// [`attention::AttentionStrategy`](crate::attention::AttentionStrategy).
/// Its methods are how the launch path asks the family; they are not for
/// calling directly.
pub trait Kernel: Copy {
    /// One input of the kernel.
    type Input;
    /// The element type of its result.
    type Output: Copy;
    /// What the family works out once per batch.
    type Plan;

    /// Checks `inputs` (at least one) against each other, the family's
    /// limits and the device's, and says how many go in one submission.
    fn plan(self, gpu: &Gpu, inputs: &[&Self::Input]) -> Result<Batching<Self::Plan>, GpuError>;

    /// Uploads `group` and describes its submission.
    fn launch(self, gpu: &Gpu, plan: &Self::Plan, group: &[&Self::Input]) -> Launch;

    /// Result elements of `input`.
    fn output_len(self, input: &Self::Input) -> usize;

    /// The result elements in the output `bytes` read back.
    fn decode(gpu: &Gpu, bytes: &[u8]) -> Vec<Self::Output>;
}

/// A batch's plan and how many of its inputs go in one submission.
#[derive(Debug)]
pub struct Batching<P> {
    /// The family's plan.
    pub(crate) plan: P,
    /// Inputs per submission (at least 1).
    pub(crate) per_submission: usize,
}

/// One dispatch: a kernel's pipeline ([`Gpu::pipeline`] of the family's
/// key), its resources at bindings `0, 1, …`, and the invocations to cover
/// (in workgroups of `workgroup`).
#[derive(Debug)]
pub(crate) struct Dispatch {
    pub(crate) pipeline: Arc<Compiled>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) invocations: u64,
    pub(crate) workgroup: u32,
}

/// One submission: its dispatches in order (one compute pass), and the
/// output buffer whose first `bytes` are read back.
#[derive(Debug)]
pub struct Launch {
    pub(crate) dispatches: Vec<Dispatch>,
    pub(crate) output: wgpu::Buffer,
    pub(crate) bytes: u64,
}

impl Gpu {
    /// Runs `kernel` on `input`: what [`Gpu::run_batch`] returns for that
    /// one input.
    ///
    /// ```no_run
    /// use dual_delta_gpu::{Gpu, f16, reductions::{RowsInput, SoftmaxStrategy, SumStrategy}};
    ///
    /// let gpu = Gpu::shared()?;
    /// let ones = RowsInput::new(1, 4096, vec![f16::ONE; 4096])?;
    /// assert_eq!(gpu.run(&ones, SumStrategy::F16Serial)?[0], f16::from_f32(2048.0));
    /// assert_eq!(gpu.run(&ones, SumStrategy::F32)?[0], f16::from_f32(4096.0));
    /// let probabilities = gpu.run(&ones, SoftmaxStrategy::Careful)?; // 1/4096 each
    /// # let _ = probabilities;
    /// # Ok::<(), dual_delta_gpu::GpuError>(())
    /// ```
    pub fn run<K: Kernel>(&self, input: &K::Input, kernel: K) -> Result<Vec<K::Output>, GpuError> {
        let mut out = self.run_batch(core::slice::from_ref(input), kernel)?;
        Ok(out.pop().expect("one input gives one output"))
    }

    /// Runs `kernel` on many inputs of one shape in few submissions (as
    /// many per submission as the device's limits allow, and for matmuls
    /// up to 8 MiB of input). Results are in the order of `inputs`, each
    /// identical to what [`Gpu::run`] returns for it.
    pub fn run_batch<K: Kernel, I: Borrow<K::Input>>(
        &self,
        inputs: &[I],
        kernel: K,
    ) -> Result<Vec<Vec<K::Output>>, GpuError> {
        let inputs: Vec<&K::Input> = inputs.iter().map(Borrow::borrow).collect();
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let Batching {
            plan,
            per_submission,
        } = kernel.plan(self, &inputs)?;
        let mut results = Vec::with_capacity(inputs.len());
        // One submission per group, each waited for: the next group's
        // uploads reuse the memory the last one freed.
        for group in inputs.chunks(per_submission.max(1)) {
            let launch = kernel.launch(self, &plan, group);
            let values = K::decode(self, &self.submit(&launch)?);
            let mut rest = &values[..];
            for x in group {
                let (head, tail) = rest.split_at(kernel.output_len(x));
                results.push(head.to_vec());
                rest = tail;
            }
        }
        Ok(results)
    }

    /// Records `launch`'s dispatches in one compute pass, submits it, waits
    /// and reads its output back.
    pub(crate) fn submit(&self, launch: &Launch) -> Result<Vec<u8>, GpuError> {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let mut recorded = Vec::with_capacity(launch.dispatches.len());
        for dispatch in &launch.dispatches {
            let compiled = Arc::clone(&dispatch.pipeline);
            let bind = bind_group(&self.device, &compiled.layout, &dispatch.resources);
            let grid = self.checked_grid(dispatch.invocations, dispatch.workgroup)?;
            recorded.push((compiled, bind, grid));
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            for (compiled, bind, (x, y)) in &recorded {
                pass.set_pipeline(&compiled.pipeline);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(*x, *y, 1);
            }
        }
        let what = launch
            .dispatches
            .first()
            .map_or("empty", |d| d.pipeline.label);
        let read = submit_and_read(
            &self.device,
            &self.queue,
            what,
            encoder,
            &launch.output,
            launch.bytes,
        );
        // The run whose function called this ran on this context's device:
        // its report names this context's facts, whichever others the
        // process holds.
        dual_delta_runtime::device::used(&self.facts);
        read
    }

    /// [`Gpu::grid`], or an error when one dispatch cannot hold it.
    fn checked_grid(&self, invocations: u64, workgroup: u32) -> Result<(u32, u32), GpuError> {
        let groups = invocations.div_ceil(u64::from(workgroup)).max(1);
        let max = u64::from(self.max_dispatch);
        if groups > max * max {
            return Err(GpuError::InvalidInput(format!(
                "{groups} workgroups are more than one dispatch can hold ({})",
                max * max
            )));
        }
        Ok(self.grid(invocations, workgroup))
    }

    /// The 2-D grid of workgroups of `workgroup` invocations covering
    /// `invocations` (the kernels number their invocations across it).
    pub(crate) fn grid(&self, invocations: u64, workgroup: u32) -> (u32, u32) {
        let groups = invocations.div_ceil(u64::from(workgroup)).max(1);
        let x = groups.min(u64::from(self.max_dispatch));
        (x as u32, groups.div_ceil(x) as u32)
    }

    /// The most bytes one binding may hold (element indices are `u32` in
    /// the shaders), or [`GpuError::TooLarge`] when `needed` is more.
    pub(crate) fn binding_limit(&self, needed: u64) -> Result<u64, GpuError> {
        let limit = self.max_binding.min(u64::from(u32::MAX));
        if needed > limit {
            return Err(GpuError::TooLarge { needed, limit });
        }
        Ok(limit)
    }

    /// Bytes per `f16` output element: 2 on the native path, 4 on the
    /// fallback (the bits in the low half of a `u32`).
    pub(crate) fn out_elem(&self) -> u64 {
        if self.summary.shader_f16 { 2 } else { 4 }
    }

    /// The `f16` values of an output read back, [`Gpu::out_elem`] bytes
    /// each.
    pub(crate) fn f16_outputs(&self, bytes: &[u8]) -> Vec<f16> {
        bytes
            .chunks_exact(self.out_elem() as usize)
            .map(|b| f16::from_le_bytes([b[0], b[1]]))
            .collect()
    }

    /// A uniform buffer holding `value`.
    pub(crate) fn uniform<T: bytemuck::Pod>(&self, value: &T) -> Resource {
        Resource::Buffer(
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("params"),
                    contents: bytemuck::bytes_of(value),
                    usage: wgpu::BufferUsages::UNIFORM,
                }),
        )
    }

    /// A read-only storage buffer holding `bytes`, zero-padded to
    /// [`padded`] length.
    pub(crate) fn storage(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        let mut contents = bytes.to_vec();
        contents.resize(padded(bytes.len() as u64) as usize, 0);
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
    }

    /// A storage buffer of `bytes` (at least [`padded`]) the kernel writes;
    /// `readable` where its contents are copied back.
    pub(crate) fn writable(&self, label: &str, bytes: u64, readable: bool) -> wgpu::Buffer {
        let mut usage = wgpu::BufferUsages::STORAGE;
        if readable {
            usage |= wgpu::BufferUsages::COPY_SRC;
        }
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: padded(bytes),
            usage,
            mapped_at_creation: false,
        })
    }
}
