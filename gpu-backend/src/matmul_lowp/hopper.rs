//! The limited accumulation of Hopper's FP8 tensor cores, on the CPU and in
//! WGSL side by side: the rule is documented on
//! [`Fp8Accumulation`](super::Fp8Accumulation), [`fp8_fused_dot_add`]
//! applies it to one group, and the WGSL functions below are the same
//! integer operations, line for line, so the kernel and the emulation agree
//! bit for bit.

use core::fmt::Write as _;

use dual_delta_runtime::E4m3;

use super::unroll::{each, rows_cols};
use super::{FP8_ACCUMULATOR_FRACTION_BITS, FP8_MMA_K};

/// An E4M3 value as `sig/8 · 2^exp`: `sig` a signed integer (`|sig| ≤ 15`,
/// below 8 for subnormals), `exp` the value's exponent (−6 for
/// subnormals, −126 for zero, as MMA-Sim writes a zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub(crate) sig: i32,
    pub(crate) exp: i32,
}

/// `v` decoded (the shader's `sig` and `ex`).
pub(crate) fn decode(v: E4m3) -> Decoded {
    let c = u32::from(v.to_bits());
    let (e, m) = ((c >> 3) & 15, c & 7);
    let magnitude = if e == 0 { m } else { m | 8 } as i32;
    let sig = if c >= 128 { -magnitude } else { magnitude };
    let exp = if c & 0x7f == 0 {
        -126
    } else if e == 0 {
        -6
    } else {
        e as i32 - 7
    };
    Decoded { sig, exp }
}

/// `2^e` as an `f32` built from its bits, `e` clamped to `[-126, 127]`.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e.clamp(-126, 127) + 127) as u32) << 23)
}

/// The exponent of an accumulator `c` (−126 for zero and subnormals).
fn acc_exp(c: f32) -> i32 {
    let biased = (c.to_bits() >> 23) & 255;
    if biased == 0 {
        -126
    } else {
        biased as i32 - 127
    }
}

/// `c` aligned to `2^max_exp` and truncated toward zero to 13 fraction
/// bits: an integer count of `2^(max_exp − 13)`.
fn acc_term(c: f32, max_exp: i32) -> i32 {
    let bits = c.to_bits();
    let hidden = if (bits >> 23) & 255 == 0 {
        0
    } else {
        0x80_0000
    };
    let mantissa = (bits & 0x7f_ffff) | hidden;
    // c = mantissa · 2^(e − 23); in units of 2^(max_exp − 13) that is a
    // right shift by 10 + max_exp − e.
    let shift = (max_exp - acc_exp(c) + 10).min(31) as u32;
    let q = (mantissa >> shift) as i32;
    if bits >> 31 == 1 { -q } else { q }
}

/// The product `x · y` aligned to `2^max_exp` and truncated toward zero to
/// 13 fraction bits, in units of `2^(max_exp − 13)`: the product is
/// `sig_x · sig_y · 2^(e − 6)`, so the count is
/// `(|sig_x · sig_y| << 7) >> (max_exp − e)`.
fn product_term(x: Decoded, y: Decoded, max_exp: i32) -> i32 {
    let p = x.sig * y.sig;
    let shift = (max_exp - (x.exp + y.exp)).min(31) as u32;
    let q = (p.abs() << 7) >> shift;
    if p < 0 { -q } else { q }
}

/// `sum · 2^(max_exp − 13)` truncated toward zero to an `f32` with 13
/// fraction bits (14 significant bits); zero is `+0`.
fn normalise(sum: i32, max_exp: i32) -> f32 {
    if sum == 0 {
        return 0.0;
    }
    let mut u = sum.unsigned_abs();
    let top = 31 - u.leading_zeros();
    if top > FP8_ACCUMULATOR_FRACTION_BITS {
        let drop = top - FP8_ACCUMULATOR_FRACTION_BITS;
        u = (u >> drop) << drop;
    }
    let v = u as f32 * pow2(max_exp - FP8_ACCUMULATOR_FRACTION_BITS as i32);
    if sum < 0 { -v } else { v }
}

