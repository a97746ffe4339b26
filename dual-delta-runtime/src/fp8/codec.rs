//! Encoding and decoding of the FP8 codes, shared by both formats and
//! described by a [`Spec`].

use crate::numerics::{exp2i, exponent};

/// The layout of an FP8 format: `S.E…E.M…M` with `mantissa_bits` mantissa
/// bits and `7 - mantissa_bits` exponent bits.
///
/// Invariants: the magnitude codes are ordered `0 ..= max` (finite, in
/// increasing order of value), then `inf` if there is one, then NaNs up to
/// `0x7f`; `nan` is a NaN code.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spec {
    /// Explicitly stored mantissa bits.
    pub(super) mantissa_bits: u32,
    /// The exponent bias.
    pub(super) bias: i32,
    /// The magnitude code of the largest finite value.
    pub(super) max: u8,
    /// The magnitude code of `+∞`, if the format has infinities.
    pub(super) inf: Option<u8>,
    /// The NaN the conversions return (with the argument's sign).
    pub(super) nan: u8,
}

/// E4M3 ("E4M3FN"): no infinities, the only NaN magnitude is `0x7f`.
pub(super) const E4M3: Spec = Spec {
    mantissa_bits: 3,
    bias: 7,
    max: 0x7e,
    inf: None,
    nan: 0x7f,
};

/// E5M2: IEEE 754-like, `+∞ = 0x7c`, NaNs `0x7d..=0x7f`.
pub(super) const E5M2: Spec = Spec {
    mantissa_bits: 2,
    bias: 15,
    max: 0x7b,
    inf: Some(0x7c),
    nan: 0x7e,
};

impl Spec {
    pub(super) const fn is_nan(self, code: u8) -> bool {
        let magnitude = code & 0x7f;
        magnitude > self.max
            && match self.inf {
                Some(inf) => magnitude != inf,
                None => true,
            }
    }

    pub(super) const fn is_infinite(self, code: u8) -> bool {
        match self.inf {
            Some(inf) => code & 0x7f == inf,
            None => false,
        }
    }

    /// The exponent of the largest finite value's binade.
    const fn max_exponent(self) -> i32 {
        (self.max >> self.mantissa_bits) as i32 - self.bias
    }
}

/// The code of `x` rounded to nearest, ties to even. Out of range
/// (rounding to beyond the largest finite value) and infinities give
/// `±max` when `saturate`, otherwise `±∞`, or a NaN in a format without
/// infinities. NaNs give `spec.nan` with their sign.
pub(super) fn encode(x: f64, spec: Spec, saturate: bool) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    if x.is_nan() {
        return sign | spec.nan;
    }
    let overflow = sign
        | match (saturate, spec.inf) {
            (true, _) => spec.max,
            (false, Some(inf)) => inf,
            (false, None) => spec.nan,
        };
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let m = spec.mantissa_bits as i32;
    let emin = 1 - spec.bias;
    let e = exponent(a);
    if a.is_infinite() || e > spec.max_exponent() {
        return overflow;
    }
    let e = e.max(emin);
    // `a` in units of the spacing at exponent `e`: exact (a power of two
    // scaling well inside f64's range), below 2^(m+1).
    let n = (a * exp2i(m - e)).round_ties_even() as u32;
    // n < 2^m only for e = emin: a subnormal (or zero) code. n = 2^(m+1)
    // carries into the exponent field, which the addition does.
    let code = (((e - emin) as u32) << m) + n;
    if code > u32::from(spec.max) {
        overflow
    } else {
        sign | code as u8
    }
}

/// The `f32` bits of the value of `code`: exact, every FP8 value being an
/// `f32` value.
const fn f32_bits(code: u8, spec: Spec) -> u32 {
    let sign = ((code >> 7) as u32) << 31;
    let magnitude = code & 0x7f;
    if spec.is_nan(code) {
        return sign | 0x7fc0_0000;
    }
    if spec.is_infinite(code) {
        return sign | 0x7f80_0000;
    }
    let m = spec.mantissa_bits;
    let field = (magnitude >> m) as i32;
    let mantissa = (magnitude & ((1 << m) - 1)) as u32;
    if field != 0 {
        let e = field - spec.bias;
        return sign | (((e + 127) as u32) << 23) | (mantissa << (23 - m));
    }
    if mantissa == 0 {
        return sign;
    }
    // Subnormal: mantissa × 2^(1 - bias - m), normalised for f32.
    let lead = 31 - mantissa.leading_zeros();
    let e = 1 - spec.bias - m as i32 + lead as i32;
    let fraction = (mantissa ^ (1 << lead)) << (23 - lead);
    sign | (((e + 127) as u32) << 23) | fraction
}

/// The values of all 256 codes, indexed by code.
pub(super) const fn table(spec: Spec) -> [f32; 256] {
    let mut values = [0.0f32; 256];
    let mut code = 0;
    while code < 256 {
        values[code] = f32::from_bits(f32_bits(code as u8, spec));
        code += 1;
    }
    values
}
