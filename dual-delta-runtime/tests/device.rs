//! Facts recorded for the process (here a device's, with
//! `record_environment`) reach every report:
//! the adapter line of the terminal table, the verdict in words (where the
//! device rounds differently from lavapipe), `summary.json`'s environment
//! and the step summary's row. A binary of its own: what it records is
//! the process's, read by every run of the process.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::record_environment;
use dual_delta_runtime::report::{json, step_summary};

#[path = "runtime/common/mod.rs"]
mod common;

use common::{naive, oracle as exact, short_input as input};

#[test]
fn the_device_and_its_caveats_are_in_every_report() {
    record_environment("gpu.adapter", "NVIDIA H100 80GB HBM3 (vulkan, DiscreteGpu)");
    record_environment("gpu.semantics", "f16 rounds per op, round trips removed");
    record_environment(
        "gpu.caveats",
        "on this device f32 subnormals are flushed to zero; a kernel that relies on them may be \
         less accurate here than on lavapipe",
    );
    let o = DualDelta::new(naive, naive, exact, input)
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
    let summary = json::to_value(&o, std::time::SystemTime::now());
    assert_eq!(
        summary["environment"]["gpu.semantics"],
        "f16 rounds per op, round trips removed"
    );
    let row = step_summary::row(
        &dual_delta_runtime::ended::Ended::Ran(Box::new(o.clone())),
        Err("not asked"),
    );
    assert!(
        row.contains("Adapter: NVIDIA H100 80GB HBM3 (vulkan, DiscreteGpu); f16 rounds per op"),
        "{row}"
    );
}
