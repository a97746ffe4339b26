//! The LayerNorm kernels on the GPU against their CPU emulation, bit for
//! bit, on both `f16` paths; the careful strategies close to the `f64`
//! oracle, and the one-pass variance visibly wrong on offset activations.

use crate::common::{
    KernelInput, assert_identical, assert_matches_emulation, every_mismatch, gpus, max_hybrid, path,
};
use dual_delta_gpu::{
    GpuError, f16,
    norm::{
        LayerNormStrategy, MAX_NORM_LEN, NormInput, layer_norm_emulated, layer_norm_f64,
        random_norm_input, random_offset_norm_input,
    },
    reductions::RowsInput,
};
use dual_delta_runtime::TrialRng;
use rand::RngExt as _;

fn rng(trial: usize) -> TrialRng {
    TrialRng::for_trial(0x0007_a7e2, trial)
}

/// Rows shorter than a workgroup, not multiples of it and long; with and
/// without weight and bias; offset activations; random shapes.
fn inputs() -> Vec<(String, NormInput<f16>)> {
    let mut v = Vec::new();
    let shapes = [(1, 1), (3, 7), (2, 63), (4, 65), (3, 1000), (2, 4096)];
    for (t, (rows, len)) in shapes.into_iter().enumerate() {
        for (k, affine) in [false, true].into_iter().enumerate() {
            let x = random_norm_input(rows, len, affine, 1e-5)(&mut rng(10 * t + k));
            v.push((format!("randn {rows}×{len} affine={affine}"), x));
        }
    }
    for (t, (offset, spread)) in [(1000.0, 1.0), (-100.0, 10.0), (30.0, 0.5)]
        .into_iter()
        .enumerate()
    {
        let x = random_offset_norm_input(3, 1500, offset, spread, t == 1, 1e-5)(&mut rng(100 + t));
        v.push((format!("{offset} ± {spread} 3×1500"), x));
    }
    let mut shapes = rng(150);
    for k in 0..8 {
        let rows = shapes.random_range(1..5);
        let len = shapes.random_range(2..3000);
        let x = random_norm_input(rows, len, k % 2 == 0, 1e-3)(&mut rng(160 + k));
        v.push((format!("randn {rows}×{len} (random shape)"), x));
    }
    // A weight without a bias, and a bias without a weight.
    let x = random_norm_input::<f16>(2, 100, true, 1e-5)(&mut rng(200));
    let (w, b) = (x.weight().unwrap().to_vec(), x.bias().unwrap().to_vec());
    let only_w = NormInput::new(x.x().clone(), Some(w), None, 1e-5).unwrap();
    let only_b = NormInput::new(x.x().clone(), None, Some(b), 1e-5).unwrap();
    v.push(("weight only".into(), only_w));
    v.push(("bias only".into(), only_b));
    v
}

#[test]
fn layer_norm_matches_its_emulation_bit_for_bit() {
    every_mismatch(|| {
        let inputs = inputs();
        for gpu in gpus() {
            for strategy in LayerNormStrategy::ALL {
                for (name, x) in &inputs {
                    let got = gpu.run(x, strategy).unwrap();
                    let what = format!("{strategy} LayerNorm of {name} on the {} path", path(gpu));
                    assert_matches_emulation(
                        gpu,
                        x,
                        &got,
                        &layer_norm_emulated(&x.as_loaded_on(gpu), strategy),
                        &what,
                    );
                }
            }
        }
    });
}

#[test]
fn careful_strategies_are_close_to_the_oracle() {
    // One f16 rounding is at most 2⁻¹¹ ≈ 4.9e-4 of |y| (so of 1 + |y|);
    // the f32 statistics add far less on these inputs.
    let cases = [
        random_norm_input::<f16>(4, 1024, true, 1e-5)(&mut rng(300)),
        random_offset_norm_input::<f16>(4, 1024, 1000.0, 1.0, true, 1e-5)(&mut rng(301)),
        random_offset_norm_input::<f16>(4, 4096, -100.0, 10.0, false, 1e-5)(&mut rng(302)),
    ];
    for x in &cases {
        let oracle = layer_norm_f64(x);
        for strategy in [LayerNormStrategy::TwoPass, LayerNormStrategy::Welford] {
            let err = max_hybrid(&layer_norm_emulated(x, strategy), &oracle);
            assert!(err < 6e-4, "{strategy}: max hybrid error {err:e}");
        }
    }
}

