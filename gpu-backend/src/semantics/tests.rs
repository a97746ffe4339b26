//! The interpretation of measurements, on those of lavapipe and the H100.

use super::probe::fixtures::{h100, lavapipe};
use super::*;

#[test]
fn lavapipe_reads_as_the_emulations_assume() {
    let s = DeviceSemantics::from_measurements(&lavapipe());
    assert_eq!(
        s.to_string(),
        "f16 rounds per op, round trips kept, fma not fused, no contraction, \
         f32 subnormals kept, f16 subnormals kept, f32→f16 nearest-even, \
         division and sqrt correctly rounded, subgroups 8..8, max(NaN, x) = x"
    );
    assert!(s.caveats().is_empty(), "{:?}", s.caveats());
    assert!(s.kernels_match_emulations());
    assert_eq!(s.table().len(), 15);
}

#[test]
fn the_h100_reads_with_its_caveats() {
    let s = DeviceSemantics::from_measurements(&h100());
    let line = s.to_string();
    for part in [
        "f16 rounds per op",
        "round trips removed",
        "fma fused",
        "no contraction",
        "f32 subnormals flushed",
        "f16 subnormals kept",
        "subgroups 32..32",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }
    let caveats = s.caveats().join("\n");
    assert!(
        caveats.contains(
            "on this device f32 subnormals are flushed to zero; a kernel that relies on \
             them may be less accurate here than on lavapipe"
        ),
        "{caveats}"
    );
    assert!(
        caveats.contains("conversion round trip (f32(f16(v))") && caveats.contains("on the bits"),
        "{caveats}"
    );
    assert!(caveats.contains("fma(a, b, c) is fused"), "{caveats}");
    assert_eq!(s.caveats().len(), 3);
    assert!(!s.kernels_match_emulations());
    assert!(s.kernels_match_emulations_on_normal_values());
}

#[test]
fn every_fact_changes_the_summary_or_the_caveats() {
    let base = DeviceSemantics::from_measurements(&lavapipe());
    let variants: [fn(&mut probe::Measurements); 8] = [
        |m| m.contracted = true,
        |m| m.f32_subnormals[2] = false,
        |m| m.conversion_differing = 3,
        |m| {
            m.division = Exactness::Approximate {
                differing: 40,
                of: 1024,
                max_ulps: CORRECTED_ULPS + 1,
            }
        },
        |m| m.nan_max_min[1] = Some(true),
        |m| m.infinities_pass = false,
        |m| m.f16 = None,
        |m| m.packed_loop = 4096.0,
    ];
    for (i, change) in variants.iter().enumerate() {
        let mut m = lavapipe();
        change(&mut m);
        let s = DeviceSemantics::from_measurements(&m);
        assert_ne!(s.to_string(), base.to_string(), "change {i}");
        if i < 6 {
            assert!(!s.caveats().is_empty(), "change {i}");
            // Contraction and the conversion's rounding do not reach the
            // kernels: they round inexact products and stores on their own.
            let reaches = ![0, 2].contains(&i);
            assert_eq!(s.kernels_match_emulations(), !reaches, "change {i}");
        }
    }
}

#[test]
fn division_within_reach_of_the_correction_keeps_the_kernels_exact() {
    let mut m = lavapipe();
    m.division = Exactness::Approximate {
        differing: 300,
        of: 1024,
        max_ulps: 2,
    };
    let s = DeviceSemantics::from_measurements(&m);
    assert!(s.kernels_match_emulations());
    assert!(
        s.to_string()
            .contains("division within 2 ulp, sqrt correctly rounded")
    );
    let caveats = s.caveats();
    assert_eq!(caveats.len(), 1, "{caveats:?}");
    assert!(caveats[0].contains("the kernels of this crate correct it"));
}

#[test]
fn a_round_trip_kept_in_one_probe_only_is_inconsistent() {
    let mut m = lavapipe();
    m.packed_once = 1.0 + 1.0 / 4096.0;
    let s = DeviceSemantics::from_measurements(&m);
    assert_eq!(s.round_trip_packed(), RoundTrip::Inconsistent);
    assert!(s.to_string().contains("round trips partly removed"));
}

#[test]
fn subgroup_sizes_are_validated() {
    assert!(SubgroupSizes::new(8, 8, Some(8)).is_some());
    assert!(SubgroupSizes::new(32, 64, Some(32)).is_some());
    assert!(SubgroupSizes::new(64, 32, None).is_none());
    assert!(SubgroupSizes::new(8, 8, Some(16)).is_none());
    assert!(SubgroupSizes::new(12, 16, None).is_none());
}