/// One fused dot-add on decoded values (see [`fp8_fused_dot_add`]).
pub(crate) fn fused_dot_add(c: f32, x: &[Decoded], y: &[Decoded]) -> f32 {
    let max_exp = x
        .iter()
        .zip(y)
        .map(|(a, b)| a.exp + b.exp)
        .fold(acc_exp(c), i32::max);
    let sum = x.iter().zip(y).fold(acc_term(c, max_exp), |s, (&a, &b)| {
        s + product_term(a, b, max_exp)
    });
    normalise(sum, max_exp)
}

/// One FP8 tensor-core instruction of Hopper as MMA-Sim models it:
/// `c + Σᵢ aᵢ·bᵢ` with every term aligned to the largest exponent and
/// truncated to 13 fraction bits, the exact sum of the truncated terms
/// truncated to an `f32` with 13 fraction bits (the rule is spelt out on
/// [`Fp8Accumulation`](super::Fp8Accumulation)). The hardware takes 32 products at a time; any
/// number is accepted here.
///
/// ```
/// use dual_delta_runtime::E4m3;
/// use dual_delta_gpu::matmul_lowp::fp8_fused_dot_add;
///
/// let one = E4m3::ONE;
/// // 1 is below the last of the 13 fraction bits kept under 2^20: dropped.
/// assert_eq!(fp8_fused_dot_add(1048576.0, &[one], &[one]), 1048576.0);
/// ```
///
/// # Panics
///
/// Panics when `a` and `b` differ in length, or hold a NaN code.
pub fn fp8_fused_dot_add(c: f32, a: &[E4m3], b: &[E4m3]) -> f32 {
    assert_eq!(a.len(), b.len(), "a and b must have one length");
    assert!(
        !a.iter().chain(b).any(|v| v.is_nan()),
        "FP8 inputs must be finite"
    );
    let x: Vec<Decoded> = a.iter().copied().map(decode).collect();
    let y: Vec<Decoded> = b.iter().copied().map(decode).collect();
    fused_dot_add(c, &x, &y)
}

/// The Hopper fused dot-add's helpers: the accumulator's term and the
/// normalisation (`acc_term`, `product_term` and `normalise` above, line for line).
pub(super) fn limited_helpers(s: &mut String) {
    let f = FP8_ACCUMULATOR_FRACTION_BITS;
    let _ = writeln!(
        s,
        "fn aterm(c: f32, mx: i32) -> i32 {{
    let x = bitcast<u32>(c);
    let mant = (x & 0x7fffffu) | select(0x800000u, 0u, ((x >> 23u) & 255u) == 0u);
    let q = i32(mant >> u32(min(mx - aexp(c) + 10, 31)));
    return select(q, -q, (x >> 31u) == 1u);
}}
fn pterm(p: i32, e: i32, mx: i32) -> i32 {{
    let q = (abs(p) << 7u) >> u32(min(mx - e, 31));
    return select(q, -q, p < 0);
}}
fn norm(sm: i32, mx: i32) -> f32 {{
    if (sm == 0) {{ return 0.0; }}
    var u = u32(abs(sm));
    let top = firstLeadingBit(u);
    if (top > {f}u) {{ let d = top - {f}u; u = (u >> d) << d; }}
    let v = f32(u) * p2(mx - {f});
    return select(v, -v, sm < 0);
}}"
    );
}

