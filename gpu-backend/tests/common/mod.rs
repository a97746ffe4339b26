//! Contexts for the GPU tests: the shared one and one forced onto the
//! packed-`u32` fallback, without subgroups.

#![allow(dead_code, unreachable_pub)]

use std::sync::OnceLock;

use dual_delta_gpu::attention::AttentionInput;
use dual_delta_gpu::norm::NormInput;
use dual_delta_gpu::rows::RowsInput;
use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::{F16Path, GpuPolicy, Subgroups},
    f16, require_gpu,
};
use dual_delta_runtime::{Metric, NumberFormat};

/// The GPU contexts every kernel test runs on: the shared context (native
/// `f16` where the adapter has `SHADER_F16`; subgroup matmul kernels where
/// it has subgroups of 8 or more) and, when that one is native, a second
/// context forced onto the fallback path with subgroups off, so that the
/// kernels without subgroups are tested too. Empty when GPU tests are
/// skipped (`DUAL_DELTA_GPU=skip` without an adapter); panics with the
/// install instructions when there is no adapter otherwise.
pub fn gpus() -> Vec<&'static Gpu> {
    static FALLBACK: OnceLock<Result<Gpu, dual_delta_gpu::GpuError>> = OnceLock::new();
    let Some(shared) = require_gpu() else {
        return Vec::new();
    };
    if !shared.adapter_info().shader_f16 {
        eprintln!(
            "note: {} runs the fallback path only (no SHADER_F16, or DUAL_DELTA_GPU_F16=fallback)",
            shared.adapter_info()
        );
        return vec![shared];
    }
    let fallback = FALLBACK.get_or_init(|| {
        Gpu::new(&GpuOptions {
            f16: F16Path::Fallback,
            subgroups: Subgroups::Off,
            ..GpuOptions::from_env().expect("valid settings")
        })
    });
    let policy = GpuPolicy::from_env().expect("valid DUAL_DELTA_GPU");
    match policy.apply(fallback.as_ref().map_err(Clone::clone)) {
        Some(fallback) => {
            assert!(!fallback.adapter_info().shader_f16);
            assert!(!fallback.adapter_info().subgroups);
            vec![shared, fallback]
        }
        None => vec![shared],
    }
}

/// The path's name for assertion messages.
pub fn path(gpu: &Gpu) -> &'static str {
    if gpu.adapter_info().shader_f16 {
        "native f16"
    } else {
        "packed-u32 fallback"
    }
}

/// Max hybrid error `max |y - y'| / (1 + |y'|)` of `y` against the oracle.
pub fn max_hybrid(y: &[f16], oracle: &[f64]) -> f64 {
    let y: Vec<f64> = y.iter().map(|v| v.to_f64()).collect();
    Metric::MaxHybrid.error(&y, oracle, NumberFormat::F16)
}

/// Distance between two `f16` values in units of the spacing of `f16`
/// values at the larger magnitude (0 when equal, 1 for neighbours).
pub fn ulps(x: f16, y: f16) -> f64 {
    let (a, b) = (x.to_f64(), y.to_f64());
    if a == b {
        return 0.0;
    }
    (a - b).abs() / NumberFormat::F16.ulp(a.abs().max(b.abs()))
}

/// Mean and sample standard deviation.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (v.len().max(2) - 1) as f64;
    (mean, var.sqrt())
}

/// How far, in `f16` ulps, a softmax, LayerNorm or attention kernel may be
/// from its emulation on an input where a broken assumption of the
/// emulations may reach it: a device whose probe finds division, `max`/`min`
/// or infinities other than the emulations assume
/// ([`DeviceSemantics::kernels_match_emulations_on_normal_values`] false),
/// or a device that flushes subnormals and an input holding an `f16`
/// subnormal (or an output that is one). Why one: the kernels divide and
/// take square roots correctly rounded on any device within eight steps
/// (`div_rn`, `sqrt_rn`); a flushed subnormal intermediate is below
/// `2⁻¹²⁶`, so it moves an `f32` result by at most its last bit, which
/// moves the output's one rounding to `f16` by at most one ulp. Measured on
/// the H100 before those kernels divided exactly: 1 of 8000 softmax and 1
/// of 3000 LayerNorm outputs off by one ulp.
///
/// [`DeviceSemantics::kernels_match_emulations_on_normal_values`]: dual_delta_gpu::semantics::DeviceSemantics::kernels_match_emulations_on_normal_values
pub const EMULATION_BOUND_ULPS: f64 = 1.0;

