//! The row kernels (sums, softmax) on the GPU against their CPU emulations,
//! bit for bit, on both `f16` paths; and the known bugs, visible.

use crate::common::{
    KernelInput, assert_identical, assert_matches_emulation, every_mismatch, f16_subnormals, gpus,
    max_hybrid, path,
};
use dual_delta_gpu::{
    GpuError, f16,
    reductions::{
        MAX_ROW_LEN, MAX_SERIAL_LEN, RowsInput, SoftmaxStrategy, SumStrategy, random_offset_rows,
        random_outlier_rows, random_rows, reduce_sum_emulated_with, softmax_emulated, softmax_f64,
        sum_f64,
    },
};
use dual_delta_runtime::{TrialRng, output::NumberFormat};
use rand::RngExt as _;

fn rng(trial: usize) -> TrialRng {
    TrialRng::for_trial(0x0005_0f7a, trial)
}

/// The inputs every kernel is checked on: short, odd and long randn rows,
/// rows shorter than a workgroup, rows with large outliers, all-ones rows.
fn inputs() -> Vec<(String, RowsInput<f16>)> {
    let mut v = Vec::new();
    for (t, (rows, len)) in [(1, 1), (3, 7), (5, 63), (4, 65), (8, 1000), (4, 4096)]
        .into_iter()
        .enumerate()
    {
        for k in 0..3 {
            let x = random_rows(rows, len)(&mut rng(10 * t + k));
            v.push((format!("randn {rows}×{len} #{k}"), x));
        }
    }
    for (t, (rows, len, mag)) in [(4, 100, 20.0), (4, 4096, 11.0), (3, 2048, 100.0)]
        .into_iter()
        .enumerate()
    {
        let x = random_outlier_rows(rows, len, 3, mag)(&mut rng(100 + t));
        v.push((format!("outliers ±{mag} {rows}×{len}"), x));
    }
    // Random shapes, from one row of one element to rows longer than 4096.
    let mut shapes = rng(150);
    for k in 0..16 {
        let rows = shapes.random_range(1..6);
        let len = shapes.random_range(1..5000);
        let x = random_rows(rows, len)(&mut rng(160 + k));
        v.push((format!("randn {rows}×{len} (random shape)"), x));
    }
    for (t, (offset, spread)) in [(30.0, 3.0), (-100.0, 10.0), (1000.0, 1.0)]
        .into_iter()
        .enumerate()
    {
        let x = random_offset_rows(3, 1500, offset, spread)(&mut rng(180 + t));
        v.push((format!("{offset} ± {spread} 3×1500"), x));
    }
    let ones = RowsInput::new(2, 4096, vec![f16::ONE; 2 * 4096]).unwrap();
    v.push(("ones 2×4096".into(), ones));
    v
}

#[test]
fn sums_match_their_emulation_bit_for_bit() {
    every_mismatch(|| {
        let inputs = inputs();
        for gpu in gpus() {
            for strategy in SumStrategy::ALL {
                for (name, x) in &inputs {
                    let got = gpu.run(x, strategy).unwrap();
                    let what = format!("{strategy} sum of {name} on the {} path", path(gpu));
                    assert_eq!(got.len(), x.rows(), "{what}");
                    let want = reduce_sum_emulated_with(x, strategy, f16_subnormals(gpu));
                    assert_identical(&got, &want, &what);
                }
            }
        }
    });
}

#[test]
fn softmax_matches_its_emulation_bit_for_bit() {
    every_mismatch(|| {
        let inputs = inputs();
        for gpu in gpus() {
            for strategy in SoftmaxStrategy::ALL {
                for (name, x) in &inputs {
                    let got = gpu.run(x, strategy).unwrap();
                    let what = format!("softmax ({strategy}) of {name} on the {} path", path(gpu));
                    assert_matches_emulation(
                        gpu,
                        x,
                        &got,
                        &softmax_emulated(&x.as_loaded_on(gpu), strategy),
                        &what,
                    );
                }
            }
        }
    });
}

#[test]
fn f16_serial_sum_of_4096_ones_is_2048() {
    let x = RowsInput::new(1, 4096, vec![f16::ONE; 4096]).unwrap();
    for gpu in gpus() {
        let sum = |s: SumStrategy| gpu.run(&x, s).unwrap()[0].to_f32();
        assert_eq!(sum(SumStrategy::F16Serial), 2048.0, "{}", path(gpu));
        for s in [SumStrategy::F16, SumStrategy::F32, SumStrategy::Pairwise] {
            assert_eq!(sum(s), 4096.0, "{s} on the {} path", path(gpu));
        }
    }
}

#[test]
fn softmax_without_max_subtraction_overflows_from_12() {
    // Row 0 has a logit of 12, row 1 of 20; row 2 stays below 11.
    let logits: Vec<f16> = [
        [0.0, 12.0, 1.0, -3.0],
        [20.0, 2.0, 0.5, 0.0],
        [11.0, 10.0, -1.0, 0.0],
    ]
    .iter()
    .flatten()
    .map(|&v| f16::from_f32(v))
    .collect();
    let x = RowsInput::new(3, 4, logits).unwrap();
    for gpu in gpus() {
        let naive = gpu.run(&x, SoftmaxStrategy::NoMaxSubtraction).unwrap();
        let careful = gpu.run(&x, SoftmaxStrategy::Careful).unwrap();
        assert!(careful.iter().all(|v| v.is_finite()), "{}", path(gpu));
        for row in 0..2 {
            let r = &naive[4 * row..4 * row + 4];
            assert!(r.iter().any(|v| v.is_nan()), "row {row}: {r:?}");
        }
        assert!(naive[8..].iter().all(|v| v.is_finite()));
        // Where nothing overflows, the naive strategy is close to the careful one.
        for (a, b) in naive[8..].iter().zip(&careful[8..]) {
            assert!((a.to_f32() - b.to_f32()).abs() < 1e-3, "{a} vs {b}");
        }
    }
}

