//! A batched candidate (`DualDelta::batched`): the same trials, errors and
//! verdict as the same candidate called one input at a time, whatever the
//! batch size and the number of threads; and clear errors when a batch goes
//! wrong.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use std::sync::Mutex;

use dual_delta_runtime::decision::Accuracy;
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{
    error::Fault, error::Role, error::RunError, error::Skip, error::TrialFault,
};

fn input(rng: &mut TrialRng) -> Vec<f32> {
    let len = rng.random_range(1..300);
    (0..len).map(|_| rng.random_range(0.0f32..1.0)).collect()
}
fn naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}
fn kahan(x: &Vec<f32>) -> f32 {
    let (mut s, mut c) = (0.0f32, 0.0f32);
    for &v in x {
        let y = v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}
fn exact(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn naive_batch(xs: &[Vec<f32>]) -> Vec<f32> {
    xs.iter().map(naive).collect()
}

#[test]
fn batches_change_nothing_but_the_calls() {
    let reference = DualDelta::new(naive, kahan, exact, input)
        .test_name("batched")
        .n(300)
        .run()
        .unwrap();
    assert_eq!(reference.judgement().accuracy(), Accuracy::LessAccurate);
    for threads in [None, Some(1), Some(2)] {
        for size in [1, 7, 32, 300, 1000] {
            let mut run = DualDelta::batched(naive_batch, kahan, exact, input)
                .batch_size(size)
                .test_name("batched")
                .n(300);
            if let Some(t) = threads {
                run = run.threads(t);
            }
            let o = run.run().unwrap();
            let case = format!("batch {size}, threads {threads:?}");
            assert_eq!(o.delta1(), reference.delta1(), "{case}");
            assert_eq!(o.delta2(), reference.delta2(), "{case}");
            assert_eq!(o.verdict(), reference.verdict(), "{case}");
            assert_eq!(o.input_kinds(), reference.input_kinds(), "{case}");
        }
    }
}

#[test]
fn each_call_gets_consecutive_trials_up_to_the_batch_size() {
    let calls = Mutex::new(Vec::new());
    let candidate = |xs: &[Vec<f32>]| {
        calls.lock().unwrap().push(xs.len());
        naive_batch(xs)
    };
    // All 200 trials (naive summation is found worse within the first batch).
    DualDelta::batched(candidate, kahan, exact, input)
        .batch_size(64)
        .n(200)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(*calls.lock().unwrap(), [64, 64, 64, 8]);
}

#[test]
fn the_default_batch_size_is_documented() {
    let calls = Mutex::new(Vec::new());
    let candidate = |xs: &[Vec<f32>]| {
        calls.lock().unwrap().push(xs.len());
        naive_batch(xs)
    };
    DualDelta::batched(candidate, kahan, exact, input)
        .n(100)
        .stop_early(false)
        .run()
        .unwrap();
    let calls = calls.into_inner().unwrap();
    assert_eq!(calls[0], dual_delta_runtime::settings::DEFAULT_BATCH_SIZE);
    assert_eq!(calls.iter().sum::<usize>(), 100);
}

#[test]
fn a_batch_with_too_few_outputs_is_an_error() {
    let short = |xs: &[Vec<f32>]| naive_batch(&xs[1..]);
    let err = DualDelta::batched(short, kahan, exact, input)
        .batch_size(10)
        .n(100)
        .run()
        .unwrap_err();
    match &err {
        RunError::Trial(TrialFault {
            trial: first,
            kind:
                Fault::Batch {
                    last,
                    len,
                    expected,
                },
            ..
        }) => {
            assert_eq!((first.index, *last, *len, *expected), (0, 9, 9, 10));
        }
        other => panic!("unexpected {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("returned 9 outputs for the 10 inputs of trials 0 to 9"),
        "{text}"
    );
    assert!(text.contains("DUAL_DELTA_SEED="), "{text}");
}

#[test]
fn a_panicking_batch_names_its_trials() {
    let candidate = |xs: &[Vec<f32>]| {
        assert!(xs.len() < 20, "batch too large for the device");
        naive_batch(xs)
    };
    let err = DualDelta::batched(candidate, kahan, exact, input)
        .batch_size(25)
        .n(100)
        .run()
        .unwrap_err();
    match &err {
        RunError::Trial(TrialFault {
            role,
            trial,
            kind: Fault::Panicked { message },
            ..
        }) => {
            assert_eq!(*role, Role::Candidate);
            assert_eq!(trial.index, 0);
            assert!(message.contains("batch too large"), "{message}");
            assert!(
                message.contains("in the batch of trials 0 to 24"),
                "{message}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_failing_baseline_in_a_batch_names_its_trial() {
    let baseline = |x: &Vec<f32>| -> f32 {
        assert!(x.len() != 1, "empty tail");
        kahan(x)
    };
    let err = DualDelta::batched(naive_batch, baseline, exact, input)
        .batch_size(16)
        .n(500)
        .stop_early(false)
        .run()
        .unwrap_err();
    let RunError::Trial(TrialFault { role, trial, .. }) = &err else {
        panic!("unexpected {err:?}");
    };
    assert_eq!(*role, Role::Baseline);
    let mut rng = TrialRng::from_trial_seed(trial.seed);
    assert_eq!(input(&mut rng).len(), 1, "{err}");
}

#[test]
fn a_batched_candidate_can_skip_the_run() {
    let skipping = |_: &[Vec<f32>]| -> Vec<f32> { dual_delta_runtime::error::skip("no device") };
    let err = DualDelta::batched(skipping, kahan, exact, input)
        .n(50)
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, RunError::Skipped(Skip { role: Role::Candidate, reason, .. }) if reason == "no device"),
        "{err:?}"
    );
}

#[test]
#[should_panic(expected = "a batch holds at least one trial")]
fn a_batch_size_of_zero_is_refused() {
    let _ = DualDelta::batched(naive_batch, kahan, exact, input).batch_size(0);
}

/// The attribute with `batch`: the candidate takes a slice of inputs.
#[dual_delta_test(
    oracle = exact,
    baseline = kahan,
    input = input,
    n = 200,
    batch = 16,
    expect = worse,
    stop_early = false,
    check = |o| if o.delta1().len() == 200 { Ok(()) } else { Err("not 200 trials".into()) },
)]
fn naive_in_batches_is_caught(xs: &[Vec<f32>]) -> Vec<f32> {
    naive_batch(xs)
}
