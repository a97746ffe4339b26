//! The GPU chapters of dual-delta's guide (the others are in
//! `dual-delta-runtime`'s guide:
//! <https://docs.rs/dual-delta-runtime/latest/dual_delta_runtime/guide/>).
//!
//! | chapter | what it covers |
//! | --- | --- |
//! | [`kernels`] | the kernels and their variants, references, inputs, a device of your own, every kernel's verdict |
//! | [`real_gpus`] | what a real GPU's driver does to floating point, the H100 figures, the bundle that runs the suite on any GPU machine |
//! | [`own_kernel`] | your own WGSL kernel on your own `wgpu::Device`: batched, skipped where there is no adapter, its device in the report, the wgpu to match |
//! | [`paper`] | the paper's three matmul case studies, reproduced and measured |
//!
//! Examples that need a device run on the best adapter found (lavapipe
//! where there is no GPU) and are skipped with `DUAL_DELTA_GPU=skip` where
//! there is none.

pub mod kernels {
    #![doc = include_str!("kernels.md")]
}
pub mod own_kernel {
    #![doc = include_str!("own_kernel.md")]
}
pub mod paper {
    #![doc = include_str!("paper.md")]
}
pub mod real_gpus {
    #![doc = include_str!("real_gpus.md")]
}
