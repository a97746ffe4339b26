//! What the timing examples share: the median of repeated runs and the
//! error of an `f16` output against the oracle.

use std::time::Instant;

use dual_delta_gpu::f16;
use dual_delta_runtime::{Metric, output::NumberFormat};

/// Milliseconds per call of `f`: the median of `reps` runs after one
/// warm-up run (which also compiles the pipelines).
pub(crate) fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// The max-hybrid error of `y` against `oracle`, in `f16`'s terms.
pub(crate) fn max_hybrid(y: &[f16], oracle: &[f64]) -> f64 {
    let y: Vec<f64> = y.iter().map(|v| v.to_f64()).collect();
    Metric::MaxHybrid.error(&y, oracle, NumberFormat::F16)
}
