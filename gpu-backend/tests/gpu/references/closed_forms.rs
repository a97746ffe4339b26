//! Results known in closed form, and the input constructors.

use dual_delta_gpu::KernelElement;
use dual_delta_gpu::attention::*;
use dual_delta_gpu::norm::*;
use dual_delta_gpu::reductions::*;
use dual_delta_gpu::{bf16, f16};
use dual_delta_runtime::TrialRng;

use super::{ulp, wide};

fn rows<E: KernelElement>(rows: usize, len: usize, v: &[f64]) -> RowsInput<E> {
    RowsInput::new(rows, len, v.iter().map(|&x| E::from_f64(x)).collect()).unwrap()
}

fn ramp(n: usize, start: f64) -> Vec<f64> {
    (0..n).map(|j| start + j as f64).collect()
}

#[test]
fn sums_of_one_to_n() {
    // 1 + 2 + … + n = n(n+1)/2; every partial sum is an integer below 2^24,
    // exact in f32, so the baseline is exact too.
    let n = 1000;
    let x = rows::<f32>(1, n, &ramp(n, 1.0));
    assert_eq!(sum_f64(&x), [500_500.0]);
    assert_eq!(sum_cpu(&x), [500_500.0f32]);
    assert_eq!(mean_f64(&x), [500.5]);
    assert_eq!(mean_cpu(&x), [500.5f32]);
    // In f16: 1..64 sums to 2080, an f16 value (spacing 2 above 2048).
    let x = rows::<f16>(2, 64, &[ramp(64, 1.0), vec![-1.0; 64]].concat());
    assert_eq!(sum_f64(&x), [2080.0, -64.0]);
    assert_eq!(wide(&sum_cpu(&x)), [2080.0, -64.0]);
    assert_eq!(wide(&mean_cpu(&x)), [32.5, -1.0]);
    // bf16: 1..16 = 136.
    let x = rows::<bf16>(1, 16, &ramp(16, 1.0));
    assert_eq!(wide(&sum_cpu(&x)), [136.0]);
    // dot(1, 1..n) = n(n+1)/2, dot(x, x) = Σ j².
    let x = DotInput::<f32>::new(
        2,
        100,
        [vec![1.0; 100], ramp(100, 1.0)]
            .concat()
            .iter()
            .map(|&v| v as f32)
            .collect(),
        [ramp(100, 1.0), ramp(100, 1.0)]
            .concat()
            .iter()
            .map(|&v| v as f32)
            .collect(),
    )
    .unwrap();
    assert_eq!(dot_f64(&x), [5050.0, 338_350.0]);
    assert_eq!(dot_cpu(&x), [5050.0f32, 338_350.0]);
}

#[test]
fn softmax_of_equal_values_is_one_over_n() {
    for n in [1, 3, 7, 1000] {
        let x = rows::<f16>(2, n, &[vec![0.0; n], vec![-5.5; n]].concat());
        let want = 1.0 / n as f64;
        for y in softmax_f64(&x) {
            assert!((y - want).abs() <= want * 1e-15, "n = {n}: {y}");
        }
        for y in softmax_cpu(&x) {
            assert!(
                (y.to_f64() - want).abs() <= ulp::<f16>(want),
                "n = {n}: {y}"
            );
        }
        for y in log_softmax_f64(&x) {
            let want = -(n as f64).ln();
            assert!(
                (y - want).abs() <= 1e-15 * (1.0 + want.abs()),
                "n = {n}: {y}"
            );
        }
    }
}

