//! WGSL shared by every kernel family: rounding to `f16` and `bf16` on the
//! bits, correctly rounded division and square root, and the source
//! transformations that imitate what a driver may do to a kernel
//! ([`SourceTransform`]).
//!
//! Invariant of every generated kernel: no rounding is written as a
//! conversion round trip (`f32(f16(v))`, or
//! `unpack2x16float(pack2x16float(..))`): NVIDIA's Vulkan driver removes
//! both (measured on an H100), while it keeps genuine `f16` arithmetic and
//! stores. A kernel rounds an `f32` to `f16` with [`ROUND16`], integer
//! operations on the bits that no driver may change; conversions remain
//! only where a value is stored to or loaded from `f16` memory.

mod contract;
mod exact;
mod loose;
mod reassoc;
#[cfg(test)]
mod running;
mod sites;
mod strip;
mod text;
mod transform;

pub(crate) use self::exact::EXACT;
#[cfg(test)]
pub(crate) use self::strip::strip_round_trips;
pub use self::transform::SourceTransform;

/// `round16(v)`: the `f16` nearest to `v` (ties to even; beyond 65504
/// infinity; `f16` subnormals as multiples of `2⁻²⁴`; NaN and infinities
/// unchanged), as an `f32`: what `f32(f16(v))` gives on a device that
/// keeps the round trip, computed with integer operations on the bits (and
/// one exact multiplication by `2⁻²⁴`). llvmpipe also runs it faster than
/// its own conversion (a longer software sequence): the `f16`-accumulating
/// matmul takes 26 ms at `128×4096×128` instead of 39 ms (AVX2 path).
pub(crate) const ROUND16: &str = "fn round16(v: f32) -> f32 {
    let u = bitcast<u32>(v);
    let a = u & 0x7fffffffu;
    // Normal f16 results: drop 13 fraction bits, ties to even (a carry into
    // the exponent is the right result); past 65504, infinity.
    let rn = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
    let normal = select(rn, 0x7f800000u, rn > 0x477fe000u);
    // Subnormal f16 results (below 2^-14): multiples of 2^-24, ties to even.
    let e = a >> 23u;
    let d = min(126u - min(e, 112u), 25u);
    let m = (a & 0x7fffffu) | 0x800000u;
    let q = (m + (1u << (d - 1u)) - 1u + ((m >> d) & 1u)) >> d;
    let sub = bitcast<u32>(f32(q) * 5.9604644775390625e-8);
    let r = select(normal, sub, e < 113u) | (u & 0x80000000u);
    return select(bitcast<f32>(r), v, a >= 0x7f800000u);
}
";

/// The bit barriers `unfused(x)` and `pinned(x)`: `x` itself, its bits
/// ORed with `zero` (a uniform that is always 0, so a value the compiler
/// cannot see): `bitcast<f32>(bitcast<u32>(x) | zero)`. No compiler can see
/// through it, so `x` is rounded where it is written whatever the driver
/// may do to floating-point arithmetic:
///
/// * `unfused(a * b)` is a product rounded on its own even where a driver
///   contracts `a * b + c` into a fused multiply-add (SPIR-V allows it,
///   and naga emits no `NoContraction`), or reassociates first (WGSL
///   allows it): a multiplication by a uniform 1, as `unfused` was once
///   written, keeps neither from fusing, since `(a * b) * one + c` may
///   become `fma(a, b * one, c)`. Where the kernels add an inexact product
///   (the `exp` polynomial, the variance of LayerNorm, the rescaled sums
///   of softmax and attention), they write it this way.
/// * `pinned(a + b) + c` (and `pinned(a * b) * c`) keeps the order written
///   where a driver may reassociate it into `a + (b + c)`: the kernels
///   write it where their result depends on that order (Cody–Waite's
///   reduction in `exp`, the merges of Welford's statistics and of the
///   online softmax).
///
/// So the kernels give the same bits as their emulations on every driver.
pub(crate) fn barriers(zero: &str) -> String {
    format!(
        "fn unfused(x: f32) -> f32 {{ return bitcast<f32>(bitcast<u32>(x) | {zero}); }}
fn pinned(x: f32) -> f32 {{ return bitcast<f32>(bitcast<u32>(x) | {zero}); }}\n"
    )
}

/// `rbf(v)`: the `bf16` nearest to `v` (ties to even; NaN stays a quiet
/// NaN), as its 16 bits, and `roundbf16(v)`: that value as an `f32`. Both
/// are integer operations on the bits.
pub(crate) const ROUND_BF16: &str = "fn rbf(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    if ((x & 0x7fffffffu) > 0x7f800000u) { return (x >> 16u) | 0x40u; }
    var r = x >> 16u;
    if ((x & 0x8000u) != 0u && (x & 0x17fffu) != 0u) { r = r + 1u; }
    return r;
}
fn roundbf16(v: f32) -> f32 { return bitcast<f32>(rbf(v) << 16u); }
";

#[cfg(test)]
mod loose_tests;
#[cfg(test)]
mod reassoc_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod transform_tests;
