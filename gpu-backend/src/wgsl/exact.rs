//! Correctly rounded `f32` division and square root on any device whose
//! own are close: `div_rn(a, b)` and `sqrt_rn(x)`.
//!
//! Vulkan lets a driver compute `a / b` to within 2.5 ulp and `sqrt` to
//! within its `inverseSqrt` precision, and GPU drivers use that freedom;
//! lavapipe and the CPU emulations round correctly. Each helper takes the
//! device's result `q` and checks it exactly, with integer arithmetic on
//! the significands: `q` is the correctly rounded result when the true
//! value lies between the midpoints from `q` to its neighbours (ties, which
//! neither operation can produce on normal operands, go to even). Each of
//! eight unrolled steps moves `q` one ulp towards the true value when it
//! lies outside, so any result within eight ulps (counted on the bits) is
//! corrected: Vulkan's 2.5 ulp for `a / b` is up to five such steps when
//! the quotient lies just above a power of two (the ulps below it are half
//! as large), and `sqrt`, which inherits `inverseSqrt`'s bound through a
//! reciprocal, may be further off. There is no loop (llvmpipe limits the
//! loop iterations of an invocation, see `MAX_ROW_LEN`).
//!
//! Where an operand or the result is zero, subnormal, infinite or NaN, or
//! the result's neighbours would not be normal, the device's result is
//! returned unchanged: the emulations and the device then agree as long as
//! the device follows IEEE-754 there (see the probe). On a correctly
//! rounding device every step leaves `q` as it is, so the helpers change
//! no bits there.

/// The WGSL of `div_rn`, `sqrt_rn` and their helpers; `div_fix(a, b, q)`
/// and `sqrt_fix(x, q)` correct a given result (what the tests perturb).
pub(crate) const EXACT: &str = "// x * y, 64 bits as (low, high).
fn wmul(x: u32, y: u32) -> vec2<u32> {
    let xl = x & 0xffffu; let xh = x >> 16u; let yl = y & 0xffffu; let yh = y >> 16u;
    let ll = xl * yl; let lh = xl * yh; let hl = xh * yl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    return vec2<u32>((ll & 0xffffu) | (mid << 16u), xh * yh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}
// -1, 0 or 1 as a is below, equal to or above b (64 bits each).
fn wcmp(a: vec2<u32>, b: vec2<u32>) -> i32 {
    if (a.y != b.y) { return select(-1, 1, a.y > b.y); }
    if (a.x != b.x) { return select(-1, 1, a.x > b.x); }
    return 0;
}
// x * 2^s as 64 bits, for 1 <= s <= 31.
fn wshl(x: u32, s: u32) -> vec2<u32> { return vec2<u32>(x << s, x >> (32u - s)); }
// The significand with its leading one, 24 bits.
fn sig24(u: u32) -> u32 { return (u & 0x7fffffu) | 0x800000u; }
// The midpoints between the positive normal q (bits u, exponent field e)
// and its neighbours, in units of 2^(e - 152).
fn mid_up(u: u32) -> u32 { return 4u * sig24(u) + 2u; }
fn mid_dn(u: u32) -> u32 { return select(4u * sig24(u) - 2u, 0x1ffffffu, (u & 0x7fffffu) == 0u); }
// One step of the check: u (bits of |q|) moved one ulp towards the true
// value when it lies beyond a midpoint; `cu` and `cd` compare the true
// value with the upper and lower midpoints (-1 below, 0 on, 1 above).
fn step(u: u32, cu: i32, cd: i32) -> u32 {
    let odd = (u & 1u) == 1u;
    if (cu > 0 || (cu == 0 && odd)) { return u + 1u; }
    if (cd < 0 || (cd == 0 && odd)) { return u - 1u; }
    return u;
}
fn normal(u: u32) -> bool { let e = u >> 23u; return e >= 2u && e <= 253u; }
fn div_step(ua: u32, ub: u32, u: u32) -> u32 {
    if (!normal(u)) { return u; }
    let s = i32(ua >> 23u) - i32(ub >> 23u) - i32(u >> 23u) + 152;
    if (s < 1 || s > 31) { return u; }
    let lhs = wshl(sig24(ua), u32(s));
    let b = sig24(ub);
    return step(u, wcmp(lhs, wmul(mid_up(u), b)), wcmp(lhs, wmul(mid_dn(u), b)));
}
fn div_steps4(ua: u32, ub: u32, u: u32) -> u32 {
    return div_step(ua, ub, div_step(ua, ub, div_step(ua, ub, div_step(ua, ub, u))));
}
fn div_fix(a: f32, b: f32, q: f32) -> f32 {
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    let uq = bitcast<u32>(q) & 0x7fffffffu;
    if (!normal(ua) || !normal(ub) || !normal(uq)) { return q; }
    let u = div_steps4(ua, ub, div_steps4(ua, ub, uq));
    return bitcast<f32>(u | ((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u));
}
fn div_rn(a: f32, b: f32) -> f32 { return div_fix(a, b, a / b); }
fn sqrt_step(ux: u32, u: u32) -> u32 {
    if (!normal(u)) { return u; }
    let s = i32(ux >> 23u) - 2 * i32(u >> 23u) + 154;
    if (s < 1 || s > 31) { return u; }
    let lhs = wshl(sig24(ux), u32(s));
    let up = mid_up(u);
    let dn = mid_dn(u);
    return step(u, wcmp(lhs, wmul(up, up)), wcmp(lhs, wmul(dn, dn)));
}
fn sqrt_steps4(ux: u32, u: u32) -> u32 {
    return sqrt_step(ux, sqrt_step(ux, sqrt_step(ux, sqrt_step(ux, u))));
}
fn sqrt_fix(x: f32, q: f32) -> f32 {
    let ux = bitcast<u32>(x);
    let uq = bitcast<u32>(q);
    if (!normal(ux) || !normal(uq)) { return q; }
    return bitcast<f32>(sqrt_steps4(ux, sqrt_steps4(ux, uq)));
}
fn sqrt_rn(x: f32) -> f32 { return sqrt_fix(x, sqrt(x)); }
";
