//! What a device does to floating-point arithmetic, measured once per
//! [`Gpu`](crate::Gpu) by small probe shaders whose inputs come from a
//! storage buffer (so that the shader compiler cannot fold them):
//! [`DeviceSemantics`].
//!
//! The CPU emulations of the kernels assume IEEE-754 `f32` arithmetic with
//! every operation rounded to nearest even, subnormals kept, no
//! contraction of `a·b + c`, and `f32 → f16` conversions rounded to nearest
//! even. The kernels never rely on a conversion round trip
//! (`f32(f16(v))`) to round: they round on the bits. The probe says which
//! of these hold on the device, and [`DeviceSemantics::caveats`] says in
//! words what a difference means for a verdict.
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example probe
//! ```

mod probe;

use core::fmt;

/// The distance, in `f32` ulps counted on the bits (one step between
/// neighbouring values), from which the kernels correct the device's
/// division and square root to the correctly rounded result (`div_rn`,
/// `sqrt_rn` in their WGSL): Vulkan's 2.5 ulp for division is up to five
/// such steps when the quotient lies just above a power of two, which the
/// probe's operands include.
pub const CORRECTED_ULPS: u32 = 8;

use self::probe::Measurements;
use crate::GpuError;
use crate::wgsl::SourceTransform;

/// How a device runs genuine `f16` arithmetic (`f16 + f16` in a shader
/// with `enable f16;`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum F16Arithmetic {
    /// Every operation is rounded to `f16`: 4096 additions of `1.0h` give
    /// `2048`.
    RoundsEachOp,
    /// Intermediate values are carried wider (4096 additions of `1.0h` give
    /// `4096`).
    CarriedWider,
    /// Neither: the loop gave this value.
    Other(f32),
}

/// Whether a conversion round trip (`f32(f16(v))`, or
/// `unpack2x16float(pack2x16float(v))`) still rounds `v` to `f16` once
/// the driver has compiled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundTrip {
    /// It rounds: 4096 additions of `1.0` rounded this way give `2048`.
    Kept,
    /// The driver removed it: the value is not rounded at all.
    Removed,
    /// Kept in one probe, removed in the other.
    Inconsistent,
}

/// Whether `fma(a, b, c)` (or a contracted `a·b + c`) rounds once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fusion {
    /// One rounding.
    Fused,
    /// Two roundings: the product, then the sum.
    NotFused,
}

/// What the device does to subnormal values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Subnormals {
    /// Kept, as IEEE-754 says (every probe).
    Kept,
    /// Flushed to zero (every probe).
    Flushed,
    /// Kept by some probes and flushed by others.
    PartlyFlushed,
}

/// How `f32 → f16` conversions round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionRounding {
    /// To nearest, ties to even, overflowing to infinity: every probe value
    /// as `half` rounds it on the CPU.
    NearestEven,
    /// Otherwise: `differing` of the `of` probe values convert to other
    /// bits.
    Other {
        /// Probe values converted to other bits than nearest-even's.
        differing: usize,
        /// Probe values.
        of: usize,
    },
}

/// How close an `f32` operation (division, square root) is to the
/// correctly rounded result, over the probe's random operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exactness {
    /// Every result is the correctly rounded one.
    CorrectlyRounded,
    /// `differing` of `of` results are not; the farthest is `max_ulps`
    /// units in the last place away.
    Approximate {
        /// Results that are not correctly rounded.
        differing: usize,
        /// Operands probed.
        of: usize,
        /// The largest distance, in `f32` units in the last place.
        max_ulps: u32,
    },
}

/// What `max` and `min` return when one operand is NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanInMaxMin {
    /// The other operand (as Rust's `f32::max` does), either order.
    Number,
    /// NaN, either order.
    Nan,
    /// Depends on the order or the function.
    Mixed,
}

/// The subgroup sizes of the adapter, as reported and as seen by a
/// workgroup of 64 invocations.
///
/// Invariant: `min ≤ max`, both powers of two, and `measured` (when
/// present) within `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubgroupSizes {
    min: u32,
    max: u32,
    measured: Option<u32>,
}

