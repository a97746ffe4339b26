//! The probe's layout: the input and output words (`I_*`, `O_*`, `H_*`),
//! the operands of its scalar probes, what it measures
//! ([`Measurements`]), and the input words themselves ([`inputs`]).

use half::f16;

use crate::semantics::facts::{Exactness, SubgroupSizes};

/// Invocations of the probe's one workgroup.
pub(super) const THREADS: u32 = 64;
/// Operands of the division and square-root probes: random, and one in
/// four just above a power of two (see `inputs`).
pub(super) const SAMPLES: usize = 1024;
/// Additions of one in the loops (the `f16` sum stops at 2048).
pub(super) const LOOP: u32 = 4096;

// Input words: scalars first, then the random operands.
pub(super) const I_ONE: usize = 0;
pub(super) const I_N: usize = 1;
pub(super) const I_A: usize = 2;
pub(super) const I_B: usize = 3;
pub(super) const I_C: usize = 4;
pub(super) const I_SUB: usize = 5;
pub(super) const I_TINY: usize = 6;
pub(super) const I_HALF: usize = 7;
pub(super) const I_ZERO: usize = 8;
pub(super) const I_NAN: usize = 9;
pub(super) const I_INF: usize = 10;
pub(super) const I_BIG: usize = 11;
pub(super) const I_TWO: usize = 12;
pub(super) const I_THOUSAND: usize = 13;
pub(super) const I_ONCE: usize = 14;
pub(super) const I_H_SUB_F32: usize = 15;
pub(super) const I_H_SUB_BITS: usize = 16;
pub(super) const I_HA: usize = 17;
pub(super) const I_HC: usize = 18;
pub(super) const I_INF2: usize = 19;
pub(super) const I_CONV: usize = 32;
pub(super) const I_DIV: usize = I_CONV + CONVERSION_CASES.len();
pub(super) const I_SQRT: usize = I_DIV + 2 * SAMPLES;
pub(super) const INPUTS: usize = I_SQRT + SAMPLES;

// Output words.
pub(super) const O_PACKED_LOOP: usize = 0;
pub(super) const O_PACKED_ONCE: usize = 1;
pub(super) const O_FMA: usize = 2;
pub(super) const O_CONTRACT: usize = 3;
pub(super) const O_CONTRACT_LET: usize = 4;
pub(super) const O_SUB: usize = 5; // three: 2^-130 · 1, 2^-130 + 0, 2^-126 · ½
pub(super) const O_H_SUB_PACKED: usize = 8; // two: pack2x16float, unpack2x16float
pub(super) const O_NAN: usize = 10; // four: max(NaN, 1), max(1, NaN), min(NaN, 1), min(1, NaN)
pub(super) const O_INF: usize = 14; // ten, see `infinities_pass`
pub(super) const O_H_LOOP: usize = 24;
pub(super) const O_H_TRIP_LOOP: usize = 25;
pub(super) const O_H_TRIP_ONCE: usize = 26;
pub(super) const O_CONV_PACKED: usize = 32;
pub(super) const O_DIV: usize = O_CONV_PACKED + CONVERSION_CASES.len();
pub(super) const O_SQRT: usize = O_DIV + SAMPLES;
pub(super) const O_SUBGROUP: usize = O_SQRT + SAMPLES;
pub(super) const OUTPUTS: usize = O_SUBGROUP + THREADS as usize;

// `f16` output elements (a second output, `array<f16>`, so that every
// `f32 → f16` conversion is a store the driver must carry out).
pub(super) const H_FMA: usize = 0;
pub(super) const H_SUB: usize = 1; // two: arithmetic, f16(x)
pub(super) const H_CONV: usize = 3;
pub(super) const H_OUTPUTS: usize = H_CONV + CONVERSION_CASES.len();

// The slots do not overlap.
const _: () = assert!(I_INF2 < I_CONV && O_INF + 10 <= O_H_LOOP && O_H_TRIP_ONCE < O_CONV_PACKED);

/// `1 + 2⁻¹²`: its product with itself is `1 + 2⁻¹¹ + 2⁻²⁴`, a tie in
/// `f32` that rounds to `1 + 2⁻¹¹`; fused with `c = −(1 + 2⁻¹¹)` it leaves
/// `2⁻²⁴`, unfused `0`.
pub(super) const FMA_A: f32 = 1.0 + 1.0 / 4096.0;
/// See [`FMA_A`].
pub(super) const FMA_C: f32 = -(1.0 + 1.0 / 2048.0);
/// `1 + 2⁻⁶` in `f16`: squared `1 + 2⁻⁵ + 2⁻¹²`, which rounds to
/// `1 + 2⁻⁵`; fused with `−(1 + 2⁻⁵)` it leaves `2⁻¹²`.
pub(super) const FMA_HA: f32 = 1.0 + 1.0 / 64.0;
/// See [`FMA_HA`].
pub(super) const FMA_HC: f32 = -(1.0 + 1.0 / 32.0);

