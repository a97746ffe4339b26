//! The GPU kernels against the CPU references, on both `f16` paths.

use crate::common::{
    KernelInput, as_stored_on, assert_identical, every_mismatch, f16_subnormals, gpus, path, ulps,
};
use dual_delta_gpu::{
    Gpu, GpuError, GpuOptions,
    device::{F16Path, MatmulTiling},
    f16,
    matmul::{
        Accumulation, MatmulInput, matmul_cpu_f16, matmul_emulated_with, matmul_f64,
        random_matmul_input,
    },
    require_gpu,
};
use dual_delta_runtime::{TrialRng, output::NumberFormat};

const SHAPES: [(usize, usize, usize); 4] =
    [(1, 1, 1), (17, 33, 65), (128, 128, 128), (128, 4096, 128)];

fn input(m: usize, k: usize, n: usize, trial: usize) -> MatmulInput {
    random_matmul_input(m, k, n)(&mut TrialRng::for_trial(0x5eed, trial))
}

/// `Σ_k |a_ik · b_kj|` for every output element: the scale of the `f32`
/// summation error.
fn abs_products(x: &MatmulInput) -> Vec<f64> {
    let (m, k, n) = x.shape();
    let abs = |v: &[f16]| v.iter().map(|h| f16::from_f32(h.to_f32().abs())).collect();
    matmul_f64(&MatmulInput::new(m, k, n, abs(x.a()), abs(x.b())).unwrap())
}

/// The kernel's emulation in the mode of `gpu`: `f16` subnormals flushed
/// where the kernels load and store `f16` if the device flushes them
/// (`DUAL_DELTA_GPU_IMITATE=ftz16`), kept otherwise. Bit for bit either way.
fn emulated(gpu: &Gpu, x: &MatmulInput, acc: Accumulation) -> Vec<f16> {
    matmul_emulated_with(x, acc, f16_subnormals(gpu))
}

#[test]
fn f32_accumulation_matches_the_cpu_reference_within_one_ulp() {
    every_mismatch(|| {
        for gpu in gpus() {
            for (t, (m, k, n)) in SHAPES.into_iter().enumerate() {
                let x = input(m, k, n, t);
                let got = gpu.run(&x, Accumulation::F32).unwrap();
                let what = format!("{m}×{k}×{n} F32 on the {} path", path(gpu));
                assert_eq!(got.len(), m * n, "{what}");
                // The kernel's own summation order replayed on the CPU: identical.
                assert_identical(&got, &emulated(gpu, &x, Accumulation::F32), &what);

                // PyTorch's CPU half matmul sums in another order. Both sums are
                // f32, each within (k-1)·2⁻²⁴·Σ|a·b| of the exact value, so after
                // rounding to f16 they agree within one f16 ulp except where
                // cancellation makes the result so small that this f32 bound
                // exceeds an f16 ulp (a handful of the 16384 elements at
                // k = 4096); there they agree within the bound. Where the device
                // flushes f16 subnormals, both read the input as it loads it and
                // store as it stores.
                let loaded = x.as_loaded_on(gpu);
                let reference = as_stored_on(gpu, &matmul_cpu_f16(&loaded));
                let scale = abs_products(&loaded);
                let gamma = 2.0 * k as f64 * 2f64.powi(-24);
                let mut beyond_one_ulp = 0;
                for i in 0..got.len() {
                    let (g, r) = (got[i], reference[i]);
                    if ulps(g, r) <= 1.0 {
                        continue;
                    }
                    beyond_one_ulp += 1;
                    let bound = NumberFormat::F16.ulp(g.to_f64().abs().max(r.to_f64().abs()))
                        + gamma * scale[i];
                    let diff = (g.to_f64() - r.to_f64()).abs();
                    assert!(
                        diff <= bound,
                        "{what}: element {i}: {g} vs matmul_cpu_f16 {r}, {} ulps, beyond the f32 bound {bound:e}",
                        ulps(g, r)
                    );
                }
                assert!(
                    beyond_one_ulp as f64 <= 1e-3 * got.len() as f64,
                    "{what}: {beyond_one_ulp} elements more than one ulp from matmul_cpu_f16"
                );
                if k <= 128 {
                    assert_eq!(beyond_one_ulp, 0, "{what}");
                }
            }
        }
    });
}

