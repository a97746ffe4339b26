//! The LayerNorm and RMSNorm kernels replayed on the CPU, operation for
//! operation.

use half::f16;

use super::NormInput;
use super::{LayerNormStrategy, RmsNormStrategy};
use crate::reductions::{strided, tree};

/// What [`Gpu::run`](crate::Gpu::run) computes with
/// `strategy`, replayed on the CPU: the same `f32` operations (never fused)
/// in the same order, bit for bit the GPU's result.
pub fn layer_norm_emulated(input: &NormInput<f16>, strategy: LayerNormStrategy) -> Vec<f16> {
    normalise(input, |row, n| match strategy {
        LayerNormStrategy::OnePass => one_pass(row, n),
        LayerNormStrategy::TwoPass => two_pass(row, n),
        LayerNormStrategy::Welford => welford(row, n),
    })
}

/// What [`Gpu::run`](crate::Gpu::run) computes with `strategy`,
/// replayed on the CPU: bit for bit the GPU's result.
pub fn rms_norm_emulated(input: &NormInput<f16>, strategy: RmsNormStrategy) -> Vec<f16> {
    normalise(input, |row, n| {
        let round = match strategy {
            RmsNormStrategy::F32 => |v: f32| v,
            RmsNormStrategy::F16Accumulation => |v: f32| f16::from_f32(v).to_f32(),
        };
        let slots = strided(row, 0.0, |s, v| round(s + v * v));
        // The mean square stands for the variance, around a mean of 0
        // (`x − 0` is `x`, exactly).
        (0.0, tree(slots, |a, b| round(a + b)) / n)
    })
}

/// The normalisation of every row of `input` by `(x − μ) / √(σ² + ε)`, then
/// the weight and bias, with `(μ, σ²)` from `stats(row, n)`.
fn normalise(input: &NormInput<f16>, stats: impl Fn(&[f32], f32) -> (f32, f32)) -> Vec<f16> {
    let x = input.x();
    let n = x.row_len() as f32;
    let eps = input.eps() as f32;
    let widen = |v: Option<&[f16]>| v.map(|v| v.iter().map(|v| v.to_f32()).collect::<Vec<_>>());
    let (weight, bias) = (widen(input.weight()), widen(input.bias()));
    let mut out = Vec::with_capacity(x.data().len());
    for row in x.row_iter() {
        let row: Vec<f32> = row.iter().map(|v| v.to_f32()).collect();
        let (mu, var) = stats(&row, n);
        let sd = (var + eps).sqrt();
        out.extend(row.iter().enumerate().map(|(j, &v)| {
            let mut y = (v - mu) / sd;
            if let Some(w) = &weight {
                y *= w[j];
            }
            if let Some(b) = &bias {
                y += b[j];
            }
            f16::from_f32(y)
        }));
    }
    out
}

fn sum(row: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    tree(strided(row, 0.0, |a, v| a + f(v)), |a, b| a + b)
}

fn one_pass(row: &[f32], n: f32) -> (f32, f32) {
    let slots = strided(row, (0.0f32, 0.0f32), |(s1, s2), v| (s1 + v, s2 + v * v));
    let (s1, s2) = tree(slots, |a, b| (a.0 + b.0, a.1 + b.1));
    let mu = s1 / n;
    (mu, (s2 / n - mu * mu).max(0.0))
}

fn two_pass(row: &[f32], n: f32) -> (f32, f32) {
    let mu = sum(row, |v| v) / n;
    let var = sum(row, |v| (v - mu) * (v - mu)) / n;
    (mu, var)
}

fn welford(row: &[f32], n: f32) -> (f32, f32) {
    let slots = strided(row, (0.0f32, 0.0f32, 0.0f32), |(c, m, m2), v| {
        let c = c + 1.0;
        let d = v - m;
        let m = m + d / c;
        (c, m, m2 + d * (v - m))
    });
    let (_, m, m2) = tree(slots, |(na, ma, m2a), (nb, mb, m2b)| {
        if nb > 0.0 {
            let nn = na + nb;
            let d = mb - ma;
            (
                nn,
                ma + d * (nb / nn),
                (m2a + m2b) + (d * d) * ((na * nb) / nn),
            )
        } else {
            (na, ma, m2a)
        }
    });
    (m, m2 / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reductions::RowsInput;

    fn input(values: &[f32]) -> NormInput<f16> {
        let data = values.iter().map(|&v| f16::from_f32(v)).collect();
        NormInput::new(
            RowsInput::new(1, values.len(), data).unwrap(),
            None,
            None,
            0.0,
        )
        .unwrap()
    }

    #[test]
    fn a_row_of_plus_and_minus_one_normalises_to_itself() {
        let x = input(&[1.0, -1.0, 1.0, -1.0]);
        for strategy in LayerNormStrategy::ALL {
            let y: Vec<f32> = layer_norm_emulated(&x, strategy)
                .iter()
                .map(|v| v.to_f32())
                .collect();
            assert_eq!(y, [1.0, -1.0, 1.0, -1.0], "{strategy}");
        }
    }

    #[test]
    fn welford_statistics_are_exact_on_small_integers() {
        let row: Vec<f32> = (0..200).map(|i| (i % 7) as f32).collect();
        let n = row.len() as f32;
        let (mu, var) = welford(&row, n);
        let (mu2, var2) = two_pass(&row, n);
        assert!((mu - mu2).abs() < 1e-5 && (var - var2).abs() < 1e-4);
    }
}
