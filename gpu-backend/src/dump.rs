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

/// Every kernel but the matmul's, named after its family and strategy.
fn kernels() -> Vec<(String, KernelId)> {
    let sums = SumStrategy::ALL.map(RowKernel::Sum);
    let softmaxes = SoftmaxStrategy::ALL.map(RowKernel::Softmax);
    let rows = sums.into_iter().chain(softmaxes);
    let layers = LayerNormStrategy::ALL.map(NormKernel::Layer);
    let norms = layers
        .into_iter()
        .chain(RmsNormStrategy::ALL.map(NormKernel::Rms));
    let attention = AttentionStrategy::ALL.into_iter().flat_map(|strategy| {
        HEAD_DIMS.map(|(d, d_v)| (format!("{strategy:?}-{d}x{d_v}"), strategy, d, d_v))
    });
    let rows = rows.map(|k| (format!("rows-{k:?}"), KernelId::Rows(k)));
    let norms = norms.map(|k| (format!("norm-{k:?}"), KernelId::Norm(k)));
    let attention = attention.map(|(name, strategy, d, d_v)| {
        (
            format!("attention-{name}"),
            KernelId::Attention { strategy, d, d_v },
        )
    });
    rows.chain(norms).chain(attention).collect()
}

/// Every kernel key (with the transform left as written) and its file name.
fn keys() -> Vec<(String, KernelKey)> {
    let key = |kernel, native, tiling| KernelKey {
        kernel,
        native,
        tiling,
        transform: SourceTransform::AS_WRITTEN,
    };
    let mut out = Vec::new();
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
                out.push((name, key(KernelId::Matmul(kernel), native, tiling)));
            }
        }
        for (name, kernel) in kernels() {
            out.push((format!("{name}-{path}"), key(kernel, native, Tiling::Lanes)));
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
        let name = format!("lowp-{kernel:?}");
        out.push((name, key(KernelId::Lowp(kernel), false, Tiling::Lanes)));
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
        for transform in [
            SourceTransform::AS_WRITTEN,
            SourceTransform::STRIP_ROUND_TRIPS,
        ] {
            let key = KernelKey { transform, ..key };
            let file = dir.join(format!("{name}-{transform:?}.wgsl"));
            std::fs::write(file, key.transform.apply(&key.source()).as_bytes()).unwrap();
        }
    }
}