#[test]
fn one_pass_variance_is_wrong_on_offset_activations() {
    // x ≈ 1000 ± 1: E[x²] and E[x]² are ≈ 10⁶ and agree in all but their
    // last few bits, so their difference (the variance, ≈ 1) is mostly error.
    let x = random_offset_norm_input::<f16>(8, 1024, 1000.0, 1.0, false, 1e-5)(&mut rng(400));
    let oracle = layer_norm_f64(&x);
    let one_pass = max_hybrid(
        &layer_norm_emulated(&x, LayerNormStrategy::OnePass),
        &oracle,
    );
    let two_pass = max_hybrid(
        &layer_norm_emulated(&x, LayerNormStrategy::TwoPass),
        &oracle,
    );
    assert!(one_pass > 1e-2, "one-pass error only {one_pass:e}");
    assert!(two_pass < 6e-4, "two-pass error {two_pass:e}");
    // Without the offset, one pass is as good as two.
    let centred = random_norm_input::<f16>(8, 1024, false, 1e-5)(&mut rng(401));
    let err = max_hybrid(
        &layer_norm_emulated(&centred, LayerNormStrategy::OnePass),
        &layer_norm_f64(&centred),
    );
    assert!(err < 6e-4, "one-pass on centred rows: {err:e}");
    for gpu in gpus() {
        let got = gpu.run(&x, LayerNormStrategy::OnePass).unwrap();
        assert!(max_hybrid(&got, &oracle) > 1e-2, "{}", path(gpu));
    }
}

#[test]
fn batches_equal_single_calls_and_bad_batches_are_refused() {
    every_mismatch(|| {
        let batch: Vec<NormInput<f16>> = (0..4)
            .map(|t| random_norm_input(1 + t, 300, true, 1e-5)(&mut rng(500 + t)))
            .collect();
        for gpu in gpus() {
            for strategy in LayerNormStrategy::ALL {
                let all = gpu.run_batch(&batch, strategy).unwrap();
                for (i, x) in batch.iter().enumerate() {
                    let what = format!("{strategy} batch item {i} on the {} path", path(gpu));
                    assert_identical(&all[i], &gpu.run(x, strategy).unwrap(), &what);
                }
            }
            let none: [&NormInput<f16>; 0] = [];
            let empty = gpu.run_batch(&none, LayerNormStrategy::TwoPass);
            assert!(empty.unwrap().is_empty());
            let refused = [
                random_norm_input(1, 301, true, 1e-5)(&mut rng(600)),
                random_norm_input(1, 300, false, 1e-5)(&mut rng(601)),
                random_norm_input(1, 300, true, 1e-3)(&mut rng(602)),
            ];
            for other in &refused {
                let e = gpu
                    .run_batch(&[&batch[0], other], LayerNormStrategy::TwoPass)
                    .unwrap_err();
                assert!(matches!(e, GpuError::InvalidInput(_)), "{e}");
            }
        }
    });
}

#[test]
fn bad_inputs_are_refused_with_a_clear_error() {
    let x = RowsInput::new(2, 3, vec![f16::ONE; 6]).unwrap();
    let e = NormInput::new(x.clone(), Some(vec![f16::ONE; 2]), None, 1e-5).unwrap_err();
    assert!(e.to_string().contains("weight"), "{e}");
    let e = NormInput::new(x, None, None, -1.0).unwrap_err();
    assert!(e.to_string().contains("eps"), "{e}");
    assert!(RowsInput::<f16>::new(0, 3, vec![]).is_err());
    let long = RowsInput::new(1, MAX_NORM_LEN + 1, vec![f16::ONE; MAX_NORM_LEN + 1]).unwrap();
    let long = NormInput::new(long, None, None, 1e-5).unwrap();
    for gpu in gpus() {
        let e = gpu.run(&long, LayerNormStrategy::Welford).unwrap_err();
        assert!(e.to_string().contains("up to"), "{e}");
    }
}

#[test]
fn rows_of_the_longest_accepted_length_are_normalised_completely() {
    every_mismatch(|| {
        // Alternating ±1 with a final element of 3: mean and variance depend on
        // every element, including the last one an invocation visits.
        let mut row = vec![f16::ONE; MAX_NORM_LEN];
        for (j, v) in row.iter_mut().enumerate() {
            if j % 2 == 1 {
                *v = -f16::ONE;
            }
        }
        row[MAX_NORM_LEN - 1] = f16::from_f32(3.0);
        let x = NormInput::new(
            RowsInput::new(1, MAX_NORM_LEN, row).unwrap(),
            None,
            None,
            0.0,
        )
        .unwrap();
        for gpu in gpus() {
            for strategy in [LayerNormStrategy::TwoPass, LayerNormStrategy::Welford] {
                let got = gpu.run(&x, strategy).unwrap();
                let what = format!("{strategy}");
                assert_matches_emulation(
                    gpu,
                    &x,
                    &got,
                    &layer_norm_emulated(&x.as_loaded_on(gpu), strategy),
                    &what,
                );
            }
        }
    });
}
