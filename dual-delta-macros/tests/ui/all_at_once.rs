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
    input = random_vec,
    n = 0,
    n = 10,
    alpha = 2.0,
    expect = fine,
    trials = 5,
)]
async fn candidate<T>(x: &Vec<f32>, y: &T) {
    let _ = (x, y);
}

fn main() {}
