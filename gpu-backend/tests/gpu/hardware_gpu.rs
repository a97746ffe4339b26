//! A run that asks for a hardware GPU (`DUAL_DELTA_GPU=require-hardware`,
//! `GpuOptions::require_hardware`) and gets a CPU driver fails with a clear
//! error instead of passing on llvmpipe: where the vendor's Vulkan driver
//! is missing, adapter choice falls back to llvmpipe silently.

use crate::common::known::{Known, known};
use dual_delta_gpu::{Gpu, GpuError, GpuOptions, device::GpuPolicy, wgpu};

/// Asserts that `result` is the hardware error, naming the CPU adapter and
/// saying what to do.
fn assert_not_hardware(result: Result<Gpu, GpuError>) {
    let error = result.expect_err("a CPU adapter must not pass as a GPU");
    assert!(matches!(error, GpuError::NotHardware(_)), "{error:?}");
    assert!(!error.is_unavailable(), "never skipped: {error}");
    let message = error.to_string();
    for part in [
        "DUAL_DELTA_GPU=require-hardware",
        "CPU driver",
        "Cpu",
        "Vulkan driver",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
}

/// llvmpipe, chosen by name (so that the test asks the same on a machine
/// with a GPU): `None` where it is not installed.
fn llvmpipe_options() -> Option<GpuOptions> {
    let options = GpuOptions {
        adapter: Some("llvmpipe".into()),
        ..GpuOptions::from_env().expect("valid settings")
    };
    match Gpu::new(&options) {
        Ok(_) => Some(options),
        Err(GpuError::NoAdapter { .. }) => {
            eprintln!("note: no llvmpipe adapter here; nothing to check");
            None
        }
        Err(GpuError::NotHardware(_)) => Some(options),
        Err(e) => panic!("{e}"),
    }
}

/// Where there is no llvmpipe (a GPU machine without Mesa), the other
/// side is checked: the adapter at hand, when it is a known GPU, passes as
/// hardware.
#[test]
fn asking_for_a_hardware_gpu_fails_on_llvmpipe() {
    let Some(options) = llvmpipe_options() else {
        return a_known_gpu_passes_as_hardware();
    };
    assert_not_hardware(Gpu::new(&GpuOptions {
        require_hardware: true,
        ..options
    }));
}

#[test]
fn a_users_cpu_device_fails_when_a_gpu_is_asked_for() {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let Some(adapter) = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
    else {
        eprintln!("note: no CPU adapter here; nothing to check");
        return;
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
        .expect("a device on the CPU adapter");
    let options = GpuOptions {
        require_hardware: true,
        ..GpuOptions::default()
    };
    assert_not_hardware(Gpu::from_device_with(&adapter, device, queue, &options));
}

/// The shared adapter, when it is a known GPU (the H100, the H200), passes
/// `require-hardware`.
fn a_known_gpu_passes_as_hardware() {
    let Some(gpu) = dual_delta_gpu::require_gpu() else {
        return;
    };
    match known(gpu) {
        Some(device @ (Known::H100 | Known::H200)) => {
            let options = GpuOptions {
                adapter: Some(gpu.adapter_info().name.clone()),
                require_hardware: true,
                ..GpuOptions::from_env().expect("valid settings")
            };
            let hardware = Gpu::new(&options)
                .unwrap_or_else(|e| panic!("the {device:?} passes as hardware: {e}"));
            assert_eq!(hardware.adapter_info().device_type, "DiscreteGpu");
        }
        Some(Known::Lavapipe) => panic!("lavapipe at hand, yet no llvmpipe adapter by name"),
        None => eprintln!(
            "note: {} is not a known GPU; nothing to check",
            gpu.adapter_info()
        ),
    }
}

#[test]
fn the_policy_names_the_hardware_requirement() {
    assert_eq!(
        GpuPolicy::parse(" Require-Hardware ").unwrap(),
        GpuPolicy::RequireHardware
    );
    let e = GpuPolicy::parse("hardware").unwrap_err().to_string();
    assert!(e.contains("`require-hardware`"), "{e}");
}