/// The chunks of `p.chunk`, each a chain of fused dot-adds over groups of
/// [`FP8_MMA_K`] products, each chunk's result added into `s` in `f32`.
pub(super) fn limited_loop(s: &mut String) {
    let g = FP8_MMA_K;
    s.push_str(
        "    for (var k0 = 0u; k0 < p.k; k0 = k0 + p.chunk) {\n    let k1 = min(k0 + p.chunk, p.k);\n",
    );
    each(s, "    var c{i}_{j}: f32 = 0.0;");
    let _ = writeln!(
        s,
        "    for (var g0 = k0; g0 < k1; g0 = g0 + {g}u) {{\n    let g1 = min(g0 + {g}u, k1);"
    );
    // Pass 1: the largest exponent of each element's 33 terms.
    each(s, "    var m{i}_{j}: i32 = aexp(c{i}_{j});");
    s.push_str("    for (var kk = g0; kk < g1; kk = kk + 1u) {\n        let ob = kk * p.n;\n");
    rows_cols(
        s,
        "        let ea{i} = ex(q_a(ra{i} + kk));",
        "        let eb{j} = ex(q_b(cb{j} + ob));",
    );
    each(s, "        m{i}_{j} = max(m{i}_{j}, ea{i} + eb{j});");
    s.push_str("    }\n");
    // Pass 2: the truncated terms, summed exactly in i32.
    each(s, "    var t{i}_{j}: i32 = aterm(c{i}_{j}, m{i}_{j});");
    s.push_str("    for (var kk = g0; kk < g1; kk = kk + 1u) {\n        let ob = kk * p.n;\n");
    rows_cols(
        s,
        "        let qa{i} = q_a(ra{i} + kk); let sa{i} = sig(qa{i}); let ea{i} = ex(qa{i});",
        "        let qb{j} = q_b(cb{j} + ob); let sb{j} = sig(qb{j}); let eb{j} = ex(qb{j});",
    );
    each(
        s,
        "        t{i}_{j} = t{i}_{j} + pterm(sa{i} * sb{j}, ea{i} + eb{j}, m{i}_{j});",
    );
    s.push_str("    }\n");
    each(s, "    c{i}_{j} = norm(t{i}_{j}, m{i}_{j});");
    s.push_str("    }\n");
    each(s, "    s{i}_{j} = pinned(s{i}_{j} + c{i}_{j});");
    s.push_str("    }\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul_lowp::e4m3 as e;

    #[test]
    fn decoding_gives_every_finite_value() {
        for bits in 0..=255u8 {
            let v = E4m3::from_bits(bits);
            if v.is_nan() {
                continue;
            }
            let d = decode(v);
            let value = f64::from(d.sig) / 8.0 * 2f64.powi(d.exp.max(-6));
            assert_eq!(value, v.to_f64(), "code {bits:#04x}");
        }
    }

    #[test]
    fn aligned_terms_are_truncated_toward_zero() {
        // 1.875² = 3.515625 sets the largest exponent (0), so units are
        // 2^-13. 1.125·2^-3 · 1.125·2^-4 = 81·2^-13 is kept whole; the sum,
        // 28881·2^-13, has 15 significant bits and loses its last one.
        let got = fp8_fused_dot_add(
            0.0,
            &[e(1.875), e(1.125 / 8.0)],
            &[e(1.875), e(1.125 / 16.0)],
        );
        assert_eq!(got, 28880.0 / 8192.0);
        // 1 − 1.265625·2^-12: the negative term is 2.53 units of 2^-13,
        // truncated to 2.
        let got = fp8_fused_dot_add(0.0, &[e(1.0), e(-1.125 / 64.0)], &[e(1.0), e(1.125 / 64.0)]);
        assert_eq!(got, 1.0 - 2.0 / 8192.0);
        // Under an accumulator of 2^20, units are 2^7: a product of 100 is
        // dropped, one of 448·448 = 200704 = 1568·2^7 is kept.
        assert_eq!(
            fp8_fused_dot_add(1048576.0, &[e(10.0)], &[e(10.0)]),
            1048576.0
        );
        assert_eq!(
            fp8_fused_dot_add(1048576.0, &[e(448.0)], &[e(448.0)]),
            1048576.0 + 200704.0
        );
        // An empty group truncates the accumulator to 13 fraction bits.
        assert_eq!(fp8_fused_dot_add(1.0 + 2f32.powi(-20), &[], &[]), 1.0);
        assert_eq!(fp8_fused_dot_add(-0.0, &[e(0.0)], &[e(-2.0)]), 0.0);
    }
}
