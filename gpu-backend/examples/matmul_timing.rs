//! Milliseconds per FP16 matmul for each accumulation strategy, on the
//! shared adapter (native `f16` where available) and on the packed-`u32`
//! fallback, with the CPU references for comparison, and each strategy's
//! max-hybrid error against the `f64` oracle.
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example matmul_timing [-- --reps N --trials N]
//!     [--shape MxKxN] [--modes f32,split_k,f16] [--fallback 0|1]
//! ```
//!
//! On llvmpipe, `GALLIUM_OVERRIDE_CPU_CAPS=avx` makes it compile the
//! kernels for AVX2 on a processor with AVX-512 (16 vector registers
//! instead of 32), as on most CPU-only CI machines.

mod timing;

use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::F16Path,
    matmul::{
        Accumulation, MatmulInput, matmul_cpu_emulated, matmul_cpu_f16, matmul_f64,
        random_matmul_input,
    },
};
use dual_delta_runtime::TrialRng;
use timing::{max_hybrid, median_ms};

const SHAPES: [(usize, usize, usize); 2] = [(128, 128, 128), (128, 4096, 128)];
const MODES: [Accumulation; 3] = [
    Accumulation::F32,
    Accumulation::SplitK { splits: 8 },
    Accumulation::F16,
];
const BATCH: usize = 8;

fn arg_str(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn arg(name: &str, default: usize) -> usize {
    arg_str(name).map_or(default, |v| v.parse().expect("a number"))
}

fn main() -> Result<(), dual_delta_gpu::GpuError> {
    let reps = arg("--reps", 5);
    let trials = arg("--trials", 5);
    let native = Gpu::shared()?;
    let fallback = Gpu::new(&GpuOptions {
        f16: F16Path::Fallback,
        ..GpuOptions::from_env()?
    })?;
    let shapes: Vec<(usize, usize, usize)> = match arg_str("--shape") {
        Some(v) => {
            let d: Vec<usize> = v.split('x').map(|d| d.parse().expect("MxKxN")).collect();
            vec![(d[0], d[1], d[2])]
        }
        None => SHAPES.to_vec(),
    };
    let modes: Vec<Accumulation> = match arg_str("--modes") {
        Some(v) => v
            .split(',')
            .map(|m| match m {
                "f32" => Accumulation::F32,
                "split_k" => Accumulation::split_k(),
                "f16" => Accumulation::F16,
                _ => panic!("modes: f32, split_k, f16"),
            })
            .collect(),
        None => MODES.to_vec(),
    };
    let mut gpus = vec![native];
    if native.adapter_info().shader_f16 && arg("--fallback", 1) == 1 {
        gpus.push(&fallback);
    }
    for gpu in &gpus {
        println!("adapter: {}", gpu.adapter_info());
    }
    println!("median of {reps} runs (after one warm-up), including upload and read-back");
    for &(m, k, n) in &shapes {
        let generate = random_matmul_input(m, k, n);
        let input = generate(&mut TrialRng::for_trial(1, 0));
        let batch: Vec<MatmulInput> = (0..BATCH)
            .map(|i| generate(&mut TrialRng::for_trial(2, i)))
            .collect();
        println!("\n{m}×{k} @ {k}×{n}");
        for gpu in &gpus {
            let path = if gpu.adapter_info().shader_f16 {
                "native f16"
            } else {
                "fallback  "
            };
            for &mode in &modes {
                let single = median_ms(reps, || {
                    gpu.run(&input, mode).expect("matmul");
                });
                let batched = median_ms(reps, || {
                    gpu.run_batch(&batch, mode).expect("matmul_batch");
                }) / BATCH as f64;
                println!(
                    "  gpu {path} {:<12} {single:9.3} ms/matmul   batched ×{BATCH}: {batched:9.3} ms/matmul",
                    mode.to_string()
                );
            }
        }
        let cpu = median_ms(reps, || {
            matmul_cpu_f16(&input);
        });
        let oracle = median_ms(reps, || {
            matmul_f64(&input);
        });
        let emulated = median_ms(reps.min(3), || {
            matmul_cpu_emulated(&input, Accumulation::split_k());
        });
        println!("  cpu matmul_cpu_f16 (gemm f32)          {cpu:9.3} ms/matmul");
        println!("  cpu matmul_f64 oracle (gemm f64)       {oracle:9.3} ms/matmul");
        println!("  cpu matmul_cpu_emulated(split_k(8))    {emulated:9.3} ms/matmul");

        // Errors against the oracle over a few trials.
        let mut errors: Vec<(String, Vec<f64>)> = Vec::new();
        let mut push = |name: String, e: f64| match errors.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(e),
            None => errors.push((name, vec![e])),
        };
        for t in 0..trials {
            let x = generate(&mut TrialRng::for_trial(3, t));
            let oracle = matmul_f64(&x);
            push(
                "cpu f16 (f32 acc)".into(),
                max_hybrid(&matmul_cpu_f16(&x), &oracle),
            );
            for &mode in &modes {
                push(
                    format!("gpu {mode}"),
                    max_hybrid(&native.run(&x, mode)?, &oracle),
                );
            }
        }
        println!("  max-hybrid error vs oracle over {trials} trials (mean, std):");
        for (name, v) in &errors {
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let var =
                v.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (v.len().max(2) - 1) as f64;
            println!("    {name:<20} {mean:.3e}  {:.2e}", var.sqrt());
        }
    }
    Ok(())
}
