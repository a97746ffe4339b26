//! Milliseconds to draw one input of the paper's case studies 2 and 3
//! (`128×4096` and `4096×128`, `torch.randn(...).half()`: 1 048 576
//! samples) on one core: the ziggurat sampler the inputs were drawn with
//! before (rand_distr's `StandardNormal`, copied here) beside the block
//! Box–Muller of `dual_delta_gpu::randn` that draws them now, timed in
//! the same run, alternately, on the same trials. Each is timed twice:
//! making a new input, and drawing into the buffers of the last one (the
//! generator alone). A new input before was two fresh 1 MiB vectors, which
//! cost a page fault every 4 KiB; `MatmulInput::random` now draws into the
//! matrices of the last input dropped (kept by a pool), as a run's trials
//! do after the first.
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example input_timing [-- --reps N --shape MxKxN]
//! ```

use std::hint::black_box;
use std::time::Instant;

use dual_delta_gpu::f16;
use dual_delta_gpu::matmul::MatmulInput;
use dual_delta_gpu::randn;
use dual_delta_runtime::TrialRng;
use half::slice::HalfFloatSliceExt as _;
use rand::RngExt as _;
use rand_distr::StandardNormal;

/// The generator before `randn`: one ziggurat draw per sample, rounded to
/// `f16` 256 at a time.
fn ziggurat_fill_f16(rng: &mut TrialRng, out: &mut [f16]) {
    const CHUNK: usize = 256;
    let mut draws = [0.0f32; CHUNK];
    for dst in out.chunks_mut(CHUNK) {
        let draws = &mut draws[..dst.len()];
        for v in draws.iter_mut() {
            *v = rng.sample(StandardNormal);
        }
        dst.convert_from_f32_slice(draws);
    }
}

/// The input as `MatmulInput::random` made it before `randn`.
fn ziggurat_input(m: usize, k: usize, n: usize, rng: &mut TrialRng) -> (Vec<f16>, Vec<f16>) {
    let mut a = vec![f16::ZERO; m * k];
    ziggurat_fill_f16(rng, &mut a);
    let mut b = vec![f16::ZERO; k * n];
    ziggurat_fill_f16(rng, &mut b);
    (a, b)
}

fn arg_str(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn processor() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown processor".to_owned())
}

fn vector_path() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            return "AVX-512";
        }
        if std::is_x86_feature_detected!("avx2") {
            return "AVX2";
        }
    }
    "baseline"
}

/// Median, mean and minimum of `t`, in milliseconds.
fn summary(mut t: Vec<f64>) -> (f64, f64, f64) {
    t.sort_by(f64::total_cmp);
    let mean = t.iter().sum::<f64>() / t.len() as f64;
    (t[t.len() / 2], mean, t[0])
}

fn main() {
    let reps: usize = arg_str("--reps").map_or(200, |v| v.parse().expect("a number"));
    let (m, k, n) = arg_str("--shape").map_or((128, 4096, 128), |v| {
        let d: Vec<usize> = v.split('x').map(|d| d.parse().expect("MxKxN")).collect();
        (d[0], d[1], d[2])
    });
    let samples = m * k + k * n;
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e3
    };
    // [old new, old in place, new in place] per trial.
    let mut t: [Vec<f64>; 4] = Default::default();
    let (mut a, mut b) = (vec![f16::ZERO; m * k], vec![f16::ZERO; k * n]);
    // One warm-up of each, then each in turn on trials 0, 1, ...
    for trial in 0..=reps {
        let rng = || TrialRng::for_trial(1, trial);
        let times = [
            time(&mut || {
                black_box(ziggurat_input(m, k, n, &mut rng()));
            }),
            time(&mut || {
                black_box(MatmulInput::<f16>::random(m, k, n, &mut rng()));
            }),
            time(&mut || {
                let mut rng = rng();
                ziggurat_fill_f16(&mut rng, &mut a);
                ziggurat_fill_f16(&mut rng, &mut b);
                black_box((&a, &b));
            }),
            time(&mut || {
                let mut rng = rng();
                randn::fill_f16(&mut rng, &mut a);
                randn::fill_f16(&mut rng, &mut b);
                black_box((&a, &b));
            }),
        ];
        if trial > 0 {
            for (t, x) in t.iter_mut().zip(times) {
                t.push(x);
            }
        }
    }
    println!("processor: {} (one core)", processor());
    println!("input: {m}×{k} and {k}×{n} f16, {samples} samples, {reps} inputs each");
    let [old, new, old_in_place, new_in_place] = t.map(summary);
    let new_name = format!("block Box–Muller ({})", vector_path());
    for (what, old, new) in [
        ("a new input", old, new),
        ("into the last input's buffers", old_in_place, new_in_place),
    ] {
        println!("{what}:");
        for (name, (median, mean, min)) in [("ziggurat (before)", old), (&*new_name, new)] {
            println!(
                "  {name:<28} median {median:.3} ms, mean {mean:.3} ms, min {min:.3} ms per input \
                 ({:.2} ns per sample)",
                median * 1e6 / samples as f64
            );
        }
        println!("  speed-up (medians): {:.1}×", old.0 / new.0);
    }
}
