//! The device-semantics probe on the adapter at hand: lavapipe's known
//! behaviour where it is lavapipe, internal consistency anywhere.

mod common;

use dual_delta_gpu::semantics::{
    ConversionRounding, DeviceSemantics, Exactness, F16Arithmetic, Fusion, NanInMaxMin, RoundTrip,
    Subnormals,
};
use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::{F16Path, Subgroups},
    require_gpu,
};

fn is_lavapipe(gpu: &Gpu) -> bool {
    let info = gpu.adapter_info();
    info.driver.contains("llvmpipe") || info.name.contains("llvmpipe")
}

#[test]
fn lavapipe_rounds_f16_per_op_keeps_round_trips_and_subnormals() {
    let Some(gpu) = require_gpu() else { return };
    if !is_lavapipe(gpu) {
        eprintln!(
            "not lavapipe ({}): its values are not checked",
            gpu.adapter_info()
        );
        return;
    }
    let s = gpu.semantics();
    // DUAL_DELTA_GPU_ROUND_TRIPS=strip compiles the probe as NVIDIA's
    // driver would: the round trips are gone.
    let stripped = GpuOptions::from_env().unwrap().strip_round_trips;
    let trips = if stripped {
        RoundTrip::Removed
    } else {
        RoundTrip::Kept
    };
    assert_eq!(s.f16_arithmetic(), Some(F16Arithmetic::RoundsEachOp), "{s}");
    assert_eq!(s.round_trip_f16(), Some(trips), "{s}");
    assert_eq!(s.round_trip_packed(), trips, "{s}");
    assert_eq!(s.fma(), Fusion::NotFused, "{s}");
    assert!(!s.contraction(), "{s}");
    assert_eq!(s.f32_subnormals(), Subnormals::Kept, "{s}");
    assert_eq!(s.f16_subnormals(), Subnormals::Kept, "{s}");
    assert_eq!(s.conversion(), ConversionRounding::NearestEven, "{s}");
    assert_eq!(s.division(), Exactness::CorrectlyRounded, "{s}");
    assert_eq!(s.sqrt(), Exactness::CorrectlyRounded, "{s}");
    assert_eq!(s.nan_in_max_min(), NanInMaxMin::Number, "{s}");
    assert!(s.infinities_pass() && s.exp_keeps_nan(), "{s}");
    if gpu.adapter_info().name.contains("256 bits") {
        let sizes = s.subgroups().expect("lavapipe has subgroups");
        assert_eq!(
            (sizes.min(), sizes.max(), sizes.measured()),
            (8, 8, Some(8))
        );
    }
    assert!(s.kernels_match_emulations());
    assert_eq!(s.caveats().is_empty(), !stripped, "{:?}", s.caveats());
}

/// What holds on any device: the summary, the caveats and the table say
/// the same as the accessors.
#[test]
fn the_summary_and_the_caveats_agree_with_the_facts() {
    let Some(gpu) = require_gpu() else { return };
    let s = gpu.semantics();
    let line = s.to_string();
    let caveats = s.caveats().join("\n");
    let removed = s.round_trip_packed() != RoundTrip::Kept
        || s.round_trip_f16().is_some_and(|r| r != RoundTrip::Kept);
    assert_eq!(line.contains("round trips kept"), !removed, "{line}");
    assert_eq!(caveats.contains("round trip"), removed, "{caveats}");
    let flushed = s.f32_subnormals() != Subnormals::Kept;
    assert_eq!(line.contains("f32 subnormals kept"), !flushed, "{line}");
    assert_eq!(caveats.contains("f32 subnormals are flushed"), flushed);
    assert_eq!(
        line.contains("fma fused"),
        s.fma() == Fusion::Fused,
        "{line}"
    );
    assert_eq!(line.contains("no contraction"), !s.contraction(), "{line}");
    assert_eq!(
        line.contains("no native f16"),
        s.f16_arithmetic().is_none(),
        "{line}"
    );
    if s.kernels_match_emulations() {
        assert!(!caveats.contains("emulations"), "{caveats}");
    }
    match s.subgroups() {
        Some(sizes) => {
            let range = format!("subgroups {}..{}", sizes.min(), sizes.max());
            assert!(line.contains(&range), "{line}");
            assert!(sizes.min() <= sizes.max());
        }
        None => assert!(line.contains("no subgroups"), "{line}"),
    }
    assert!(
        s.table()
            .iter()
            .all(|(what, found)| !what.is_empty() && !found.is_empty())
    );
}

#[test]
fn the_semantics_are_recorded_for_reports() {
    let Some(gpu) = require_gpu() else { return };
    let env = dual_delta_runtime::environment();
    let recorded = env.get("gpu.semantics").expect("gpu.semantics recorded");
    assert_eq!(recorded, &gpu.semantics().to_string());
    let caveats = gpu.semantics().caveats();
    match env.get("gpu.caveats") {
        Some(recorded) => assert_eq!(recorded, &caveats.join("; ")),
        None => assert!(caveats.is_empty(), "{caveats:?}"),
    }
}

/// The probe measures the device, not the kernels' path: a context forced
/// onto the packed fallback without subgroups finds the same.
#[test]
fn the_semantics_are_the_devices_whatever_path_the_kernels_take() {
    let Some(gpu) = require_gpu() else { return };
    let fallback = Gpu::new(&GpuOptions {
        f16: F16Path::Fallback,
        subgroups: Subgroups::Off,
        ..GpuOptions::from_env().unwrap()
    })
    .unwrap();
    let same: &DeviceSemantics = fallback.semantics();
    assert_eq!(same, gpu.semantics());
}

/// The bound the kernel tests assert where the probe finds the emulations'
/// assumptions broken: one ulp passes, two do not, NaN only against NaN.
#[test]
fn the_bound_of_devices_that_differ_is_one_ulp() {
    let v = |x: &[f32]| {
        x.iter()
            .map(|&x| dual_delta_gpu::f16::from_f32(x))
            .collect::<Vec<_>>()
    };
    let want = v(&[1.0, 0.5, -3.0, f32::NAN, 0.0]);
    let next = |x: f32| dual_delta_gpu::f16::from_f32(x).to_bits() + 1;
    let one_off: Vec<_> = want
        .iter()
        .enumerate()
        .map(|(i, &w)| match i {
            0 => dual_delta_gpu::f16::from_bits(next(1.0)),
            1 => dual_delta_gpu::f16::from_bits(next(0.5) - 2),
            _ => w,
        })
        .collect();
    common::assert_within_ulps(&one_off, &want, common::EMULATION_BOUND_ULPS, "one ulp");
    let two_off = [dual_delta_gpu::f16::from_bits(next(1.0) + 1)];
    let far = std::panic::catch_unwind(|| {
        common::assert_within_ulps(&two_off, &want[..1], common::EMULATION_BOUND_ULPS, "two")
    });
    assert!(far.is_err());
    let nan = std::panic::catch_unwind(|| {
        common::assert_within_ulps(&want[..3], &v(&[1.0, 0.5, f32::NAN]), 1.0, "nan")
    });
    assert!(nan.is_err());
}
