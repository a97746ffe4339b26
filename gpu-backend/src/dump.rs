//! `dump_wgsl`: writes the final compiled WGSL source of every kernel of
//! the registry (after its source transform) to
//! `$DUAL_DELTA_WGSL_DUMP/<name>-<transform>.wgsl`, so that two versions of
//! the crate can be compared byte for byte:
//!
//! ```text
//! DUAL_DELTA_WGSL_DUMP=/tmp/wgsl cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored
//! ```

use std::path::Path;

use dual_delta_settings::gpu;

use crate::registry::every_kernel;
use crate::wgsl::SourceTransform;

#[test]
#[ignore = "writes files: run with DUAL_DELTA_WGSL_DUMP=DIR and --ignored"]
fn dump_wgsl() {
    let dir = crate::env::read(&gpu::WGSL_DUMP)
        .unwrap()
        .expect("DUAL_DELTA_WGSL_DUMP names a folder")
        .text();
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    for kernel in every_kernel() {
        for transform in [
            SourceTransform::AS_WRITTEN,
            SourceTransform::STRIP_ROUND_TRIPS,
        ] {
            let file = dir.join(format!("{}-{transform:?}.wgsl", kernel.name));
            std::fs::write(file, transform.apply(&kernel.source).as_bytes()).unwrap();
        }
    }
}
