//! The device: what is asked of it ([`GpuOptions`](crate::GpuOptions),
//! [`F16Path`], [`Subgroups`], [`MatmulTiling`]), what was found
//! ([`AdapterSummary`]), how the context is created on it
//! ([`Gpu::new`](crate::Gpu::new), [`Gpu::from_device`](crate::Gpu::from_device)),
//! the driver freedoms its shaders may be compiled with ([`SourceTransform`]),
//! and the policy for tests without a GPU ([`GpuPolicy`]).

pub(crate) mod adapter;
pub(crate) mod context;
pub(crate) mod options;
pub(crate) mod policy;

pub use self::adapter::AdapterSummary;
pub use self::options::{F16Path, GpuPolicy, MatmulTiling, Subgroups};
pub use crate::error::LAVAPIPE_INSTALL;
pub use crate::wgsl::SourceTransform;
