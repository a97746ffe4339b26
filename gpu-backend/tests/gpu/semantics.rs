//! The device-semantics probe on the adapter at hand: lavapipe's known
//! behaviour where it is lavapipe, internal consistency anywhere.

use crate::common::known::{Facts, Known, assert_facts, known};
use dual_delta_gpu::semantics::{DeviceSemantics, Fusion, RoundTrip, Subnormals};
use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::{F16Path, SourceTransform, Subgroups},
    require_gpu,
};

/// A known device (lavapipe, the H100 of the guide, the H200) shows the
/// facts recorded for it, every one checked and each that differs listed;
/// any other device is only checked for consistency (the tests below).
#[test]
fn a_known_device_shows_its_recorded_facts() {
    let Some(gpu) = require_gpu() else { return };
    let Some(device) = known(gpu) else {
        eprintln!(
            "note: {} is not a device whose facts are recorded (lavapipe, H100, H200)",
            gpu.adapter_info()
        );
        return;
    };
    let options = GpuOptions::from_env().unwrap();
    let imitate = if options.strip_round_trips {
        options.imitate.union(SourceTransform::STRIP_ROUND_TRIPS)
    } else {
        options.imitate
    };
    let Some(want) = Facts::of(device, gpu, imitate) else {
        eprintln!("note: the probe measures the imitated freedoms {imitate}, not {device:?}");
        return;
    };
    assert_facts(device, gpu.semantics(), &want);
    assert!(gpu.semantics().exp_keeps_nan(), "{}", gpu.semantics());
}

/// The recorded facts are those of the guide's H100 table (the H100's
/// measurements, read by the probe's own interpretation in its unit tests,
/// say the same: `the_h100_reads_with_its_caveats`) and of the H200's
/// probe; this checks that the expectations fail a device that differs,
/// on lavapipe's own semantics (a context compiled with no freedom
/// imitated, whatever `DUAL_DELTA_GPU_IMITATE` says: imitated, lavapipe
/// shows some of the NVIDIA GPUs' facts).
#[test]
fn the_nvidia_facts_fail_a_device_that_differs() {
    let Some(gpu) = require_gpu() else { return };
    if known(gpu) != Some(Known::Lavapipe) {
        return;
    }
    let own = Gpu::new(&GpuOptions {
        adapter: Some(gpu.adapter_info().name.clone()),
        imitate: SourceTransform::AS_WRITTEN,
        strip_round_trips: false,
        ..GpuOptions::from_env().unwrap()
    })
    .unwrap();
    let found = own.semantics().clone();
    for device in [Known::H100, Known::H200] {
        let want = Facts::of(device, &own, Default::default()).unwrap();
        let differs = std::panic::catch_unwind(|| assert_facts(device, &found, &want));
        let message = *differs.unwrap_err().downcast::<String>().unwrap();
        let mut facts = vec![
            "round trips",
            "fma",
            "f32 subnormals",
            "subgroups",
            "caveats",
        ];
        if device == Known::H200 {
            facts.push("contraction");
        }
        for fact in facts {
            assert!(
                message.contains(&format!("\n{fact}: found")),
                "{device:?}, {fact}: {message}"
            );
        }
    }
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
    let facts = gpu.facts();
    assert_eq!(
        facts.get("gpu.semantics"),
        Some(&gpu.semantics().to_string())
    );
    let caveats = gpu.semantics().caveats();
    match facts.get("gpu.caveats") {
        Some(recorded) => assert_eq!(recorded, &caveats.join("; ")),
        None => assert!(caveats.is_empty(), "{caveats:?}"),
    }
}

