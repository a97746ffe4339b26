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

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec)]
fn no_return_type(x: &Vec<f32>) {
    let _ = x;
}

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec)]
fn explicit_unit(x: &Vec<f32>) -> () {
    let _ = x;
}

fn main() {}
