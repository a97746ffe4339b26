//! The oracles against NumPy float64, and the baselines against the
//! oracles, on the cases of `tests/gpu/fixtures/kernels.json`.

use std::collections::BTreeMap;

use dual_delta_gpu::KernelElement;
use dual_delta_gpu::attention::*;
use dual_delta_gpu::norm::*;
use dual_delta_gpu::reductions::*;
use dual_delta_gpu::{bf16, f16};
use serde_json::Value;

use super::{U32, max_rel, ulp};

const FIXTURE: &str = include_str!("../fixtures/kernels.json");

/// Oracles must agree with NumPy to this relative difference.
const ORACLE_RTOL: f64 = 1e-12;

fn cases() -> Vec<Value> {
    let doc: Value = serde_json::from_str(FIXTURE).expect("kernels.json parses");
    doc["cases"].as_array().expect("a list of cases").clone()
}

fn usize_of(case: &Value, key: &str) -> usize {
    case[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing")) as usize
}

fn floats(case: &Value, key: &str) -> Vec<f64> {
    case[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} missing"))
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect()
}

/// The values as `E`, each exactly representable (checked).
fn elems<E: KernelElement>(v: &[f64]) -> Vec<E> {
    v.iter()
        .map(|&x| {
            let e = E::from_f64(x);
            assert_eq!(e.to_f64(), x, "{x} is not a {} value", E::FORMAT);
            e
        })
        .collect()
}

fn opt_elems<E: KernelElement>(case: &Value, key: &str) -> Option<Vec<E>> {
    (!case[key].is_null()).then(|| elems(&floats(case, key)))
}

/// What a case measured: the oracle's largest relative difference from
/// NumPy, and the baseline's largest distance from the oracle in units in
/// the last place of `E`.
struct Measured {
    oracle_rel: f64,
    baseline_ulps: f64,
}

/// Checks the baseline against the oracle: `|b − o| ≤ ulp_E(o) + slack`
/// for every element, where `slack` bounds the `f32` computation's own
/// error (zero-ish for `f16` and `bf16` at these sizes).
fn baseline_within<E: KernelElement>(name: &str, b: &[E], o: &[f64], slack: f64) -> f64 {
    let mut worst = 0.0f64;
    for (i, (&b, &o)) in b.iter().zip(o).enumerate() {
        let err = (b.to_f64() - o).abs();
        assert!(
            err <= ulp::<E>(o) + slack,
            "{name}: baseline {b:?} vs oracle {o} at {i}: {err:e} > 1 ulp + {slack:e}"
        );
        worst = worst.max(err / ulp::<E>(o));
    }
    worst
}

fn check<E: KernelElement>(case: &Value) -> Measured {
    let op = case["op"].as_str().unwrap();
    let name = format!("{op} {}", case["name"].as_str().unwrap());
    let expected = floats(case, "expected");
    let (oracle, baseline, slack): (Vec<f64>, Vec<E>, f64) = match op {
        "sum" | "mean" | "softmax" | "log_softmax" | "layer_norm" | "rms_norm" => {
            let (rows, n) = (usize_of(case, "rows"), usize_of(case, "len"));
            let xs = floats(case, "x");
            let x = RowsInput::<E>::new(rows, n, elems(&xs)).unwrap();
            let nf = n as f64;
            let abs_row_sum = xs
                .chunks(n)
                .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max);
            let max_out = expected.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            match op {
                "sum" => (sum_f64(&x), sum_cpu(&x), nf * U32 * abs_row_sum),
                "mean" => (mean_f64(&x), mean_cpu(&x), 2.0 * U32 * abs_row_sum),
                "softmax" => {
                    let range = xs.iter().fold(0.0f64, |m, v| m.max(v.abs())) * 2.0;
                    (softmax_f64(&x), softmax_cpu(&x), (nf + 8.0 + range) * U32)
                }
                "log_softmax" => (
                    log_softmax_f64(&x),
                    log_softmax_cpu(&x),
                    (nf + 8.0) * U32 * (1.0 + max_out),
                ),
                _ => {
                    let eps = case["eps"].as_f64().unwrap();
                    let weight = opt_elems::<E>(case, "weight");
                    let max_w = weight.as_ref().map_or(1.0, |w| {
                        w.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()))
                    });
                    let input = NormInput::new(x, weight, opt_elems(case, "bias"), eps).unwrap();
                    // How much the statistics amplify rounding: max |x| / σ.
                    let kappa = xs
                        .chunks(n)
                        .map(|r| {
                            let mu = r.iter().sum::<f64>() / nf;
                            let sd = (r.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / nf).sqrt();
                            r.iter().fold(0.0f64, |m, v| m.max(v.abs())) / sd
                        })
                        .fold(0.0, f64::max);
                    let slack = 4.0 * (nf + 8.0) * U32 * (1.0 + kappa) * max_w * (1.0 + max_out);
                    if op == "layer_norm" {
                        (layer_norm_f64(&input), layer_norm_cpu(&input), slack)
                    } else {
                        (rms_norm_f64(&input), rms_norm_cpu(&input), slack)
                    }
                }
            }
        }
        "dot" => {
            let (rows, n) = (usize_of(case, "rows"), usize_of(case, "len"));
            let (a, b) = (floats(case, "a"), floats(case, "b"));
            let abs_dot = a
                .chunks(n)
                .zip(b.chunks(n))
                .map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x * y).abs()).sum::<f64>())
                .fold(0.0, f64::max);
            let x = DotInput::<E>::new(rows, n, elems(&a), elems(&b)).unwrap();
            (dot_f64(&x), dot_cpu(&x), (n as f64 + 1.0) * U32 * abs_dot)
        }
        "attention" => {
            let shape = AttentionShape {
                heads: usize_of(case, "heads"),
                seq_q: usize_of(case, "seq_q"),
                seq_k: usize_of(case, "seq_k"),
                d: usize_of(case, "d"),
                d_v: usize_of(case, "d_v"),
            };
            let (q, k, v) = (floats(case, "q"), floats(case, "k"), floats(case, "v"));
            let max_abs = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            // |sᵢⱼ| ≤ d · max|q| · max|k| / √d.
            let max_s = (shape.d as f64).sqrt() * max_abs(&q) * max_abs(&k);
            let slack =
                4.0 * ((shape.d + shape.seq_k) as f64 + 8.0) * U32 * max_abs(&v) * (1.0 + max_s);
            let causal = case["causal"].as_bool().unwrap();
            let x =
                AttentionInput::<E>::new(shape, causal, elems(&q), elems(&k), elems(&v)).unwrap();
            (attention_f64(&x), attention_cpu(&x), slack)
        }
        other => panic!("unknown op {other}"),
    };
    assert_eq!(oracle.len(), expected.len(), "{name}: length");
    let oracle_rel = max_rel(&oracle, &expected);
    assert!(
        oracle_rel <= ORACLE_RTOL,
        "{name}: oracle differs from NumPy by {oracle_rel:e} (relative)"
    );
    let baseline_ulps = baseline_within(&name, &baseline, &oracle, slack);
    Measured {
        oracle_rel,
        baseline_ulps,
    }
}

