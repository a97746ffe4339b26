#![allow(dead_code)]

use dual_delta_runtime::prelude::*;

fn exact(x: &Vec<f32>) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}
fn reference(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}
fn random_vec(len: usize) -> impl Fn(&mut TrialRng) -> Vec<f32> + Sync {
    move |rng| vec![rng.seed() as f32; len]
}

#[case(len = 8)]
#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec(len))]
#[case(len = 16)]
fn candidate(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

#[matrix(len = [8, 16])]
fn no_attribute(x: &Vec<f32>) -> f32 {
    x.iter().sum()
}

fn main() {}