#[test]
fn softmax_is_invariant_under_exact_shifts() {
    // x and x + 64 (exact in f32): x − max is the same, so are the results.
    let x: Vec<f64> = (0..50)
        .map(|j| ((j as f64 * 0.37).sin() * 8.0 * 1024.0).round() / 1024.0)
        .collect();
    let shifted: Vec<f64> = x.iter().map(|v| (*v as f32 + 64.0) as f64).collect();
    let x = rows::<f32>(
        1,
        50,
        &x.iter().map(|&v| v as f32 as f64).collect::<Vec<_>>(),
    );
    let y = RowsInput::<f32>::new(1, 50, shifted.iter().map(|&v| v as f32).collect()).unwrap();
    let back: Vec<f64> = y.data().iter().map(|&v| f64::from(v) - 64.0).collect();
    assert_eq!(back, wide(x.data()), "the shift is exact");
    assert_eq!(softmax_f64(&x), softmax_f64(&y));
    assert_eq!(softmax_cpu(&x), softmax_cpu(&y));
    assert_eq!(log_softmax_f64(&x), log_softmax_f64(&y));
    let total: f64 = softmax_f64(&x).iter().sum();
    assert!((total - 1.0).abs() < 1e-15, "{total}");
}

#[test]
fn layer_norm_of_a_constant_plus_a_ramp() {
    // xⱼ = c + j, j < n: μ = c + (n−1)/2, σ² = (n²−1)/12, so
    // yⱼ = (j − (n−1)/2) / √((n²−1)/12 + ε).
    let (n, c, eps) = (16usize, 1000.0, 1e-5);
    let var = ((n * n - 1) as f64) / 12.0;
    let want: Vec<f64> = (0..n)
        .map(|j| (j as f64 - (n - 1) as f64 / 2.0) / (var + eps).sqrt())
        .collect();
    let x = NormInput::new(rows::<f16>(1, n, &ramp(n, c)), None, None, eps).unwrap();
    for (y, w) in layer_norm_f64(&x).iter().zip(&want) {
        assert!((y - w).abs() <= 1e-14, "{y} vs {w}");
    }
    for (y, w) in layer_norm_cpu(&x).iter().zip(&want) {
        assert!((y.to_f64() - w).abs() <= ulp::<f16>(*w), "{y} vs {w}");
    }
    // With weight γ and bias β: γ·y + β.
    let gamma = vec![f16::from_f32(2.0); n];
    let beta = vec![f16::from_f32(-1.0); n];
    let x = NormInput::new(rows::<f16>(1, n, &ramp(n, c)), Some(gamma), Some(beta), eps).unwrap();
    for (y, w) in layer_norm_f64(&x).iter().zip(&want) {
        assert!((y - (2.0 * w - 1.0)).abs() <= 1e-14, "{y} vs {w}");
    }
}

#[test]
fn rms_norm_of_constants_is_their_sign() {
    // x / √(x²) = ±1 with ε = 0; with ε, c / √(c² + ε).
    let x = NormInput::new(
        rows::<bf16>(2, 8, &[vec![3.0; 8], vec![-0.5; 8]].concat()),
        None,
        None,
        0.0,
    )
    .unwrap();
    assert_eq!(rms_norm_f64(&x), [vec![1.0; 8], vec![-1.0; 8]].concat());
    assert_eq!(
        wide(&rms_norm_cpu(&x)),
        [vec![1.0; 8], vec![-1.0; 8]].concat()
    );
    let x = NormInput::new(rows::<f32>(1, 4, &[0.5; 4]), None, None, 0.75).unwrap();
    assert_eq!(rms_norm_f64(&x), [0.5; 4]); // 0.5 / √(0.25 + 0.75)
    // LayerNorm of a constant row is 0 (plus β).
    let x = NormInput::new(
        rows::<f32>(1, 5, &[7.0; 5]),
        None,
        Some(vec![0.25; 5]),
        1e-5,
    )
    .unwrap();
    assert_eq!(layer_norm_f64(&x), [0.25; 5]);
    assert_eq!(layer_norm_cpu(&x), [0.25f32; 5]);
}

fn attention_input<E: KernelElement>(
    shape: AttentionShape,
    causal: bool,
    seed: u64,
) -> AttentionInput<E> {
    AttentionInput::random(shape, causal, &mut TrialRng::for_trial(seed, 0))
}

