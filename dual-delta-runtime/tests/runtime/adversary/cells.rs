//! The grid's cells, by what the claim promises of them: the adversary
//! suite checks each list's counts, and the sentence checks read every
//! outcome of every list.

use super::grid::{BASE, Cell, Law, Others, Promise};

/// The candidates that fooled the rule of mean and location alone: each must fail.
pub(crate) fn fooling() -> Vec<Cell> {
    vec![
        Cell {
            name: "50x worse on 20%, 10% better elsewhere",
            share: 0.2,
            worse: 50.0,
            elsewhere: 0.9,
            batched: true,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "50x worse on 5%",
            share: 0.05,
            worse: 50.0,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "20x worse on 30%, 1% better elsewhere",
            share: 0.3,
            worse: 20.0,
            elsewhere: 0.99,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "3x worse on 99%, baseline 5000x off on the same 1%",
            elsewhere: 3.0,
            law: Law::SharedSpike,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "50x worse on 20%, 10% better elsewhere, 0.3% shared NaN",
            share: 0.2,
            worse: 50.0,
            elsewhere: 0.9,
            shared_nan: 0.003,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "3x worse, Pareto(1.3) baseline, independent draws",
            elsewhere: 3.0,
            law: Law::Pareto(1.3),
            independent: true,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "50x worse, n = 9, one tie in nine",
            worse: 50.0,
            share: 1.0,
            ties: 0.12,
            n: 9,
            promise: Promise::Fails,
            ..BASE
        },
    ]
}

/// Candidates within the margin, and equal accuracy under heavy tails: each must pass, the nulls within α.
pub(crate) fn within_margin() -> Vec<Cell> {
    vec![
        Cell {
            name: "1% worse, ±10% noise",
            elsewhere: 1.01,
            noise: 0.1,
            promise: Promise::Passes,
            ..BASE
        },
        Cell {
            name: "2% worse, ±10% noise",
            elsewhere: 1.02,
            noise: 0.1,
            promise: Promise::Passes,
            ..BASE
        },
        Cell {
            name: "4% worse, ±10% noise, 0.3% shared NaN",
            elsewhere: 1.04,
            noise: 0.1,
            shared_nan: 0.003,
            promise: Promise::Passes,
            ..BASE
        },
        Cell {
            name: "identical on 98%, 1.1x worse on 2%",
            ties: 0.98,
            share: 1.0,
            worse: 1.1,
            promise: Promise::Passes,
            ..BASE
        },
        Cell {
            name: "equal accuracy, Pareto(1.3), independent draws",
            law: Law::Pareto(1.3),
            independent: true,
            promise: Promise::Null,
            ..BASE
        },
        Cell {
            // E[exp(0.2 (2v − 1))] = sinh(0.2) / 0.2: the mean ratio is
            // exactly 1.05, the typical ratio 1.043.
            name: "mean at the margin's edge, log-uniform ±20% noise",
            elsewhere: 1.05 * 0.2 / 0.2f64.sinh(),
            noise: 0.2,
            promise: Promise::Null,
            ..BASE
        },
    ]
}

/// A large loss on a handful of inputs, whatever the other inputs do, at
/// an `n` that gives it more inputs than chance could (20 and 32 of 4000):
/// each must fail or name the `n` needed. At `n = 1000` (5 and 8 inputs)
/// it cannot be told from a rare spike that both implementations draw
/// and the baseline happened not to (`where_power_ends` measures it).
pub(crate) fn handful() -> Vec<Cell> {
    [
        Cell {
            name: "90x worse on 0.5%, identical elsewhere",
            share: 0.005,
            worse: 90.0,
            ties: 0.0,
            others: Others::Factor,
            elsewhere: 1.0,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "90x worse on 0.5%, equal errors of other bits elsewhere",
            share: 0.005,
            worse: 90.0,
            others: Others::Mirrored,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "90x worse on 0.5%, last-bit noise elsewhere",
            share: 0.005,
            worse: 90.0,
            others: Others::LastBit,
            promise: Promise::Fails,
            ..BASE
        },
        Cell {
            name: "50x worse on 0.8%, last-bit noise elsewhere",
            share: 0.008,
            worse: 50.0,
            others: Others::LastBit,
            promise: Promise::Fails,
            ..BASE
        },
    ]
    .into_iter()
    .map(|c| Cell { n: 4000, ..c })
    .collect()
}

/// Every candidate the claim says must pass: within the margin in mean and on the typical input, its loss on the low-error inputs, the high-error inputs tied.
pub(crate) fn margin_edges() -> Vec<Cell> {
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
    vec![
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
    ]
}

/// Equal accuracy with errors of finite variance.
pub(crate) fn equal_accuracy() -> Vec<Cell> {
    let equal = |name, law| Cell {
        name,
        law,
        independent: true,
        promise: Promise::Null,
        ..BASE
    };
    vec![
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
    ]
}

/// Non-finite outputs allowed: still the worst possible errors.
pub(crate) fn non_finite_allowed() -> Vec<Cell> {
    vec![
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
    ]
}

/// The mixture and the margin's edge at extreme magnitudes.
pub(crate) fn magnitudes() -> Vec<Cell> {
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
    vec![
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
    ]
}