#[test]
fn split_k_matches_its_cpu_emulation_bit_for_bit() {
    every_mismatch(|| {
        let cases = [
            // (m, k, n, splits): k divisible, not divisible, more splits than k.
            (128, 4096, 128, 8),
            (17, 33, 65, 8),
            (5, 1000, 3, 7),
            (3, 5, 2, 50),
            (1, 1, 1, 8),
            (128, 128, 128, 8),
        ];
        for gpu in gpus() {
            for (t, (m, k, n, splits)) in cases.into_iter().enumerate() {
                let x = input(m, k, n, 100 + t);
                let acc = Accumulation::SplitK { splits };
                let got = gpu.run(&x, acc).unwrap();
                let what = format!("{m}×{k}×{n} {acc} on the {} path", path(gpu));
                assert_identical(&got, &emulated(gpu, &x, acc), &what);
            }
        }
    });
}

#[test]
fn f16_accumulation_matches_its_cpu_emulation() {
    every_mismatch(|| {
        for gpu in gpus() {
            for (t, (m, k, n)) in [(17, 33, 65), (128, 4096, 128)].into_iter().enumerate() {
                let x = input(m, k, n, 200 + t);
                let got = gpu.run(&x, Accumulation::F16).unwrap();
                let what = format!("{m}×{k}×{n} F16 on the {} path", path(gpu));
                assert_identical(&got, &emulated(gpu, &x, Accumulation::F16), &what);
            }
        }
    });
}

/// The workgroup-shared tiles (the GPUs' kernels) give the emulation's
/// bits on both `f16` paths, whatever kernels the shared context uses:
/// blocks of `C` filled and not (a block is 16 × 16), chunks of `k` whose
/// last step holds 8, 16, 24 or 32 products, every accumulation.
#[test]
fn shared_tiles_match_the_emulation_bit_for_bit() {
    every_mismatch(|| {
        let Some(gpu) = require_gpu() else { return };
        let options = GpuOptions {
            tiling: MatmulTiling::Shared,
            ..GpuOptions::from_env().unwrap()
        };
        let native = gpu.adapter_info().shader_f16;
        let paths = [F16Path::Fallback, F16Path::Native];
        let inputs: Vec<MatmulInput> = [
            (1, 1, 1),
            (16, 8, 16),
            (17, 40, 15),
            (33, 24, 40),
            (64, 4096, 48),
            (128, 1000, 128),
        ]
        .into_iter()
        .enumerate()
        .map(|(t, (m, k, n))| input(m, k, n, 500 + t))
        .collect();
        for f16 in paths
            .into_iter()
            .filter(|&p| native || p == F16Path::Fallback)
        {
            let tiles = Gpu::new(&GpuOptions {
                f16,
                ..options.clone()
            })
            .unwrap();
            assert!(tiles.adapter_info().shared_tiles);
            for x in &inputs {
                for acc in [
                    Accumulation::F32,
                    Accumulation::split_k(),
                    Accumulation::SplitK { splits: 3 },
                    Accumulation::F16,
                ] {
                    let what = format!("{:?} {acc} with shared tiles, {f16:?}", x.shape());
                    let got = tiles.run(x, acc).unwrap();
                    assert_identical(&got, &emulated(&tiles, x, acc), &what);
                }
            }
            let batch: Vec<MatmulInput> = (0..3).map(|t| input(17, 40, 15, 520 + t)).collect();
            let out = tiles.run_batch(&batch, Accumulation::F32).unwrap();
            for (x, y) in batch.iter().zip(&out) {
                let what = format!("{:?} in a batch with shared tiles", x.shape());
                assert_identical(y, &emulated(&tiles, x, Accumulation::F32), &what);
            }
        }
    });
}

