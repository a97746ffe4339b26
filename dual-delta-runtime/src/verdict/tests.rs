use super::*;

#[test]
fn min_trials_is_where_the_exact_tests_can_reject() {
    assert_eq!(AccuracyTest::Wilcoxon.min_trials(0.01), 7);
    assert_eq!(AccuracyTest::Sign.min_trials(0.05), 5);
    assert_eq!(AccuracyTest::PairedT.min_trials(0.5), 3);
}

#[test]
fn constant_differences_replace_the_t_test_by_wilcoxon() {
    // Δ1 = Δ2 + 2^-10 on every trial: Shapiro-Wilk gives W = 1, p = 1,
    // the t-test is undefined, Wilcoxon sees 20 positive differences.
    let delta2: Vec<f64> = (0..20).map(|i| f64::from(i) / 8.0).collect();
    let delta1: Vec<f64> = delta2.iter().map(|v| v + 2f64.powi(-10)).collect();
    let sample = |delta1| Sample {
        delta1,
        delta2: &delta2,
        unmeasured_ties: 0,
        identical_outputs: false,
    };
    let a = analyse(&sample(&delta1), AccuracyTest::PairedT, 0.01);
    let sw = a.shapiro_differences.as_ref().unwrap();
    assert_eq!((sw.statistic, sw.p_value), (1.0, 1.0));
    assert_eq!(a.accuracy_test, AccuracyTest::Wilcoxon);
    assert!(a.fallback.as_deref().unwrap().contains("all equal"));
    assert!(matches!(a.t_greater, Err(StatsError::ConstantData { .. })));
    // The claim reads the replacement's p-value: less accurate.
    let mut errors = crate::decide::claim::Errors::default();
    for (&a, &b) in delta1.iter().zip(&delta2) {
        errors.push(a, b, false);
    }
    let paired = PairedTest::of_analysis(&analyse(&sample(&delta1), AccuracyTest::PairedT, 0.01));
    assert_eq!(paired.test, AccuracyTest::Wilcoxon);
    let claim = crate::decide::claim::assess(
        &errors,
        crate::decide::FixedLevel::for_test(0.01),
        0.0,
        &paired,
    );
    assert_eq!(claim.accuracy(), Accuracy::LessAccurate);
    // Differences that vary keep the t-test.
    let mut varied = delta1.clone();
    varied[3] += 2f64.powi(-9);
    let a = analyse(&sample(&varied), AccuracyTest::PairedT, 1e-300);
    assert_eq!((a.accuracy_test, a.fallback), (AccuracyTest::PairedT, None));
}

#[test]
fn stability_is_decided_by_the_paired_spread_test() {
    let delta2: Vec<f64> = (0..40).map(|i| f64::from(i * i % 17) / 8.0).collect();
    let stability = |delta1: &[f64]| {
        let s = Sample {
            delta1,
            delta2: &delta2,
            unmeasured_ties: 0,
            identical_outputs: false,
        };
        let a = analyse(&s, AccuracyTest::Wilcoxon, 0.01);
        (verdicts(&a, &s, Accuracy::LessAccurate, 0.01).stability, a)
    };
    // A shift is no spread; Pitman-Morgan cannot say (Δ1 − Δ2 constant).
    let shifted: Vec<f64> = delta2.iter().map(|v| v + 0.5).collect();
    let (v, a) = stability(&shifted);
    assert_eq!(v, Stability::NoSignificantDifference);
    assert_eq!(a.spread_greater.as_ref().unwrap().p_value, 1.0);
    assert!(matches!(
        a.variance_greater,
        Err(StatsError::ConstantData { .. })
    ));
    // Twice the spread on every pair of inputs, and half of it.
    let twice: Vec<f64> = delta2.iter().map(|v| 2.0 * v).collect();
    let (v, a) = stability(&twice);
    assert_eq!(v, Stability::LessStable);
    assert!(a.spread_greater.as_ref().unwrap().p_value < 1e-4);
    let half: Vec<f64> = delta2.iter().map(|v| 0.5 * v).collect();
    assert_eq!(stability(&half).0, Stability::MoreStable);
    // Non-finite errors leave it undetermined.
    let mut inf = delta2.clone();
    inf[3] = f64::INFINITY;
    assert_eq!(stability(&inf).0, Stability::Undetermined);
}
