//! Milliseconds per call of the LayerNorm and attention kernels for each
//! strategy, on the shared adapter, with the CPU baselines for comparison,
//! and each strategy's max-hybrid error against the `f64` oracle.
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example norm_attention_timing [-- --reps N]
//! ```

mod timing;

use dual_delta_gpu::{
    Gpu,
    attention::{
        AttentionShape, AttentionStrategy, attention_cpu, attention_f64, random_attention_input,
    },
    f16,
    norm::{LayerNormStrategy, layer_norm_cpu, layer_norm_f64, random_offset_norm_input},
};
use dual_delta_runtime::TrialRng;
use timing::{max_hybrid, median_ms};

fn main() -> Result<(), dual_delta_gpu::GpuError> {
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .map_or(10, |v| v.parse().expect("a number"));
    let gpu = Gpu::shared()?;
    println!("adapter: {}", gpu.adapter_info());
    let rng = &mut TrialRng::for_trial(7, 0);

    let x = random_offset_norm_input::<f16>(4, 1024, 1000.0, 1.0, true, 1e-5)(rng);
    let oracle = layer_norm_f64(&x);
    println!("LayerNorm 4×1024, 1000 ± 1, weight and bias:");
    for strategy in LayerNormStrategy::ALL {
        let y = gpu.run(&x, strategy)?;
        let ms = median_ms(reps, || drop(gpu.run(&x, strategy)));
        let err = max_hybrid(&y, &oracle);
        println!(
            "  {:<24} {ms:8.3} ms   max hybrid error {err:.3e}",
            strategy.to_string()
        );
    }
    let ms = median_ms(reps, || drop(layer_norm_cpu(&x)));
    let err = max_hybrid(&layer_norm_cpu(&x), &oracle);
    println!(
        "  {:<24} {ms:8.3} ms   max hybrid error {err:.3e}",
        "CPU baseline"
    );

    for seq in [128, 256, 512, 1024] {
        let shape = AttentionShape {
            heads: 1,
            seq_q: seq,
            seq_k: seq,
            d: 64,
            d_v: 64,
        };
        let x = random_attention_input::<f16>(shape, false)(rng);
        let oracle = attention_f64(&x);
        println!("attention, one head, seq {seq}, head dimension 64:");
        for strategy in AttentionStrategy::ALL {
            let y = gpu.run(&x, strategy)?;
            let ms = median_ms(reps, || drop(gpu.run(&x, strategy)));
            let err = max_hybrid(&y, &oracle);
            println!(
                "  {:<24} {ms:8.3} ms   max hybrid error {err:.3e}",
                strategy.to_string()
            );
        }
        let ms = median_ms(reps, || drop(attention_cpu(&x)));
        let err = max_hybrid(&attention_cpu(&x), &oracle);
        println!(
            "  {:<24} {ms:8.3} ms   max hybrid error {err:.3e}",
            "CPU baseline"
        );
    }
    Ok(())
}
