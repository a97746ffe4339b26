//! `Gpu::from_device`: the kernels and the probe on a device its user
//! created. No test here creates a context through `Gpu::new` or
//! `Gpu::shared`, so that what the process records is what `from_device`
//! records.

use dual_delta_gpu::matmul::{Accumulation, matmul_emulated_with, random_matmul_input};
use dual_delta_gpu::reductions::random_rows;
use dual_delta_gpu::reductions::{SumStrategy, reduce_sum_emulated_with};
use dual_delta_gpu::semantics::DeviceSemantics;
use dual_delta_gpu::{
    Gpu, GpuError, GpuOptions,
    device::{F16Path, GpuPolicy},
    wgpu,
};
use dual_delta_runtime::TrialRng;

/// A user's adapter, as wgpu gives it, under the `DUAL_DELTA_GPU` policy:
/// `None` (the test skips) when there is none and `DUAL_DELTA_GPU=skip`,
/// a panic saying how to install lavapipe when there is none otherwise.
fn adapter() -> Option<wgpu::Adapter> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let error = match pollster::block_on(instance.request_adapter(&Default::default())) {
        Ok(adapter) => return Some(adapter),
        Err(e) => GpuError::NoAdapter {
            requested: None,
            available: vec![e.to_string()],
        },
    };
    // Panics unless the policy is to skip.
    let policy = GpuPolicy::from_env().expect("valid DUAL_DELTA_GPU");
    assert!(policy.apply(Err(error)).is_none());
    None
}

fn new_device(adapter: &wgpu::Adapter, features: wgpu::Features) -> (wgpu::Device, wgpu::Queue) {
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("a user's device"),
        required_features: features,
        ..Default::default()
    }))
    .expect("a device with the default limits")
}

#[test]
fn kernels_run_on_a_device_with_the_default_features_and_limits() {
    let Some(adapter) = adapter() else { return };
    let (device, queue) = new_device(&adapter, wgpu::Features::empty());
    let gpu = Gpu::from_device(&adapter, device.clone(), queue.clone()).unwrap();
    // No SHADER_F16 requested: the packed fallback, whatever the adapter has.
    assert!(!gpu.adapter_info().shader_f16);
    assert!(!gpu.adapter_info().subgroups);
    assert_eq!(gpu.adapter_info().name, adapter.get_info().name);
    assert!(gpu.semantics().f16_arithmetic().is_none());
    assert!(gpu.semantics().subgroups().is_none());
    // The probe is a function of the device: the same facts again.
    assert_eq!(
        &DeviceSemantics::probe(&device, &queue).unwrap(),
        gpu.semantics()
    );

    // The emulations in the device's mode (f16 subnormals flushed at
    // loads and stores where it flushes them, as under
    // DUAL_DELTA_GPU_IMITATE=ftz16).
    let f16_subnormals = gpu.semantics().f16_subnormals();
    let mut rng = TrialRng::for_trial(0xd0e5, 0);
    let x = random_matmul_input(16, 300, 24)(&mut rng);
    for acc in [
        Accumulation::F32,
        Accumulation::split_k(),
        Accumulation::F16,
    ] {
        assert_eq!(
            gpu.run(&x, acc).unwrap(),
            matmul_emulated_with(&x, acc, f16_subnormals)
        );
    }
    let rows = random_rows(3, 1000)(&mut rng);
    for strategy in SumStrategy::ALL {
        assert_eq!(
            gpu.run(&rows, strategy).unwrap(),
            reduce_sum_emulated_with(&rows, strategy, f16_subnormals)
        );
    }
    // Nothing is recorded for reports until asked.
    assert!(!dual_delta_runtime::environment().contains_key("gpu.adapter"));
    gpu.record_environment();
    let env = dual_delta_runtime::environment();
    assert!(
        env.get("gpu.adapter")
            .is_some_and(|a| a.starts_with(&adapter.get_info().name)),
        "{env:?}"
    );
    // The user's handles outlive the context.
    drop(gpu);
    device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .unwrap();
}

#[test]
fn native_f16_follows_the_device_features() {
    let Some(adapter) = adapter() else { return };
    let forced = GpuOptions {
        f16: F16Path::Native,
        ..GpuOptions::default()
    };
    let (device, queue) = new_device(&adapter, wgpu::Features::empty());
    let e = Gpu::from_device_with(&adapter, device, queue, &forced).unwrap_err();
    assert!(e.to_string().contains("lacks SHADER_F16"), "{e}");

    if !adapter.features().contains(wgpu::Features::SHADER_F16) {
        eprintln!("{} has no SHADER_F16", adapter.get_info().name);
        return;
    }
    let (device, queue) = new_device(&adapter, wgpu::Features::SHADER_F16);
    let gpu = Gpu::from_device_with(&adapter, device, queue, &forced).unwrap();
    assert!(gpu.adapter_info().shader_f16);
    assert!(gpu.semantics().f16_arithmetic().is_some());
    let x = random_matmul_input(8, 64, 8)(&mut TrialRng::for_trial(0xd0e5, 1));
    assert_eq!(
        gpu.run(&x, Accumulation::F16).unwrap(),
        matmul_emulated_with(&x, Accumulation::F16, gpu.semantics().f16_subnormals())
    );
}
