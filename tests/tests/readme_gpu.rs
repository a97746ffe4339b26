//! The README's GPU example, as written there but for `n` (the README's
//! own test checks that the two agree): a batched GPU candidate
//! accumulating in f32 is no worse than the CPU FP16 matmul; where no
//! adapter is usable and `DUAL_DELTA_GPU=skip`, it is skipped.

use dual_delta_gpu::matmul::{
    Accumulation, MatmulInput, matmul_cpu_f16, matmul_f64, random_matmul_input,
};
use dual_delta_gpu::{f16, shared_or_skip};
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report::Stored;

#[dual_delta_test(
    oracle = matmul_f64,
    baseline = matmul_cpu_f16,
    input = random_matmul_input(128, 4096, 128),
    batch = 32,
    n = 100,
)]
fn gpu_matmul(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
    shared_or_skip().run_batch(xs, Accumulation::F32).unwrap()
}

/// Runs `gpu_matmul` in a process of its own where no adapter matches
/// (`DUAL_DELTA_ADAPTER`) under `DUAL_DELTA_GPU=skip`: it passes as
/// skipped, and its report folder holds `skipped.json`.
#[test]
fn without_an_adapter_the_example_is_skipped_under_dual_delta_gpu_skip() {
    let home = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-gpu-skip");
    let _ = std::fs::remove_dir_all(&home);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "gpu_matmul"])
        .env("DUAL_DELTA_GPU", "skip")
        .env("DUAL_DELTA_ADAPTER", "no adapter has this name")
        .env("DUAL_DELTA_HOME", &home)
        .output()
        .unwrap();
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{output}");
    assert!(output.contains("test gpu_matmul ... ok"), "{output}");
    let dir = home.join("readme_gpu.gpu_matmul");
    assert!(dir.join("skipped.json").is_file(), "{output}");
    let stored = dual_delta_runtime::report::scan(&home).unwrap();
    let Some(Stored::Skipped(k)) = stored.get("readme_gpu.gpu_matmul") else {
        panic!("no skip recorded under {}:\n{output}", home.display());
    };
    assert_eq!(
        (k.test.as_str(), k.role.as_str()),
        ("readme_gpu::gpu_matmul", "candidate")
    );
    assert!(
        k.reason.starts_with("no GPU (DUAL_DELTA_GPU=skip): "),
        "{}",
        k.reason
    );
}
