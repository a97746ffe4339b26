//! Summation in `f32`, naive and compensated, checked by Dual-Delta tests
//! (the unit tests below and `tests/summation.rs`).

// The inputs are `Vec<f32>`, and every implementation takes `&Input`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::TrialRng;
use dual_delta_runtime::rand::RngExt;

/// 1024 numbers drawn uniformly from [0, 1).
pub fn random_vec(rng: &mut TrialRng) -> Vec<f32> {
    (0..1024).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

/// The exact sum (to f64 precision): the oracle.
pub fn sum_f64(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

/// Kahan's compensated summation in f32: the baseline.
pub fn sum_kahan(x: &Vec<f32>) -> f32 {
    let (mut sum, mut c) = (0.0f32, 0.0f32);
    for &v in x {
        let y = v - c;
        let t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    sum
}

/// Left-to-right summation in f32: clearly less accurate than Kahan's.
pub fn sum_naive(x: &Vec<f32>) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

#[cfg(test)]
mod tests {
    use dual_delta_runtime::prelude::*;

    use super::*;

    /// In a unit test: Kahan summation is more accurate than naive summation.
    #[dual_delta_test(
        oracle = sum_f64,
        baseline = sum_naive,
        input = random_vec,
        n = 100,
        expect = better
    )]
    fn unit_kahan_is_better(x: &Vec<f32>) -> f32 {
        sum_kahan(x)
    }
}
