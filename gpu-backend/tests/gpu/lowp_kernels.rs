//! The `bf16` and FP8 kernels on the GPU against their CPU emulations (bit
//! for bit, on lavapipe), and the emulations against the oracles.

use dual_delta_gpu::{
    bf16,
    matmul::{MatmulInput, random_matmul_input},
    matmul_lowp::{
        Bf16Accumulation, Fp8Accumulation, matmul_emulated_bf16, matmul_emulated_fp8,
        matmul_f64_bf16, matmul_f64_fp8,
    },
    require_gpu,
};
use dual_delta_runtime::{E4m3, TrialRng};

/// Shapes off the 8 × 8 tile, K off the 32-product group and the
/// 128-product chunk, and one long K.
const SHAPES: [(usize, usize, usize); 5] = [
    (1, 1, 1),
    (9, 33, 7),
    (17, 200, 23),
    (16, 300, 8),
    (8, 1100, 16),
];

const SEEDS: [usize; 3] = [0, 1, 2];

fn fp8(m: usize, k: usize, n: usize, trial: usize) -> MatmulInput<E4m3> {
    random_matmul_input::<E4m3>(m, k, n)(&mut TrialRng::for_trial(0xf8, trial))
}

fn bf(m: usize, k: usize, n: usize, trial: usize) -> MatmulInput<bf16> {
    random_matmul_input::<bf16>(m, k, n)(&mut TrialRng::for_trial(0xbf, trial))
}

/// Asserts equal bits, naming the first difference.
fn assert_bits<T: Copy + core::fmt::Debug>(
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> u32,
    what: &str,
) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| bits(got[i]) != bits(want[i])) {
        let diff = (0..got.len())
            .filter(|&i| bits(got[i]) != bits(want[i]))
            .count();
        panic!(
            "{what}: {diff} of {} differ; first at {i}: {:?} vs {:?}",
            got.len(),
            got[i],
            want[i]
        );
    }
}

#[test]
fn fp8_kernels_equal_their_emulation_bit_for_bit() {
    let Some(gpu) = require_gpu() else { return };
    for acc in Fp8Accumulation::ALL {
        for (m, k, n) in SHAPES {
            let inputs: Vec<_> = SEEDS.iter().map(|&s| fp8(m, k, n, s)).collect();
            let batch = gpu.run_batch(&inputs, acc).unwrap();
            for (x, got) in inputs.iter().zip(&batch) {
                let what = format!("{acc} {m}×{k}×{n}");
                assert_bits(got, &matmul_emulated_fp8(x, acc), f32::to_bits, &what);
            }
            assert_eq!(gpu.run(&inputs[0], acc).unwrap(), batch[0]);
        }
    }
}

#[test]
fn bf16_kernels_equal_their_emulation_bit_for_bit() {
    let Some(gpu) = require_gpu() else { return };
    for acc in Bf16Accumulation::ALL {
        for (m, k, n) in SHAPES {
            let inputs: Vec<_> = SEEDS.iter().map(|&s| bf(m, k, n, s)).collect();
            let batch = gpu.run_batch(&inputs, acc).unwrap();
            for (x, got) in inputs.iter().zip(&batch) {
                let what = format!("{acc} {m}×{k}×{n}");
                let bits = |v: bf16| u32::from(v.to_bits());
                assert_bits(got, &matmul_emulated_bf16(x, acc), bits, &what);
            }
        }
    }
}

/// Values around every rounding case of `f32 → bf16`: ties (to even up
/// and down), just off ties, subnormals, the largest finite values and
/// overflow, infinities, signed zeros and NaNs with payloads.
fn rounding_cases() -> Vec<f32> {
    let mut bits: Vec<u32> = vec![
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0x7fbf_ffff,
        0x7f7f_ffff,
        0x7f7f_8000,
        0x7f7f_7fff,
        0xff7f_8000,
        0x3f80_8000,
        0x3f81_8000,
        0x3f80_8001,
        0x3f80_7fff,
        0x0000_0001,
        0x0000_8000,
        0x0001_8000,
        0x007f_ffff,
        0x0080_0000,
        0x807f_8000,
    ];
    // Every low-half pattern near a tie, on a few high halves.
    for high in [0x3f80u32, 0x4049, 0xc2f7, 0x0012, 0x7f7f, 0x8001] {
        for low in [0u32, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x4000, 0xc000] {
            bits.push(high << 16 | low);
        }
    }
    // And a deterministic spread over all bit patterns.
    let mut state = 0x9e37_79b9u32;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bits.push(state);
    }
    bits.into_iter().map(f32::from_bits).collect()
}

