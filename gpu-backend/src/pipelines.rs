//! The one pipeline cache: every kernel a [`Gpu`](crate::Gpu) runs is
//! compiled on first use, through [`compile`](crate::compile), and kept
//! under its key for the context's life.
//!
//! Each kernel family names its own kernels with a key of its own type
//! (implementing [`PipelineKey`]: its label, its bindings and its WGSL);
//! the cache holds one map per key type and names no family, so a family
//! is added without touching this file. Behind it, every context on one
//! device shares the pipelines by what they are compiled from
//! ([`Compiled`] by bindings and source as compiled, [`DeviceKernels`]):
//! contexts that transform their sources differently
//! ([`Gpu::with_options`](crate::Gpu::with_options)) compile a kernel
//! whose source no transform changes once.

use core::any::{Any, TypeId};
use core::fmt::Debug;
use core::hash::Hash;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::compile::{self, Binding};
use crate::wgsl::SourceTransform;

/// A family's name for one of its kernels: which strategy, and whatever
/// else its source is generated for (a tiling, the head dimensions).
pub(crate) trait PipelineKey: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// The family's name, the label of its pipelines.
    fn label(self) -> &'static str;

    /// What the kernel binds at `0, 1, …`.
    fn bindings(self) -> &'static [Binding];

    /// The WGSL source, for the native-`f16` path (`native`) or the packed
    /// fallback.
    fn source(self, native: bool) -> String;
}

/// Everything a compiled pipeline depends on: the family's key, the `f16`
/// path and the source transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KernelKey<K> {
    /// Which kernel.
    pub(crate) kernel: K,
    /// Native `f16` (`true`) or the packed fallback.
    pub(crate) native: bool,
    /// How the source is transformed before compilation.
    pub(crate) transform: SourceTransform,
}

impl<K: PipelineKey> KernelKey<K> {
    /// The WGSL source as generated (before [`KernelKey::transform`]).
    pub(crate) fn source(&self) -> String {
        self.kernel.source(self.native)
    }
}

/// A compiled kernel: its pipeline, the bind group layout its bindings
/// are made for, and its family's label.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The pipeline.
    pub(crate) pipeline: wgpu::ComputePipeline,
    /// The layout of its one bind group.
    pub(crate) layout: wgpu::BindGroupLayout,
    /// The family's name ([`PipelineKey::label`]).
    pub(crate) label: &'static str,
}

/// A slot compiled once, by the first thread that asks for it.
type Slot = Arc<OnceLock<Arc<Compiled>>>;

/// The pipelines compiled on one device, by what each is compiled from:
/// its bindings and its source after the transform. Shared by every
/// context on the device.
#[derive(Debug, Default)]
pub(crate) struct DeviceKernels {
    slots: Mutex<HashMap<(&'static [Binding], String), Slot>>,
}

impl DeviceKernels {
    /// The pipeline of the WGSL `source` as compiled (transformed) with
    /// `bindings`, compiled on `device` on the first call.
    fn get(
        &self,
        device: &wgpu::Device,
        label: &'static str,
        bindings: &'static [Binding],
        source: String,
    ) -> Arc<Compiled> {
        let slot: Slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(slots.entry((bindings, source.clone())).or_default())
        };
        Arc::clone(slot.get_or_init(|| {
            let (layout, pipeline_layout) = compile::layouts(device, label, bindings);
            let pipeline = compile::pipeline(device, &pipeline_layout, label, &source);
            Arc::new(Compiled {
                pipeline,
                layout,
                label,
            })
        }))
    }
}

/// The pipelines of one context so far, one per key, in one map per key
/// type. Each is compiled by the first thread that asks for it, while
/// other kernels compile in parallel, or found among the device's.
#[derive(Debug)]
pub(crate) struct Pipelines {
    /// For each key type `K`, a `HashMap<KernelKey<K>, Slot>`.
    families: Mutex<HashMap<TypeId, Box<dyn Any + Send>>>,
    /// The device's pipelines, shared with its other contexts.
    device: Arc<DeviceKernels>,
}

impl Pipelines {
    /// The pipelines of a new context on the device whose pipelines are
    /// `device`.
    pub(crate) fn new(device: Arc<DeviceKernels>) -> Self {
        Pipelines {
            families: Mutex::default(),
            device,
        }
    }

    /// The device's pipelines, for another context on it.
    pub(crate) fn device(&self) -> &Arc<DeviceKernels> {
        &self.device
    }

    /// The pipeline of `key`, compiled on `device` on the first call.
    pub(crate) fn get<K: PipelineKey>(
        &self,
        device: &wgpu::Device,
        key: KernelKey<K>,
    ) -> Arc<Compiled> {
        let slot: Slot = {
            let mut families = self.families.lock().unwrap_or_else(|e| e.into_inner());
            let slots = families
                .entry(TypeId::of::<K>())
                .or_insert_with(|| Box::new(HashMap::<KernelKey<K>, Slot>::new()))
                .downcast_mut::<HashMap<KernelKey<K>, Slot>>()
                .expect("each key type has its own map");
            Arc::clone(slots.entry(key).or_default())
        };
        Arc::clone(slot.get_or_init(|| {
            let source = key.transform.apply(&key.source()).into_owned();
            self.device
                .get(device, key.kernel.label(), key.kernel.bindings(), source)
        }))
    }
}
