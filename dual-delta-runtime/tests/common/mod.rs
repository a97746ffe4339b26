//! The f32 summations the summation and early-stopping tests compare, on
//! 4096 numbers drawn uniformly from [0, 1), with an f64 oracle.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;

/// The number of values summed.
pub(crate) const LEN: usize = 4096;

/// 4096 numbers drawn uniformly from [0, 1).
pub(crate) fn input(rng: &mut TrialRng) -> Vec<f32> {
    (0..LEN).map(|_| rng.random_range(0.0f32..1.0)).collect()
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
