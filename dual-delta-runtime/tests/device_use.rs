//! A report names a device only where the run's own functions used it: a
//! test on the CPU never shows the GPU adapter that another test of the
//! same process opened, whatever the order the tests run in. A binary of
//! its own: runs are told apart by their base seed, and these use seeds
//! 1 to 3, as other tests do.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{note_device_use, record_device};

#[path = "runtime/common/mod.rs"]
mod common;

use common::{naive, oracle as exact, short_input as input};

/// The naive sum, as if dispatched to a device.
fn on_the_device(x: &Vec<f32>) -> f32 {
    note_device_use();
    naive(x)
}

fn run(candidate: fn(&Vec<f32>) -> f32, seed: u64) -> Outcome {
    DualDelta::new(candidate, naive, exact, input)
        .n(40)
        .seed(seed)
        .run()
        .unwrap()
}

#[test]
fn only_the_runs_that_used_the_device_name_it() {
    record_device("gpu.adapter", "Imitated GPU (vulkan, DiscreteGpu)");
    record_device("gpu.semantics", "f16 rounds per op");
    let named = |o: &Outcome| o.environment().contains_key("gpu.adapter");
    // One after the other, the CPU run first and last.
    let cpu = run(naive, 1);
    let gpu = run(on_the_device, 2);
    let cpu_after = run(naive, 3);
    assert!(!named(&cpu) && !named(&cpu_after));
    assert!(named(&gpu));
    assert!(
        gpu.table()
            .contains("  adapter: Imitated GPU (vulkan, DiscreteGpu); f16 rounds per op\n")
    );
    assert!(
        !cpu_after.table().contains("adapter:"),
        "{}",
        cpu_after.table()
    );
    // At the same time, on threads of their own and the rayon pool's.
    let (cpu, gpu) = std::thread::scope(|s| {
        let cpu = s.spawn(|| run(naive, 4));
        let gpu = s.spawn(|| run(on_the_device, 5));
        (cpu.join().unwrap(), gpu.join().unwrap())
    });
    assert!(!named(&cpu) && named(&gpu));
    // `environment()` lists every fact recorded, the devices' too.
    assert_eq!(
        dual_delta_runtime::environment()["gpu.adapter"],
        "Imitated GPU (vulkan, DiscreteGpu)"
    );
}
