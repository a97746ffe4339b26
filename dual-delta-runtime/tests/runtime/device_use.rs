//! A report names a device only where the run's own functions used it: a
//! test on the CPU never shows the GPU adapter that another test of the
//! same process used, whatever the order the tests run in, and two runs
//! at the same time, with the same seed or not, each name only their own;
//! and every report of a run that used a device names it and its caveats.

#![allow(clippy::ptr_arg)]

use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dual_delta_runtime::device::{self, DeviceFacts};
use dual_delta_runtime::prelude::*;

use super::common::{naive, oracle as exact, short_input as input};

/// The facts of an imitated device.
static IMITATED: LazyLock<DeviceFacts> = LazyLock::new(|| {
    DeviceFacts::new([
        ("gpu.adapter", "Imitated GPU (vulkan, DiscreteGpu)"),
        ("gpu.semantics", "f16 rounds per op"),
    ])
});

/// The adapter's line of the terminal table of a run that used it.
const ADAPTER_LINE: &str = "  adapter: Imitated GPU (vulkan, DiscreteGpu); f16 rounds per op\n";

/// The naive sum, as if dispatched to the imitated device.
fn on_the_device(x: &Vec<f32>) -> f32 {
    device::used(&IMITATED);
    naive(x)
}

fn run(candidate: impl Fn(&Vec<f32>) -> f32 + Sync, seed: u64) -> Outcome {
    DualDelta::new(candidate, naive, exact, input)
        .n(40)
        .seed(seed)
        .run()
        .unwrap()
}

/// [`run`] on a rayon pool of its own, of two threads: its functions may
/// wait for another run's without holding up the global pool.
fn run_on_its_pool(candidate: impl Fn(&Vec<f32>) -> f32 + Sync, seed: u64) -> Outcome {
    DualDelta::new(candidate, naive, exact, input)
        .n(40)
        .seed(seed)
        .threads(2)
        .run()
        .unwrap()
}

/// Whether a run's report names the imitated device, checked in its
/// environment and its terminal table alike.
fn names_the_device(o: &Outcome) -> bool {
    let table = o.table();
    let named = o.environment().get("gpu.adapter").map(String::as_str)
        == Some("Imitated GPU (vulkan, DiscreteGpu)")
        && o.environment().get("gpu.semantics").map(String::as_str) == Some("f16 rounds per op");
    assert_eq!(named, table.contains(ADAPTER_LINE), "{table}");
    assert_eq!(
        o.environment().contains_key("gpu.adapter"),
        table.contains("adapter:"),
        "{table}"
    );
    named
}

/// Waits, at most a few seconds, until `other` is set, having set `mine`:
/// two runs' functions meet, so that the runs are under way at once.
fn meet(mine: &AtomicBool, other: &AtomicBool) {
    mine.store(true, Ordering::SeqCst);
    let start = Instant::now();
    while !other.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn only_the_runs_that_used_the_device_name_it() {
    // One after the other, the CPU run first and last, the same seed.
    let cpu = run(naive, 1);
    let gpu = run(on_the_device, 1);
    let cpu_after = run(naive, 1);
    assert!(!names_the_device(&cpu) && !names_the_device(&cpu_after));
    assert!(names_the_device(&gpu));
    assert!(gpu.table().contains(ADAPTER_LINE), "{}", gpu.table());
    // At the same time, on threads of their own and the rayon pool's.
    let (cpu, gpu) = std::thread::scope(|s| {
        let cpu = s.spawn(|| run(naive, 4));
        let gpu = s.spawn(|| run(on_the_device, 5));
        (cpu.join().unwrap(), gpu.join().unwrap())
    });
    assert!(!names_the_device(&cpu) && names_the_device(&gpu));
}

#[test]
fn two_runs_with_the_same_seed_at_the_same_time_each_name_their_own_device() {
    for seed in [2, 3] {
        let (cpu_started, gpu_started) = (AtomicBool::new(false), AtomicBool::new(false));
        let (cpu, gpu) = std::thread::scope(|s| {
            let cpu = s.spawn(|| {
                run_on_its_pool(
                    |x| {
                        meet(&cpu_started, &gpu_started);
                        naive(x)
                    },
                    seed,
                )
            });
            let gpu = s.spawn(|| {
                run_on_its_pool(
                    |x| {
                        meet(&gpu_started, &cpu_started);
                        on_the_device(x)
                    },
                    seed,
                )
            });
            (cpu.join().unwrap(), gpu.join().unwrap())
        });
        assert!(!names_the_device(&cpu), "{}", cpu.table());
        assert!(names_the_device(&gpu), "{}", gpu.table());
        // The same trials, whichever device computed them.
        assert_eq!(cpu.delta1(), gpu.delta1());
    }
}

#[test]
fn a_device_opened_is_the_processs_fact_not_a_runs() {
    device::opened(&IMITATED);
    let environment = dual_delta_runtime::environment();
    assert_eq!(
        environment["gpu.adapter"],
        "Imitated GPU (vulkan, DiscreteGpu)"
    );
    assert_eq!(environment["gpu.semantics"], "f16 rounds per op");
    assert!(!names_the_device(&run(naive, 6)));
}

/// The adapter line of the terminal table, the verdict in words (where the
/// device rounds differently from lavapipe), `summary.json`'s environment
/// and the step summary's row.
#[test]
fn the_device_and_its_caveats_are_in_every_report_of_a_run_that_used_it() {
    static H100: LazyLock<DeviceFacts> = LazyLock::new(|| {
        DeviceFacts::new([
            ("gpu.adapter", "NVIDIA H100 80GB HBM3 (vulkan, DiscreteGpu)"),
            ("gpu.semantics", "f16 rounds per op, round trips removed"),
            (
                "gpu.caveats",
                "on this device f32 subnormals are flushed to zero; a kernel that relies on them \
                 may be less accurate here than on lavapipe",
            ),
        ])
    });
    let on_the_h100 = |x: &Vec<f32>| {
        device::used(&H100);
        naive(x)
    };
    let o = DualDelta::new(on_the_h100, naive, exact, input)
        .n(20)
        .run()
        .unwrap();
    let table = o.table();
    assert!(
        table.contains(
            "  adapter: NVIDIA H100 80GB HBM3 (vulkan, DiscreteGpu); f16 rounds per op, round \
             trips removed\n"
        ),
        "{table}"
    );
    let sentence = o.verdict_sentence();
    assert!(
        sentence.contains(
            "Device (NVIDIA H100 80GB HBM3): on this device f32 subnormals are flushed to zero"
        ),
        "{sentence}"
    );
    let summary = dual_delta_runtime::report::json::to_value(&o, std::time::SystemTime::now());
    assert_eq!(
        summary["environment"]["gpu.semantics"],
        "f16 rounds per op, round trips removed"
    );
    let row = dual_delta_runtime::report::step_summary::row(
        &dual_delta_runtime::ended::Ended::Ran(Box::new(o.clone())),
        Err("not asked"),
    );
    assert!(
        row.contains("Adapter: NVIDIA H100 80GB HBM3 (vulkan, DiscreteGpu); f16 rounds per op"),
        "{row}"
    );
}
