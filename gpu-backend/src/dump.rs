//! `dump_wgsl`: writes the final compiled WGSL source of every kernel key
//! (after its source transform) to `$DUAL_DELTA_WGSL_DUMP/<key>.wgsl`, so
//! that two versions of the crate can be compared byte for byte:
//!
//! ```text
//! DUAL_DELTA_WGSL_DUMP=/tmp/wgsl cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored
//! ```

use std::path::Path;

use crate::attention::AttentionVariant;
use crate::lowp::Bf16Accumulation;
use crate::lowp::shader::LowpKernel;
use crate::norm::{LayerNormVariant, NormKernel, RmsNormVariant};
use crate::rows::shader::RowKernel;
use crate::rows::{ReduceStrategy, SoftmaxVariant};
use crate::shader::{Kernel, Tiling};
use crate::wgsl::SourceTransform;

/// The `(d, d_v)` pairs the attention sources are dumped for.
const HEAD_DIMS: [(usize, usize); 5] = [(1, 1), (8, 8), (16, 32), (64, 64), (128, 128)];

/// Every kernel key and its source as generated, before the transform.
fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for native in [true, false] {
        let path = if native { "native" } else { "packed" };
        for kernel in [Kernel::TileF32, Kernel::TileF16, Kernel::ReduceSplits] {
            for tiling in [Tiling::Lanes, Tiling::Subgroup, Tiling::Shared] {
                let key = format!("matmul-{kernel:?}-{tiling:?}-{path}");
                out.push((key, crate::shader::source(kernel, native, tiling)));
            }
        }
        let rows = ReduceStrategy::ALL
            .map(RowKernel::Sum)
            .into_iter()
            .chain(SoftmaxVariant::ALL.map(RowKernel::Softmax));
        for kernel in rows {
            let key = format!("rows-{kernel:?}-{path}");
            out.push((key, crate::rows::shader::source(kernel, native)));
        }
        let norms = LayerNormVariant::ALL
            .map(NormKernel::Layer)
            .into_iter()
            .chain(RmsNormVariant::ALL.map(NormKernel::Rms));
        for kernel in norms {
            let key = format!("norm-{kernel:?}-{path}");
            out.push((key, crate::norm::source(kernel, native)));
        }
        for variant in AttentionVariant::ALL {
            for (d, d_v) in HEAD_DIMS {
                let key = format!("attention-{variant:?}-{d}x{d_v}-{path}");
                out.push((key, crate::attention::source(variant, d, d_v, native)));
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
        let key = format!("lowp-{kernel:?}");
        out.push((key, crate::lowp::shader::source(kernel)));
    }
    out
}

#[test]
#[ignore = "writes files: run with DUAL_DELTA_WGSL_DUMP=DIR and --ignored"]
fn dump_wgsl() {
    let dir = std::env::var("DUAL_DELTA_WGSL_DUMP").expect("DUAL_DELTA_WGSL_DUMP names a folder");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    for (key, source) in sources() {
        for transform in [SourceTransform::AsWritten, SourceTransform::StripRoundTrips] {
            let file = dir.join(format!("{key}-{transform:?}.wgsl"));
            std::fs::write(file, transform.apply(&source).as_bytes()).unwrap();
        }
    }
}
