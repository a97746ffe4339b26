//! Throughput of dual-delta on the paper's shapes, and of its f64 oracle.
//!
//! ```sh
//! cargo bench -p dual-delta-bench
//! ```
//!
//! - `trials/*`: whole Dual-Delta runs of a fixed number of trials (inputs,
//!   both implementations, the oracle, the metric, all statistics);
//!   criterion's `elem/s` is trials per second. `cpu` runs the CPU FP16
//!   matmul as both implementations; `gpu` runs the wgpu candidate against
//!   it (lavapipe where there is no GPU), one matmul per submission;
//!   `gpu_batched` the same through `DualDelta::batched`, one submission
//!   per batch of 32 trials.
//! - `oracle_gemm/*`: the f64 oracle matmul (`f64`, widening included), the
//!   CPU FP16 reference (`cpu_f16`) and the oracle's GEMM kernel alone on
//!   operands already in f64 (`gemm_kernel_f64`); `elem/s` is FLOP/s
//!   (2·m·k·n per call). `fma_peak` measures the machine's f64 FMA peak on one core
//!   (12 independent FMA chains, 256-bit and, where the processor has
//!   AVX-512, 512-bit), the figure the GEMM is compared to: the GEMM runs
//!   single-threaded, so its FLOP/s over the widest peak is its efficiency.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dual_delta_gpu::matmul::{MatmulInput, matmul_cpu_f16, matmul_f64};
use dual_delta_runtime::{DualDelta, TrialRng};
use dual_delta_tests::{CASE_1, CASE_2, CaseStudy};

fn run_cpu(case: &CaseStudy, trials: usize) {
    let outcome = DualDelta::new(matmul_cpu_f16, matmul_cpu_f16, matmul_f64, |rng| {
        case.input(rng)
    })
    .test_name(format!("bench::cpu::{}", case.name))
    .n(trials)
    .run()
    .expect("run");
    black_box(outcome.summaries().candidate.mean);
}

fn run_gpu(case: &CaseStudy, trials: usize) {
    let outcome = DualDelta::new(
        |x| case.gpu_matmul(x),
        matmul_cpu_f16,
        matmul_f64,
        |rng| case.input(rng),
    )
    .test_name(format!("bench::gpu::{}", case.name))
    .n(trials)
    .run()
    .expect("run");
    black_box(outcome.summaries().candidate.mean);
}

fn run_gpu_batched(case: &CaseStudy, trials: usize) {
    let outcome = DualDelta::batched(
        |xs: &[MatmulInput]| case.gpu_matmul_batch(xs),
        matmul_cpu_f16,
        matmul_f64,
        |rng| case.input(rng),
    )
    .test_name(format!("bench::gpu_batched::{}", case.name))
    .n(trials)
    .run()
    .expect("run");
    black_box(outcome.summaries().candidate.mean);
}

fn trials(c: &mut Criterion) {
    let mut group = c.benchmark_group("trials");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (case, trials) in [(CASE_1, 200), (CASE_2, 50)] {
        group.throughput(Throughput::Elements(trials as u64));
        group.bench_function(format!("cpu/{}x{}x{}", case.m, case.k, case.n), |b| {
            b.iter(|| run_cpu(&case, trials))
        });
    }
    if dual_delta_gpu::Gpu::shared().is_ok() {
        for (case, trials) in [(CASE_1, 100), (CASE_2, 20)] {
            group.throughput(Throughput::Elements(trials as u64));
            group.bench_function(format!("gpu/{}x{}x{}", case.m, case.k, case.n), |b| {
                b.iter(|| run_gpu(&case, trials))
            });
            group.bench_function(
                format!("gpu_batched/{}x{}x{}", case.m, case.k, case.n),
                |b| b.iter(|| run_gpu_batched(&case, trials)),
            );
        }
    }
    group.finish();
}

