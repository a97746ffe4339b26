//! Exhaustive checks of both formats against their definitions.

use super::*;

/// A format's definition, independent of the implementation.
struct Definition {
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    /// Whether `S.11111.00` is `±∞` and the exponent field of all ones
    /// holds only specials (IEEE 754-like); otherwise only `S.1…1.1…1` is
    /// special (a NaN).
    ieee_specials: bool,
}

const E4M3_DEF: Definition = Definition {
    exponent_bits: 4,
    mantissa_bits: 3,
    bias: 7,
    ieee_specials: false,
};

const E5M2_DEF: Definition = Definition {
    exponent_bits: 5,
    mantissa_bits: 2,
    bias: 15,
    ieee_specials: true,
};

impl Definition {
    /// The value of `code` by the format's definition.
    fn value(&self, code: u8) -> f64 {
        let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
        let m = self.mantissa_bits;
        let field = i32::from((code & 0x7f) >> m);
        let mantissa = f64::from(code & ((1 << m) - 1));
        let all_ones = (1 << self.exponent_bits) - 1;
        if field == all_ones {
            if self.ieee_specials {
                return if mantissa == 0.0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            if mantissa == f64::from((1u32 << m) - 1) {
                return f64::NAN;
            }
        }
        let scale = 2f64.powi(m as i32);
        if field == 0 {
            sign * (mantissa / scale) * 2f64.powi(1 - self.bias)
        } else {
            sign * (1.0 + mantissa / scale) * 2f64.powi(field - self.bias)
        }
    }
}

/// Declares `Fp8`, both formats through one interface for generic checks,
/// and implements it for each format by forwarding every method listed to
/// the format's inherent method of that name.
macro_rules! fp8 {
    (
        formats { $($t:ident = $def:ident),* }
        constructors $constructors:tt
        methods $methods:tt
    ) => {
        fp8!(@trait $constructors, $methods);
        $(fp8!(@impl $t = $def, $constructors, $methods);)*
    };
    (@trait
        { $(fn $make:ident($x:ident: $arg:ty);)* },
        { $(fn $get:ident(self) -> $ret:ty;)* }
    ) => {
        trait Fp8: Copy + PartialEq + core::fmt::Debug {
            const DEF: Definition;
            $(fn $make($x: $arg) -> Self;)*
            $(fn $get(self) -> $ret;)*
        }
    };
    (@impl $t:ident = $def:ident,
        { $(fn $make:ident($x:ident: $arg:ty);)* },
        { $(fn $get:ident(self) -> $ret:ty;)* }
    ) => {
        impl Fp8 for $t {
            const DEF: Definition = $def;
            $(fn $make($x: $arg) -> Self {
                $t::$make($x)
            })*
            $(fn $get(self) -> $ret {
                $t::$get(self)
            })*
        }
    };
}

fp8! {
    formats { E4m3 = E4M3_DEF, E5m2 = E5M2_DEF }
    constructors {
        fn from_bits(bits: u8);
        fn from_f64(x: f64);
        fn from_f64_saturating(x: f64);
        fn from_f32(x: f32);
    }
    methods {
        fn to_bits(self) -> u8;
        fn to_f64(self) -> f64;
        fn to_f32(self) -> f32;
        fn is_nan(self) -> bool;
        fn is_infinite(self) -> bool;
        fn is_finite(self) -> bool;
    }
}

fn codes() -> impl Iterator<Item = u8> {
    0..=u8::MAX
}

/// Every code decodes to its defined value (bit for bit, signed zeros
/// included), and the predicates agree; returns (NaNs, infinities).
fn check_decoding<F: Fp8>() -> (usize, usize) {
    let (mut nans, mut infs) = (0, 0);
    for code in codes() {
        let x = F::from_bits(code);
        let want = F::DEF.value(code);
        assert_eq!(x.to_bits(), code);
        assert_eq!(x.is_nan(), want.is_nan(), "{code:#04x}");
        assert_eq!(x.is_infinite(), want.is_infinite(), "{code:#04x}");
        assert_eq!(x.is_finite(), want.is_finite(), "{code:#04x}");
        if want.is_nan() {
            nans += 1;
            assert!(x.to_f64().is_nan() && x.to_f32().is_nan(), "{code:#04x}");
            assert_ne!(x, F::from_bits(code), "a NaN equals nothing");
            continue;
        }
        infs += usize::from(want.is_infinite());
        assert_eq!(x.to_f64().to_bits(), want.to_bits(), "{code:#04x}: {x:?}");
        assert_eq!(f64::from(x.to_f32()).to_bits(), want.to_bits());
    }
    (nans, infs)
}

#[test]
fn every_code_decodes_to_its_definition() {
    assert_eq!(check_decoding::<E4m3>(), (2, 0));
    assert_eq!(check_decoding::<E5m2>(), (6, 2));
}

/// Every value but NaN encodes back to its code, by both conversions and
/// from `f32`; infinities saturate to `±MAX`.
fn check_round_trips<F: Fp8>(max: u8) {
    for code in codes().filter(|&c| !F::from_bits(c).is_nan()) {
        let v = F::from_bits(code).to_f64();
        assert_eq!(F::from_f64(v).to_bits(), code, "{code:#04x} = {v}");
        assert_eq!(F::from_f32(v as f32).to_bits(), code, "{code:#04x} = {v}");
        let saturated = if v.is_infinite() {
            (code & 0x80) | max
        } else {
            code
        };
        assert_eq!(F::from_f64_saturating(v).to_bits(), saturated, "{v}");
    }
}

#[test]
fn every_value_encodes_to_its_code() {
    check_round_trips::<E4m3>(0x7e);
    check_round_trips::<E5m2>(0x7b);
}

/// Between consecutive finite values, the midpoint rounds to the one with
/// an even code and anything off it to the nearer one, for both signs.
fn check_midpoints<F: Fp8>(max: u8) {
    for low in 0..max {
        let (a, b) = (F::from_bits(low).to_f64(), F::from_bits(low + 1).to_f64());
        let mid = (a + b) / 2.0;
        let even = if low % 2 == 0 { low } else { low + 1 };
        for (sign, s) in [(0u8, 1.0), (0x80, -1.0)] {
            let got = |x: f64| F::from_f64(s * x).to_bits();
            assert_eq!(got(mid), sign | even, "midpoint {mid} of {a} and {b}");
            assert_eq!(got(mid.next_down()), sign | low, "below {mid}");
            assert_eq!(got(mid.next_up()), sign | (low + 1), "above {mid}");
            assert_eq!(F::from_f64_saturating(s * mid).to_bits(), sign | even);
        }
    }
}

#[test]
fn midpoints_round_to_even() {
    check_midpoints::<E4m3>(0x7e);
    check_midpoints::<E5m2>(0x7b);
}

#[test]
fn e4m3_out_of_range_is_nan_or_saturates() {
    // 464 is the midpoint of 448 (…110) and the missing 480 (…111): to even.
    assert_eq!(E4m3::from_f64(464.0), E4m3::MAX);
    for x in [464f64.next_up(), 480.0, 1e6, f64::MAX, f64::INFINITY] {
        for s in [1.0, -1.0] {
            let plain = E4m3::from_f64(s * x);
            assert!(plain.is_nan(), "{x}");
            assert_eq!(plain.is_sign_negative(), s < 0.0);
            assert_eq!(E4m3::from_f64_saturating(s * x).to_f64(), s * 448.0);
        }
    }
    assert!(E4m3::from_f64(f64::NAN).is_nan());
    assert!(E4m3::from_f64_saturating(f64::NAN).is_nan());
    assert_eq!(E4m3::from_f32(1e30).to_bits(), 0x7f);
}

#[test]
fn e5m2_out_of_range_is_infinite_or_saturates() {
    // 61440 is the midpoint of 57344 (…11) and 2^16 (…00 of the next
    // binade, the infinity): to even, so to infinity as in IEEE 754.
    assert_eq!(E5m2::from_f64(61440f64.next_down()), E5m2::MAX);
    for x in [61440.0, 65536.0, 1e300, f64::INFINITY] {
        assert_eq!(E5m2::from_f64(x).to_bits(), 0x7c, "{x}");
        assert_eq!(E5m2::from_f64(-x).to_bits(), 0xfc, "{x}");
        assert_eq!(E5m2::from_f64_saturating(x), E5m2::MAX);
        assert_eq!(E5m2::from_f64_saturating(-x), E5m2::MIN);
    }
    assert!(E5m2::from_f64(f64::NAN).is_nan());
    assert!(E5m2::from_f64_saturating(-f64::NAN).is_nan());
    assert_eq!(E5m2::INFINITY.to_f64(), f64::INFINITY);
    assert_eq!(E5m2::NEG_INFINITY.to_f64(), f64::NEG_INFINITY);
}

#[test]
fn underflow_keeps_the_sign() {
    let half_min = 2f64.powi(-10);
    assert_eq!(E4m3::from_f64(half_min).to_bits(), 0x00); // a tie, to even
    assert_eq!(E4m3::from_f64(-half_min).to_bits(), 0x80);
    assert_eq!(E4m3::from_f64(half_min.next_up()).to_bits(), 0x01);
    assert_eq!(E4m3::from_f64(-f64::from_bits(1)).to_bits(), 0x80);
    assert_eq!(E5m2::from_f64(-1e-30).to_bits(), 0x80);
    assert_eq!(E5m2::from_f64(1.5 * 2f64.powi(-17)).to_bits(), 0x01);
    assert_eq!(E5m2::from_f64(3.0 * 2f64.powi(-17)).to_bits(), 0x02); // tie, to even
}

#[test]
fn constants_have_their_values() {
    assert_eq!(E4m3::MAX.to_f64(), 448.0);
    assert_eq!(E4m3::MIN.to_f64(), -448.0);
    assert_eq!(E4m3::MIN_POSITIVE.to_f64(), 2f64.powi(-6));
    assert_eq!(E4m3::MIN_POSITIVE_SUBNORMAL.to_f64(), 2f64.powi(-9));
    assert_eq!(E4m3::ONE.to_f64(), 1.0);
    assert_eq!(E4m3::NEG_ONE.to_f64(), -1.0);
    assert!(E4m3::NAN.is_nan());
    assert_eq!(E5m2::MAX.to_f64(), 57344.0);
    assert_eq!(E5m2::MIN.to_f64(), -57344.0);
    assert_eq!(E5m2::MIN_POSITIVE.to_f64(), 2f64.powi(-14));
    assert_eq!(E5m2::MIN_POSITIVE_SUBNORMAL.to_f64(), 2f64.powi(-16));
    assert_eq!(E5m2::ONE.to_f64(), 1.0);
    assert!(E5m2::NAN.is_nan());
    assert_eq!((E4m3::MANTISSA_BITS, E4m3::EXPONENT_BIAS), (3, 7));
    assert_eq!((E5m2::MANTISSA_BITS, E5m2::EXPONENT_BIAS), (2, 15));
}

#[test]
fn equality_and_order_are_those_of_the_values() {
    assert_eq!(E4m3::ZERO, E4m3::NEG_ZERO);
    assert_ne!(E5m2::NAN, E5m2::NAN);
    assert!(E4m3::ONE > E4m3::ZERO && E4m3::MIN < E4m3::NEG_ONE);
    assert!(E5m2::NEG_INFINITY < E5m2::MIN);
    assert_eq!((-E4m3::ONE).to_bits(), E4m3::NEG_ONE.to_bits());
    assert_eq!(f32::from(E5m2::MAX), 57344.0);
    assert_eq!(format!("{:?} {}", E4m3::ONE, E4m3::MAX), "1.0 448");
    assert_eq!(E4m3::default().to_bits(), 0);
}