impl SubgroupSizes {
    /// The sizes, or `None` when they break the invariant.
    pub(crate) fn new(min: u32, max: u32, measured: Option<u32>) -> Option<Self> {
        let valid = min.is_power_of_two()
            && max.is_power_of_two()
            && min <= max
            && measured.is_none_or(|m| (min..=max).contains(&m));
        valid.then_some(SubgroupSizes { min, max, measured })
    }

    /// The smallest subgroup the adapter reports.
    pub fn min(&self) -> u32 {
        self.min
    }

    /// The largest subgroup the adapter reports.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// The `subgroup_size` a workgroup of 64 invocations saw (`None` where
    /// the device has no subgroup operations).
    pub fn measured(&self) -> Option<u32> {
        self.measured
    }
}

/// What one device does to floating-point arithmetic, from the probe run
/// when its [`Gpu`](crate::Gpu) is created ([`Gpu::semantics`](crate::Gpu::semantics)).
///
/// Built only from a probe's measurements; the `f16` facts are `None`
/// exactly where the device has no native `f16` (`SHADER_F16`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceSemantics {
    f16_arithmetic: Option<F16Arithmetic>,
    round_trip_f16: Option<RoundTrip>,
    round_trip_packed: RoundTrip,
    fma: Fusion,
    fma_f16: Option<Fusion>,
    contraction: bool,
    f32_subnormals: Subnormals,
    f16_subnormals: Subnormals,
    conversion: ConversionRounding,
    division: Exactness,
    sqrt: Exactness,
    subgroups: Option<SubgroupSizes>,
    nan_in_max_min: NanInMaxMin,
    infinities_pass: bool,
    exp_keeps_nan: bool,
}

