//! Every kernel a context compiles, listed once: each family's keys (every
//! strategy, the matmuls' kernels and tilings, the attention kernels at the
//! head sizes below) on each `f16` path the family has, each with a name
//! that tells it from every other. The WGSL dump (`dump_wgsl`) and the
//! tests that hold every kernel to an invariant (no conversion round trip,
//! every running value pinned, valid WGSL under every driver freedom) read
//! it; a family added here is checked by all of them.

use crate::attention::AttentionStrategy;
use crate::attention::shader::AttentionKey;
use crate::matmul::shader::{MatmulKernel, MatmulKey, Tiling};
use crate::matmul_lowp::Bf16Accumulation;
use crate::matmul_lowp::shader::LowpKernel;
use crate::norm::shader::NormKernel;
use crate::norm::{LayerNormStrategy, RmsNormStrategy};
use crate::pipelines::PipelineKey;
use crate::reductions::shader::RowKernel;
use crate::reductions::{SoftmaxStrategy, SumStrategy};

/// The head sizes `(d, d_v)` the attention kernels are listed at: one, a
/// few lanes, unequal, and the sizes of real models.
const HEAD_DIMS: [(u32, u32); 5] = [(1, 1), (8, 8), (16, 32), (64, 64), (128, 128)];

/// One kernel of the registry.
pub(crate) struct Registered {
    /// Its family, its key and its path (`matmul-TileF32-Lanes-native`).
    pub(crate) name: String,
    /// Its WGSL, as generated (before a context's source transform).
    pub(crate) source: String,
}

/// The kernels listed, in their order.
#[derive(Default)]
struct Registry(Vec<Registered>);

impl Registry {
    /// Lists `key` on the native-`f16` path (`native`) or the packed
    /// fallback, as `name`.
    fn add<K: PipelineKey>(&mut self, name: String, key: K, native: bool) {
        let source = key.source(native);
        self.0.push(Registered { name, source });
    }
}

/// Every kernel: each family's keys on both `f16` paths, then the `bf16`
/// and FP8 kernels (one source for both paths: they hold no `f16`).
pub(crate) fn every_kernel() -> Vec<Registered> {
    let mut r = Registry::default();
    for native in [true, false] {
        let path = if native { "native" } else { "packed" };
        let matmuls = [
            MatmulKernel::TileF32,
            MatmulKernel::TileF16,
            MatmulKernel::ReduceSplits,
        ];
        for kernel in matmuls {
            for tiling in [Tiling::Lanes, Tiling::Subgroup, Tiling::Shared] {
                let name = format!("matmul-{kernel:?}-{tiling:?}-{path}");
                r.add(name, MatmulKey { kernel, tiling }, native);
            }
        }
        let sums = SumStrategy::ALL.map(RowKernel::Sum);
        let softmaxes = SoftmaxStrategy::ALL.map(RowKernel::Softmax);
        for k in sums.into_iter().chain(softmaxes) {
            r.add(format!("rows-{k:?}-{path}"), k, native);
        }
        let layers = LayerNormStrategy::ALL.map(NormKernel::Layer);
        let rms = RmsNormStrategy::ALL.map(NormKernel::Rms);
        for k in layers.into_iter().chain(rms) {
            r.add(format!("norm-{k:?}-{path}"), k, native);
        }
        for strategy in AttentionStrategy::ALL {
            for (d, d_v) in HEAD_DIMS {
                let name = format!("attention-{strategy:?}-{d}x{d_v}-{path}");
                r.add(name, AttentionKey { strategy, d, d_v }, native);
            }
        }
    }
    let fp8 = [
        LowpKernel::Fp8F32,
        LowpKernel::Fp8Limited,
        LowpKernel::Bf16Round,
    ];
    let lowp = Bf16Accumulation::ALL
        .map(LowpKernel::Bf16)
        .into_iter()
        .chain(fp8);
    for kernel in lowp {
        r.add(format!("lowp-{kernel:?}"), kernel, false);
    }
    r.0
}

#[test]
fn every_kernel_has_a_name_of_its_own() {
    let all = every_kernel();
    let names: std::collections::BTreeSet<&str> = all.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names.len(), all.len());
    assert!(all.len() > 70, "{}", all.len());
}
