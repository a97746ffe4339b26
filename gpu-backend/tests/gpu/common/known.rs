//! The devices whose facts are recorded: lavapipe, as its probe measures
//! it here, the NVIDIA H100 of the guide's chapter on real GPUs (driver
//! 580.159.04, measured before the probe existed) and the NVIDIA H200 the
//! bundle ran on (the same driver, measured by the probe). A test on such
//! a device checks those facts, so that a known device that differs fails
//! instead of passing unchecked.

use dual_delta_gpu::semantics::{
    CORRECTED_ULPS, ConversionRounding, DeviceSemantics, Exactness, F16Arithmetic, Fusion,
    NanInMaxMin, RoundTrip, Subnormals,
};
use dual_delta_gpu::{Gpu, device::SourceTransform};

/// A device whose facts are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Mesa's llvmpipe (lavapipe), the CPU driver the suite runs on here.
    Lavapipe,
    /// An NVIDIA H100, measured with driver 580.159.04.
    H100,
    /// An NVIDIA H200, measured by the probe with driver 580.159.04.
    H200,
}

impl Known {
    /// Whether it is one of the NVIDIA GPUs.
    pub fn is_nvidia(self) -> bool {
        matches!(self, Known::H100 | Known::H200)
    }
}

/// Which known device `gpu` is, if any.
pub fn known(gpu: &Gpu) -> Option<Known> {
    let info = gpu.adapter_info();
    if info.driver.contains("llvmpipe") || info.name.contains("llvmpipe") {
        Some(Known::Lavapipe)
    } else if info.name.contains("H100") {
        Some(Known::H100)
    } else if info.name.contains("H200") {
        Some(Known::H200)
    } else {
        None
    }
}

/// The facts the probe must find on `device`, compiled with the freedoms
/// `imitate` takes: `None` where a freedom other than `strip` is imitated
/// (the probe then measures the imitation, which the transforms' own tests
/// check). Each fact is compared by [`assert_facts`].
pub struct Facts {
    pub f16_arithmetic: Option<F16Arithmetic>,
    pub round_trips: RoundTrip,
    pub fma: Fusion,
    pub contraction: bool,
    pub f32_subnormals: Subnormals,
    pub f16_subnormals: Subnormals,
    pub conversion: ConversionRounding,
    /// Exact where recorded; the H100's were not probed, and must be within
    /// the kernels' correction.
    pub division: Option<Exactness>,
    pub sqrt: Option<Exactness>,
    /// Smallest, largest and measured subgroup size, where recorded.
    pub subgroups: Option<(u32, u32, Option<u32>)>,
    pub nan_in_max_min: NanInMaxMin,
    pub infinities_pass: bool,
    pub match_emulations: bool,
    pub match_emulations_on_normal_values: bool,
    /// How many caveats the summary gives.
    pub caveats: usize,
}

impl Facts {
    /// The recorded facts of `device`, under the freedoms `imitate`.
    pub fn of(device: Known, gpu: &Gpu, imitate: SourceTransform) -> Option<Self> {
        let stripped = imitate.contains(SourceTransform::STRIP_ROUND_TRIPS);
        if !imitate.is_empty() && imitate != SourceTransform::STRIP_ROUND_TRIPS {
            return None;
        }
        Some(match device {
            Known::Lavapipe => Facts {
                f16_arithmetic: Some(F16Arithmetic::RoundsEachOp),
                round_trips: if stripped {
                    RoundTrip::Removed
                } else {
                    RoundTrip::Kept
                },
                fma: Fusion::NotFused,
                contraction: false,
                f32_subnormals: Subnormals::Kept,
                f16_subnormals: Subnormals::Kept,
                conversion: ConversionRounding::NearestEven,
                division: Some(Exactness::CorrectlyRounded),
                sqrt: Some(Exactness::CorrectlyRounded),
                // 8 only where LLVM runs 256-bit vectors.
                subgroups: gpu
                    .adapter_info()
                    .name
                    .contains("256 bits")
                    .then_some((8, 8, Some(8))),
                nan_in_max_min: NanInMaxMin::Number,
                infinities_pass: true,
                match_emulations: true,
                match_emulations_on_normal_values: true,
                caveats: usize::from(stripped),
            },
            // The driver removes round trips whether or not `strip` is
            // imitated.
            Known::H100 => Facts {
                f16_arithmetic: Some(F16Arithmetic::RoundsEachOp),
                round_trips: RoundTrip::Removed,
                fma: Fusion::Fused,
                contraction: false,
                f32_subnormals: Subnormals::Flushed,
                f16_subnormals: Subnormals::Kept,
                conversion: ConversionRounding::NearestEven,
                division: None,
                sqrt: None,
                subgroups: Some((32, 32, Some(32))),
                nan_in_max_min: NanInMaxMin::Number,
                infinities_pass: true,
                match_emulations: false,
                match_emulations_on_normal_values: true,
                // Round trips, `fma`, subnormals; one more for each of
                // division and square root where they are not correctly
                // rounded (the kernels correct them).
                caveats: 3,
            },
            // The probe's own measurements (gpu-suite run of 2026-11-28):
            // the H100's facts, except that where the H100's hand-written
            // shaders found no contraction, the probe finds `a * b + c`
            // contracted on the same driver. Division and square root:
            // 287 and 129 of 1024 off by up to 1 ulp, within the kernels'
            // correction.
            Known::H200 => Facts {
                contraction: true,
                // Round trips, contraction, `fma`, subnormals; and one for
                // each of division and square root not correctly rounded.
                caveats: 4,
                ..Facts::of(Known::H100, gpu, imitate)?
            },
        })
    }
}

