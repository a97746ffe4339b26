//! dual-delta's side of the side-by-side with the paper's own harness
//! (`scripts/compare_pytorch.py`): the CPU FP16 matmul as both
//! implementations, the f64 oracle, the maximum hybrid error, N trials,
//! the full statistics. Prints the seconds per trial.
//!
//! ```sh
//! cargo run --release --example cpu_harness -- M K N TRIALS
//! ```

use std::process::ExitCode;
use std::time::Instant;

use dual_delta_gpu::matmul::{MatmulInput, matmul_cpu_f16, matmul_f64};
use dual_delta_runtime::{DualDelta, TrialRng};

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments: M K N TRIALS (whole numbers)"))
        .collect();
    let [m, k, n, trials] = args[..] else {
        eprintln!("usage: cpu_harness M K N TRIALS");
        return ExitCode::FAILURE;
    };
    let input = move |rng: &mut TrialRng| MatmulInput::random(m, k, n, rng);
    let run = DualDelta::new(matmul_cpu_f16, matmul_cpu_f16, matmul_f64, input)
        .test_name(format!("cpu_harness::{m}x{k}x{n}"))
        .n(trials);
    let start = Instant::now();
    let outcome = match run.run() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let total = start.elapsed().as_secs_f64();
    println!(
        "dual-delta {m}x{k}x{n}: {trials} trials in {total:.3} s, {:.3} ms per trial \
         (trials {:.3} s, statistics {:.3} s), threads {}, mean error {:.6e}",
        1e3 * total / trials as f64,
        outcome.trial_time().as_secs_f64(),
        total - outcome.trial_time().as_secs_f64(),
        rayon::current_num_threads(),
        outcome.summaries().candidate.mean
    );
    ExitCode::SUCCESS
}
