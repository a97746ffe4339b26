//! The attention kernels replayed on the CPU, operation for operation.

use half::f16;

use super::reference::{AttentionInput, AttentionShape};
use super::{AttentionStrategy, FLASH_BLOCK};
use crate::reductions::kernel_exp;

/// `v` rounded to `f16` and back.
fn r16(v: f32) -> f32 {
    f16::from_f32(v).to_f32()
}

/// What [`Gpu::run`](crate::Gpu::run) computes with `strategy`,
/// replayed on the CPU: the same `f32` operations (never fused) in the same
/// order, bit for bit the GPU's result. `[heads, seq_q, d_v]`, row-major.
pub fn attention_emulated(input: &AttentionInput<f16>, strategy: AttentionStrategy) -> Vec<f16> {
    let AttentionShape {
        seq_q,
        seq_k,
        d,
        d_v,
        ..
    } = input.shape();
    let scale = 1.0f32 / (d as f32).sqrt();
    let widen = |x: &[f16]| x.iter().map(|v| v.to_f32()).collect::<Vec<f32>>();
    let (q, k, v) = (widen(input.q()), widen(input.k()), widen(input.v()));
    let mut out = Vec::with_capacity(input.output_len());
    for (g, qi) in q.chunks_exact(d).enumerate() {
        let (h, i) = (g / seq_q, g % seq_q);
        let k = &k[h * seq_k * d..(h + 1) * seq_k * d];
        let v = &v[h * seq_k * d_v..(h + 1) * seq_k * d_v];
        let keys = input.visible_keys(i);
        let score = |j: usize| {
            let s = qi
                .iter()
                .zip(&k[j * d..(j + 1) * d])
                .fold(0.0f32, |s, (&a, &b)| s + a * b);
            s * scale
        };
        let o = match strategy {
            AttentionStrategy::Naive => naive(keys, score, v, d_v),
            AttentionStrategy::Flash => flash(keys, score, v, d_v, |x| x),
            AttentionStrategy::FlashF16Accumulation => flash(keys, score, v, d_v, r16),
        };
        out.extend(o.into_iter().map(f16::from_f32));
    }
    out
}

/// Scores rounded to `f16`, softmax with `f16` probabilities, `f32` `P·V`.
fn naive(keys: usize, score: impl Fn(usize) -> f32, v: &[f32], d_v: usize) -> Vec<f32> {
    let s: Vec<f32> = (0..keys).map(|j| r16(score(j))).collect();
    let m = s.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
    let e: Vec<f32> = s.iter().map(|&s| kernel_exp(s - m)).collect();
    let z = e.iter().fold(0.0f32, |z, &e| z + e);
    let mut o = vec![0.0f32; d_v];
    for (j, &e) in e.iter().enumerate() {
        let pj = r16(e / z);
        for (o, &vj) in o.iter_mut().zip(&v[j * d_v..(j + 1) * d_v]) {
            *o += pj * vj;
        }
    }
    o
}

/// The online softmax over blocks of keys; `round` applied to every update
/// of the accumulators.
fn flash(
    keys: usize,
    score: impl Fn(usize) -> f32,
    v: &[f32],
    d_v: usize,
    round: fn(f32) -> f32,
) -> Vec<f32> {
    let (mut m, mut l) = (f32::NEG_INFINITY, 0.0f32);
    let mut o = vec![0.0f32; d_v];
    for j0 in (0..keys).step_by(FLASH_BLOCK) {
        let j1 = (j0 + FLASH_BLOCK).min(keys);
        let s: Vec<f32> = (j0..j1).map(&score).collect();
        let mb = s.iter().fold(m, |m, &s| m.max(s));
        let alpha = kernel_exp(m - mb);
        l *= alpha;
        for o in o.iter_mut() {
            *o = round(*o * alpha);
        }
        for (j, &s) in (j0..j1).zip(&s) {
            let pj = kernel_exp(s - mb);
            l += pj;
            for (o, &vj) in o.iter_mut().zip(&v[j * d_v..(j + 1) * d_v]) {
                *o = round(*o + pj * vj);
            }
        }
        m = mb;
    }
    o.iter().map(|&o| o / l).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_returns_its_value() {
        let shape = AttentionShape {
            heads: 1,
            seq_q: 2,
            seq_k: 1,
            d: 3,
            d_v: 2,
        };
        let f = |v: &[f32]| v.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>();
        let x = AttentionInput::new(
            shape,
            false,
            f(&[1.0, 2.0, 3.0, -1.0, 0.5, 0.0]),
            f(&[0.25, -2.0, 1.0]),
            f(&[1.5, -3.0]),
        )
        .unwrap();
        for s in AttentionStrategy::ALL {
            let y: Vec<f32> = attention_emulated(&x, s)
                .into_iter()
                .map(f16::to_f32)
                .collect();
            assert_eq!(y, [1.5, -3.0, 1.5, -3.0], "{s}");
        }
    }
}
