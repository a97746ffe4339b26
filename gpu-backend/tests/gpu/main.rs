//! The GPU crate's tests, in one binary: one process, so that every
//! context on a device shares the kernels it compiles (each shader variant
//! compiled once, whichever test asks first) and one link.
//!
//! Each module is one subject; `cargo test -p dual-delta-gpu --test gpu
//! driver_freedoms::` runs one of them. `own_device` is a binary of its
//! own: it checks what a process that only ever used `Gpu::from_device`
//! records.

mod common;

mod accuracy;
mod adapter;
mod attention_kernels;
mod driver_freedoms;
mod edge_cases;
mod hardware_gpu;
mod kernels;
mod lowp_kernels;
mod matmul_variants;
mod norm_kernels;
mod policy;
mod reductions;
mod references;
mod rms_norm_kernels;
mod round_trips;
mod semantics;
