//! `dump_wgsl`: writes the final compiled WGSL source of every kernel key
//! (after its source transform) to `$DUAL_DELTA_WGSL_DUMP/<key>.wgsl`, so
//! that two versions of the crate can be compared byte for byte:
//!
//! ```text
//! DUAL_DELTA_WGSL_DUMP=/tmp/wgsl cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored
//! ```

use std::path::Path;

use dual_delta_settings::gpu;

use crate::attention::AttentionStrategy;
use crate::attention::shader::AttentionKey;
use crate::matmul::shader::{MatmulKernel, MatmulKey, Tiling};
use crate::matmul_lowp::Bf16Accumulation;
use crate::matmul_lowp::shader::LowpKernel;
use crate::norm::shader::NormKernel;
use crate::norm::{LayerNormStrategy, RmsNormStrategy};
use crate::pipelines::{KernelKey, PipelineKey};
use crate::reductions::shader::RowKernel;
use crate::reductions::{SoftmaxStrategy, SumStrategy};
use crate::wgsl::SourceTransform;

/// The `(d, d_v)` pairs the attention sources are dumped for.
const HEAD_DIMS: [(u32, u32); 5] = [(1, 1), (8, 8), (16, 32), (64, 64), (128, 128)];

/// Writes the source of `kernel` on the `native` path (named `name`)
/// under each transform dumped.
fn write<K: PipelineKey>(dir: &Path, name: &str, kernel: K, native: bool) {
    for transform in [
        SourceTransform::AS_WRITTEN,
        SourceTransform::STRIP_ROUND_TRIPS,
    ] {
        let key = KernelKey {
            kernel,
            native,
            transform,
        };
        let file = dir.join(format!("{name}-{transform:?}.wgsl"));
        std::fs::write(file, key.transform.apply(&key.source()).as_bytes()).unwrap();
    }
}

#[test]
#[ignore = "writes files: run with DUAL_DELTA_WGSL_DUMP=DIR and --ignored"]
fn dump_wgsl() {
    let dir = crate::env::read(&gpu::WGSL_DUMP)
        .unwrap()
        .expect("DUAL_DELTA_WGSL_DUMP names a folder")
        .text();
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
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
                write(dir, &name, MatmulKey { kernel, tiling }, native);
            }
        }
        let sums = SumStrategy::ALL.map(RowKernel::Sum);
        let softmaxes = SoftmaxStrategy::ALL.map(RowKernel::Softmax);
        for k in sums.into_iter().chain(softmaxes) {
            write(dir, &format!("rows-{k:?}-{path}"), k, native);
        }
        let layers = LayerNormStrategy::ALL.map(NormKernel::Layer);
        let rms = RmsNormStrategy::ALL.map(NormKernel::Rms);
        for k in layers.into_iter().chain(rms) {
            write(dir, &format!("norm-{k:?}-{path}"), k, native);
        }
        for strategy in AttentionStrategy::ALL {
            for (d, d_v) in HEAD_DIMS {
                let name = format!("attention-{strategy:?}-{d}x{d_v}-{path}");
                write(dir, &name, AttentionKey { strategy, d, d_v }, native);
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
        write(dir, &format!("lowp-{kernel:?}"), kernel, false);
    }
}
