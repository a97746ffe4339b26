//! Contexts for the GPU tests: the shared one and one forced onto the
//! packed-`u32` fallback, without subgroups.

#![allow(dead_code, unreachable_pub)]

pub mod known;

use std::cell::RefCell;
use std::sync::OnceLock;

use dual_delta_gpu::attention::AttentionInput;
use dual_delta_gpu::matmul::MatmulInput;
use dual_delta_gpu::norm::NormInput;
use dual_delta_gpu::reductions::RowsInput;
use dual_delta_gpu::semantics::Subnormals;
use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::{F16Path, GpuPolicy, Subgroups},
    f16, require_gpu,
};
use dual_delta_runtime::{Metric, output::NumberFormat};

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
/// from its emulation on an input that a broken assumption of the
/// emulations can reach (see [`assert_matches_emulation`]). Why one: the
/// kernels divide and take square roots correctly rounded on any device
/// within eight steps (`div_rn`, `sqrt_rn`); a flushed subnormal
/// intermediate is below `2⁻¹²⁶`, so it moves an `f32` result by at most
/// its last bit, which moves the output's one rounding to `f16` by at most
/// one ulp. Measured on the H100 before those kernels divided exactly: 1 of
/// 8000 softmax and 1 of 3000 LayerNorm outputs off by one ulp.
pub const EMULATION_BOUND_ULPS: f64 = 1.0;

/// The `f16` values a kernel reads.
pub trait KernelInput: Clone {
    /// Every value, in no particular order.
    fn values(&self) -> Vec<f16>;

    /// The input with every `f16` subnormal flushed to a zero of its sign.
    fn flushed(&self) -> Self;

    /// The input as `gpu` loads it: [`KernelInput::flushed`] where the
    /// device flushes `f16` subnormals (the emulations' flush mode), else
    /// as it is.
    fn as_loaded_on(&self, gpu: &Gpu) -> Self {
        if gpu.semantics().f16_subnormals() == Subnormals::Kept {
            self.clone()
        } else {
            self.flushed()
        }
    }
}

fn flush_all(v: &[f16]) -> Vec<f16> {
    v.iter().map(|&x| flush16(x)).collect()
}

impl KernelInput for RowsInput<f16> {
    fn values(&self) -> Vec<f16> {
        self.data().to_vec()
    }

    fn flushed(&self) -> Self {
        RowsInput::new(self.rows(), self.row_len(), flush_all(self.data())).unwrap()
    }
}

impl KernelInput for NormInput<f16> {
    fn values(&self) -> Vec<f16> {
        let mut v = self.x().data().to_vec();
        v.extend(self.weight().unwrap_or_default());
        v.extend(self.bias().unwrap_or_default());
        v
    }

    fn flushed(&self) -> Self {
        NormInput::new(
            self.x().flushed(),
            self.weight().map(flush_all),
            self.bias().map(flush_all),
            self.eps(),
        )
        .unwrap()
    }
}

impl KernelInput for AttentionInput<f16> {
    fn values(&self) -> Vec<f16> {
        [self.q(), self.k(), self.v()].concat()
    }

    fn flushed(&self) -> Self {
        AttentionInput::new(
            self.shape(),
            self.causal(),
            flush_all(self.q()),
            flush_all(self.k()),
            flush_all(self.v()),
        )
        .unwrap()
    }
}

impl KernelInput for MatmulInput {
    fn values(&self) -> Vec<f16> {
        [self.a(), self.b()].concat()
    }

    fn flushed(&self) -> Self {
        let (m, k, n) = self.shape();
        MatmulInput::new(m, k, n, flush_all(self.a()), flush_all(self.b())).unwrap()
    }
}

/// What the device does to `f16` subnormals where the kernels load and
/// store `f16`: the mode of the emulations that take one
/// (`matmul_emulated_with`, `reduce_sum_emulated_with`).
pub fn f16_subnormals(gpu: &Gpu) -> Subnormals {
    gpu.semantics().f16_subnormals()
}