/// Whether `e` is within the kernels' correction of the correctly rounded
/// result.
fn correctable(e: Exactness) -> bool {
    match e {
        Exactness::CorrectlyRounded => true,
        Exactness::Approximate { max_ulps, .. } => max_ulps <= CORRECTED_ULPS,
    }
}

/// Asserts every fact of `want` on `s`, listing each that differs.
pub fn assert_facts(device: Known, s: &DeviceSemantics, want: &Facts) {
    let mut differ = Vec::new();
    let mut check = |what: &str, same: bool, found: String| {
        if !same {
            differ.push(format!("{what}: found {found}"));
        }
    };
    check(
        "f16 arithmetic",
        s.f16_arithmetic() == want.f16_arithmetic,
        format!("{:?}", s.f16_arithmetic()),
    );
    let trips = (s.round_trip_f16(), s.round_trip_packed());
    check(
        "round trips",
        trips.0.is_none_or(|r| r == want.round_trips) && trips.1 == want.round_trips,
        format!("{trips:?}"),
    );
    check("fma", s.fma() == want.fma, format!("{:?}", s.fma()));
    check(
        "contraction",
        s.contraction() == want.contraction,
        format!("{}", s.contraction()),
    );
    check(
        "f32 subnormals",
        s.f32_subnormals() == want.f32_subnormals,
        format!("{:?}", s.f32_subnormals()),
    );
    check(
        "f16 subnormals",
        s.f16_subnormals() == want.f16_subnormals,
        format!("{:?}", s.f16_subnormals()),
    );
    check(
        "f32 → f16 conversion",
        s.conversion() == want.conversion,
        format!("{:?}", s.conversion()),
    );
    for (what, found, wanted) in [
        ("division", s.division(), want.division),
        ("sqrt", s.sqrt(), want.sqrt),
    ] {
        let same = match wanted {
            Some(w) => found == w,
            None => correctable(found),
        };
        check(what, same, format!("{found:?}"));
    }
    if let Some((min, max, measured)) = want.subgroups {
        let found = s.subgroups().map(|g| (g.min(), g.max(), g.measured()));
        check(
            "subgroups",
            found == Some((min, max, measured)),
            format!("{found:?}"),
        );
    }
    check(
        "NaN in max/min",
        s.nan_in_max_min() == want.nan_in_max_min,
        format!("{:?}", s.nan_in_max_min()),
    );
    check(
        "infinities",
        s.infinities_pass() == want.infinities_pass,
        format!("{}", s.infinities_pass()),
    );
    check(
        "kernels match emulations",
        s.kernels_match_emulations() == want.match_emulations,
        format!("{}", s.kernels_match_emulations()),
    );
    check(
        "kernels match emulations on normal values",
        s.kernels_match_emulations_on_normal_values() == want.match_emulations_on_normal_values,
        format!("{}", s.kernels_match_emulations_on_normal_values()),
    );
    let inexact = [s.division(), s.sqrt()]
        .iter()
        .filter(|e| **e != Exactness::CorrectlyRounded)
        .count();
    let caveats = want.caveats + if device.is_nvidia() { inexact } else { 0 };
    check(
        "caveats",
        s.caveats().len() == caveats,
        format!("{:?}", s.caveats()),
    );
    assert!(
        differ.is_empty(),
        "{device:?} does not show its recorded facts ({s}):\n{}",
        differ.join("\n")
    );
}
