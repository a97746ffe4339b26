//! Every matmul kernel variant the device has (register blocks with and
//! without subgroups, workgroup-shared tiles) gives the same bits as every
//! other and as the emulation, whatever the shared context uses: on a
//! discrete GPU the shared context takes the shared tiles, so the register
//! blocks are forced here rather than skipped, and a run that compared
//! nothing fails.

use crate::common::{assert_identical, every_mismatch};
use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::{MatmulTiling, Subgroups},
    matmul::{Accumulation, MatmulInput, matmul_emulated_with, random_matmul_input},
    require_gpu,
};
use dual_delta_runtime::TrialRng;

/// The contexts of every variant on the shared context's adapter and `f16`
/// path, one per distinct kernel (subgroups where the device has them).
fn variants(shared: &Gpu) -> Vec<Gpu> {
    let options = GpuOptions::from_env().unwrap();
    let f16 = if shared.adapter_info().shader_f16 {
        dual_delta_gpu::device::F16Path::Native
    } else {
        dual_delta_gpu::device::F16Path::Fallback
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for tiling in [MatmulTiling::Registers, MatmulTiling::Shared] {
        for subgroups in [Subgroups::Auto, Subgroups::Off] {
            let gpu = Gpu::new(&GpuOptions {
                adapter: Some(shared.adapter_info().name.clone()),
                f16,
                tiling,
                subgroups,
                ..options.clone()
            })
            .unwrap();
            let info = gpu.adapter_info();
            let kind = (info.shared_tiles, info.subgroups);
            if !seen.contains(&kind) {
                seen.push(kind);
                out.push(gpu);
            }
        }
    }
    out
}

/// Blocks filled and not (a subgroup block is 64 × 32, a shared tile
/// 16 × 16), with every accumulation.
#[test]
fn every_kernel_variant_agrees_bit_for_bit() {
    every_mismatch(|| {
        let Some(shared) = require_gpu() else { return };
        let variants = variants(shared);
        let inputs: Vec<MatmulInput> = [(1, 9, 1), (63, 70, 31), (65, 257, 33), (128, 512, 96)]
            .into_iter()
            .enumerate()
            .map(|(t, (m, k, n))| {
                random_matmul_input(m, k, n)(&mut TrialRng::for_trial(0x5eed, 400 + t))
            })
            .collect();
        let mut compared = 0;
        for x in &inputs {
            for acc in [
                Accumulation::F32,
                Accumulation::split_k(),
                Accumulation::F16,
            ] {
                for gpu in &variants {
                    // In the device's mode: f16 subnormals flushed at loads
                    // and stores where it flushes them.
                    let want = matmul_emulated_with(x, acc, gpu.semantics().f16_subnormals());
                    let info = gpu.adapter_info();
                    let what = format!(
                        "{:?} {acc}, shared tiles {}, subgroups {}",
                        x.shape(),
                        info.shared_tiles,
                        info.subgroups
                    );
                    assert_identical(&gpu.run(x, acc).unwrap(), &want, &what);
                    compared += 1;
                }
            }
        }
        // At least the register blocks and the shared tiles, on every device.
        assert!(
            variants.len() >= 2 && compared >= 2 * inputs.len() * 3,
            "only {} kernel variants compared on {}",
            variants.len(),
            shared.adapter_info()
        );
    });
}
