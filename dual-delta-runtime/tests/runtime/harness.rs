//! What the harness does with bad input: a clear error naming the trial,
//! its seed and the implementation at fault; nothing silently dropped.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::decision::Accuracy;
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{
    decision::DecidedBy, error::Fault, error::Role, error::RunError, error::Skip,
    error::TooFewTrials, error::TrialFault,
};

fn input(rng: &mut TrialRng) -> Vec<f64> {
    (0..8).map(|_| rng.random_range(-1.0..1.0)).collect()
}
fn f32_copy(x: &Vec<f64>) -> Vec<f32> {
    x.iter().map(|&v| v as f32).collect()
}
fn exact(x: &Vec<f64>) -> Vec<f64> {
    x.clone()
}

#[test]
fn a_panicking_candidate_names_the_trial_and_seed() {
    let candidate = |x: &Vec<f64>| -> Vec<f32> {
        assert!(x[0] < 0.9, "candidate overflowed on {}", x[0]);
        f32_copy(x)
    };
    let err = DualDelta::new(candidate, f32_copy, exact, input)
        .n(200)
        .threads(1)
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
            assert!(message.contains("candidate overflowed"), "{message}");
            // The named trial really is the first that panics.
            let mut rng = TrialRng::from_trial_seed(trial.seed);
            assert!(input(&mut rng)[0] >= 0.9);
            for i in 0..trial.index {
                let mut rng = TrialRng::for_trial(trial.base_seed, i);
                assert!(input(&mut rng)[0] < 0.9, "trial {i} should not panic");
            }
        }
        other => panic!("unexpected {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("the candidate panicked in trial"), "{text}");
    assert!(text.contains("DUAL_DELTA_SEED="), "{text}");
}

#[test]
fn a_panicking_generator_is_caught() {
    let bad_input = |_: &mut TrialRng| -> Vec<f64> { panic!("no input") };
    let err = DualDelta::new(f32_copy, f32_copy, exact, bad_input)
        .n(10)
        .run()
        .unwrap_err();
    assert!(
        matches!(
            err,
            RunError::Trial(TrialFault {
                role: Role::Input,
                kind: Fault::Panicked { .. },
                ..
            })
        ),
        "{err:?}"
    );
}

#[test]
fn a_non_finite_oracle_is_an_error() {
    let oracle = |x: &Vec<f64>| -> Vec<f64> {
        let mut y = x.clone();
        y[3] = f64::NAN;
        y
    };
    let err = DualDelta::new(f32_copy, f32_copy, oracle, input)
        .n(10)
        .threads(1)
        .run()
        .unwrap_err();
    match err {
        RunError::Trial(TrialFault {
            trial,
            kind: Fault::OracleNotFinite { position, value },
            ..
        }) => {
            assert_eq!(trial.index, 0);
            assert_eq!(position, 3);
            assert!(value.is_nan());
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn outputs_of_different_lengths_are_an_error() {
    let short = |x: &Vec<f64>| -> Vec<f32> { f32_copy(x)[..7].to_vec() };
    let err = DualDelta::new(f32_copy, short, exact, input)
        .n(10)
        .threads(1)
        .run()
        .unwrap_err();
    match &err {
        RunError::Trial(TrialFault {
            role,
            kind: Fault::Length { len, oracle_len },
            ..
        }) => {
            assert_eq!((*role, *len, *oracle_len), (Role::Baseline, 7, 8));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("baseline returned 7 values but the oracle 8")
    );
}

#[test]
fn too_few_trials_says_the_minimum() {
    let err = DualDelta::new(f32_copy, f32_copy, exact, input)
        .n(5)
        .run()
        .unwrap_err();
    assert!(
        matches!(
            err,
            RunError::TooFewTrials(TooFewTrials {
                test: "wilcoxon",
                n: 5,
                min: 9,
                alpha: 0.0025,
                ..
            })
        ),
        "{err:?}"
    );
    // Each of the claim's two criteria at half of the fixed-N share α/2.
    assert!(err.to_string().contains("use n >= 9"));
}

#[test]
fn non_finite_outputs_are_the_worst_error_and_counted() {
    // The candidate returns NaN on about a tenth of the trials.
    let candidate = |x: &Vec<f64>| -> Vec<f32> {
        let mut y = f32_copy(x);
        if x[1] > 0.8 {
            y[0] = f32::NAN;
        }
        y
    };
    let outcome = DualDelta::new(candidate, f32_copy, exact, input)
        .n(400)
        .stop_early(false)
        .run()
        .unwrap();
    let bad = outcome.delta1().iter().filter(|d| d.is_infinite()).count();
    assert!(bad > 10, "{bad}");
    assert_eq!(outcome.summaries().candidate.non_finite, bad);
    assert_eq!(outcome.summaries().baseline.non_finite, 0);
    // The non-finite gate decides, whatever the fixed-N test at the 5 %
    // margin says of the other trials.
    assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
    assert!(matches!(
        outcome.judgement().decided_by(),
        DecidedBy::NonFinite { .. }
    ));
    assert!(!outcome.passed());
    assert!(outcome.table().contains(&format!("({bad} non-finite)")));
}

#[test]
fn a_custom_metric_returning_nan_is_an_error() {
    let err = DualDelta::new(f32_copy, f32_copy, exact, input)
        .n(10)
        .metric(Metric::custom("broken", |_, _| f64::NAN))
        .run()
        .unwrap_err();
    assert!(
        matches!(
            err,
            RunError::Trial(TrialFault {
                role: Role::Candidate,
                kind: Fault::InvalidError { .. },
                ..
            })
        ),
        "{err:?}"
    );
}

#[test]
fn an_implementation_can_skip_the_run() {
    let candidate = |x: &Vec<f64>| -> Vec<f32> {
        if x.len() == 8 {
            dual_delta_runtime::error::skip("no device here");
        }
        f32_copy(x)
    };
    let err = DualDelta::new(candidate, f32_copy, exact, input)
        .n(20)
        .run()
        .unwrap_err();
    assert!(
        matches!(&err, RunError::Skipped(Skip { role: Role::Candidate, reason, .. }) if reason == "no device here"),
        "{err:?}"
    );
}

#[test]
fn a_run_that_compared_nothing_is_an_error_not_a_pass() {
    // An input generator returning empty vectors: every output empty,
    // every input a tie, and not one element compared.
    let empty = |_: &mut TrialRng| Vec::<f32>::new();
    let copy = |x: &Vec<f32>| x.clone();
    let exact = |x: &Vec<f32>| x.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>();
    let err = DualDelta::new(copy, copy, exact, empty)
        .test_name("harness::compared_nothing")
        .run()
        .unwrap_err();
    assert!(matches!(err, RunError::NothingCompared(_)), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("no output element was compared on any of the "),
        "{err}"
    );
    // The message is said once along the chain: the cause's source is the
    // error's.
    assert!(std::error::Error::source(&err).is_none());
    // Some inputs empty and others not: those are counted as not judged.
    let some_empty = |rng: &mut TrialRng| {
        let n = if rng.random_range(0.0..1.0) < 0.5 {
            0
        } else {
            4
        };
        (0..n)
            .map(|_| rng.random_range(0.0f32..1.0))
            .collect::<Vec<f32>>()
    };
    let o = DualDelta::new(copy, copy, exact, some_empty)
        .test_name("harness::some_empty")
        .stop_early(false)
        .n(200)
        .run()
        .unwrap();
    assert!(
        o.claim().not_judged > 50 && o.claim().not_judged < 150,
        "{}",
        o.claim().not_judged
    );
}
