//! Bring your own device: an application that already has a wgpu device
//! judges its own kernel on it with dual-delta.
//!
//! The application's kernel is a row sum of `f16` values, one invocation
//! per row, accumulating in `f32` from left to right; with
//! `--f16-accumulator` it rounds its accumulator to `f16` after every
//! addition, as a kernel that keeps it in `f16` would. The baseline is
//! dual-delta-gpu's pairwise `f32` row sum, compiled on the application's
//! device through [`Gpu::from_device`]; the oracle is the exact sum
//! ([`sum_f64`]). The `f32` kernel is no worse than the baseline; the
//! `f16` one is significantly less accurate. Runs anywhere wgpu finds an
//! adapter, lavapipe included.
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example own_device [-- --n N --f16-accumulator]
//! ```

use std::sync::mpsc;

use dual_delta_gpu::reductions::SumStrategy;
use dual_delta_gpu::reductions::{RowsInput, random_rows, sum_f64};
use dual_delta_gpu::{Gpu, f16, wgpu};
use dual_delta_runtime::{DualDelta, Expect};
use wgpu::util::DeviceExt as _;

/// The application's kernel: `f16` values packed two per `u32` (so that it
/// needs no `SHADER_F16`), one `f32` sum per row, its accumulator rounded
/// to `f16` after every addition where `round_to_f16` is set (a conversion
/// round trip, which some drivers remove: the probe says so).
const ROW_SUM: &str = r"
struct Params { rows: u32, len: u32, round_to_f16: u32, pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let row = id.x;
    if row >= params.rows {
        return;
    }
    var acc = 0.0;
    for (var j = 0u; j < params.len; j++) {
        let i = row * params.len + j;
        let pair = unpack2x16float(x[i / 2u]);
        acc += select(pair.x, pair.y, (i & 1u) == 1u);
        if params.round_to_f16 != 0u {
            acc = unpack2x16float(pack2x16float(vec2<f32>(acc, 0.0))).x;
        }
    }
    y[row] = acc;
}
";

/// What the application keeps: its device, its queue and its pipeline.
struct RowSum {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    round_to_f16: bool,
}

impl RowSum {
    fn new(device: wgpu::Device, queue: wgpu::Queue, round_to_f16: bool) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("row sum"),
            source: wgpu::ShaderSource::Wgsl(ROW_SUM.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("row sum"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        RowSum {
            device,
            queue,
            pipeline,
            round_to_f16,
        }
    }

    /// The row sums of `x`, rounded to `f16`.
    fn run(&self, x: &RowsInput<f16>) -> Vec<f16> {
        let (rows, len) = x.shape();
        let params = [rows as u32, len as u32, u32::from(self.round_to_f16), 0];
        let mut values: Vec<u8> = bytemuck::cast_slice(x.data()).to_vec();
        values.resize(values.len().next_multiple_of(4), 0);
        let d = &self.device;
        let params = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::cast_slice(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let input = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("x"),
            contents: &values,
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bytes = (rows * 4) as u64;
        let output = d.create_buffer(&wgpu::BufferDescriptor {
            label: Some("y"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = d.create_buffer(&wgpu::BufferDescriptor {
            label: Some("y, read back"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("row sum"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: input.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: output.as_entire_binding(),
                },
            ],
        });
        let mut encoder = d.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(rows.div_ceil(64) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&output, 0, &staging, 0, bytes);
        let index = self.queue.submit([encoder.finish()]);
        let (tx, rx) = mpsc::channel();
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
        d.poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .expect("the kernel runs");
        rx.recv().unwrap().expect("the results map");
        let view = staging
            .get_mapped_range(..)
            .expect("the results are mapped");
        let sums: Vec<f16> = bytemuck::cast_slice::<u8, f32>(&view)
            .iter()
            .map(|&s| f16::from_f32(s))
            .collect();
        drop(view);
        staging.unmap();
        sums
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n = args
        .iter()
        .position(|a| a == "--n")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(200), |v| v.parse())?;
    let f16_accumulator = args.iter().any(|a| a == "--f16-accumulator");

    // The application's own set-up: any adapter, a device with the
    // default features and limits.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the application's device"),
        ..Default::default()
    }))?;
    let mine = RowSum::new(device.clone(), queue.clone(), f16_accumulator);

    // dual-delta-gpu's kernels on the same device, and the probe of it.
    let gpu = Gpu::from_device(&adapter, device, queue)?;
    gpu.record_environment();
    println!("device: {}", gpu.adapter_info());
    println!("probe: {}", gpu.semantics());

    let outcome = DualDelta::new(
        |x: &RowsInput<f16>| mine.run(x),
        |x: &RowsInput<f16>| {
            gpu.run(x, SumStrategy::Pairwise)
                .expect("the pairwise sum runs")
        },
        sum_f64,
        random_rows::<f16>(4, 4096),
    )
    .labels(
        if f16_accumulator {
            "application row sum (f16 accumulator)"
        } else {
            "application row sum (f32, serial)"
        },
        "pairwise f32 (dual-delta-gpu)",
    )
    .n(n)
    .expect(if f16_accumulator {
        Expect::Worse
    } else {
        Expect::NoWorse
    })
    .run()?;
    println!("{}", outcome.table());
    println!("{}", outcome.verdict_sentence());
    outcome.assert();
    Ok(())
}
