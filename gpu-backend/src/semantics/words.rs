//! How the facts read: the table, the caveats and the one-line summary
//! of a [`DeviceSemantics`].

use core::fmt;

use super::*;

impl DeviceSemantics {
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
                        s.min(),
                        s.max(),
                        s.measured()
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
                "on this device a*b + c is contracted into one rounding: a kernel that \
                 adds an inexact product may differ from its emulation in the last bits \
                 of f32 intermediates (this crate's kernels round such products on their own)"
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
                 from their emulations by one f16 ulp (this crate's kernels store only \
                 values already rounded to f16 on the bits)"
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
            Some(s) => write!(f, ", subgroups {}..{}", s.min(), s.max())?,
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
