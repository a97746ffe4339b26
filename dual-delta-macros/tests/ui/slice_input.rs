//! A candidate taking a slice of other than numbers without `batch = ...`:
//! no generator can return an unsized value, so this is caught where it is
//! written (a slice of numbers, `&[f32]`, takes a `Vec<f32>` input).

use dual_delta_runtime::prelude::*;

fn random_vec(rng: &mut TrialRng) -> Vec<f32> {
    (0..8).map(|_| rng.random_range(0.0f32..1.0)).collect()
}
fn sum_f64(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn sum_pairwise(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

#[dual_delta_test(oracle = sum_f64, baseline = sum_pairwise, input = random_vec)]
fn sum_naive(x: &[Vec<f32>]) -> f32 {
    x.iter().flatten().sum()
}

#[dual_delta_test(oracle = sum_f64, baseline = sum_pairwise, input = random_vec)]
fn name_length(x: &str) -> f32 {
    x.len() as f32
}

fn main() {}
