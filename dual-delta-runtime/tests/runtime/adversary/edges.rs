//! The claim at its edges: candidates exactly at (or inside) the margin
//! whose loss sits on the low-error inputs while the high-error inputs tie,
//! over errors of finite variance of many shapes; non-finite outputs
//! allowed; errors at extreme magnitudes.

use super::cells;
use super::grid::{BASE, Cell, check, seeds};

/// Every candidate the claim says must pass: within the margin in mean
/// and on the typical input, its loss on the low-error inputs, the
/// high-error inputs tied.
#[test]
fn candidates_at_the_margins_edge_fail_at_most_at_alpha() {
    let cells = cells::margin_edges();
    check(&cells, seeds(20), seeds(20));
}

/// Equal accuracy with errors of finite variance: no false failure, and
/// no run that ends in the error naming the `n` needed, beyond α.
#[test]
fn equal_accuracy_rarely_claims_it_could_not_decide() {
    let cells = cells::equal_accuracy();
    check(&cells, seeds(20), seeds(20));
}

/// A non-finite output allowed is still the worst possible error: in mean
/// as on the typical input.
#[test]
fn non_finite_outputs_allowed_still_fail() {
    let cells = cells::non_finite_allowed();
    check(&cells, seeds(20), seeds(20));
}

/// The same verdicts at every magnitude: the mixture fails and the margin's
/// edge holds its level with errors near `1e304`, `1e-300` and subnormal.
#[test]
fn every_magnitude_gives_the_same_verdicts() {
    let cells = cells::magnitudes();
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
    let m = o.claim().mean;
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
