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

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, alpha = 1.5)]
fn above_one(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, alpha = 0.0)]
fn zero(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, alpha = -0.05)]
fn negative(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

const ALPHA: f64 = 0.05;

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec, alpha = ALPHA)]
fn not_a_literal(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

fn main() {}