/// Two contexts of other facts in one process (every driver freedom
/// imitated on one, none on the other and its `f16` path the fallback, so
/// that they differ even where `DUAL_DELTA_GPU_IMITATE` imitates every
/// freedom in both), and the shared one: each run's report names the facts
/// of the context its candidate ran on, whichever was made or used last.
#[test]
fn each_run_records_the_facts_of_the_context_it_ran_on() {
    use dual_delta_gpu::reductions::{RowsInput, SumStrategy, sum_cpu, sum_f64};
    use dual_delta_runtime::DualDelta;
    let Some(gpu) = require_gpu() else { return };
    let on = |imitate, f16| {
        gpu.with_options(&GpuOptions {
            imitate,
            f16,
            ..GpuOptions::default()
        })
        .unwrap()
    };
    let imitating = on(SourceTransform::ALL, F16Path::Auto);
    let plain = on(SourceTransform::AS_WRITTEN, F16Path::Fallback);
    if imitating.facts() == plain.facts() {
        eprintln!("note: the two contexts have the same facts on this device");
    }
    let run = |ctx: &Gpu, name: &str| {
        DualDelta::new(
            |x: &RowsInput<dual_delta_gpu::f16>| ctx.run(x, SumStrategy::F32).unwrap(),
            sum_cpu,
            sum_f64,
            |rng: &mut _| RowsInput::random(2, 64, rng),
        )
        .test_name(format!("semantics::{name}"))
        .n(16)
        .stop_early(false)
        .run()
        .unwrap()
    };
    for (ctx, name) in [
        (&imitating, "imitating"),
        (&plain, "plain"),
        (gpu, "shared"),
        (&imitating, "imitating_again"),
    ] {
        let outcome = run(ctx, name);
        for key in ["gpu.adapter", "gpu.semantics", "gpu.caveats"] {
            assert_eq!(
                outcome.environment().get(key),
                ctx.facts().get(key),
                "{name}: {key}"
            );
        }
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
    crate::common::assert_within_ulps(
        &one_off,
        &want,
        crate::common::EMULATION_BOUND_ULPS,
        "one ulp",
    );
    let two_off = [dual_delta_gpu::f16::from_bits(next(1.0) + 1)];
    let far = std::panic::catch_unwind(|| {
        crate::common::assert_within_ulps(
            &two_off,
            &want[..1],
            crate::common::EMULATION_BOUND_ULPS,
            "two",
        )
    });
    assert!(far.is_err());
    let nan = std::panic::catch_unwind(|| {
        crate::common::assert_within_ulps(&want[..3], &v(&[1.0, 0.5, f32::NAN]), 1.0, "nan")
    });
    assert!(nan.is_err());
}

/// Inside `every_mismatch` every failing comparison is listed, not only
/// the first, and the test fails once all have run.
#[test]
fn every_mismatching_case_is_listed() {
    let one = [dual_delta_gpu::f16::ONE];
    let two = [dual_delta_gpu::f16::from_f32(2.0)];
    let run = std::panic::catch_unwind(|| {
        crate::common::every_mismatch(|| {
            crate::common::assert_identical(&one, &two, "case a");
            crate::common::assert_identical(&one, &one, "case b");
            crate::common::assert_identical(&two, &one, "case c");
        })
    });
    let message = *run.unwrap_err().downcast::<String>().unwrap();
    assert!(message.starts_with("2 mismatching case(s):"), "{message}");
    assert!(
        message.contains("case a: 1 of 1 elements differ: [0] 1 vs 2 (512 ulp)"),
        "{message}"
    );
    assert!(
        message.contains("case c: ") && !message.contains("case b"),
        "{message}"
    );
}

/// Where the emulations' assumptions hold (lavapipe), one ulp off the
/// emulation fails: no bound is allowed there.
#[test]
fn one_ulp_off_the_emulation_fails_where_the_emulations_hold() {
    let Some(gpu) = require_gpu() else { return };
    if !gpu.semantics().kernels_match_emulations() {
        return;
    }
    let want: Vec<_> = [1.0f32, 0.5, 0.25]
        .map(dual_delta_gpu::f16::from_f32)
        .to_vec();
    let mut got = want.clone();
    got[1] = dual_delta_gpu::f16::from_bits(got[1].to_bits() + 1);
    let input = dual_delta_gpu::reductions::RowsInput::new(1, 3, want.clone()).unwrap();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::common::assert_matches_emulation(gpu, &input, &got, &want, "softmax")
    }));
    let message = *run.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("1 of 3 elements differ from the emulation, which must hold bit for bit"),
        "{message}"
    );
    crate::common::assert_matches_emulation(gpu, &input, &want, &want, "the same");
}
