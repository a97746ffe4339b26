//! Adapter choice, capabilities, and what is recorded about them.

use crate::common::known::{Known, known};
use dual_delta_gpu::{
    Gpu, GpuError, GpuOptions,
    device::{F16Path, MatmulTiling, Subgroups},
    require_gpu,
};

#[test]
fn an_adapter_that_does_not_exist_is_a_clear_error() {
    let options = GpuOptions {
        adapter: Some("no-such-adapter".into()),
        ..GpuOptions::default()
    };
    let e = Gpu::new(&options).unwrap_err();
    let GpuError::NoAdapter { requested, .. } = &e else {
        panic!("expected NoAdapter, got {e:?}");
    };
    assert_eq!(requested.as_deref(), Some("no-such-adapter"));
    assert!(e.is_unavailable());
    let msg = e.to_string();
    assert!(
        msg.starts_with("no GPU adapter matches DUAL_DELTA_ADAPTER=\"no-such-adapter\""),
        "{msg}"
    );
    assert!(
        msg.contains("`apt-get install mesa-vulkan-drivers libvulkan1`"),
        "{msg}"
    );
    assert!(msg.contains("DUAL_DELTA_GPU=skip"), "{msg}");
}

#[test]
fn the_adapter_is_recorded_for_reports() {
    let Some(gpu) = require_gpu() else { return };
    let info = gpu.adapter_info();
    assert!(!info.name.is_empty());
    assert!(!info.backend.is_empty());
    let env = dual_delta_runtime::environment();
    let recorded = env.get("gpu.adapter").expect("gpu.adapter recorded");
    // Another test may have created a (fallback) context on the same
    // adapter since; the adapter's name is in the record either way.
    assert!(recorded.starts_with(&info.name), "{recorded} / {info}");
    assert!(recorded.contains(&info.backend), "{recorded}");
    assert!(recorded.contains(&info.driver), "{recorded}");
    assert!(info.to_string().contains(if info.shader_f16 {
        "f16 native"
    } else {
        "f16 fallback"
    }));
}

#[test]
fn adapters_can_be_chosen_by_backend_or_name() {
    let Some(shared) = require_gpu() else { return };
    let info = shared.adapter_info().clone();
    for filter in [info.backend.clone(), info.driver.to_uppercase()] {
        if filter.is_empty() {
            continue;
        }
        let gpu = Gpu::new(&GpuOptions {
            adapter: Some(filter.clone()),
            f16: F16Path::Fallback,
            ..GpuOptions::default()
        })
        .unwrap_or_else(|e| panic!("DUAL_DELTA_ADAPTER={filter}: {e}"));
        assert_eq!(gpu.adapter_info().name, info.name, "{filter}");
        assert!(!gpu.adapter_info().shader_f16);
    }
}

/// On a known device (lavapipe, the H100, the H200) both paths must really
/// run: the shared context uses native f16 there unless the fallback is
/// forced; the NVIDIA GPUs are discrete.
#[test]
fn a_known_device_runs_native_f16_unless_the_fallback_is_forced() {
    let Some(gpu) = require_gpu() else { return };
    let info = gpu.adapter_info();
    let Some(device) = known(gpu) else {
        eprintln!("note: {info} is not a device whose facts are recorded (lavapipe, H100, H200)");
        return;
    };
    let forced = GpuOptions::from_env().unwrap().f16 == F16Path::Fallback;
    assert_eq!(
        info.shader_f16, !forced,
        "{device:?} has SHADER_F16: {info}"
    );
    let native = Gpu::new(&GpuOptions {
        f16: F16Path::Native,
        ..GpuOptions::from_env().unwrap()
    })
    .unwrap();
    assert!(native.adapter_info().shader_f16);
    let kind = match device {
        Known::Lavapipe => "Cpu",
        Known::H100 | Known::H200 => "DiscreteGpu",
    };
    assert_eq!(info.device_type, kind, "{info}");
}

/// On lavapipe at 256 bits (subgroups of 8) the matmul kernels share `B`
/// through subgroups unless that is turned off or the shared tiles are
/// forced (`DUAL_DELTA_GPU_TILING=shared`); on the H100 and H200
/// (subgroups of 32, discrete GPUs) they stage tiles in workgroup memory
/// unless the register blocks are asked for, and those then use subgroups
/// unless they are off.
/// The adapter's description says which.
#[test]
fn a_known_device_uses_subgroups_and_tiles_as_recorded() {
    let Some(gpu) = require_gpu() else { return };
    let info = gpu.adapter_info();
    let options = GpuOptions::from_env().unwrap();
    let subgroups_on = options.subgroups == Subgroups::Auto;
    let (subgroups, shared) = match known(gpu) {
        Some(Known::Lavapipe) if info.name.contains("256 bits") => {
            let shared = options.tiling == MatmulTiling::Shared;
            (subgroups_on && !shared, shared)
        }
        Some(Known::H100 | Known::H200) => {
            let shared = options.tiling != MatmulTiling::Registers;
            (subgroups_on && !shared, shared)
        }
        _ => {
            eprintln!("note: {info}: no recorded subgroup sizes; only turning them off is checked");
            (info.subgroups, info.shared_tiles)
        }
    };
    assert_eq!(info.subgroups, subgroups, "{info}");
    assert_eq!(
        info.to_string().contains(", subgroups"),
        subgroups,
        "{info}"
    );
    assert_eq!(info.shared_tiles, shared, "{info}");
    assert_eq!(
        info.to_string().ends_with(", shared tiles"),
        shared,
        "{info}"
    );
    let off = Gpu::new(&GpuOptions {
        subgroups: Subgroups::Off,
        ..options
    })
    .unwrap();
    assert!(!off.adapter_info().subgroups);
    assert!(!off.adapter_info().to_string().contains("subgroups"));
}

/// A CPU driver gets the register-block kernels unless the shared tiles
/// are asked for, and the adapter's description says which.
#[test]
fn the_tiling_follows_the_option() {
    let Some(gpu) = require_gpu() else { return };
    let shared = Gpu::new(&GpuOptions {
        tiling: MatmulTiling::Shared,
        ..GpuOptions::from_env().unwrap()
    })
    .unwrap();
    assert!(shared.adapter_info().shared_tiles);
    assert!(!shared.adapter_info().subgroups);
    assert!(
        shared
            .adapter_info()
            .to_string()
            .ends_with(", shared tiles")
    );
    let registers = Gpu::new(&GpuOptions {
        tiling: MatmulTiling::Registers,
        ..GpuOptions::from_env().unwrap()
    })
    .unwrap();
    assert!(!registers.adapter_info().shared_tiles);
    if gpu.adapter_info().device_type == "Cpu"
        && GpuOptions::from_env().unwrap().tiling == MatmulTiling::Auto
    {
        assert!(!gpu.adapter_info().shared_tiles, "{}", gpu.adapter_info());
    }
}
