//! The method end to end on the CPU, with no GPU: f32 summation strategies
//! measured against an f64 oracle over N = 1000 random inputs.
//!
//! Naive left-to-right f32 summation accumulates a rounding error that grows
//! with the length; Kahan (compensated) and pairwise summation keep it near
//! one rounding. Dual-Delta Testing must tell them apart in both directions,
//! and find two identical implementations equivalent.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::stats::Alternative;
use dual_delta_runtime::{decision::Accuracy, decision::Equivalence};

use crate::common::{input, kahan, naive, oracle, pairwise};

#[test]
fn naive_summation_is_judged_less_accurate_than_kahan() {
    let outcome = DualDelta::new(naive, kahan, oracle, input)
        .test_name("summation::naive_vs_kahan")
        .labels("naive f32", "kahan f32")
        .n(1000)
        .expect(Expect::Worse)
        .stop_early(false)
        .run()
        .unwrap();
    assert_eq!(outcome.delta1().len(), 1000);
    assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
    assert_eq!(outcome.verdict().equivalence, Equivalence::Distinguishable);
    let p = outcome.analysis().worse.as_ref().unwrap().p_value;
    assert!(p < 1e-100, "Wilcoxon p = {p}");
    assert!(outcome.summaries().candidate.mean > 10.0 * outcome.summaries().baseline.mean);
    outcome.assert();
    // The default gate fails on it, and says why.
    let gate = DualDelta::new(naive, kahan, oracle, input)
        .n(1000)
        .run()
        .unwrap();
    let message = gate.result().unwrap_err();
    assert!(message.contains("significantly less accurate"), "{message}");
    assert!(message.contains("DUAL_DELTA_SEED="), "{message}");
}

#[test]
fn swapped_the_candidate_is_judged_more_accurate() {
    let outcome = DualDelta::new(pairwise, naive, oracle, input)
        .n(1000)
        .expect(Expect::Better)
        .run()
        .unwrap();
    assert_eq!(outcome.judgement().accuracy(), Accuracy::MoreAccurate);
    assert_eq!(outcome.analysis().accuracy_test, AccuracyTest::Wilcoxon);
    outcome.assert();
}

#[test]
fn identical_implementations_are_equivalent() {
    let outcome = DualDelta::new(kahan, kahan, oracle, input)
        .n(1000)
        .expect(Expect::Equivalent)
        .run()
        .unwrap();
    assert!(outcome.verdict().identical);
    assert_eq!(
        outcome.judgement().accuracy(),
        Accuracy::NoSignificantDifference
    );
    assert_eq!(
        outcome.verdict().equivalence,
        Equivalence::Indistinguishable
    );
    outcome.assert();
    let better = DualDelta::new(kahan, kahan, oracle, input)
        .n(1000)
        .expect(Expect::Better)
        .run()
        .unwrap();
    let message = better.result().unwrap_err();
    assert!(
        message.contains("kahan and kahan gave identical outputs on every trial"),
        "{message}"
    );
}

#[test]
fn two_implementations_of_equal_accuracy_are_not_told_apart() {
    // Summing in a different order (reversed) changes individual errors but
    // not their distribution.
    fn reversed(x: &Vec<f32>) -> f32 {
        x.iter().rev().fold(0.0f32, |s, &v| s + v)
    }
    let outcome = DualDelta::new(reversed, naive, oracle, input)
        .n(1000)
        .run()
        .unwrap();
    assert!(!outcome.verdict().identical);
    assert_eq!(
        outcome.judgement().accuracy(),
        Accuracy::NoSignificantDifference
    );
    outcome.assert();
}

#[test]
fn a_margin_tolerates_a_bounded_loss() {
    // Pairwise is about as accurate as Kahan here: with a generous margin the
    // naive sum is still far worse, but pairwise passes a non-inferiority
    // test against Kahan with δ = 1.
    let outcome = DualDelta::new(pairwise, kahan, oracle, input)
        .n(300)
        .margin(1.0)
        .run()
        .unwrap();
    outcome.assert();
    let outcome = DualDelta::new(naive, kahan, oracle, input)
        .n(300)
        .margin(1.0)
        .run()
        .unwrap();
    assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
}

#[test]
fn the_t_test_falls_back_to_wilcoxon_on_non_normal_differences() {
    let outcome = DualDelta::new(naive, kahan, oracle, input)
        .n(500)
        .test(AccuracyTest::PairedT)
        .run()
        .unwrap();
    // Errors of naive summation are far from normal differences? Either way
    // the analysis must say which test decided and why.
    match &outcome.analysis().fallback {
        Some(why) => {
            assert_eq!(outcome.analysis().accuracy_test, AccuracyTest::Wilcoxon);
            assert!(why.contains("Shapiro-Wilk"), "{why}");
        }
        None => assert_eq!(outcome.analysis().accuracy_test, AccuracyTest::PairedT),
    }
    assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
}

#[test]
fn parallel_and_serial_runs_are_bit_identical() {
    let parallel = DualDelta::new(naive, kahan, oracle, input)
        .n(200)
        .run()
        .unwrap();
    let serial = DualDelta::new(naive, kahan, oracle, input)
        .n(200)
        .threads(1)
        .run()
        .unwrap();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(parallel.delta1()), bits(serial.delta1()));
    assert_eq!(bits(parallel.delta2()), bits(serial.delta2()));
    assert_eq!(parallel.settings().seed(), serial.settings().seed());
}

#[test]
fn any_trial_replays_alone_from_its_seed() {
    let outcome = DualDelta::new(naive, kahan, oracle, input)
        .n(100)
        .run()
        .unwrap();
    let worst = outcome.worst_trial();
    let mut rng = TrialRng::from_trial_seed(outcome.trial_seed(worst));
    let x = input(&mut rng);
    let o = oracle(&x);
    let e = (f64::from(naive(&x)) - o).abs() / (1.0 + o.abs());
    assert_eq!(e.to_bits(), outcome.delta1()[worst].to_bits());
    assert!(outcome.delta1().iter().all(|&d| d <= e));
}

#[test]
fn the_wilcoxon_p_value_reported_is_the_statistics_modules() {
    let outcome = DualDelta::new(naive, kahan, oracle, input)
        .n(300)
        .margin(0.0)
        .run()
        .unwrap();
    let direct = dual_delta_runtime::stats::wilcoxon(
        outcome.delta1(),
        outcome.delta2(),
        Alternative::Greater,
        Default::default(),
        false,
    )
    .unwrap();
    assert_eq!(outcome.analysis().worse.as_ref().unwrap(), &direct);
}