/// With `k = 1` the `f16`-accumulating kernel returns each product rounded
/// once to `f16`: over a thousand `f16` values times 48 chosen ones
/// (powers of two, and mantissas that make ties), the products cover `f16`
/// subnormals, ties to even, overflow to infinity and exact zeros, and every
/// one must be the nearest `f16`, ties to even. Where the device flushes
/// `f16` subnormals it loads the subnormal factors and stores the
/// subnormal products as zeros of their sign: the same products, as it
/// loads and stores them.
#[test]
fn f16_accumulation_rounds_each_product_to_the_nearest_f16() {
    let a: Vec<f16> = (0u16..0x7c00)
        .step_by(31)
        .enumerate()
        .map(|(i, bits)| f16::from_bits(bits | if i % 2 == 1 { 0x8000 } else { 0 }))
        .collect();
    let mut b: Vec<f16> = (-14..=8).map(|e| f16::from_f32(2f32.powi(e))).collect();
    let ulp = 2f32.powi(-10);
    for m in [1.0 + ulp, 1.5, 1.75 + ulp, 3.0 + 2.0 * ulp, 2.0 - ulp] {
        for scale in [2f32.powi(-13), 2f32.powi(-6), 1.0, 2f32.powi(5), 200.0] {
            b.push(f16::from_f32(m * scale));
        }
    }
    b.push(f16::from_f32(-1.5 - ulp));
    b.truncate(48);
    let (m, n) = (a.len(), b.len());
    let x = MatmulInput::new(m, 1, n, a.clone(), b.clone()).unwrap();
    let want: Vec<f16> = a
        .iter()
        .flat_map(|ai| {
            b.iter()
                .map(move |bj| f16::from_f32(ai.to_f32() * bj.to_f32()))
        })
        .collect();
    assert!(want.iter().any(|v| v.is_infinite()), "no overflow covered");
    assert!(
        want.iter()
            .any(|v| v.to_bits() & 0x7c00 == 0 && v.to_bits() & 0x3ff != 0),
        "no subnormal covered"
    );
    every_mismatch(|| {
        for gpu in gpus() {
            let got = gpu.run(&x, Accumulation::F16).unwrap();
            let loaded = x.as_loaded_on(gpu);
            let want: Vec<f16> = loaded
                .a()
                .iter()
                .flat_map(|ai| {
                    loaded
                        .b()
                        .iter()
                        // The accumulator starts at +0: a zero product (of
                        // a factor flushed to -0) sums to +0.
                        .map(move |bj| f16::from_f32(0.0 + ai.to_f32() * bj.to_f32()))
                })
                .collect();
            assert_identical(
                &got,
                &as_stored_on(gpu, &want),
                &format!("f16 products on the {} path", path(gpu)),
            );
        }
    });
}

#[test]
fn batched_results_equal_single_results() {
    every_mismatch(|| {
        let batch: Vec<MatmulInput> = (0..5).map(|t| input(17, 33, 65, 300 + t)).collect();
        // 1 MiB of A each: a batch of 10 runs as groups (8 MiB of input per
        // group), and each result is still its own input's.
        let large: Vec<MatmulInput> = (0..10).map(|t| input(128, 4096, 8, 500 + t)).collect();
        for gpu in gpus() {
            let got = gpu.run_batch(&large, Accumulation::F32).unwrap();
            assert_eq!(got.len(), large.len());
            for (i, (x, y)) in large.iter().zip(&got).enumerate() {
                let what = format!("input {i} of a batch in groups, {} path", path(gpu));
                assert_identical(y, &emulated(gpu, x, Accumulation::F32), &what);
            }
            for acc in [
                Accumulation::F32,
                Accumulation::split_k(),
                Accumulation::F16,
            ] {
                let got = gpu.run_batch(&batch, acc).unwrap();
                assert_eq!(got.len(), batch.len());
                for (x, y) in batch.iter().zip(&got) {
                    let single = gpu.run(x, acc).unwrap();
                    assert_identical(
                        y,
                        &single,
                        &format!("batched {acc} on the {} path", path(gpu)),
                    );
                }
            }
            // References to inputs work too, and an empty batch is empty.
            let refs: Vec<&MatmulInput> = batch.iter().collect();
            assert_eq!(
                gpu.run_batch(&refs[..2], Accumulation::F32).unwrap().len(),
                2
            );
            let none: [&MatmulInput; 0] = [];
            assert!(gpu.run_batch(&none, Accumulation::F32).unwrap().is_empty());
        }
    });
}

#[test]
fn bad_calls_are_errors() {
    for gpu in gpus() {
        let x = input(2, 3, 4, 0);
        let y = input(2, 3, 5, 1);
        let e = gpu.run_batch(&[&x, &y], Accumulation::F32).unwrap_err();
        assert!(matches!(e, GpuError::InvalidInput(_)), "{e}");
        assert!(e.to_string().contains("one shape"), "{e}");
        let e = gpu.run(&x, Accumulation::SplitK { splits: 0 }).unwrap_err();
        assert!(e.to_string().contains("at least one split"), "{e}");
    }
}

#[test]
fn exact_small_products() {
    every_mismatch(|| {
        // Integers: every strategy is exact. [1 2 3; 4 5 6] · [7 8; 9 10; 11 12]
        let h = |v: &[f32]| v.iter().copied().map(f16::from_f32).collect::<Vec<_>>();
        let x = MatmulInput::new(
            2,
            3,
            2,
            h(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            h(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]),
        )
        .unwrap();
        let want = h(&[58.0, 64.0, 139.0, 154.0]);
        for gpu in gpus() {
            for acc in [
                Accumulation::F32,
                Accumulation::F16,
                Accumulation::SplitK { splits: 2 },
                Accumulation::SplitK { splits: 3 },
            ] {
                assert_identical(&gpu.run(&x, acc).unwrap(), &want, &format!("{acc}"));
            }
        }
    });
}