impl DeviceSemantics {
    /// Runs the probe on `device`, any wgpu device with its queue (one made
    /// by [`Gpu::new`](crate::Gpu::new) or by its user): the `f16` probes
    /// where the device has `SHADER_F16`, the subgroup probe where it has
    /// `SUBGROUP`. It compiles one small shader and runs one workgroup,
    /// and changes nothing else on the device.
    ///
    /// ```no_run
    /// # fn probe(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), dual_delta_gpu::GpuError> {
    /// let semantics = dual_delta_gpu::semantics::DeviceSemantics::probe(device, queue)?;
    /// println!("{semantics}");
    /// for caveat in semantics.caveats() {
    ///     println!("caveat: {caveat}");
    /// }
    /// # Ok(()) }
    /// ```
    pub fn probe(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, GpuError> {
        Self::probe_compiled(device, queue, SourceTransform::AS_WRITTEN)
    }

    /// [`DeviceSemantics::probe`], with the probe's shader compiled after
    /// `transform`, as every kernel of a [`Gpu`](crate::Gpu) is.
    pub(crate) fn probe_compiled(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        transform: SourceTransform,
    ) -> Result<Self, GpuError> {
        let features = device.features();
        let info = device.adapter_info();
        self::probe::probe(
            device,
            queue,
            transform,
            features.contains(wgpu::Features::SHADER_F16),
            features
                .contains(wgpu::Features::SUBGROUP)
                .then_some((info.subgroup_min_size, info.subgroup_max_size)),
        )
    }

    /// Genuine `f16` arithmetic (`None`: no native `f16` on this device).
    pub fn f16_arithmetic(&self) -> Option<F16Arithmetic> {
        self.f16_arithmetic
    }

    /// Whether `f32(f16(v))` rounds (`None`: no native `f16`).
    pub fn round_trip_f16(&self) -> Option<RoundTrip> {
        self.round_trip_f16
    }

    /// Whether `unpack2x16float(pack2x16float(v))` rounds.
    pub fn round_trip_packed(&self) -> RoundTrip {
        self.round_trip_packed
    }

    /// Whether `fma(a, b, c)` on `f32` rounds once.
    pub fn fma(&self) -> Fusion {
        self.fma
    }

    /// Whether `fma(a, b, c)` on `f16` rounds once (`None`: no native
    /// `f16`).
    pub fn fma_f16(&self) -> Option<Fusion> {
        self.fma_f16
    }

    /// Whether `a * b + c` on `f32` (as one expression, or through a
    /// `let`) is contracted into one rounding.
    pub fn contraction(&self) -> bool {
        self.contraction
    }

    /// `f32` subnormals (`2⁻¹³⁰ · 1`, `2⁻¹³⁰ + 0`, `2⁻¹²⁶ · ½`).
    pub fn f32_subnormals(&self) -> Subnormals {
        self.f32_subnormals
    }

    /// `f16` subnormals, through arithmetic (native `f16` only) and
    /// conversions.
    pub fn f16_subnormals(&self) -> Subnormals {
        self.f16_subnormals
    }

    /// The rounding of `f32 → f16` conversions (`f16(v)` and
    /// `pack2x16float`).
    pub fn conversion(&self) -> ConversionRounding {
        self.conversion
    }

    /// `f32` division `a / b` on random normal operands, a quarter of them
    /// with quotients just above a power of two.
    pub fn division(&self) -> Exactness {
        self.division
    }

    /// `f32` `sqrt` on random positive normal operands, a quarter of them
    /// with roots just above a power of two.
    pub fn sqrt(&self) -> Exactness {
        self.sqrt
    }

    /// The subgroup sizes (`None`: no subgroup operations).
    pub fn subgroups(&self) -> Option<SubgroupSizes> {
        self.subgroups
    }

    /// What `max`/`min` return with a NaN operand.
    pub fn nan_in_max_min(&self) -> NanInMaxMin {
        self.nan_in_max_min
    }

    /// Whether infinities pass through `max`, `min`, `exp` and arithmetic
    /// (`exp(1000) = ∞`, `exp(−∞) = 0`, `1/0 = ∞`, `3·10³⁸ · 2 = ∞`,
    /// `∞ − ∞` is NaN).
    pub fn infinities_pass(&self) -> bool {
        self.infinities_pass
    }

    /// Whether `exp(NaN)` is NaN.
    pub fn exp_keeps_nan(&self) -> bool {
        self.exp_keeps_nan
    }

    /// Whether every assumption the kernels' CPU emulations make holds on
    /// this device (`f32` and `f16` subnormals kept, no contraction,
    /// division and square root within [`CORRECTED_ULPS`] of correctly
    /// rounded, conversions to nearest even, `max`/`min` return the number,
    /// infinities as IEEE-754 says): then every kernel of this crate gives
    /// its emulation's bits. `fma` fusion does not matter (the kernels write
    /// `fma` only where the product is exact), nor do round trips (the
    /// kernels round on the bits), nor division and square root within
    /// reach (the kernels correct them).
    pub fn kernels_match_emulations(&self) -> bool {
        let corrected = |e: Exactness| match e {
            Exactness::CorrectlyRounded => true,
            Exactness::Approximate { max_ulps, .. } => max_ulps <= CORRECTED_ULPS,
        };
        self.f32_subnormals == Subnormals::Kept
            && self.f16_subnormals == Subnormals::Kept
            && !self.contraction
            && corrected(self.division)
            && corrected(self.sqrt)
            && self.conversion == ConversionRounding::NearestEven
            && self.nan_in_max_min == NanInMaxMin::Number
            && self.infinities_pass
    }

    /// Every fact, one `(what was probed, what the device does)` pair per
    /// line of a table.
    pub fn table(&self) -> Vec<(&'static str, String)> {
        let or_none = |v: Option<String>| v.unwrap_or_else(|| "no native f16".to_owned());
        vec![
            (
                "f16 loop `acc = acc + 1.0h`, 4096 times",
                or_none(self.f16_arithmetic.map(|a| match a {
                    F16Arithmetic::RoundsEachOp => "2048 (rounds each op)".to_owned(),
                    F16Arithmetic::CarriedWider => "4096 (carried wider)".to_owned(),
                    F16Arithmetic::Other(v) => format!("{v} (neither)"),
                })),
            ),
            (
                "f32 loop `acc = f32(f16(acc + 1.0))`, 4096 times",
                or_none(self.round_trip_f16.map(round_trip_word)),
            ),
            (
                "f32 loop through `unpack2x16float(pack2x16float(..))`",
                round_trip_word(self.round_trip_packed),
            ),
            ("f32 `fma(a, b, c)`", fusion_word(self.fma).to_owned()),
            (
                "f16 `fma(a, b, c)`",
                or_none(self.fma_f16.map(|f| fusion_word(f).to_owned())),
            ),
            (
                "f32 `a*b + c`, and `let p = a*b; p + c`",
                if self.contraction {
                    "contracted (one rounding)"
                } else {
                    "not contracted"
                }
                .to_owned(),
            ),
            (
                "f32 subnormals (2^-130 * 1, 2^-130 + 0, 2^-126 * 0.5)",
                subnormal_word(self.f32_subnormals).to_owned(),
            ),
            (
                "f16 subnormals (arithmetic, conversions)",
                subnormal_word(self.f16_subnormals).to_owned(),
            ),
            ("f32 -> f16 via f16(x) and pack2x16float", {
                match self.conversion {
                    ConversionRounding::NearestEven => "round to nearest even".to_owned(),
                    ConversionRounding::Other { differing, of } => {
                        format!("not nearest even ({differing} of {of} values)")
                    }
                }
            }),
            ("f32 a / b, random operands", exactness_word(self.division)),
            ("f32 sqrt(x), random operands", exactness_word(self.sqrt)),
            (
                "subgroup size (adapter; builtin in a workgroup of 64)",
                match self.subgroups {
                    None => "no subgroups".to_owned(),
                    Some(s) => format!(
                        "{}..{}; {}",
                        s.min,
                        s.max,
                        s.measured
                            .map_or("not measured".to_owned(), |m| m.to_string())
                    ),
                },
            ),
            (
                "max(NaN, 1), min(NaN, 1), either order",
                match self.nan_in_max_min {
                    NanInMaxMin::Number => "1 (the number)",
                    NanInMaxMin::Nan => "NaN",
                    NanInMaxMin::Mixed => "depends on the order",
                }
                .to_owned(),
            ),
            (
                "exp(1000), exp(-inf), 1/0, 3e38*2, inf - inf, max(inf, 1)",
                if self.infinities_pass {
                    "inf, 0, inf, inf, NaN, inf"
                } else {
                    "not as IEEE-754 says"
                }
                .to_owned(),
            ),
            (
                "exp(NaN)",
                if self.exp_keeps_nan {
                    "NaN"
                } else {
                    "a number"
                }
                .to_owned(),
            ),
        ]
    }

    /// What differs from lavapipe and the CPU emulations, in words, one
    /// sentence per fact, each saying what it means for a kernel or a
    /// verdict. Empty where the device behaves as the emulations assume.
    pub fn caveats(&self) -> Vec<String> {
        let mut c = Vec::new();
        if self.f16_arithmetic == Some(F16Arithmetic::CarriedWider) {
            c.push(
                "on this device genuine f16 arithmetic is carried wider than f16 \
                 (4096 additions of 1.0h give 4096): a kernel that relies on it to \
                 round is more accurate here than on lavapipe"
                    .to_owned(),
            );
        }
        let removed = [Some(self.round_trip_packed), self.round_trip_f16]
            .into_iter()
            .flatten()
            .any(|r| r != RoundTrip::Kept);
        if removed {
            c.push(
                "on this device a rounding written as a conversion round trip \
                 (f32(f16(v)) or unpack2x16float(pack2x16float(v))) is removed by the \
                 driver: kernels must round on the bits (those of this crate do)"
                    .to_owned(),
            );
        }
        if self.contraction {
            c.push(
                "on this device a*b + c is contracted into one rounding: kernels may \
                 differ from their emulations in the last bits of f32 intermediates"
                    .to_owned(),
            );
        }
        if self.fma == Fusion::Fused {
            c.push(
                "on this device fma(a, b, c) is fused (one rounding) and it is not on \
                 lavapipe: a kernel that writes fma on inexact products gives other \
                 bits here than there (this crate's kernels write it only on exact products)"
                    .to_owned(),
            );
        }
        if self.f32_subnormals != Subnormals::Kept {
            c.push(
                "on this device f32 subnormals are flushed to zero; a kernel that relies \
                 on them may be less accurate here than on lavapipe"
                    .to_owned(),
            );
        }
        if self.f16_subnormals != Subnormals::Kept {
            c.push(
                "on this device f16 subnormals are flushed to zero: values below \
                 6.1e-5 become 0 in f16, so f16 kernels lose small terms here"
                    .to_owned(),
            );
        }
        if let ConversionRounding::Other { differing, of } = self.conversion {
            c.push(format!(
                "on this device f32 -> f16 conversion does not round to nearest even \
                 ({differing} of {of} probe values): outputs stored through it may differ \
                 from their emulations by one f16 ulp"
            ));
        }
        for (op, e) in [("division", self.division), ("sqrt", self.sqrt)] {
            if let Exactness::Approximate {
                differing,
                of,
                max_ulps,
            } = e
            {
                let effect = if max_ulps <= CORRECTED_ULPS {
                    "the kernels of this crate correct it, but a kernel that uses it as it \
                     is differs from a correctly rounded CPU reference in the last bit"
                } else {
                    "beyond what the kernels of this crate correct: they may differ from \
                     their emulations in the last bit, an f16 output by one ulp"
                };
                c.push(format!(
                    "on this device f32 {op} is not correctly rounded ({differing} of {of} \
                     results off, by up to {max_ulps} ulp): {effect}"
                ));
            }
        }
        if self.nan_in_max_min != NanInMaxMin::Number {
            c.push(
                "on this device max/min with a NaN operand do not return the number, as \
                 the emulations do: kernels that take a max over NaN inputs differ from \
                 their emulations"
                    .to_owned(),
            );
        }
        if !self.infinities_pass || !self.exp_keeps_nan {
            c.push(
                "on this device infinities or NaN do not pass through exp and arithmetic \
                 as IEEE-754 says: non-finite outputs may be hidden"
                    .to_owned(),
            );
        }
        c
    }

    /// Interprets a probe's measurements.
    fn from_measurements(m: &Measurements) -> Self {
        let rounds = |loop_sum: f32, once: f32| match (loop_sum, once == 1.0) {
            (2048.0, true) => RoundTrip::Kept,
            (4096.0, false) => RoundTrip::Removed,
            _ => RoundTrip::Inconsistent,
        };
        let fusion = |fused: bool| {
            if fused {
                Fusion::Fused
            } else {
                Fusion::NotFused
            }
        };
        let subnormals = |kept: &[bool]| {
            if kept.iter().all(|&k| k) {
                Subnormals::Kept
            } else if kept.iter().any(|&k| k) {
                Subnormals::PartlyFlushed
            } else {
                Subnormals::Flushed
            }
        };
        let f16 = m.f16.as_ref();
        let mut f16_kept = m.f16_subnormals_packed.to_vec();
        if let Some(h) = f16 {
            f16_kept.extend_from_slice(&h.subnormals);
        }
        let conversion = match m.conversion_differing {
            0 => ConversionRounding::NearestEven,
            differing => ConversionRounding::Other {
                differing,
                of: m.conversion_of,
            },
        };
        let nan = &m.nan_max_min;
        DeviceSemantics {
            f16_arithmetic: f16.map(|h| match h.loop_sum {
                2048.0 => F16Arithmetic::RoundsEachOp,
                4096.0 => F16Arithmetic::CarriedWider,
                v => F16Arithmetic::Other(v),
            }),
            round_trip_f16: f16.map(|h| rounds(h.round_trip_loop, h.round_trip_once)),
            round_trip_packed: rounds(m.packed_loop, m.packed_once),
            fma: fusion(m.fma_fused),
            fma_f16: f16.map(|h| fusion(h.fma_fused)),
            contraction: m.contracted,
            f32_subnormals: subnormals(&m.f32_subnormals),
            f16_subnormals: subnormals(&f16_kept),
            conversion,
            division: m.division,
            sqrt: m.sqrt,
            subgroups: m.subgroups,
            nan_in_max_min: if nan.iter().all(|&n| n == Some(false)) {
                NanInMaxMin::Number
            } else if nan.iter().all(|&n| n == Some(true)) {
                NanInMaxMin::Nan
            } else {
                NanInMaxMin::Mixed
            },
            infinities_pass: m.infinities_pass,
            exp_keeps_nan: m.exp_keeps_nan,
        }
    }
}

fn round_trip_word(r: RoundTrip) -> String {
    match r {
        RoundTrip::Kept => "2048 (round trip kept)",
        RoundTrip::Removed => "4096 (round trip removed)",
        RoundTrip::Inconsistent => "kept in one probe, removed in another",
    }
    .to_owned()
}

fn fusion_word(f: Fusion) -> &'static str {
    match f {
        Fusion::Fused => "fused (one rounding)",
        Fusion::NotFused => "not fused (two roundings)",
    }
}