#[test]
fn attention_with_one_key_returns_its_value() {
    // softmax over one score is 1: the output is V, exactly.
    let shape = AttentionShape {
        heads: 3,
        seq_q: 4,
        seq_k: 1,
        d: 8,
        d_v: 5,
    };
    let x = attention_input::<f16>(shape, false, 1);
    let v = wide(x.v());
    let want: Vec<f64> = v.chunks(5).flat_map(|vh| vh.repeat(4)).collect();
    assert_eq!(attention_f64(&x), want);
    assert_eq!(wide(&attention_cpu(&x)), want);
}

#[test]
fn causal_attention_first_row_is_the_first_value() {
    // Query 0 sees key 0 only; query i sees keys 0..=i.
    let shape = AttentionShape {
        heads: 2,
        seq_q: 6,
        seq_k: 6,
        d: 4,
        d_v: 3,
    };
    for seed in 0..5 {
        let x = attention_input::<bf16>(shape, true, seed);
        let (o, b, v) = (attention_f64(&x), attention_cpu(&x), wide(x.v()));
        for h in 0..2 {
            let row0 = &v[h * 18..h * 18 + 3];
            assert_eq!(&o[h * 18..h * 18 + 3], row0);
            assert_eq!(&wide(&b[h * 18..h * 18 + 3]), row0);
        }
        // The last query sees every key: the same as without the mask.
        let full =
            AttentionInput::new(shape, false, x.q().to_vec(), x.k().to_vec(), x.v().to_vec())
                .unwrap();
        let of = attention_f64(&full);
        assert_eq!(&o[15..18], &of[15..18]);
        assert_ne!(&o[3..6], &of[3..6]);
    }
    // More queries than keys: queries past the last key see every key.
    let shape = AttentionShape {
        heads: 1,
        seq_q: 5,
        seq_k: 2,
        d: 4,
        d_v: 3,
    };
    let x = attention_input::<f32>(shape, true, 9);
    assert_eq!(x.visible_keys(0), 1);
    assert_eq!(x.visible_keys(4), 2);
    let full =
        AttentionInput::new(shape, false, x.q().to_vec(), x.k().to_vec(), x.v().to_vec()).unwrap();
    let (o, of) = (attention_f64(&x), attention_f64(&full));
    assert_eq!(&o[3..], &of[3..]);
    assert_eq!(&o[..3], &wide(x.v())[..3]);
}

