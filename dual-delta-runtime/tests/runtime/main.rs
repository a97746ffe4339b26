//! The runtime's tests, in one binary: one compile and one link of the
//! runtime's generic code for all of them, instead of one per file.
//!
//! Each module is one subject; `cargo test -p dual-delta-runtime --test
//! runtime claim::` runs one of them. `cli` is built with the `cli`
//! feature, `ecosystem` with `num-complex`, `ndarray` and `nalgebra` (the
//! tests crate turns all four on for `cargo test --workspace`). The
//! runtime has no other test binary: a device's facts are the run's own
//! (`device_use`), so no test reads another's.

mod child;
mod common;

mod adversary;
mod api;
mod baseline;
mod batched;
mod bound;
mod cases;
mod claim;
mod cli;
mod damaged;
mod device_use;
mod e2e;
mod early;
#[cfg(all(feature = "num-complex", feature = "ndarray", feature = "nalgebra"))]
mod ecosystem;
mod generators;
mod harness;
mod kills;
mod magnitudes;
mod outcome;
mod readme;
mod regions;
mod replay;
mod reports;
mod scipy_distribution;
mod scipy_paired;
mod screen;
mod sentences;
mod sequential;
mod settings_effect;
mod stability;
mod structure;
mod suite;
mod summation;
mod unwritable;