fn oracle_gemm(c: &mut Criterion) {
    let mut group = c.benchmark_group("oracle_gemm");
    for (m, k, n) in [(128, 128, 128), (128, 4096, 128)] {
        let x = MatmulInput::random(m, k, n, &mut TrialRng::for_trial(1, 0));
        group.throughput(Throughput::Elements(2 * (m * k * n) as u64));
        group.bench_function(format!("f64/{m}x{k}x{n}"), |b| {
            b.iter(|| black_box(matmul_f64(black_box(&x))))
        });
        group.bench_function(format!("cpu_f16/{m}x{k}x{n}"), |b| {
            b.iter(|| black_box(matmul_cpu_f16(black_box(&x))))
        });
        // The GEMM kernel alone, on operands already widened to f64: what
        // `matmul_f64` spends beyond it is the f16 -> f64 widening.
        let a: Vec<f64> = x.a().iter().map(|v| v.to_f64()).collect();
        let bm: Vec<f64> = x.b().iter().map(|v| v.to_f64()).collect();
        let mut out = vec![0.0f64; m * n];
        group.bench_function(format!("gemm_kernel_f64/{m}x{k}x{n}"), |b| {
            b.iter(|| {
                // SAFETY: row-major `m × k`, `k × n` and `m × n` buffers of
                // exactly those sizes, addressed with their row strides;
                // `out` does not alias the operands.
                unsafe {
                    // As `gemm::gemm` calls it for a row-major product:
                    // transposed, `Cᵀ = Bᵀ · Aᵀ`, column-major.
                    gemm_f64::gemm::f64::get_gemm_fn()(
                        n,
                        m,
                        k,
                        out.as_mut_ptr(),
                        n as isize,
                        1,
                        false,
                        bm.as_ptr(),
                        n as isize,
                        1,
                        a.as_ptr(),
                        k as isize,
                        1,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        gemm_common::Parallelism::None,
                    )
                };
                black_box(&out);
            })
        });
    }
    group.finish();

    #[cfg(target_arch = "x86_64")]
    {
        let mut group = c.benchmark_group("fma_peak");
        const ITERS: u64 = 1 << 16;
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx")
        {
            // 12 chains × 4 lanes × 2 FLOP per FMA.
            group.throughput(Throughput::Elements(ITERS * 12 * 4 * 2));
            group.bench_function("f64_one_core_avx2", |b| {
                b.iter(|| black_box(unsafe { fma_chains_256(black_box(ITERS)) }))
            });
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // 12 chains × 8 lanes × 2 FLOP per FMA.
            group.throughput(Throughput::Elements(ITERS * 12 * 8 * 2));
            group.bench_function("f64_one_core_avx512", |b| {
                b.iter(|| black_box(unsafe { fma_chains_512(black_box(ITERS)) }))
            });
        }
        group.finish();
    }
}

/// 12 independent chains of 256-bit f64 FMAs: enough to cover the latency
/// (4 cycles) of two FMA pipes, so the loop runs at the FMA throughput peak.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
unsafe fn fma_chains_256(iters: u64) -> f64 {
    use std::arch::x86_64::*;
    let a = _mm256_set1_pd(0.999_999);
    let b = _mm256_set1_pd(1e-9);
    let mut acc = [_mm256_set1_pd(1.0); 12];
    for _ in 0..iters {
        for v in acc.iter_mut() {
            *v = _mm256_fmadd_pd(*v, a, b);
        }
    }
    let mut out = [0.0f64; 4];
    let mut sum = _mm256_setzero_pd();
    for v in acc {
        sum = _mm256_add_pd(sum, v);
    }
    unsafe { _mm256_storeu_pd(out.as_mut_ptr(), sum) };
    out.iter().sum()
}

/// The same with 512-bit FMAs, the widest the oracle GEMM uses where the
/// processor has AVX-512 (gemm's `x86-v4` kernels).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn fma_chains_512(iters: u64) -> f64 {
    use std::arch::x86_64::*;
    let a = _mm512_set1_pd(0.999_999);
    let b = _mm512_set1_pd(1e-9);
    let mut acc = [_mm512_set1_pd(1.0); 12];
    for _ in 0..iters {
        for v in acc.iter_mut() {
            *v = _mm512_fmadd_pd(*v, a, b);
        }
    }
    let mut sum = _mm512_setzero_pd();
    for v in acc {
        sum = _mm512_add_pd(sum, v);
    }
    _mm512_reduce_add_pd(sum)
}

criterion_group!(benches, trials, oracle_gemm);
criterion_main!(benches);
