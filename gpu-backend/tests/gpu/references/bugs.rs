//! The references catch the real bugs: each buggy kernel is written here
//! as a candidate and compared with the baseline and the oracle.

use dual_delta_gpu::KernelElement;
use dual_delta_gpu::f16;
use dual_delta_gpu::norm::*;
use dual_delta_gpu::reductions::*;
use dual_delta_runtime::{DualDelta, decision::Accuracy, outcome::Outcome};

/// A sum that accumulates in `f16`: every partial sum rounded to `f16`.
fn sum_f16_accumulator(x: &RowsInput<f16>) -> Vec<f16> {
    x.row_iter()
        .map(|row| row.iter().fold(f16::ZERO, |acc, &v| acc + v))
        .collect()
}

/// Softmax without the max subtraction: `exp(xⱼ)` stored in the element
/// type, summed in `f32`, divided. `exp` overflows `f16` above `x ≈ 11.1`
/// and `f32` above `x ≈ 88.7`.
fn softmax_without_max<E: KernelElement>(x: &RowsInput<E>) -> Vec<E> {
    let mut out = Vec::new();
    for row in x.row_iter() {
        let e: Vec<f32> = row
            .iter()
            .map(|&v| E::from_f32(v.to_f32().exp()).to_f32())
            .collect();
        let z: f32 = e.iter().sum();
        out.extend(e.iter().map(|&v| E::from_f32(v / z)));
    }
    out
}

/// LayerNorm with the one-pass variance `E[x²] − E[x]²` in `f32` (clamped
/// at 0), otherwise as [`layer_norm_cpu`].
fn layer_norm_one_pass<E: KernelElement>(x: &NormInput<E>) -> Vec<E> {
    let n = x.x().row_len() as f32;
    let eps = x.eps() as f32;
    let mut out = Vec::new();
    for row in x.x().row_iter() {
        let (mut s, mut q) = (0.0f32, 0.0f32);
        for &v in row {
            let v = v.to_f32();
            s += v;
            q += v * v;
        }
        let mu = s / n;
        let var = (q / n - mu * mu).max(0.0);
        let r = 1.0 / (var + eps).sqrt();
        out.extend(row.iter().map(|&v| E::from_f32((v.to_f32() - mu) * r)));
    }
    out
}

fn describe(what: &str, o: &Outcome) {
    eprintln!(
        "{what}: {:?} after {} trials, passed {}, non-finite gate {}, \
         mean error candidate {:.3e} / baseline {:.3e}",
        o.judgement().accuracy(),
        o.trials_run(),
        o.passed(),
        o.non_finite_gate(),
        o.summaries().candidate.mean,
        o.summaries().baseline.mean,
    );
}

#[test]
fn an_f16_accumulator_stops_at_2048() {
    // 2048 + 1 = 2049 is halfway between the f16 values 2048 and 2050; ties
    // to even give 2048, and the sum never moves again.
    let ones = RowsInput::new(1, 4096, vec![f16::ONE; 4096]).unwrap();
    assert_eq!(sum_f16_accumulator(&ones), [f16::from_f32(2048.0)]);
    assert_eq!(sum_cpu(&ones), [f16::from_f32(4096.0)]);
    assert_eq!(sum_f64(&ones), [4096.0]);

    // On random rows the method finds it less accurate than the baseline.
    let o = DualDelta::new(
        sum_f16_accumulator,
        sum_cpu::<f16>,
        sum_f64::<f16>,
        random_rows::<f16>(4, 4096),
    )
    .n(200)
    .run()
    .unwrap();
    describe("f16-accumulated sum", &o);
    assert_eq!(o.judgement().accuracy(), Accuracy::LessAccurate);
    assert!(!o.passed());
}

#[test]
fn softmax_without_max_subtraction_overflows() {
    // f32: exp(100) = inf, so inf / inf = NaN; the references are finite.
    let x = RowsInput::new(1, 3, vec![100.0f32, 0.0, -1.0]).unwrap();
    let naive = softmax_without_max(&x);
    assert!(naive[0].is_nan(), "{naive:?}");
    let base = softmax_cpu(&x);
    assert_eq!(base[0], 1.0);
    assert!(base.iter().all(|v| v.is_finite()));
    assert!(softmax_f64(&x).iter().all(|v| v.is_finite()));
    // f16: exp(12) = 162755 > 65504 already.
    let x = RowsInput::new(1, 3, [12.0f32, 0.0, 1.0].map(f16::from_f32).to_vec()).unwrap();
    let naive = softmax_without_max(&x);
    assert!(naive[0].is_nan(), "{naive:?}");
    assert!(softmax_cpu(&x).iter().all(|v| v.is_finite()));

    // On ordinary randn logits (|x| < 6) nothing overflows (the candidate
    // is still less accurate: it rounds exp(x) to f16 before summing); with
    // outliers
    // of ±20 the candidate returns NaN where the baseline is finite, and
    // the non-finite gate fails it whatever the statistics say.
    let plain = DualDelta::new(
        softmax_without_max::<f16>,
        softmax_cpu::<f16>,
        softmax_f64::<f16>,
        random_rows::<f16>(4, 256),
    )
    .n(200)
    .run()
    .unwrap();
    describe("softmax without max, randn logits", &plain);
    assert!(!plain.non_finite_gate());
    let outliers = DualDelta::new(
        softmax_without_max::<f16>,
        softmax_cpu::<f16>,
        softmax_f64::<f16>,
        random_outlier_rows::<f16>(4, 256, 1, 20.0),
    )
    .n(200)
    .run()
    .unwrap();
    describe("softmax without max, outliers ±20", &outliers);
    eprintln!(
        "  trials where only the candidate was non-finite: {} of {}",
        outliers.non_finite().candidate_only().len(),
        outliers.trials_run()
    );
    assert!(outliers.non_finite_gate());
    assert!(!outliers.passed());
}

#[test]
fn one_pass_layer_norm_variance_fails_on_offset_activations() {
    // Activations 1000 + z: E[x²] ≈ 1e6 carries an f32 rounding error of
    // the order of the variance itself.
    let generate = random_offset_norm_input::<f32>(4, 512, 1000.0, 1.0, false, 1e-5);
    let (mut one, mut two) = (0.0f64, 0.0f64);
    for trial in 0..20 {
        let x = generate(&mut dual_delta_runtime::TrialRng::for_trial(3, trial));
        let oracle = layer_norm_f64(&x);
        let err = |y: Vec<f32>| {
            y.iter()
                .zip(&oracle)
                .map(|(&y, o)| (f64::from(y) - o).abs())
                .fold(0.0, f64::max)
        };
        one = one.max(err(layer_norm_one_pass(&x)));
        two = two.max(err(layer_norm_cpu(&x)));
    }
    eprintln!("LayerNorm, offset 1000: largest error one-pass {one:.3e}, two-pass {two:.3e}");
    assert!(one > 100.0 * two, "one-pass {one}, two-pass {two}");
    // The two-pass error is that of the largest |x - mean| / σ in 20 × 2048
    // outputs: 0.6e-3 to 1.1e-3 over the base seeds 0 to 11.
    assert!(two < 2e-3, "two-pass {two}");

    let o = DualDelta::new(
        layer_norm_one_pass::<f32>,
        layer_norm_cpu::<f32>,
        layer_norm_f64::<f32>,
        generate,
    )
    .n(200)
    .run()
    .unwrap();
    describe("one-pass LayerNorm, offset 1000", &o);
    assert_eq!(o.judgement().accuracy(), Accuracy::LessAccurate);
    assert!(!o.passed());
}