/// `f32 → f16` conversion probes: ties (to even, both signs), values just
/// off ties, the largest finite `f16`, overflow, subnormal ties and
/// values that round to zero.
pub(super) const CONVERSION_CASES: [f32; 16] = [
    1.0 + 1.0 / 2048.0,
    1.0 + 3.0 / 2048.0,
    -(1.0 + 1.0 / 2048.0),
    -(1.0 + 3.0 / 2048.0),
    1.0 + 1.0 / 2048.0 + 1.0 / 1048576.0,
    1.0 + 1.0 / 2048.0 - 1.0 / 1048576.0,
    0.1,
    -3.3,
    65504.0,
    65519.0,
    65520.0,
    -70000.0,
    2.980_232_2e-8, // 2^-25: a tie between 0 and 2^-24
    8.940_697e-8,   // 3 · 2^-25: a tie between 2^-24 and 2^-23
    1.0e-8,
    6.0e-5,
];

/// What the probe shader wrote, decoded; `DeviceSemantics` interprets it.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::semantics) struct Measurements {
    pub(in crate::semantics) packed_loop: f32,
    pub(in crate::semantics) packed_once: f32,
    pub(in crate::semantics) fma_fused: bool,
    pub(in crate::semantics) contracted: bool,
    /// Per probe: whether the subnormal survived.
    pub(in crate::semantics) f32_subnormals: [bool; 3],
    pub(in crate::semantics) f16_subnormals_packed: [bool; 2],
    /// Per order and function: whether the result is NaN (`None`: neither
    /// NaN nor the number).
    pub(in crate::semantics) nan_max_min: [Option<bool>; 4],
    pub(in crate::semantics) infinities_pass: bool,
    pub(in crate::semantics) exp_keeps_nan: bool,
    pub(in crate::semantics) conversion_differing: usize,
    pub(in crate::semantics) conversion_of: usize,
    pub(in crate::semantics) division: Exactness,
    pub(in crate::semantics) sqrt: Exactness,
    pub(in crate::semantics) subgroups: Option<SubgroupSizes>,
    pub(in crate::semantics) f16: Option<F16Measurements>,
}

/// The probes that need native `f16`.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::semantics) struct F16Measurements {
    pub(in crate::semantics) loop_sum: f32,
    pub(in crate::semantics) round_trip_loop: f32,
    pub(in crate::semantics) round_trip_once: f32,
    pub(in crate::semantics) fma_fused: bool,
    /// `2⁻²⁰ · 1` in `f16`, and `f16(2⁻²⁰)`.
    pub(in crate::semantics) subnormals: [bool; 2],
}

/// A small deterministic generator for the random operands (xorshift64*).
struct Operands(u64);

impl Operands {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A positive normal `f32` with a random significand and an exponent
    /// in `-span..=span`.
    fn normal(&mut self, span: i32) -> f32 {
        let r = self.next();
        let exp = (r >> 40) as i32 % (2 * span + 1) - span;
        f32::from_bits((((exp + 127) as u32) << 23) | (r as u32 & 0x7f_ffff))
    }
}

/// The input words.
pub(super) fn inputs() -> Vec<u32> {
    let mut w = vec![0u32; INPUTS];
    let scalars: [(usize, f32); 18] = [
        (I_ONE, 1.0),
        (I_A, FMA_A),
        (I_B, FMA_A),
        (I_C, FMA_C),
        (I_SUB, f32::from_bits(0x0008_0000)), // 2^-130
        (I_TINY, f32::MIN_POSITIVE),          // 2^-126
        (I_HALF, 0.5),
        (I_ZERO, 0.0),
        (I_NAN, f32::NAN),
        (I_INF, f32::INFINITY),
        (I_INF2, f32::INFINITY),
        (I_BIG, 3.0e38),
        (I_TWO, 2.0),
        (I_THOUSAND, 1000.0),
        (I_ONCE, 1.0 + 1.0 / 4096.0),
        (I_H_SUB_F32, f16::from_bits(0x0010).to_f32()), // 2^-20
        (I_HA, FMA_HA),
        (I_HC, FMA_HC),
    ];
    for (i, v) in scalars {
        w[i] = v.to_bits();
    }
    w[I_N] = LOOP;
    w[I_H_SUB_BITS] = 0x0010; // the f16 2^-20, in the low half
    for (i, v) in CONVERSION_CASES.iter().enumerate() {
        w[I_CONV + i] = v.to_bits();
    }
    let mut rng = Operands(0x9e37_79b9_7f4a_7c15);
    for i in 0..SAMPLES {
        let b = rng.normal(20);
        let sqrt = rng.normal(60);
        // One operand in four gives a quotient (a root) just above a power
        // of two, where the ulps below are half as large: a device's error
        // bound in ulps of the result is twice as many steps there.
        let (a, sqrt) = if i % 4 == 0 {
            let nudge = (i / 4 % 3) as u32 + 1;
            let power = f32::from_bits(((127 + (i / 4 % 9) as i32 - 4) as u32) << 23);
            // An even power of two (odd exponent field): its root is one.
            let even = f32::from_bits(sqrt.to_bits() & 0xff00_0000 | 0x0080_0000);
            (
                f32::from_bits((b * power).to_bits() + nudge),
                f32::from_bits(even.to_bits() + nudge),
            )
        } else {
            (rng.normal(20), sqrt)
        };
        w[I_DIV + 2 * i] = a.to_bits();
        w[I_DIV + 2 * i + 1] = b.to_bits();
        w[I_SQRT + i] = sqrt.to_bits();
    }
    w
}