#[test]
fn oracles_match_numpy_and_baselines_are_within_an_ulp_plus_f32_error() {
    // (op, dtype) -> (largest oracle relative difference, largest baseline ulps)
    let mut worst: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    let cases = cases();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let dtype = case["dtype"].as_str().unwrap();
        let m = match dtype {
            "f16" => check::<f16>(case),
            "bf16" => check::<bf16>(case),
            "f32" => check::<f32>(case),
            other => panic!("unknown dtype {other}"),
        };
        let w = worst
            .entry((case["op"].as_str().unwrap().to_owned(), dtype.to_owned()))
            .or_default();
        w.0 = w.0.max(m.oracle_rel);
        w.1 = w.1.max(m.baseline_ulps);
    }
    for ((op, dtype), (rel, ulps)) in &worst {
        eprintln!(
            "{op:>12} {dtype:>4}: oracle vs NumPy {rel:.2e} relative, baseline {ulps:.2} ulp"
        );
    }
    // Every operation is covered.
    for op in [
        "sum",
        "mean",
        "dot",
        "softmax",
        "log_softmax",
        "layer_norm",
        "rms_norm",
        "attention",
    ] {
        assert!(worst.keys().any(|(o, _)| o == op), "no {op} case");
    }
    // For 16-bit formats the f32 error is far below an ulp: the baseline is
    // the oracle correctly rounded, give or take one ulp at a boundary.
    for ((op, dtype), (_, ulps)) in &worst {
        if dtype != "f32" {
            assert!(*ulps <= 1.0, "{op} {dtype}: {ulps} ulp");
        }
    }
}
