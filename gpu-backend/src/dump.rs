//! `dump_wgsl`: writes the final compiled WGSL source of every kernel key
//! (after its source transform) to `$DUAL_DELTA_WGSL_DUMP/<key>.wgsl`, so
//! that two versions of the crate can be compared byte for byte:
//!
//! ```text
//! DUAL_DELTA_WGSL_DUMP=/tmp/wgsl cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored
//! ```

use std::path::Path;

use crate::attention::AttentionStrategy;
use crate::lowp::Bf16Accumulation;
use crate::lowp::shader::LowpKernel;
use crate::matmul::shader::{MatmulKernel, Tiling};
use crate::norm::shader::NormKernel;
use crate::norm::{LayerNormStrategy, RmsNormStrategy};
use crate::pipelines::{KernelId, KernelKey};
use crate::rows::shader::RowKernel;
use crate::rows::{SoftmaxStrategy, SumStrategy};
use crate::wgsl::SourceTransform;

/// The `(d, d_v)` pairs the attention sources are dumped for.
const HEAD_DIMS: [(u32, u32); 5] = [(1, 1), (8, 8), (16, 32), (64, 64), (128, 128)];

/// Every kernel key (with the transform left as written) and its file name.
fn keys() -> Vec<(String, KernelKey)> {
    let mut out = Vec::new();
    let key = |kernel, native, tiling| KernelKey {
        kernel,
        native,
        tiling,
        transform: SourceTransform::AsWritten,
    };
    for native in [true, false] {
        let path = if native { "native" } else { "packed" };
        let lanes = |kernel| key(kernel, native, Tiling::Lanes);
        for kernel in [
            MatmulKernel::TileF32,
            MatmulKernel::TileF16,
            MatmulKernel::ReduceSplits,
        ] {
            for tiling in [Tiling::Lanes, Tiling::Subgroup, Tiling::Shared] {
                let name = format!("matmul-{kernel:?}-{tiling:?}-{path}");
                out.push((name, key(KernelId::Matmul(kernel), native, tiling)));
            }
        }
        let rows = SumStrategy::ALL
            .map(RowKernel::Sum)
            .into_iter()
            .chain(SoftmaxStrategy::ALL.map(RowKernel::Softmax));
        for kernel in rows {
            out.push((
                format!("rows-{kernel:?}-{path}"),
                lanes(KernelId::Rows(kernel)),
            ));
        }
        let norms = LayerNormStrategy::ALL
            .map(NormKernel::Layer)
            .into_iter()
            .chain(RmsNormStrategy::ALL.map(NormKernel::Rms));
        for kernel in norms {
            out.push((
                format!("norm-{kernel:?}-{path}"),
                lanes(KernelId::Norm(kernel)),
            ));
        }
        for strategy in AttentionStrategy::ALL {
            for (d, d_v) in HEAD_DIMS {
                let name = format!("attention-{strategy:?}-{d}x{d_v}-{path}");
                let kernel = KernelId::Attention { strategy, d, d_v };
                out.push((name, lanes(kernel)));
            }
        }
    }
    let lowp = Bf16Accumulation::ALL
        .map(LowpKernel::Bf16)
        .into_iter()
        .chain([
            LowpKernel::Fp8F32,
            LowpKernel::Fp8Limited,
            LowpKernel::Bf16Round,
        ]);
    for kernel in lowp {
        out.push((
            format!("lowp-{kernel:?}"),
            key(KernelId::Lowp(kernel), false, Tiling::Lanes),
        ));
    }
    out
}

#[test]
#[ignore = "writes files: run with DUAL_DELTA_WGSL_DUMP=DIR and --ignored"]
fn dump_wgsl() {
    let dir = std::env::var("DUAL_DELTA_WGSL_DUMP").expect("DUAL_DELTA_WGSL_DUMP names a folder");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    for (name, key) in keys() {
        for transform in [SourceTransform::AsWritten, SourceTransform::StripRoundTrips] {
            let key = KernelKey { transform, ..key };
            let file = dir.join(format!("{name}-{transform:?}.wgsl"));
            std::fs::write(file, key.transform.apply(&key.source()).as_bytes()).unwrap();
        }
    }
}
