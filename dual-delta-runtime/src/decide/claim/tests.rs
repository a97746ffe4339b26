use super::*;
use crate::decide::fixed::FixedLevel;
use crate::verdict::{AccuracyTest, PairedTest};

/// Every input's pair of errors as the run's paired test reads them: the
/// differing inputs, the ties (the skipped ones at error 0), the inputs
/// the metric could not judge as a shared infinity, and the non-finite
/// ones against an error of 1.
fn pairs_of(e: &Errors) -> (Vec<f64>, Vec<f64>) {
    let inf = f64::INFINITY;
    let mut pairs: Vec<(f64, f64)> = e
        .delta1
        .iter()
        .copied()
        .zip(e.delta2.iter().copied())
        .collect();
    pairs.extend(e.ties.iter().map(|&t| (t, t)));
    pairs.extend(std::iter::repeat_n((0.0, 0.0), e.unmeasured));
    pairs.extend(std::iter::repeat_n((inf, inf), e.not_judged));
    pairs.extend(std::iter::repeat_n((1.0, inf), e.baseline_non_finite));
    pairs.extend(std::iter::repeat_n((inf, 1.0), e.candidate_non_finite));
    pairs.into_iter().unzip()
}

/// The claim with the paper's one-sided `test` over the same inputs.
fn assess_with(e: &Errors, level: f64, margin: f64, test: AccuracyTest) -> Claim {
    let (d1, d2) = pairs_of(e);
    let paired = PairedTest::of(&d1, &d2, test, level);
    super::assess(e, FixedLevel::new(level, level), margin, &paired)
}

/// The claim under the default test, Wilcoxon's.
fn assess(e: &Errors, level: f64, margin: f64, _min_differing: usize) -> Claim {
    assess_with(e, level, margin, AccuracyTest::Wilcoxon)
}

fn errors(pairs: &[(f64, f64)], ties: &[f64], unmeasured: usize) -> Errors {
    let mut e = Errors {
        unmeasured,
        ..Errors::default()
    };
    for &(a, b) in pairs {
        e.push(a, b, false);
    }
    for &t in ties {
        e.push(t, t, true);
    }
    e
}

#[test]
fn ties_are_weighted_by_the_ties_they_stand_for() {
    let e = errors(&[(3.0, 1.0)], &[1.0, 3.0], 6);
    // Eight ties of mean error 2 (16 each side), one input 3 against 1.
    assert_eq!(e.ratio(), 19.0 / 17.0);
    let claim = assess(&e, 0.01, 0.05, 9);
    assert_eq!(claim.mean.effect, 19.0 / 17.0);
    assert!(claim.mean.lower <= claim.mean.effect && claim.mean.effect <= claim.mean.upper);
    assert_eq!(e.inputs(), 9);
}

#[test]
fn a_loss_on_a_fifth_of_the_inputs_fails_in_mean_not_typically() {
    // 50× worse on 20 inputs, 10% better on 80.
    let pairs: Vec<(f64, f64)> = (0..100)
        .map(|i| {
            let b = 1.0 + f64::from(i % 7) / 10.0;
            (if i % 5 == 0 { 50.0 * b } else { 0.9 * b }, b)
        })
        .collect();
    let claim = assess(&errors(&pairs, &[], 0), 0.01, 0.05, 9);
    assert_eq!(claim.failed_by(), Some(Which::Mean));
    assert!(claim.mean.effect > 10.0 && claim.mean.lower > 5.0);
    assert!(claim.typical.effect < 1.0 && !claim.typical.beyond(0.005));
    // As low as its evidence: no Monte Carlo floor.
    assert!(claim.p_value() < 1e-6, "{}", claim.p_value());
    assert!(!claim.more_accurate());
}

#[test]
fn the_typical_ratio_counts_ties_as_one_and_non_finite_by_rule() {
    // Three times worse on 80 inputs, 20 ties: the median is 3, and
    // 80 of 100 above 1.05 bounds it there (P(Bin(100, ½) ≥ 80) < 1e-9).
    let pairs = vec![(3.0, 1.0); 80];
    let e = errors(&pairs, &[1.0; 10], 10);
    let claim = assess(&e, 0.01, 0.05, 9);
    assert_eq!(claim.typical.effect, 3.0);
    assert!(claim.typical.lower == 3.0 && claim.typical.beyond(0.005));
    // 60 of 100 above: the median is 3, but 60 cannot bound it above 1
    // (P(Bin(100, ½) ≥ 60) = 0.028).
    let e = errors(&vec![(3.0, 1.0); 60], &[1.0; 40], 0);
    let claim = assess(&e, 0.01, 0.05, 9);
    assert_eq!((claim.typical.effect, claim.typical.lower), (3.0, 1.0));
    assert!(!claim.typical.beyond(0.005));
    // 40 differing and 60 ties: the median is a tie's 1.
    let e = errors(&vec![(3.0, 1.0); 40], &[1.0; 60], 0);
    let claim = assess(&e, 0.01, 0.05, 9);
    assert_eq!(claim.typical.effect, 1.0);
    assert!(!claim.typical.beyond(0.005));
    // Shared infinities are ties, a baseline-only one counts for the
    // candidate, and the mean is over the finite inputs.
    let mut e = errors(&[(2.0, 1.0)], &[], 0);
    e.push(f64::INFINITY, f64::INFINITY, false);
    e.push(1.0, f64::INFINITY, false);
    assert_eq!((e.not_judged, e.baseline_non_finite, e.inputs()), (1, 1, 3));
    assert_eq!(e.ratio(), 2.0);
    assert_eq!(e.ratios(), vec![0.0, 1.0, 2.0]);
}

