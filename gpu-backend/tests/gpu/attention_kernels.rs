//! The attention kernels on the GPU against their CPU emulation, bit for
//! bit, on both `f16` paths; values against the `f64` oracle; bad inputs.

use crate::common::{
    KernelInput, assert_identical, assert_matches_emulation, every_mismatch, gpus, max_hybrid, path,
};
use dual_delta_gpu::{
    GpuError,
    attention::{
        AttentionInput, AttentionShape, AttentionStrategy, MAX_HEAD_DIM, MAX_KEYS,
        attention_emulated, attention_f64, random_attention_input,
    },
    f16,
};
use dual_delta_runtime::TrialRng;

fn rng(trial: usize) -> TrialRng {
    TrialRng::for_trial(0x000a_77e7, trial)
}

fn shape(heads: usize, seq_q: usize, seq_k: usize, d: usize, d_v: usize) -> AttentionShape {
    AttentionShape {
        heads,
        seq_q,
        seq_k,
        d,
        d_v,
    }
}

/// Shapes with one of everything, odd sizes, more queries than keys and
/// fewer, key counts that are not multiples of the flash block, query
/// counts that are not multiples of the workgroup, the largest head
/// dimension, long key sequences; each causal and not.
fn inputs() -> Vec<(String, AttentionInput<f16>)> {
    let shapes = [
        shape(1, 1, 1, 1, 1),
        shape(2, 7, 13, 5, 3),
        shape(1, 33, 47, 64, 64),
        shape(3, 20, 9, 16, 40),
        shape(2, 17, 100, MAX_HEAD_DIM, MAX_HEAD_DIM),
        shape(1, 256, 256, 64, 64),
        // More loop iterations than llvmpipe allows one invocation, had
        // the loops over d and d_v not been unrolled.
        shape(1, 9, 2000, 64, 64),
    ];
    let mut v = Vec::new();
    for (t, s) in shapes.into_iter().enumerate() {
        for causal in [false, true] {
            let x = random_attention_input(s, causal)(&mut rng(10 * t + usize::from(causal)));
            v.push((format!("{s:?} causal={causal}"), x));
        }
    }
    v
}