/// `want` as `gpu` stores it: every `f16` subnormal a zero of its sign
/// where the device flushes them, else as it is.
pub fn as_stored_on(gpu: &Gpu, want: &[f16]) -> Vec<f16> {
    if f16_subnormals(gpu) == Subnormals::Kept {
        want.to_vec()
    } else {
        flush_all(want)
    }
}

/// `v`, or a zero of its sign where it is an `f16` subnormal: what a
/// device that flushes `f16` subnormals stores.
pub fn flush16(v: f16) -> f16 {
    if subnormal(&v) {
        f16::from_bits(v.to_bits() & 0x8000)
    } else {
        v
    }
}

/// Whether `v` is an `f16` subnormal (nonzero, below `2⁻¹⁴`).
fn subnormal(v: &f16) -> bool {
    v.to_bits() & 0x7c00 == 0 && v.to_bits() & 0x03ff != 0
}

thread_local! {
    /// The failures recorded inside [`every_mismatch`], `None` outside.
    static FOUND: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// A failed comparison: recorded when inside [`every_mismatch`] (which
/// fails after all its cases have run), a panic otherwise.
pub fn fail(message: String) {
    let recorded = FOUND.with(|f| match f.borrow_mut().as_mut() {
        Some(found) => {
            found.push(message.clone());
            true
        }
        None => false,
    });
    if !recorded {
        panic!("{message}");
    }
}

/// Runs `body`, in which each comparison of this module records its
/// failure instead of panicking at the first, so that every case and
/// strategy runs; then fails listing every mismatching one.
pub fn every_mismatch(body: impl FnOnce()) {
    FOUND.with(|f| *f.borrow_mut() = Some(Vec::new()));
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    let found = FOUND.with(|f| f.borrow_mut().take()).unwrap_or_default();
    if let Err(panic) = run {
        eprintln!("before the panic, {} mismatching case(s):", found.len());
        for line in &found {
            eprintln!("{line}");
        }
        std::panic::resume_unwind(panic);
    }
    assert!(
        found.is_empty(),
        "{} mismatching case(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The elements at `at`, as `i: got vs want` (with the distance in `f16`
/// ulps), the first eight and how many more.
fn listing(got: &[f16], want: &[f16], at: &[usize]) -> String {
    let mut parts: Vec<String> = at
        .iter()
        .take(8)
        .map(|&i| {
            let d = ulps(got[i], want[i]);
            format!("[{i}] {} vs {} ({d} ulp)", got[i], want[i])
        })
        .collect();
    if at.len() > 8 {
        parts.push(format!("and {} more", at.len() - 8));
    }
    parts.join(", ")
}

/// The elements where `got` and `want` differ bit for bit, any NaN equal
/// to any NaN (NaN payloads and signs differ between vendors, and no
/// kernel here encodes anything in them).
fn differing(got: &[f16], want: &[f16]) -> Vec<usize> {
    (0..got.len())
        .filter(|&i| {
            got[i].to_bits() != want[i].to_bits() && !(got[i].is_nan() && want[i].is_nan())
        })
        .collect()
}

/// Compares a softmax, LayerNorm or attention kernel's output `got` on
/// `input` with its emulation `want`, bit for bit (any NaN equal to any
/// NaN), and fails listing the elements that differ. Where the device
/// flushes `f16` subnormals, the emulation's output is flushed alike.
///
/// Only where a broken assumption of the emulations can reach this input
/// is a difference of up to [`EMULATION_BOUND_ULPS`] accepted, and then it
/// is said (on stderr, with the reason), never passed over: on a device
/// whose probe finds division, `max`/`min` or infinities other than the
/// emulations assume, or on a device that flushes subnormals where the
/// input or the expected output holds an `f16` subnormal. An input whose
/// values and results are normal `f16` numbers or zero keeps every
/// intermediate of these kernels a normal `f32` (products of at most four
/// such values are above `2⁻⁹⁶`, `exp` is zero below `e⁻⁸⁷`, and a
/// quotient below `2⁻¹²⁶` rounds to an `f16` zero whether flushed or not),
/// so a flush cannot reach it and it is compared bit for bit.
pub fn assert_matches_emulation(
    gpu: &Gpu,
    input: &impl KernelInput,
    got: &[f16],
    want: &[f16],
    what: &str,
) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let semantics = gpu.semantics();
    // The emulation's flush mode, where the device flushes f16 subnormals
    // (its conversions to f16 give zero of their sign there).
    let flushed: Vec<f16>;
    let want = if semantics.f16_subnormals() == Subnormals::Kept {
        want
    } else {
        flushed = want.iter().map(|&v| flush16(v)).collect();
        &flushed
    };
    let differ = differing(got, want);
    if differ.is_empty() {
        return;
    }
    let why = if semantics.kernels_match_emulations() {
        None
    } else if !semantics.kernels_match_emulations_on_normal_values() {
        Some("its division, max/min or infinities differ from the emulations'")
    } else if input.values().iter().any(subnormal) {
        Some("it flushes subnormals and the input holds an f16 subnormal")
    } else if want.iter().any(subnormal) {
        Some("it flushes subnormals and the expected output holds an f16 subnormal")
    } else {
        None
    };
    let n = got.len();
    let Some(why) = why else {
        return fail(format!(
            "{what}: {} of {n} elements differ from the emulation, which must hold bit for bit \
             here: {}",
            differ.len(),
            listing(got, want, &differ)
        ));
    };
    let far: Vec<usize> = differ
        .iter()
        .copied()
        .filter(|&i| {
            got[i].is_nan() || want[i].is_nan() || ulps(got[i], want[i]) > EMULATION_BOUND_ULPS
        })
        .collect();
    if far.is_empty() {
        eprintln!(
            "note: {what}: {} of {n} elements within {EMULATION_BOUND_ULPS} f16 ulp of the \
             emulation, not equal, accepted because on {semantics} {why}: {}",
            differ.len(),
            listing(got, want, &differ)
        );
    } else {
        fail(format!(
            "{what}: {} of {n} elements more than {EMULATION_BOUND_ULPS} f16 ulp from the \
             emulation (the bound accepted only because on {semantics} {why}): {}",
            far.len(),
            listing(got, want, &far)
        ));
    }
}

/// Asserts that every element of `got` is within `bound` `f16` ulps of
/// `want`, and NaN exactly where `want` is, listing those that are not.
pub fn assert_within_ulps(got: &[f16], want: &[f16], bound: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let far: Vec<usize> = (0..got.len())
        .filter(|&i| match (got[i].is_nan(), want[i].is_nan()) {
            (true, true) => false,
            (false, false) => ulps(got[i], want[i]) > bound,
            _ => true,
        })
        .collect();
    if !far.is_empty() {
        fail(format!(
            "{what}: {} of {} elements more than {bound} ulp apart: {}",
            far.len(),
            got.len(),
            listing(got, want, &far)
        ));
    }
}

/// Asserts `got == want` bit for bit, any NaN equal to any NaN, listing
/// the elements that differ.
pub fn assert_identical(got: &[f16], want: &[f16], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let differ = differing(got, want);
    if !differ.is_empty() {
        fail(format!(
            "{what}: {} of {} elements differ: {}",
            differ.len(),
            got.len(),
            listing(got, want, &differ)
        ));
    }
}

/// Asserts that two outputs hold the same bits (`bf16`, `f32` or FP8
/// outputs as their bits), listing the elements that differ.
pub fn assert_same_bits(got: &[u32], want: &[u32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let differ: Vec<String> = (0..got.len())
        .filter(|&i| got[i] != want[i])
        .map(|i| format!("[{i}] {:#x} vs {:#x}", got[i], want[i]))
        .collect();
    if !differ.is_empty() {
        let n = differ.len();
        let first: Vec<&str> = differ.iter().take(8).map(String::as_str).collect();
        fail(format!(
            "{what}: {n} of {} elements differ: {}",
            got.len(),
            first.join(", ")
        ));
    }
}
