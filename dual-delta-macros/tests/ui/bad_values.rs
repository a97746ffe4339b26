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

#[dual_delta_test(
    oracle = exact,
    baseline = reference,
    input = random_vec,
    n = 1e3,
    seed = -1,
    metric = "max_ulp",
    test = wilcox,
    margin = -0.1,
    threads = 0,
    crate = "dual_delta_runtime",
)]
fn candidate(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

fn main() {}
