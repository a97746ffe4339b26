//! The baselines equal, bit for bit, `f32` computations written here from
//! their documented order of operations, with plain index loops.

use dual_delta_gpu::KernelElement;
use dual_delta_gpu::attention::*;
use dual_delta_gpu::norm::*;
use dual_delta_gpu::reductions::*;
use dual_delta_gpu::{bf16, f16};
use dual_delta_runtime::TrialRng;

/// The bits of the values widened to `f64` (so `-0.0` and `0.0` differ).
fn bits<E: KernelElement>(v: &[E]) -> Vec<u64> {
    v.iter().map(|&x| x.to_f64().to_bits()).collect()
}

fn f(v: impl KernelElement) -> f32 {
    v.to_f32()
}

fn naive_sum<E: KernelElement>(x: &RowsInput<E>, mean: bool) -> Vec<E> {
    let (rows, n) = x.shape();
    let mut out = Vec::new();
    for i in 0..rows {
        let mut s = 0.0f32;
        for j in 0..n {
            s += f(x.data()[i * n + j]);
        }
        out.push(E::from_f32(if mean { s / n as f32 } else { s }));
    }
    out
}

fn naive_dot<E: KernelElement>(x: &DotInput<E>) -> Vec<E> {
    let n = x.row_len();
    (0..x.rows())
        .map(|i| {
            let mut s = 0.0f32;
            for j in 0..n {
                let p = f(x.a()[i * n + j]) * f(x.b()[i * n + j]);
                s += p;
            }
            E::from_f32(s)
        })
        .collect()
}

fn naive_softmax<E: KernelElement>(x: &RowsInput<E>, log: bool) -> Vec<E> {
    let (rows, n) = x.shape();
    let mut out = Vec::new();
    for i in 0..rows {
        let r: Vec<f32> = (0..n).map(|j| f(x.data()[i * n + j])).collect();
        let mut m = r[0];
        for &v in &r[1..] {
            if v > m {
                m = v;
            }
        }
        let mut z = 0.0f32;
        for &v in &r {
            z += (v - m).exp();
        }
        for &v in &r {
            let y = if log {
                (v - m) - z.ln()
            } else {
                (v - m).exp() / z
            };
            out.push(E::from_f32(y));
        }
    }
    out
}

fn naive_norm<E: KernelElement>(x: &NormInput<E>, rms: bool) -> Vec<E> {
    let (rows, n) = x.x().shape();
    let eps = x.eps() as f32;
    let mut out = Vec::new();
    for i in 0..rows {
        let r: Vec<f32> = (0..n).map(|j| f(x.x().data()[i * n + j])).collect();
        let (mu, r_std) = if rms {
            let mut s = 0.0f32;
            for &v in &r {
                s += v * v;
            }
            (0.0f32, 1.0 / (s / n as f32 + eps).sqrt())
        } else {
            let mut s = 0.0f32;
            for &v in &r {
                s += v;
            }
            let mu = s / n as f32;
            let mut q = 0.0f32;
            for &v in &r {
                q += (v - mu) * (v - mu);
            }
            (mu, 1.0 / (q / n as f32 + eps).sqrt())
        };
        for (j, &v) in r.iter().enumerate() {
            let mut y = if rms { v * r_std } else { (v - mu) * r_std };
            if let Some(w) = x.weight() {
                y *= f(w[j]);
            }
            if let Some(b) = x.bias() {
                y += f(b[j]);
            }
            out.push(E::from_f32(y));
        }
    }
    out
}

fn naive_attention<E: KernelElement>(x: &AttentionInput<E>) -> Vec<E> {
    let AttentionShape {
        heads,
        seq_q,
        seq_k,
        d,
        d_v,
    } = x.shape();
    let scale = 1.0f32 / (d as f32).sqrt();
    let mut out = Vec::new();
    for h in 0..heads {
        for i in 0..seq_q {
            let keys = if x.causal() {
                (i + 1).min(seq_k)
            } else {
                seq_k
            };
            let mut s = vec![0.0f32; keys];
            for (j, s) in s.iter_mut().enumerate() {
                let mut acc = 0.0f32;
                for c in 0..d {
                    acc += f(x.q()[(h * seq_q + i) * d + c]) * f(x.k()[(h * seq_k + j) * d + c]);
                }
                *s = acc * scale;
            }
            let m = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut z = 0.0f32;
            for s in s.iter_mut() {
                *s = (*s - m).exp();
                z += *s;
            }
            for c in 0..d_v {
                let mut o = 0.0f32;
                for (j, &e) in s.iter().enumerate() {
                    o += (e / z) * f(x.v()[(h * seq_k + j) * d_v + c]);
                }
                out.push(E::from_f32(o));
            }
        }
    }
    out
}

fn check_all<E: KernelElement>() {
    for seed in 0..4 {
        let rng = &mut TrialRng::for_trial(seed, 11);
        let x = RowsInput::<E>::random(3, 37 + seed as usize * 100, rng);
        assert_eq!(bits(&sum_cpu(&x)), bits(&naive_sum(&x, false)));
        assert_eq!(bits(&mean_cpu(&x)), bits(&naive_sum(&x, true)));
        assert_eq!(bits(&softmax_cpu(&x)), bits(&naive_softmax(&x, false)));
        assert_eq!(bits(&log_softmax_cpu(&x)), bits(&naive_softmax(&x, true)));
        let x = RowsInput::<E>::random_with_outliers(3, 64, 2, 30.0, rng);
        assert_eq!(bits(&softmax_cpu(&x)), bits(&naive_softmax(&x, false)));
        assert_eq!(bits(&log_softmax_cpu(&x)), bits(&naive_softmax(&x, true)));
        let x = DotInput::<E>::random(2, 300, rng);
        assert_eq!(bits(&dot_cpu(&x)), bits(&naive_dot(&x)));
        for affine in [false, true] {
            let x = NormInput::<E>::random(3, 48, affine, 1e-5, rng);
            assert_eq!(bits(&layer_norm_cpu(&x)), bits(&naive_norm(&x, false)));
            assert_eq!(bits(&rms_norm_cpu(&x)), bits(&naive_norm(&x, true)));
            let x = NormInput::<E>::random_offset(2, 64, 100.0, 1.0, affine, 1e-5, rng);
            assert_eq!(bits(&layer_norm_cpu(&x)), bits(&naive_norm(&x, false)));
        }
        let shape = AttentionShape {
            heads: 2,
            seq_q: 5,
            seq_k: 7,
            d: 16,
            d_v: 8,
        };
        for causal in [false, true] {
            let x = AttentionInput::<E>::random(shape, causal, rng);
            assert_eq!(bits(&attention_cpu(&x)), bits(&naive_attention(&x)));
        }
    }
}

#[test]
fn baselines_follow_their_documented_f32_order_bit_for_bit() {
    check_all::<f16>();
    check_all::<bf16>();
    check_all::<f32>();
}
