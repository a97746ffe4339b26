#![allow(dead_code)]

use dual_delta_runtime::prelude::*;

fn exact(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn reference(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}
fn random_vec(rng: &mut TrialRng) -> Vec<f32> {
    vec![rng.seed() as f32; 8]
}

// Under the defaults (α = 0.01, each of the claim's criteria at α/4 with
// early stopping), the Wilcoxon test needs 9 inputs.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 8)]
fn at_the_defaults(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// Without early stopping, α/2 each: 8.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 7, stop_early = false)]
fn every_input(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// The paper's test alone, at α: 7.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 6, rule = paper)]
fn the_paper_rule(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// The t-test needs at least 3.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 2, alpha = 0.4, test = t, rule = paper)]
fn t_test(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// A batched candidate gets the one error, not another about its slice.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 5, batch = 4)]
fn batched(xs: &[Vec<f32>]) -> Vec<f32> {
    xs.iter().map(|x| x.iter().sum()).collect()
}

// Enough: no error.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 7, alpha = 0.05, test = sign)]
fn enough(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

fn main() {}