#[test]
fn attention_with_equal_keys_averages_the_values() {
    // Equal scores: p = 1/seq_k, the output is the mean of V's rows.
    let shape = AttentionShape {
        heads: 1,
        seq_q: 2,
        seq_k: 4,
        d: 2,
        d_v: 2,
    };
    let q = vec![1.5f32, -2.0, 0.25, 4.0];
    let k = vec![0.5f32, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    let v = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let x = AttentionInput::new(shape, false, q, k, v).unwrap();
    assert_eq!(attention_f64(&x), [4.0, 5.0, 4.0, 5.0]);
    assert_eq!(attention_cpu(&x), [4.0f32, 5.0, 4.0, 5.0]);
    // Scores [0, 1·d/√d]: q·k = d·1 for a second key, √d scaling; with d = 4,
    // two keys, weights 1/(1+e²) and e²/(1+e²).
    let shape = AttentionShape {
        heads: 1,
        seq_q: 1,
        seq_k: 2,
        d: 4,
        d_v: 1,
    };
    let x = AttentionInput::new(
        shape,
        false,
        vec![1.0f32; 4],
        [vec![0.0; 4], vec![1.0; 4]].concat(),
        vec![0.0, 1.0],
    )
    .unwrap();
    let e2 = 2f64.exp();
    let o = attention_f64(&x)[0];
    assert!((o - e2 / (1.0 + e2)).abs() < 1e-15, "{o}");
}

#[test]
fn constructors_check_shapes() {
    let e = RowsInput::<f32>::new(2, 3, vec![0.0; 5])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("data must hold rows·len = 2·3 = 6 values, it holds 5"),
        "{e}"
    );
    let e = RowsInput::<f32>::new(0, 3, vec![]).unwrap_err().to_string();
    assert!(e.contains("at least 1"), "{e}");
    let e = DotInput::<f16>::new(1, 2, vec![f16::ONE; 2], vec![f16::ONE; 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("b must hold"), "{e}");
    let x = RowsInput::<f32>::new(2, 3, vec![0.0; 6]).unwrap();
    let e = NormInput::new(x.clone(), Some(vec![1.0; 2]), None, 1e-5)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("weight must hold len = 3 values, it holds 2"),
        "{e}"
    );
    let e = NormInput::new(x.clone(), None, None, -1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("eps must be finite"), "{e}");
    assert!(NormInput::new(x, None, Some(vec![0.0; 3]), 0.0).is_ok());
    let shape = AttentionShape {
        heads: 2,
        seq_q: 3,
        seq_k: 4,
        d: 5,
        d_v: 6,
    };
    let (q, k, v) = (vec![0.0f32; 30], vec![0.0f32; 40], vec![0.0f32; 48]);
    assert!(AttentionInput::new(shape, true, q.clone(), k.clone(), v.clone()).is_ok());
    let e = AttentionInput::new(shape, true, q.clone(), v.clone(), v)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("K must hold heads·seq_k·d = 40 values, it holds 48"),
        "{e}"
    );
    let e = AttentionInput::new(AttentionShape { d: 0, ..shape }, true, vec![], k.clone(), k)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least 1"), "{e}");
}

#[test]
fn generators_are_deterministic_and_look_right() {
    let rng = || TrialRng::for_trial(5, 3);
    let a = random_rows::<f16>(4, 256)(&mut rng());
    assert_eq!(a, random_rows::<f16>(4, 256)(&mut rng()));
    assert_ne!(
        a,
        random_rows::<f16>(4, 256)(&mut TrialRng::for_trial(5, 4))
    );
    let v = wide(a.data());
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    assert!(mean.abs() < 0.1, "{mean}");

    // Activations with a large offset: mean ≈ offset, spread ≈ spread.
    let x = random_offset_rows::<f32>(4, 512, 1e4, 0.5)(&mut rng());
    let v = wide(x.data());
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    assert!(
        (mean - 1e4).abs() < 0.1 && (sd - 0.5).abs() < 0.05,
        "{mean} {sd}"
    );

    // Outliers: each row holds ±magnitude.
    let x = random_outlier_rows::<bf16>(8, 64, 1, 50.0)(&mut rng());
    for row in x.row_iter() {
        assert!(row.iter().any(|v| v.to_f64().abs() == 50.0), "{row:?}");
    }

    let n = random_norm_input::<f16>(3, 16, true, 1e-5)(&mut rng());
    assert_eq!(n.x().shape(), (3, 16));
    assert_eq!(n.weight().map(<[f16]>::len), Some(16));
    assert_eq!(n.bias().map(<[f16]>::len), Some(16));
    let n = random_offset_norm_input::<f32>(3, 16, 100.0, 1.0, false, 1e-5)(&mut rng());
    assert!(n.weight().is_none() && n.bias().is_none());

    let shape = AttentionShape {
        heads: 2,
        seq_q: 3,
        seq_k: 4,
        d: 5,
        d_v: 6,
    };
    let x = random_attention_input::<f32>(shape, true)(&mut rng());
    assert_eq!(
        (x.q().len(), x.k().len(), x.v().len(), x.output_len()),
        (30, 40, 48, 36)
    );
    let d = random_dot_input::<bf16>(2, 7)(&mut rng());
    assert_eq!((d.a().len(), d.b().len()), (14, 14));
}

#[test]
#[should_panic(expected = "overflows f16")]
fn outliers_beyond_the_format_panic() {
    let _ = random_outlier_rows::<f16>(1, 4, 1, 1e6);
}
