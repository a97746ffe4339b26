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

mod facts;
mod probe;
mod words;

pub use self::facts::{
    ConversionRounding, Exactness, F16Arithmetic, Fusion, NanInMaxMin, RoundTrip, SubgroupSizes,
    Subnormals,
};

/// The distance, in `f32` ulps counted on the bits (one step between
/// neighbouring values), from which the kernels correct the device's
/// division and square root to the correctly rounded result (`div_rn`,
/// `sqrt_rn` in their WGSL): Vulkan's 2.5 ulp for division is up to five
/// such steps when the quotient lies just above a power of two, which the
/// probe's operands include.
pub const CORRECTED_ULPS: u32 = 8;

use self::probe::Measurements;
use crate::error::GpuError;
use crate::wgsl::SourceTransform;

/// What one device does to floating-point arithmetic, from the probe run
/// when its [`Gpu`](crate::Gpu) is created ([`Gpu::semantics`](crate::Gpu::semantics)).
///
/// Built only from a probe's measurements; the `f16` facts are `None`
/// exactly where the device has no native `f16` (`SHADER_F16`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
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
        let measured = self::probe::probe(
            device,
            queue,
            transform,
            features.contains(wgpu::Features::SHADER_F16),
            features
                .contains(wgpu::Features::SUBGROUP)
                .then_some((info.subgroup_min_size, info.subgroup_max_size)),
        )?;
        Ok(Self::from_measurements(&measured))
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
    /// this device (`f32` and `f16` subnormals kept, and
    /// [`DeviceSemantics::kernels_match_emulations_on_normal_values`]):
    /// then every kernel of this crate gives its emulation's bits.
    pub fn kernels_match_emulations(&self) -> bool {
        self.f32_subnormals == Subnormals::Kept
            && self.f16_subnormals == Subnormals::Kept
            && self.kernels_match_emulations_on_normal_values()
    }

    /// Whether the kernels give their emulations' bits on this device
    /// wherever no subnormal value arises: division and square root within
    /// [`CORRECTED_ULPS`] of correctly rounded (the kernels correct them),
    /// `max`/`min` return the number, infinities as IEEE-754 says. Neither
    /// `fma` fusion nor contraction matters (the kernels write `fma` only
    /// where the product is exact, and round every inexact product they
    /// add on its own: `unfused` in their WGSL), nor round trips (the
    /// kernels round on the bits), nor how conversions to `f16` round (the
    /// kernels store only values already rounded on the bits). A device
    /// that flushes subnormals (the H100 flushes `f32` ones) then gives the
    /// emulations' bits on every input whose values and results are normal
    /// `f16` numbers (or zero): the tests decide per input.
    pub fn kernels_match_emulations_on_normal_values(&self) -> bool {
        let corrected = |e: Exactness| match e {
            Exactness::CorrectlyRounded => true,
            Exactness::Approximate { max_ulps, .. } => max_ulps <= CORRECTED_ULPS,
        };
        corrected(self.division)
            && corrected(self.sqrt)
            && self.nan_in_max_min == NanInMaxMin::Number
            && self.infinities_pass
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

#[cfg(test)]
mod tests;