/// The `f16` values a kernel reads.
pub trait KernelInput {
    /// Every value, in no particular order.
    fn values(&self) -> Vec<f16>;
}

impl KernelInput for RowsInput<f16> {
    fn values(&self) -> Vec<f16> {
        self.data().to_vec()
    }
}

impl KernelInput for NormInput<f16> {
    fn values(&self) -> Vec<f16> {
        let mut v = self.x().data().to_vec();
        v.extend(self.weight().unwrap_or_default());
        v.extend(self.bias().unwrap_or_default());
        v
    }
}

impl KernelInput for AttentionInput<f16> {
    fn values(&self) -> Vec<f16> {
        [self.q(), self.k(), self.v()].concat()
    }
}

/// Whether `v` is an `f16` subnormal (nonzero, below `2⁻¹⁴`).
fn subnormal(v: &f16) -> bool {
    v.to_bits() & 0x7c00 == 0 && v.to_bits() & 0x03ff != 0
}

/// Asserts that a softmax, LayerNorm or attention kernel's output `got` on
/// `input` equals its emulation `want` bit for bit (any NaN equal to any
/// NaN) wherever no broken assumption of the emulations can reach it, and
/// is within [`EMULATION_BOUND_ULPS`] of it (NaN where it is NaN)
/// elsewhere. Decided per input: on a device that flushes subnormals (the
/// H100 flushes `f32` ones), an input whose values and results are normal
/// `f16` numbers or zero keeps every intermediate of these kernels a normal
/// `f32` (products of at most four such values are above `2⁻⁹⁶`, `exp` is
/// zero below `e⁻⁸⁷`, and a quotient below `2⁻¹²⁶` rounds to an `f16` zero
/// whether flushed or not), so the flush cannot reach it.
pub fn assert_matches_emulation(
    gpu: &Gpu,
    input: &impl KernelInput,
    got: &[f16],
    want: &[f16],
    what: &str,
) {
    let semantics = gpu.semantics();
    let reachable = !semantics.kernels_match_emulations()
        && (!semantics.kernels_match_emulations_on_normal_values()
            || input.values().iter().any(subnormal)
            || want.iter().any(subnormal));
    if !reachable {
        return assert_identical(got, want, what);
    }
    let what = format!("{what} on a device where {semantics}");
    assert_within_ulps(got, want, EMULATION_BOUND_ULPS, &what);
}

/// Asserts that every element of `got` is within `bound` `f16` ulps of
/// `want`, and NaN exactly where `want` is, naming how many are not and the
/// first.
pub fn assert_within_ulps(got: &[f16], want: &[f16], bound: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let far: Vec<usize> = (0..got.len())
        .filter(|&i| match (got[i].is_nan(), want[i].is_nan()) {
            (true, true) => false,
            (false, false) => ulps(got[i], want[i]) > bound,
            _ => true,
        })
        .collect();
    if let Some(&i) = far.first() {
        panic!(
            "{what}: {} of {} elements more than {bound} ulp apart; first at {i}: {} vs {}",
            far.len(),
            got.len(),
            got[i],
            want[i]
        );
    }
}

/// Asserts `got == want` bit for bit, any NaN equal to any NaN (NaN
/// payloads and signs differ between vendors, and no kernel here encodes
/// anything in them), naming how many elements differ and the first.
pub fn assert_identical(got: &[f16], want: &[f16], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let differ: Vec<usize> = (0..got.len())
        .filter(|&i| {
            got[i].to_bits() != want[i].to_bits() && !(got[i].is_nan() && want[i].is_nan())
        })
        .collect();
    if let Some(&i) = differ.first() {
        panic!(
            "{what}: {} of {} elements differ; first at {i}: {} vs {}",
            differ.len(),
            got.len(),
            got[i],
            want[i]
        );
    }
}
