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

// At the default α = 0.01, the Wilcoxon test needs 7 trials.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 5)]
fn at_the_default_alpha(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// At α = 0.05 it needs 5, and the t-test at least 3.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 4, alpha = 0.05)]
fn at_the_attribute_alpha(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 2, alpha = 0.4, test = t)]
fn t_test(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

// Enough: no error.
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, n = 5, alpha = 0.05, test = sign)]
fn enough(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

fn main() {}