#[test]
fn the_kernels_bf16_rounding_is_halfs() {
    let Some(gpu) = require_gpu() else { return };
    let values = rounding_cases();
    let got = gpu.round_to_bf16(&values).unwrap();
    for (v, g) in values.iter().zip(&got) {
        let want = bf16::from_f32(*v);
        assert_eq!(g.to_bits(), want.to_bits(), "{:#010x}", v.to_bits());
    }
    // The cases hold each kind at least once.
    let kinds = |p: fn(&bf16) -> bool| got.iter().filter(|v| p(v)).count();
    assert!(kinds(|v| v.is_nan()) > 2 && kinds(|v| v.is_infinite()) > 2);
    assert!(kinds(|v| v.to_bits() & 0x7f80 == 0 && v.to_bits() & 0x7f != 0) > 2);
}

/// `Σ_k |a·b|·scale` per element: the scale of summation errors.
fn magnitudes(x: &MatmulInput<E4m3>) -> Vec<f64> {
    let (m, k, n) = x.shape();
    let s = f64::from(x.scale_a()) * f64::from(x.scale_b());
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let a = x.a()[i * k + p].to_f64().abs();
            for j in 0..n {
                out[i * n + j] += a * x.b()[p * n + j].to_f64().abs() * s;
            }
        }
    }
    out
}

#[test]
fn f32_accumulation_is_within_its_bound_and_limited_is_far_worse_at_large_k() {
    for (k, trial) in [(64, 0), (4096, 1)] {
        let x = fp8(8, k, 8, trial);
        let oracle = matmul_f64_fp8(&x);
        let mags = magnitudes(&x);
        // k − 1 additions, the rounding of the scale and of the product by
        // it: each within 2^-24 of the magnitude.
        let bound = |i: usize| (k as f64 + 2.0) * 2f64.powi(-24) * mags[i];
        let err = |c: &[f32], i: usize| (f64::from(c[i]) - oracle[i]).abs();
        let f32_acc = matmul_emulated_fp8(&x, Fp8Accumulation::F32);
        for i in 0..oracle.len() {
            assert!(err(&f32_acc, i) <= bound(i), "k={k} element {i}");
        }
        if k == 4096 {
            // Truncating to 13 fraction bits (f32 keeps 23) 128 times: the
            // mean error is more than 1000 times f32's.
            let mean =
                |c: &[f32]| (0..c.len()).map(|i| err(c, i) / mags[i]).sum::<f64>() / c.len() as f64;
            let limited = matmul_emulated_fp8(&x, Fp8Accumulation::Limited);
            let promoted = matmul_emulated_fp8(&x, Fp8Accumulation::PromoteEvery128);
            let (l, p, f) = (mean(&limited), mean(&promoted), mean(&f32_acc));
            assert!(l > 1000.0 * f, "limited {l:e}, f32 {f:e}");
            assert!(p < l / 4.0, "promoted {p:e}, limited {l:e}");
        }
    }
}

#[test]
fn bf16_references_and_accumulations() {
    // Sums of ones: f32 accumulation is exact, bf16 accumulation stops at 256.
    let ones = vec![bf16::ONE; 1000];
    let x = MatmulInput::new(1, 1000, 1, ones.clone(), ones).unwrap();
    assert_eq!(matmul_f64_bf16(&x), vec![1000.0]);
    assert_eq!(
        matmul_emulated_bf16(&x, Bf16Accumulation::F32)[0].to_f32(),
        1000.0
    );
    assert_eq!(
        matmul_emulated_bf16(&x, Bf16Accumulation::Bf16)[0].to_f32(),
        256.0
    );
    // And an FP8 product with exact per-tensor scales.
    let two = E4m3::from_f32(2.0);
    let y = MatmulInput::scaled(
        (1, 2, 1),
        vec![two, two],
        vec![two, E4m3::NEG_ONE],
        0.25,
        8.0,
    )
    .unwrap();
    assert_eq!(matmul_f64_fp8(&y), vec![4.0]);
}

/// The shape of case study 4, one input per strategy.
#[test]
fn fp8_kernels_equal_their_emulation_at_the_case_study_shape() {
    let Some(gpu) = require_gpu() else { return };
    let x = fp8(128, 4096, 128, 7);
    for acc in Fp8Accumulation::ALL {
        let got = gpu.run(&x, acc).unwrap();
        let what = format!("{acc} 128×4096×128");
        assert_bits(&got, &matmul_emulated_fp8(&x, acc), f32::to_bits, &what);
    }
}
