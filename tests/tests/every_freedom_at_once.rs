//! Every imitated driver freedom at once (`DUAL_DELTA_GPU_IMITATE=all`)
//! over the GPU crate's tests of what a process records of its contexts
//! and how it chooses them, the reductions and the matmuls: the GPU
//! crate's own test binary, run again in a child with the variable set,
//! as `cargo test --workspace` built it (nothing is built again). The
//! whole crate under every freedom (`DUAL_DELTA_GPU_IMITATE=all cargo test
//! -p dual-delta-gpu`) takes minutes on lavapipe, most of them compiling
//! every kernel once more; the real GPUs chapter gives its figures.

use std::path::Path;
use std::process::Command;

#[test]
fn the_gpu_crates_tests_pass_with_every_freedom_imitated_at_once() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The profile this binary was built with, so that nothing is built
    // again.
    let profile: &[&str] = if cfg!(debug_assertions) {
        &[]
    } else {
        &["--release"]
    };
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&workspace)
        .args(["test"])
        .args(profile)
        .args([
            "--workspace",
            "--test",
            "gpu",
            "--",
            "semantics::",
            "adapter::",
            "policy::",
            "reductions::",
            "matmul_variants::",
        ])
        .env("DUAL_DELTA_GPU_IMITATE", "all")
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let passed: usize = text
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(passed >= 10, "{passed} tests ran:\n{text}");
}