fn subnormal_word(s: Subnormals) -> &'static str {
    match s {
        Subnormals::Kept => "kept",
        Subnormals::Flushed => "flushed to zero",
        Subnormals::PartlyFlushed => "partly flushed",
    }
}

fn exactness_word(e: Exactness) -> String {
    match e {
        Exactness::CorrectlyRounded => "correctly rounded".to_owned(),
        Exactness::Approximate {
            differing,
            of,
            max_ulps,
        } => format!("{differing} of {of} off, by up to {max_ulps} ulp"),
    }
}

impl fmt::Display for DeviceSemantics {
    /// One line: `f16 rounds per op, round trips kept, fma not fused, no
    /// contraction, f32 subnormals kept, f16 subnormals kept, f32→f16
    /// nearest-even, division and sqrt correctly rounded, subgroups 8..8,
    /// max(NaN, x) = x`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.f16_arithmetic {
            None => f.write_str("no native f16")?,
            Some(F16Arithmetic::RoundsEachOp) => f.write_str("f16 rounds per op")?,
            Some(F16Arithmetic::CarriedWider) => f.write_str("f16 carried wider")?,
            Some(F16Arithmetic::Other(v)) => write!(f, "f16 loop gave {v}")?,
        }
        let trips = [self.round_trip_f16, Some(self.round_trip_packed)];
        let trips: Vec<RoundTrip> = trips.into_iter().flatten().collect();
        f.write_str(if trips.iter().all(|&r| r == RoundTrip::Kept) {
            ", round trips kept"
        } else if trips.iter().all(|&r| r == RoundTrip::Removed) {
            ", round trips removed"
        } else {
            ", round trips partly removed"
        })?;
        f.write_str(match self.fma {
            Fusion::Fused => ", fma fused",
            Fusion::NotFused => ", fma not fused",
        })?;
        f.write_str(if self.contraction {
            ", a*b + c contracted"
        } else {
            ", no contraction"
        })?;
        let sub = |s| match s {
            Subnormals::Kept => "kept",
            Subnormals::Flushed => "flushed",
            Subnormals::PartlyFlushed => "partly flushed",
        };
        write!(
            f,
            ", f32 subnormals {}, f16 subnormals {}",
            sub(self.f32_subnormals),
            sub(self.f16_subnormals)
        )?;
        f.write_str(match self.conversion {
            ConversionRounding::NearestEven => ", f32→f16 nearest-even",
            ConversionRounding::Other { .. } => ", f32→f16 not nearest-even",
        })?;
        let exact = |e| match e {
            Exactness::CorrectlyRounded => "correctly rounded".to_owned(),
            Exactness::Approximate { max_ulps, .. } => format!("within {max_ulps} ulp"),
        };
        if self.division == self.sqrt {
            write!(f, ", division and sqrt {}", exact(self.division))?;
        } else {
            write!(
                f,
                ", division {}, sqrt {}",
                exact(self.division),
                exact(self.sqrt)
            )?;
        }
        match self.subgroups {
            None => f.write_str(", no subgroups")?,
            Some(s) => write!(f, ", subgroups {}..{}", s.min, s.max)?,
        }
        f.write_str(match self.nan_in_max_min {
            NanInMaxMin::Number => ", max(NaN, x) = x",
            NanInMaxMin::Nan => ", max(NaN, x) = NaN",
            NanInMaxMin::Mixed => ", max/min with NaN depend on the order",
        })?;
        if !self.infinities_pass || !self.exp_keeps_nan {
            f.write_str(", non-finite values mishandled")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
