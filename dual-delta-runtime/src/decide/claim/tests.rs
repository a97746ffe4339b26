use super::*;

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
    let i = e.interval(0.95, 200, 7).unwrap();
    assert_eq!(i.ratio, 19.0 / 17.0);
    assert!(i.lower <= i.ratio && i.ratio <= i.upper);
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
    let (claim, interval) = assess(
        &errors(&pairs, &[], 0),
        (Some(1.0), Some(0.0)),
        0.01,
        0.05,
        1,
    );
    assert_eq!(claim.failed_by(), Some(Which::Mean));
    assert!(claim.mean.effect > 10.0 && claim.mean.lower > 5.0);
    assert!(claim.typical.effect < 1.0 && !claim.typical.beyond(0.005, 0.05));
    assert_eq!(interval.unwrap().ratio, claim.mean.effect);
    assert!(claim.p_value() < 0.01 && claim.p_value() >= 2e-4);
    assert!(!claim.more_accurate());
}

#[test]
fn the_typical_ratio_counts_ties_as_one_and_non_finite_by_rule() {
    // Three times worse on 80 inputs, 20 ties: the median is 3, and
    // 80 of 100 above 1.05 bounds it there (P(Bin(100, ½) ≥ 80) < 1e-9).
    let pairs = vec![(3.0, 1.0); 80];
    let e = errors(&pairs, &[1.0; 10], 10);
    let (claim, _) = assess(&e, (Some(1e-9), Some(1.0)), 0.01, 0.05, 1);
    assert_eq!(claim.typical.effect, 3.0);
    assert!(claim.typical.lower == 3.0 && claim.typical.beyond(0.005, 0.05));
    // 60 of 100 above: the median is 3, but 60 cannot bound it above 1
    // (P(Bin(100, ½) ≥ 60) = 0.028).
    let e = errors(&vec![(3.0, 1.0); 60], &[1.0; 40], 0);
    let (claim, _) = assess(&e, (Some(1e-9), Some(1.0)), 0.01, 0.05, 1);
    assert_eq!((claim.typical.effect, claim.typical.lower), (3.0, 1.0));
    assert!(!claim.typical.beyond(0.005, 0.05));
    // 40 differing and 60 ties: the median is a tie's 1.
    let e = errors(&vec![(3.0, 1.0); 40], &[1.0; 60], 0);
    let (claim, _) = assess(&e, (Some(1e-9), Some(1.0)), 0.01, 0.05, 1);
    assert_eq!(claim.typical.effect, 1.0);
    assert!(!claim.typical.beyond(0.005, 0.05));
    // Shared infinities are ties, a baseline-only one counts for the
    // candidate, and the mean is over the finite inputs.
    let mut e = errors(&[(2.0, 1.0)], &[], 0);
    e.push(f64::INFINITY, f64::INFINITY, false);
    e.push(1.0, f64::INFINITY, false);
    assert_eq!((e.not_judged, e.baseline_non_finite, e.inputs()), (1, 1, 3));
    assert_eq!(e.ratio(), 2.0);
    assert_eq!(e.ratios(), vec![0.0, 1.0, 2.0]);
}