#[test]
fn a_non_finite_output_allowed_is_the_worst_error_in_mean() {
    // The candidate non-finite on 200 of 1000 inputs, equal elsewhere.
    let mut e = errors(&[], &[1.0; 800], 0);
    for _ in 0..200 {
        e.push(f64::INFINITY, 1.0, false);
    }
    let claim = assess(&e, 0.01, 0.05, 9);
    assert_eq!(claim.mean.effect, f64::INFINITY);
    assert_eq!(claim.failed_by(), Some(Which::Mean));
    assert!(claim.mean.p_margin.unwrap() < 1e-50);
    // One non-finite output is no evidence at this n.
    let mut e = errors(&[(1.1, 1.0), (0.9, 1.0)], &[1.0; 997], 0);
    e.push(f64::INFINITY, 1.0, false);
    let claim = assess(&e, 0.01, 0.05, 9);
    assert!(!claim.less_accurate() && claim.mean.p_margin.unwrap() >= 0.5);
}

#[test]
fn skipped_ties_are_measured_where_the_mean_depends_on_them() {
    // 20 inputs 1.5 times worse, 980 ties of which 10 measured: with the
    // skipped ones at error 0 the loss shows, so they must be measured.
    let pairs: Vec<(f64, f64)> = (0..20)
        .map(|i| {
            let b = 1.0 + f64::from(i) / 20.0;
            (1.5 * b, b)
        })
        .collect();
    let e = errors(&pairs, &[1.0; 10], 970);
    assert!(needs_skipped_ties(&e, FixedLevel::new(0.005, 0.005), 0.05));
    // Measured, they forgive it: 1.5× on 2% is inside the margin.
    let e = errors(&pairs, &[1.0; 980], 0);
    let claim = assess(&e, 0.005, 0.05, 9);
    assert!(!claim.less_accurate(), "{claim:?}");
    // A candidate better where it differs never needs them.
    let better: Vec<(f64, f64)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
    assert!(!needs_skipped_ties(
        &errors(&better, &[1.0; 10], 970),
        FixedLevel::new(0.005, 0.005),
        0.05
    ));
}

#[test]
fn the_typical_input_fails_only_where_the_papers_test_agrees() {
    // 2× worse on 70 inputs, 100× more accurate on 30 whose baseline
    // errors are the largest: the sign test at the margin rejects (70 of
    // 100 above 1.05, p = 3.9e-5), the one-sided Wilcoxon test does not
    // (the 30 negative differences hold the largest ranks), and the mean
    // is far lower.
    let mut pairs = vec![(2.0, 1.0); 70];
    pairs.extend(vec![(1.0, 100.0); 30]);
    let e = errors(&pairs, &[], 0);
    let claim = assess(&e, 0.01, 0.05, 9);
    let t = claim.typical_tests;
    assert!(t.sign_margin.unwrap() < 1e-4, "{t:?}");
    assert!(t.paired_worse.unwrap() > 0.5, "{t:?}");
    assert_eq!(claim.typical.p_margin, t.paired_worse);
    assert!(!claim.typical.beyond(0.005) && !claim.less_accurate());
    // Under `test = sign`, (T) is the sign test at the margin alone: the
    // paired sign test at 0 rejects wherever it does.
    let claim = assess_with(&e, 0.01, 0.05, AccuracyTest::Sign);
    assert_eq!(claim.typical.p_margin, claim.typical_tests.sign_margin);
    assert_eq!(claim.failed_by(), Some(Which::Typical));
    // Where both reject, the larger p-value is (T)'s: 3× worse on 80 of
    // 100, the rest tied.
    let e = errors(&vec![(3.0, 1.0); 80], &[1.0; 20], 0);
    let claim = assess(&e, 0.01, 0.05, 9);
    let t = claim.typical_tests;
    let larger = t.sign_margin.unwrap().max(t.paired_worse.unwrap());
    assert_eq!(claim.typical.p_margin, Some(larger));
    assert!(claim.typical.beyond(0.005), "{claim:?}");
}

#[test]
fn the_module_opens_with_the_claim_every_doc_quotes() {
    // The attribute's documentation includes the same text from the
    // settings crate: the two cannot drift.
    let source = include_str!("mod.rs");
    let docs: String = source
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| {
            let l = l.trim_start_matches("//!");
            l.strip_prefix(' ').unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        docs.contains(dual_delta_settings::CLAIM.trim_end()),
        "{docs}"
    );
}
