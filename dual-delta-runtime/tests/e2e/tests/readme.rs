use dual_delta_runtime::prelude::*; // the attribute, TrialRng, and rand's RngExt

fn random_vec(rng: &mut TrialRng) -> Vec<f32> {
    (0..4096).map(|_| rng.random_range(0.0f32..1.0)).collect()
}

fn sum_f64(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

fn sum_pairwise(x: &[f32]) -> f32 {
    if x.len() <= 8 {
        x.iter().sum()
    } else {
        let (a, b) = x.split_at(x.len() / 2);
        sum_pairwise(a) + sum_pairwise(b)
    }
}

// The candidate f1, against the baseline f2 = sum_pairwise and the oracle sum_f64.
#[dual_delta_test(oracle = sum_f64, baseline = sum_pairwise, input = random_vec, n = 1000)]
fn sum_naive(x: &[f32]) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}
