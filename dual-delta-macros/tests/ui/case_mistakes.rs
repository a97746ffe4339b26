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

#[derive(Clone, Copy)]
enum Accumulation {
    F32,
    F64,
}

#[dual_delta_test(oracle = exact, baseline = reference, input = random_vec(len))]
#[case(len = 8, acc = Accumulation::F32)]
#[case(len = 8, acc = Accumulation::F32)]
#[case(len = 16)]
#[case()]
#[matrix(len = 32, acc = [Accumulation::F32, Accumulation::F64])]
#[matrix(len = [64, 0x40], acc = [Accumulation::F64])]
fn candidate(x: &Vec<f32>, acc: Accumulation, scale: f32) -> f32 {
    let _ = acc;
    x.iter().sum::<f32>() * scale
}

fn main() {}