/// Each strategy on each path runs on a thread of its own, so that the
/// driver compiles the 30 kernels (one per head dimensions, strategy and
/// path) in parallel: one after another they took over three minutes on
/// an NVIDIA H200 (NVIDIA's compiler takes seconds for each unrolled
/// kernel), 45 s on lavapipe. The comparisons run afterwards, every one
/// of them.
#[test]
fn attention_matches_its_emulation_bit_for_bit() {
    let inputs = inputs();
    let gpus = gpus();
    let cases: Vec<_> = gpus
        .iter()
        .flat_map(|&gpu| AttentionStrategy::ALL.map(|strategy| (gpu, strategy)))
        .collect();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(gpu, strategy)| {
                let inputs = &inputs;
                scope.spawn(move || {
                    inputs
                        .iter()
                        .map(|(name, x)| {
                            let got = gpu.run(x, strategy).unwrap();
                            let want = attention_emulated(&x.as_loaded_on(gpu), strategy);
                            (name, x, got, want)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a case panicked"))
            .collect::<Vec<_>>()
    });
    every_mismatch(|| {
        for (&(gpu, strategy), outputs) in cases.iter().zip(results) {
            for (name, x, got, want) in outputs {
                let what = format!("{strategy} attention of {name} on the {} path", path(gpu));
                assert_matches_emulation(gpu, x, &got, &want, &what);
            }
        }
    });
}

#[test]
fn flash_f32_is_close_to_the_oracle_and_f16_accumulation_is_not() {
    let x = random_attention_input::<f16>(shape(1, 64, 512, 64, 64), false)(&mut rng(300));
    let oracle = attention_f64(&x);
    let err = |v| max_hybrid(&attention_emulated(&x, v), &oracle);
    let (flash, naive, f16_acc) = (
        err(AttentionStrategy::Flash),
        err(AttentionStrategy::Naive),
        err(AttentionStrategy::FlashF16Accumulation),
    );
    // One f16 rounding of outputs below 1 in magnitude: at most 2⁻¹² of
    // 1 + |y|, plus the f32 arithmetic's far smaller error.
    assert!(flash < 3e-4, "flash: {flash:e}");
    // f16 probabilities (relative error 2⁻¹¹ each) and f16 scores.
    assert!(naive < 2e-3, "naive: {naive:e}");
    // 512 f16 roundings of the accumulators, each up to 2⁻¹¹ relative.
    assert!(
        f16_acc > 2.0 * flash,
        "f16 accumulation {f16_acc:e}, flash {flash:e}"
    );
    for gpu in gpus() {
        let got = gpu.run(&x, AttentionStrategy::Flash).unwrap();
        let e = max_hybrid(&got, &oracle);
        assert!(e < 3e-4, "{}: {e:e}", path(gpu));
    }
}

#[test]
fn known_values_come_out_exactly() {
    let f = |v: &[f32]| v.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>();
    // K = 0: every score is 0, the softmax uniform, the output the mean of
    // the values seen: 2, 3 and 4 in turn under the causal mask.
    let s = shape(1, 3, 3, 2, 1);
    let x = AttentionInput::new(s, true, f(&[1.0; 6]), f(&[0.0; 6]), f(&[2.0, 4.0, 6.0])).unwrap();
    for gpu in gpus() {
        for strategy in AttentionStrategy::ALL {
            let got: Vec<f32> = gpu
                .run(&x, strategy)
                .unwrap()
                .iter()
                .map(|v| v.to_f32())
                .collect();
            assert_eq!(got, [2.0, 3.0, 4.0], "{strategy} on the {} path", path(gpu));
        }
    }
}

#[test]
fn batches_equal_single_calls() {
    every_mismatch(|| {
        let s = shape(1, 40, 70, 32, 24);
        let batch: Vec<AttentionInput<f16>> = (0..3)
            .map(|t| {
                random_attention_input(AttentionShape { heads: 1 + t, ..s }, true)(
                    &mut rng(400 + t),
                )
            })
            .collect();
        for gpu in gpus() {
            for strategy in AttentionStrategy::ALL {
                let all = gpu.run_batch(&batch, strategy).unwrap();
                for (i, x) in batch.iter().enumerate() {
                    let what = format!("{strategy} batch item {i} on the {} path", path(gpu));
                    assert_identical(&all[i], &gpu.run(x, strategy).unwrap(), &what);
                }
            }
        }
    });
}

#[test]
fn bad_inputs_are_refused_with_a_clear_error() {
    let big =
        random_attention_input::<f16>(shape(1, 2, 2, MAX_HEAD_DIM + 1, 8), false)(&mut rng(500));
    let long = random_attention_input::<f16>(shape(1, 1, MAX_KEYS + 1, 1, 1), false)(&mut rng(503));
    let x = random_attention_input::<f16>(shape(1, 2, 2, 8, 8), false)(&mut rng(501));
    let causal = random_attention_input::<f16>(shape(1, 2, 2, 8, 8), true)(&mut rng(502));
    let e = AttentionInput::<f16>::new(shape(1, 0, 2, 8, 8), false, vec![], vec![], vec![]);
    assert!(matches!(e, Err(GpuError::InvalidInput(_))));
    for gpu in gpus() {
        let e = gpu.run(&big, AttentionStrategy::Flash).unwrap_err();
        assert!(e.to_string().contains("up to 128"), "{e}");
        let e = gpu.run(&long, AttentionStrategy::Naive).unwrap_err();
        assert!(e.to_string().contains("seq_k up to"), "{e}");
        let e = gpu
            .run_batch(&[&x, &causal], AttentionStrategy::Naive)
            .unwrap_err();
        assert!(matches!(e, GpuError::InvalidInput(_)), "{e}");
        let none: [&AttentionInput<f16>; 0] = [];
        let empty = gpu.run_batch(&none, AttentionStrategy::Flash).unwrap();
        assert!(empty.is_empty());
    }
}
