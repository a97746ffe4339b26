//! Mistakes in the types of the attribute's expressions, compiled only with
//! the feature `wrong-types` by `dual-delta-runtime/tests/runtime/e2e.rs`, which
//! checks that rustc points at the expression that is wrong.
#![cfg(feature = "wrong-types")]

use dual_delta_e2e::{random_vec, sum_f64, sum_kahan};
use dual_delta_runtime::prelude::*;

fn sum_wide(x: &Vec<f64>) -> f64 {
    x.iter().sum()
}

/// The generator returns `Vec<f32>`, the candidate takes `&Vec<f64>`.
#[dual_delta_test(oracle = sum_wide, baseline = sum_wide, input = random_vec)]
fn candidate_takes_another_input(x: &Vec<f64>) -> f64 {
    sum_wide(x)
}

/// The oracle takes `&Vec<f64>`, the candidate `&Vec<f32>`.
#[dual_delta_test(oracle = sum_wide, baseline = sum_kahan, input = random_vec)]
fn oracle_takes_another_input(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

fn sum_first(x: &Vec<f32>, len: usize) -> f64 {
    x[..len].iter().map(|&v| f64::from(v)).sum()
}

/// The oracle takes a second parameter.
#[dual_delta_test(oracle = sum_first, baseline = sum_kahan, input = random_vec)]
fn oracle_takes_two_parameters(x: &Vec<f32>) -> f32 {
    sum_kahan(x)
}

#[derive(Clone, Copy)]
pub enum Accumulation {
    F32,
}

/// A case's value is a string where the candidate takes an `Accumulation`.
#[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec)]
#[case(acc = Accumulation::F32)]
#[case(acc = "f16")]
fn case_value_of_another_type(x: &Vec<f32>, acc: Accumulation) -> f32 {
    let _ = acc;
    sum_kahan(x)
}

/// Only to use `sum_f64`.
pub fn unused(x: &Vec<f32>) -> f64 {
    sum_f64(x)
}
