//! The facts the probe establishes, each a small type: how `f16`
//! arithmetic rounds, whether round trips survive, fusion, subnormals,
//! conversions, the exactness of division and square root, NaN in
//! `max`/`min`, subgroup sizes.

/// How a device runs genuine `f16` arithmetic (`f16 + f16` in a shader
/// with `enable f16;`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
pub enum Fusion {
    /// One rounding.
    Fused,
    /// Two roundings: the product, then the sum.
    NotFused,
}

/// What the device does to subnormal values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
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
