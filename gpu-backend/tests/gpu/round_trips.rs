//! The kernels compiled as NVIDIA's Vulkan driver compiles them, every
//! conversion round trip removed ([`GpuOptions::strip_round_trips`]), give
//! the bits they give as written: they round on the bits, so the `f16`
//! mistakes stay visible on such a device. The probe of the same contexts
//! sees the round trips removed, which shows that the transformation
//! reaches the shaders.

use crate::common::{assert_identical, every_mismatch, gpus, path};
use dual_delta_gpu::semantics::RoundTrip;
use dual_delta_gpu::{
    Gpu, GpuOptions,
    attention::{AttentionShape, AttentionStrategy, random_attention_input},
    f16,
    matmul::{Accumulation, random_matmul_input},
    norm::{LayerNormStrategy, RmsNormStrategy, random_offset_norm_input},
    reductions::{RowsInput, SoftmaxStrategy, SumStrategy, random_outlier_rows, random_rows},
};
use dual_delta_runtime::TrialRng;

fn rng(trial: usize) -> TrialRng {
    TrialRng::for_trial(0x0057_121b, trial)
}

/// A context like `gpu` (same device, `f16` path and tiling) whose
/// shaders have their round trips stripped.
fn stripped_like(gpu: &Gpu) -> Gpu {
    let info = gpu.adapter_info();
    let options = GpuOptions::from_env().expect("valid settings");
    gpu.with_options(&GpuOptions {
        f16: if info.shader_f16 {
            dual_delta_gpu::device::F16Path::Native
        } else {
            dual_delta_gpu::device::F16Path::Fallback
        },
        subgroups: if info.subgroups {
            options.subgroups
        } else {
            dual_delta_gpu::device::Subgroups::Off
        },
        tiling: if info.shared_tiles {
            dual_delta_gpu::device::MatmulTiling::Shared
        } else {
            dual_delta_gpu::device::MatmulTiling::Registers
        },
        strip_round_trips: true,
        ..options
    })
    .expect("a context with round trips stripped")
}

/// Each context with its stripped twin.
fn pairs() -> Vec<(&'static Gpu, Gpu)> {
    gpus().into_iter().map(|g| (g, stripped_like(g))).collect()
}

#[test]
fn the_probe_sees_the_round_trips_removed() {
    for (gpu, stripped) in pairs() {
        let s = stripped.semantics();
        assert_eq!(s.round_trip_packed(), RoundTrip::Removed, "{s}");
        if s.f16_arithmetic().is_some() {
            assert_eq!(s.round_trip_f16(), Some(RoundTrip::Removed), "{s}");
        }
        assert!(s.to_string().contains("round trips removed"), "{s}");
        assert!(
            s.caveats().iter().any(|c| c.contains("round trip")),
            "{:?}",
            s.caveats()
        );
        // Genuine f16 arithmetic is no round trip: it still rounds.
        assert_eq!(s.f16_arithmetic(), gpu.semantics().f16_arithmetic());
    }
}

#[test]
fn f16_serial_sum_of_4096_ones_is_still_2048() {
    let x = RowsInput::new(1, 4096, vec![f16::ONE; 4096]).unwrap();
    for (gpu, stripped) in pairs() {
        let sum = |s: SumStrategy| stripped.run(&x, s).unwrap()[0].to_f32();
        assert_eq!(sum(SumStrategy::F16Serial), 2048.0, "{}", path(gpu));
        assert_eq!(sum(SumStrategy::F32), 4096.0, "{}", path(gpu));
    }
}

/// The inputs of the case studies (`dual-delta-tests`' `kernels`), a few
/// trials each: their verdicts follow from these outputs.
#[test]
fn every_kernel_gives_the_same_bits_with_round_trips_stripped() {
    every_mismatch(|| {
        let sums: Vec<RowsInput<f16>> = (0..3).map(|t| random_rows(4, 4096)(&mut rng(t))).collect();
        let mut softmax_inputs: Vec<RowsInput<f16>> = (0..3)
            .map(|t| random_rows(4, 1024)(&mut rng(10 + t)))
            .collect();
        softmax_inputs
            .extend((0..3).map(|t| random_outlier_rows(4, 1024, 4, 20.0)(&mut rng(20 + t))));
        let norms: Vec<_> = (0..2)
            .map(|t| random_offset_norm_input(4, 1024, 1000.0, 1.0, true, 1e-5)(&mut rng(30 + t)))
            .collect();
        let head = AttentionShape {
            heads: 1,
            seq_q: 64,
            seq_k: 1024,
            d: 64,
            d_v: 64,
        };
        let attention: Vec<_> = (0..2)
            .map(|t| random_attention_input(head, false)(&mut rng(40 + t)))
            .collect();
        let matmul = random_matmul_input(64, 256, 64)(&mut rng(50));
        for (gpu, stripped) in pairs() {
            let at =
                |what: String| format!("{what} on the {} path, round trips stripped", path(gpu));
            for s in SumStrategy::ALL {
                let (a, b) = (gpu.run_batch(&sums, s), stripped.run_batch(&sums, s));
                for (a, b) in a.unwrap().iter().zip(&b.unwrap()) {
                    assert_identical(b, a, &at(format!("{s} sum")));
                }
            }
            for v in SoftmaxStrategy::ALL {
                let a = gpu.run_batch(&softmax_inputs, v).unwrap();
                let b = stripped.run_batch(&softmax_inputs, v).unwrap();
                for (a, b) in a.iter().zip(&b) {
                    assert_identical(b, a, &at(format!("softmax ({v})")));
                }
            }
            for v in LayerNormStrategy::ALL {
                let a = gpu.run_batch(&norms, v).unwrap();
                let b = stripped.run_batch(&norms, v).unwrap();
                for (a, b) in a.iter().zip(&b) {
                    assert_identical(b, a, &at(format!("{v} LayerNorm")));
                }
            }
            for v in RmsNormStrategy::ALL {
                let a = gpu.run_batch(&norms, v).unwrap();
                let b = stripped.run_batch(&norms, v).unwrap();
                for (a, b) in a.iter().zip(&b) {
                    assert_identical(b, a, &at(format!("{v} RMSNorm")));
                }
            }
            for v in AttentionStrategy::ALL {
                let a = gpu.run_batch(&attention, v).unwrap();
                let b = stripped.run_batch(&attention, v).unwrap();
                for (a, b) in a.iter().zip(&b) {
                    assert_identical(b, a, &at(format!("{v} attention")));
                }
            }
            for acc in [
                Accumulation::F32,
                Accumulation::split_k(),
                Accumulation::F16,
            ] {
                let a = gpu.run(&matmul, acc).unwrap();
                let b = stripped.run(&matmul, acc).unwrap();
                assert_identical(&b, &a, &at(format!("{acc:?} matmul")));
            }
        }
    });
}