#[test]
fn batched_results_equal_single_results() {
    every_mismatch(|| {
        let batch: Vec<RowsInput<f16>> = (0..4)
            .map(|t| random_rows(1 + t, 300)(&mut rng(200 + t)))
            .collect();
        for gpu in gpus() {
            let sums = gpu.run_batch(&batch, SumStrategy::F32).unwrap();
            let soft = gpu.run_batch(&batch, SoftmaxStrategy::Online).unwrap();
            for (i, x) in batch.iter().enumerate() {
                let what = format!("batch item {i} on the {} path", path(gpu));
                assert_identical(&sums[i], &gpu.run(x, SumStrategy::F32).unwrap(), &what);
                assert_identical(
                    &soft[i],
                    &gpu.run(x, SoftmaxStrategy::Online).unwrap(),
                    &what,
                );
            }
            let none: [&RowsInput<f16>; 0] = [];
            assert!(
                gpu.run_batch(&none, SoftmaxStrategy::Careful)
                    .unwrap()
                    .is_empty()
            );
            let other = random_rows(1, 301)(&mut rng(300));
            let e = gpu
                .run_batch(&[&batch[0], &other], SumStrategy::F32)
                .unwrap_err();
            assert!(matches!(e, GpuError::InvalidInput(_)), "{e}");
        }
    });
}

#[test]
fn careful_kernels_are_close_to_the_oracles() {
    let x = random_rows(4, 4096)(&mut rng(400));
    let big = random_offset_rows(4, 4096, 8.0, 4.0)(&mut rng(401));
    for gpu in gpus() {
        for strategy in [SoftmaxStrategy::Careful, SoftmaxStrategy::Online] {
            for x in [&x, &big] {
                let err = max_hybrid(&gpu.run(x, strategy).unwrap(), &softmax_f64(x));
                assert!(err < 1e-3, "{strategy} on the {} path: {err:e}", path(gpu));
            }
        }
        for strategy in [SumStrategy::F32, SumStrategy::Pairwise] {
            let got = gpu.run(&x, strategy).unwrap();
            for (g, want) in got.iter().zip(sum_f64(&x)) {
                // One f16 rounding of an f32 sum of 4096 values of size ~1.
                let tol = NumberFormat::F16.ulp(want.abs()) / 2.0 + 4096.0 * 4.0 * 2f64.powi(-24);
                assert!(
                    (g.to_f64() - want).abs() <= tol,
                    "{strategy}: {g} vs {want}"
                );
            }
        }
    }
}

/// Rows of the longest accepted length are summed and normalised to their
/// last element (llvmpipe would silently stop a longer loop); one element
/// more is refused.
#[test]
fn rows_of_the_longest_accepted_length_are_complete_and_longer_are_refused() {
    every_mismatch(|| {
        // Zeros, then a 1 in the last element: a kernel that stops early sums 0.
        let last_one = |len: usize| {
            let mut row = vec![f16::ZERO; len];
            row[len - 1] = f16::ONE;
            RowsInput::new(1, len, row).unwrap()
        };
        let serial = last_one(MAX_SERIAL_LEN);
        let long = last_one(MAX_ROW_LEN);
        for gpu in gpus() {
            let p = path(gpu);
            let got = gpu.run(&serial, SumStrategy::F16Serial).unwrap();
            assert_eq!(got, [f16::ONE], "{p}: serial sum of {MAX_SERIAL_LEN}");
            for strategy in SumStrategy::ALL {
                if strategy == SumStrategy::F16Serial {
                    continue;
                }
                let got = gpu.run(&long, strategy).unwrap();
                assert_eq!(got, [f16::ONE], "{p}: {strategy} sum of {MAX_ROW_LEN}");
            }
            for strategy in SoftmaxStrategy::ALL {
                let got = gpu.run(&long, strategy).unwrap();
                let what = format!("{p}: {strategy}");
                assert_matches_emulation(
                    gpu,
                    &long,
                    &got,
                    &softmax_emulated(&long.as_loaded_on(gpu), strategy),
                    &what,
                );
            }

            let too_long = [
                (SumStrategy::F16Serial, last_one(MAX_SERIAL_LEN + 1)),
                (SumStrategy::F32, last_one(MAX_ROW_LEN + 1)),
            ];
            for (strategy, x) in &too_long {
                let e = gpu.run(x, *strategy).unwrap_err();
                assert!(matches!(e, GpuError::InvalidInput(_)), "{p}: {e}");
                assert!(e.to_string().contains("up to"), "{p}: {e}");
            }
            let e = gpu
                .run(&too_long[1].1, SoftmaxStrategy::Careful)
                .unwrap_err();
            assert!(e.to_string().contains("up to"), "{p}: {e}");
        }
    });
}
