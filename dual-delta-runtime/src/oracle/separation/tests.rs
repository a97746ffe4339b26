use super::*;
use crate::error::{Fault, TrialFault};
use crate::oracle::sum;
use rand::RngExt;

fn input(rng: &mut TrialRng) -> Vec<f32> {
    rng.note_input_kind("uniform");
    (0..500).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

#[test]
fn f64_oracle_is_separated_from_f32_sums_and_an_f32_oracle_is_not() {
    let naive = |x: &Vec<f32>| x.iter().sum::<f32>();
    let exact = |x: &Vec<f32>| sum(x.iter().map(|&v| f64::from(v))).to_f64();
    let f64_oracle = |x: &Vec<f32>| x.iter().map(|&v| f64::from(v)).sum::<f64>();
    let good = Separation::new(f64_oracle, exact, input)
        .implementation("naive", naive)
        .metric(Metric::MaxRelative)
        .check()
        .unwrap();
    assert!(good.passed, "{good}");
    assert!(good.ratio > 1e6, "{good}");
    assert_eq!(good.input_kinds, vec!["uniform"; 8]);
    // The weak oracle is the implementation itself, widened.
    let weak = Separation::new(move |x: &Vec<f32>| f64::from(naive(x)), exact, input)
        .implementation("naive", naive)
        .metric(Metric::MaxRelative)
        .sample(4)
        .check()
        .unwrap();
    assert!(!weak.passed, "{weak}");
    assert!(weak.summary().starts_with("WARNING"), "{}", weak.summary());
    assert!(weak.ratio <= 1.0, "{weak}");
}

#[test]
fn errors_are_reported() {
    let f = |x: &Vec<f32>| x.clone();
    let s = Separation::new(f, f, input);
    assert_eq!(s.check().unwrap_err(), SeparationError::NoImplementations);
    let s = Separation::new(f, |x: &Vec<f32>| vec![0.0f64; x.len() + 1], input)
        .implementation("f", f)
        .sample(1);
    let e = s.check().unwrap_err();
    assert!(
        e.to_string()
            .contains("returned 500 values and the reference 501"),
        "{e}"
    );
    // A panic is caught as in a run, naming the trial and its seed.
    let s = Separation::new(f, f, input)
        .implementation("boom", |_: &Vec<f32>| -> f32 { panic!("kernel fault") })
        .seed(9);
    match s.check().unwrap_err() {
        SeparationError::Run(RunError::Trial(TrialFault {
            role,
            trial,
            kind: Fault::Panicked { message },
        })) => {
            assert_eq!(role, Role::Candidate);
            assert_eq!(trial.base_seed, 9);
            assert!(message.starts_with("kernel fault"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn medians() {
    let s = ErrorSummary::of(vec![3.0, 1.0, 2.0, 10.0]);
    assert_eq!((s.median, s.mean, s.max), (2.5, 4.0, 10.0));
    assert_eq!(s.errors, vec![3.0, 1.0, 2.0, 10.0]);
}
