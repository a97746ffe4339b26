//! The `DUAL_DELTA_GPU` / `DUAL_DELTA_ADAPTER` policy, end to end: this test
//! binary runs one of its own tests in a child process with the variables
//! set, and checks what the child prints and how it exits.

use std::process::{Command, Output};

/// Run by the tests below in a child process; ignored in normal runs.
#[test]
#[ignore = "run in a child process by the policy tests"]
fn child_asks_for_a_gpu() {
    match dual_delta_gpu::require_gpu() {
        Some(gpu) => println!("CHILD got {}", gpu.adapter_info()),
        None => println!("CHILD skipped"),
    }
}

fn child(vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "policy::child_asks_for_a_gpu",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for var in ["DUAL_DELTA_GPU", "DUAL_DELTA_ADAPTER", "DUAL_DELTA_GPU_F16"] {
        cmd.env_remove(var);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("the test binary runs")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn no_adapter_fails_by_default_and_says_how_to_install_lavapipe() {
    let out = child(&[("DUAL_DELTA_ADAPTER", "no-such-adapter")]);
    let (stdout, stderr) = text(&out);
    assert!(
        !out.status.success(),
        "must fail, never pass silently:\n{stdout}\n{stderr}"
    );
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("no GPU adapter matches DUAL_DELTA_ADAPTER=\"no-such-adapter\""),
        "{all}"
    );
    assert!(
        all.contains("apt-get install mesa-vulkan-drivers libvulkan1"),
        "{all}"
    );
    assert!(!stdout.contains("CHILD"), "{stdout}");
}

#[test]
fn no_adapter_with_skip_skips_and_prints_why() {
    let out = child(&[
        ("DUAL_DELTA_ADAPTER", "no-such-adapter"),
        ("DUAL_DELTA_GPU", "skip"),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("CHILD skipped"), "{stdout}");
    assert!(
        stderr.contains("skipping GPU test (DUAL_DELTA_GPU=skip): no GPU adapter matches"),
        "{stderr}"
    );
}

#[test]
fn a_misspelt_policy_is_an_error_not_a_skip() {
    let out = child(&[
        ("DUAL_DELTA_ADAPTER", "no-such-adapter"),
        ("DUAL_DELTA_GPU", "skipp"),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "{stdout}\n{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("invalid DUAL_DELTA_GPU=\"skipp\": expected"),
        "{stdout}{stderr}"
    );
}

#[test]
fn forcing_the_fallback_through_the_environment() {
    if dual_delta_gpu::require_gpu().is_none() {
        return;
    }
    let out = child(&[("DUAL_DELTA_GPU_F16", "fallback")]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("CHILD got") && stdout.contains("f16 fallback (packed u32)"),
        "{stdout}"
    );
}
