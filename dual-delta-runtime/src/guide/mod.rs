//! The guide: how to write dual-delta tests, what their verdicts claim, and
//! what each setting costs.
//!
//! Each chapter is a module; its examples are compiled and run by
//! `cargo test --workspace`, so none of them can drift from the code.
//!
//! | chapter | what it covers |
//! | --- | --- |
//! | [`writing_tests`] | the attribute and the builder, inputs, oracles, cases, gates, reports |
//! | [`claim`] | the claim a test makes, what a pass guarantees, stability, early failure, what it costs |
//! | [`regressions_and_suites`] | baselines across versions, `cargo dual-delta`, suites in CI |
//! | [`configuration`] | every setting: attribute key, environment variable, builder method, default |
//! | [`speed`] | where a run's time goes, builds, figures against the paper's harness |
//!
//! The GPU chapters are in `dual-delta-gpu`'s guide
//! (<https://docs.rs/dual-delta-gpu/latest/dual_delta_gpu/guide/>): GPU
//! kernels and their references, real GPUs (the H100 figures and the
//! bundle that runs the suite on any GPU machine), and the paper's case
//! studies reproduced.
//!
//! Every measured figure names its machine, its date and the command that
//! produced it: processors differ (lavapipe by 5–8× between machines), so
//! compare figures by ratios taken side by side on one machine.

pub mod claim {
    #![doc = include_str!("claim.md")]
}
pub mod configuration {
    #![doc = include_str!("configuration.md")]
}
pub mod regressions_and_suites {
    #![doc = include_str!("regressions_and_suites.md")]
}
pub mod speed {
    #![doc = include_str!("speed.md")]
}
pub mod writing_tests {
    #![doc = include_str!("writing_tests.md")]
}
