//! The claim at its edges: candidates exactly at (or inside) the margin
//! whose loss sits on the low-error inputs while the high-error inputs tie,
//! over errors of finite variance of many shapes; non-finite outputs
//! allowed; errors at extreme magnitudes.

use crate::grid::{BASE, Cell, Law, Promise, check, seeds};

/// Every candidate the claim says must pass: within the margin in mean
/// and on the typical input, its loss on the low-error inputs, the
/// high-error inputs tied.
#[test]
fn candidates_at_the_margins_edge_fail_at_most_at_alpha() {
    let low = |name, law, q| Cell {
        name,
        law,
        low_quantile: Some(q),
        promise: Promise::Null,
        ..BASE
    };
    let tied = |name, law, ratio| Cell {
        name,
        law,
        ties: 0.6,
        worse: 1.5,
        share: 1.0,
        differing_ratio: Some(ratio),
        promise: Promise::Null,
        ..BASE
    };
    let cells = [
        low(
            "lognormal(1), 1.38x worse below the 45% quantile, ties above",
            Law::Lognormal(1.0),
            0.45,
        ),
        low(
            "lognormal(2), worse below the 45% quantile, ties above",
            Law::Lognormal(2.0),
            0.45,
        ),
        low(
            "lognormal(2.5), worse below the 45% quantile, ties above",
            Law::Lognormal(2.5),
            0.45,
        ),
        low(
            "lognormal(2.5), worse below the 30% quantile, ties above",
            Law::Lognormal(2.5),
            0.3,
        ),
        low(
            "gamma(0.3), worse below the 45% quantile, ties above",
            Law::Gamma(0.3),
            0.45,
        ),
        low(
            "exponential, worse below the 45% quantile, ties above",
            Law::Exponential,
            0.45,
        ),
        low(
            "bimodal, worse below the 45% quantile, ties above",
            Law::Bimodal,
            0.45,
        ),
        low(
            "Pareto(2.1), worse below the 45% quantile, ties above",
            Law::Pareto(2.1),
            0.45,
        ),
        low(
            "Pareto(3), worse below the 45% quantile, ties above",
            Law::Pareto(3.0),
            0.45,
        ),
        tied(
            "60% ties, lognormal(2), 1.5x worse on the rest (mean x1.05)",
            Law::Lognormal(2.0),
            1.05,
        ),
        tied(
            "60% ties, lognormal(2.5), 1.5x worse on the rest (mean x1.03)",
            Law::Lognormal(2.5),
            1.03,
        ),
        Cell {
            name: "90% ties, lognormal(2), 3x worse on the rest (mean x1.05)",
            law: Law::Lognormal(2.0),
            ties: 0.9,
            worse: 3.0,
            share: 1.0,
            differing_ratio: Some(1.05),
            promise: Promise::Null,
            ..BASE
        },
    ];
    check(&cells, seeds(20), seeds(20));
}

/// Equal accuracy with errors of finite variance: no false failure, and
/// no run that ends in the error naming the `n` needed, beyond α.
#[test]
fn equal_accuracy_rarely_claims_it_could_not_decide() {
    let equal = |name, law| Cell {
        name,
        law,
        independent: true,
        promise: Promise::Null,
        ..BASE
    };
    let cells = [
        equal(
            "equal accuracy, lognormal(2), independent draws",
            Law::Lognormal(2.0),
        ),
        equal(
            "equal accuracy, lognormal(2.5), independent draws",
            Law::Lognormal(2.5),
        ),
        equal(
            "equal accuracy, gamma(0.3), independent draws",
            Law::Gamma(0.3),
        ),
        equal(
            "equal accuracy, Pareto(2.1), independent draws",
            Law::Pareto(2.1),
        ),
        equal("equal accuracy, bimodal, independent draws", Law::Bimodal),
    ];
    check(&cells, seeds(20), seeds(20));
}

/// A non-finite output allowed is still the worst possible error: in mean
/// as on the typical input.
#[test]
fn non_finite_outputs_allowed_still_fail() {
    let cells = [
        Cell {
            name: "NaN on 20%, allowed",
            candidate_nan: 0.2,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "NaN on 45%, allowed",
            candidate_nan: 0.45,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "inf on 30%, allowed",
            candidate_inf: 0.3,
            promise: Promise::Fails,
            ..BASE
        },
    ];
    check(&cells, seeds(20), seeds(20));
}

/// The same verdicts at every magnitude: the mixture fails and the margin's
/// edge holds its level with errors near `1e304`, `1e-300` and subnormal.
#[test]
fn every_magnitude_gives_the_same_verdicts() {
    let mixture = |name, scale| Cell {
        name,
        scale,
        at_zero: true,
        share: 0.2,
        worse: 50.0,
        elsewhere: 0.9,
        promise: Promise::Fails,
        ..BASE
    };
    let edge = |name, scale| Cell {
        name,
        scale,
        at_zero: true,
        law: Law::Lognormal(1.0),
        low_quantile: Some(0.45),
        promise: Promise::Null,
        ..BASE
    };
    let cells = [
        mixture(
            "50x worse on 20%, 10% better elsewhere, errors near 1e304",
            1e304,
        ),
        mixture(
            "50x worse on 20%, 10% better elsewhere, errors near 1e-300",
            1e-300,
        ),
        mixture(
            "50x worse on 20%, 10% better elsewhere, subnormal errors",
            1e-315,
        ),
        edge("the margin's edge, errors near 1e304", 1e304),
        edge("the margin's edge, errors near 1e-300", 1e-300),
    ];
    check(&cells, seeds(20), seeds(20));
}

/// A failure at `3e305`, where a sum of a thousand errors overflows,
/// says a finite ratio and finite bounds.
#[test]
fn a_failure_near_the_largest_floats_prints_a_finite_ratio() {
    let cell = Cell {
        name: "3x worse at 3e305",
        scale: 3e305,
        at_zero: true,
        elsewhere: 3.0,
        ..BASE
    }
    .build();
    let o = cell.run(1, false, false).unwrap();
    assert!(!o.passed());
    let m = o.claim.mean;
    assert!(
        m.effect.is_finite() && m.lower.is_finite() && m.upper.is_finite(),
        "{m:?}"
    );
    assert!(
        (m.effect / 3.0 - 1.0).abs() < 1e-6 && m.lower > 2.5,
        "{m:?}"
    );
    let text = format!("{}\n{}", o.verdict_sentence(), o.table());
    assert!(!text.contains("NaN"), "{text}");
}
