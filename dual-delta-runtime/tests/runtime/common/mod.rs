//! The f32 summations the runtime's tests compare, on numbers drawn
//! uniformly from [0, 1), with an f64 oracle, and the binomial bound their
//! seeded simulations are checked against.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]
// Each test file uses a part of this module.
#![allow(dead_code)]

use dual_delta_runtime::prelude::*;

/// The number of values summed.
pub(crate) const LEN: usize = 4096;

/// 4096 numbers drawn uniformly from [0, 1).
pub(crate) fn input(rng: &mut TrialRng) -> Vec<f32> {
    (0..LEN).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

/// 64 numbers drawn uniformly from [0, 1): short, so that simulations of
/// a thousand runs take seconds.
pub(crate) fn short_input(rng: &mut TrialRng) -> Vec<f32> {
    (0..64).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

/// Right-to-left summation in f32: as accurate as [`naive`] in
/// distribution.
pub(crate) fn reversed(x: &Vec<f32>) -> f32 {
    x.iter().rev().fold(0.0, |s, &v| s + v)
}

/// The largest count `k` with `P(Binomial(runs, p) ≥ k) > 0.01`: a rate
/// `≤ p` gives a count `≤ k` with 99 % confidence.
pub(crate) fn binomial_bound(runs: usize, p: f64) -> usize {
    binomial_bound_at(runs, p, 0.01)
}

/// The largest count `k` with `P(Binomial(runs, p) ≥ k) > tail`: a rate
/// `≤ p` gives a count `≤ k` with confidence `1 − tail` (`tail` divided
/// among the checks of a grid, so that the grid as a whole holds with
/// confidence `1 − tail` times their number).
pub(crate) fn binomial_bound_at(runs: usize, p: f64, tail: f64) -> usize {
    let mut pmf = (1.0 - p).powi(runs as i32);
    let mut below = 0.0;
    for k in 0..runs {
        if 1.0 - below - pmf <= tail {
            return k;
        }
        below += pmf;
        pmf *= (runs - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
    }
    runs
}

/// Left-to-right summation in f32.
pub(crate) fn naive(x: &Vec<f32>) -> f32 {
    let mut s = 0.0f32;
    for &v in x {
        s += v;
    }
    s
}

/// Kahan's compensated summation in f32.
pub(crate) fn kahan(x: &Vec<f32>) -> f32 {
    let (mut s, mut c) = (0.0f32, 0.0f32);
    for &v in x {
        let y = v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}

/// Kahan's sum on the inputs whose first value is at least ½, the naive
/// sum (the baseline's own) on the others: a tie on about half the inputs.
pub(crate) fn kahan_on_half(x: &Vec<f32>) -> f32 {
    if x[0] < 0.5 { naive(x) } else { kahan(x) }
}

/// Pairwise summation in f32, blocks of at most 8 summed left to right.
pub(crate) fn pairwise(x: &Vec<f32>) -> f32 {
    fn go(x: &[f32]) -> f32 {
        if x.len() <= 8 {
            x.iter().fold(0.0, |s, &v| s + v)
        } else {
            let (a, b) = x.split_at(x.len() / 2);
            go(a) + go(b)
        }
    }
    go(x)
}

/// The sum in f64 (exact for these inputs to f64 precision).
pub(crate) fn oracle(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
