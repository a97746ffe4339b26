//! Edge-case inputs on the GPU kernels, and the precision separation of the
//! matmul oracles.
//!
//! * Inputs whose dot products overflow `f16` on the way (while their
//!   results stay small) make the kernel that accumulates in `f16` return
//!   infinities; their error is `+inf`, and the kernel is judged less
//!   accurate than PyTorch's CPU half matmul, its worst trials traced to
//!   those inputs.
//! * The separation check passes the `f64` oracle ([`matmul_f64`]) and flags
//!   an `f32` one, at the paper's shapes.

use dual_delta_gpu::matmul::{matmul_dd, matmul_input};
use dual_delta_runtime::generate::{EdgeKind, edges, mix_values, normal, with_edges};
use dual_delta_runtime::oracle::{Separation, SeparationReport};
use dual_delta_runtime::{DualDelta, Expect, TrialRng, decision::Accuracy, environment};
use std::sync::OnceLock;

use dual_delta_gpu::{
    Gpu, GpuOptions,
    device::F16Path,
    f16,
    matmul::{
        Accumulation, GemmConfig, MatmulInput, matmul_cpu_emulated, matmul_cpu_f16, matmul_f64,
    },
    require_gpu,
};

/// The kinds of input whose running sums overflow `f16`.
const OVERFLOWING: [&str; 2] = ["edge/overflow_sum", "edge/overflow_product"];

fn overflowing(kind: &str) -> bool {
    OVERFLOWING.iter().any(|k| kind.starts_with(k))
}

/// A deliberately weak oracle: the product accumulated in `f32`, in order.
fn matmul_f32(x: &MatmulInput) -> Vec<f64> {
    let (m, k, n) = x.shape();
    let (a, b) = (x.a(), x.b());
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for p in 0..k {
            let av = a[i * k + p].to_f32();
            for (s, bv) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *s += av * bv.to_f32();
            }
        }
    }
    c.into_iter().map(f64::from).collect()
}

/// The shared context, and one forced onto the packed-`u32` fallback when
/// the shared one uses native `f16` (the two paths round `f16` overflow
/// differently: native arithmetic, or `pack2x16float`).
fn contexts() -> Vec<&'static Gpu> {
    static FALLBACK: OnceLock<Option<Gpu>> = OnceLock::new();
    let Some(shared) = require_gpu() else {
        return Vec::new();
    };
    let mut gpus = vec![shared];
    if shared.adapter_info().shader_f16 {
        let fallback = FALLBACK.get_or_init(|| {
            let options = GpuOptions {
                f16: F16Path::Fallback,
                ..GpuOptions::from_env().expect("valid settings")
            };
            Some(Gpu::new(&options).expect("the fallback path on the shared adapter"))
        });
        gpus.extend(fallback.as_ref());
    }
    gpus
}

#[test]
fn overflowing_edge_cases_make_f16_accumulation_non_finite_and_worse() {
    for gpu in contexts() {
        f16_accumulation_overflows(gpu);
    }
}

fn f16_accumulation_overflows(gpu: &'static Gpu) {
    let path = if gpu.adapter_info().shader_f16 {
        "native f16"
    } else {
        "packed-u32 fallback"
    };
    println!("{} ({path})", gpu.adapter_info());
    let (m, k, n) = (32, 128, 32);
    let trials = 200;
    // 30% edge cases, half of them overflowing.
    let values = mix_values(
        0.3,
        edges(normal::<f16>(1.0)).kinds([
            EdgeKind::OverflowSum,
            EdgeKind::OverflowProduct,
            EdgeKind::Cancelling,
            EdgeKind::Subnormal,
        ]),
        normal::<f16>(1.0),
    );
    let input = matmul_input(m, k, n, values);
    let candidate = |x: &MatmulInput| gpu.run(x, Accumulation::F16).expect("GPU matmul");

    // The kernel on the overflowing inputs: infinities where accumulating in
    // f32 (GPU and CPU) stays finite and the exact results are small.
    let mut overflowing_trials = 0;
    for i in 0..trials {
        let mut rng = TrialRng::for_trial(0xed9e, i);
        let x = input(&mut rng);
        if !overflowing(rng.input_kind()) {
            continue;
        }
        overflowing_trials += 1;
        let f16_acc = candidate(&x);
        let f32_acc = gpu.run(&x, Accumulation::F32).unwrap();
        let oracle = matmul_f64(&x);
        let non_finite = f16_acc.iter().filter(|v| !v.is_finite()).count();
        assert!(
            non_finite > 0,
            "trial {i} ({}): no overflow",
            rng.input_kind()
        );
        assert!(
            f32_acc.iter().all(|v| v.is_finite()),
            "trial {i}: f32 accumulation overflowed"
        );
        assert!(matmul_cpu_f16(&x).iter().all(|v| v.is_finite()));
        assert!(
            oracle.iter().all(|v| v.abs() < 65504.0 / 4.0),
            "trial {i}: large results"
        );
        if overflowing_trials <= 2 {
            println!(
                "{}: {non_finite} of {} outputs non-finite with f16 accumulation, none with f32",
                rng.input_kind(),
                m * n
            );
        }
    }
    assert!(
        overflowing_trials >= 10,
        "{overflowing_trials} overflowing trials"
    );

    println!("{path}: {overflowing_trials} of {trials} trials overflow");
    let outcome = DualDelta::new(candidate, matmul_cpu_f16, matmul_f64, input)
        .test_name("dual_delta_gpu::edge_cases::f16_accumulation")
        .labels("gpu_f16_accumulation", "matmul_cpu_f16")
        .seed(0xed9e)
        .n(trials)
        .expect(Expect::Worse)
        // Every trial: the test checks the error of each overflowing one.
        .stop_early(false)
        .run()
        .expect("the run completes");
    println!("{}", outcome.table());
    assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
    outcome.assert();
    let mut inf = 0;
    for (i, kind) in outcome.input_kinds().iter().enumerate() {
        if overflowing(kind) {
            assert_eq!(outcome.delta1()[i], f64::INFINITY, "trial {i} ({kind})");
            // Accumulated in f32 the sums do not overflow (the cancellation
            // still costs the baseline accuracy: errors up to about 0.2).
            assert!(
                outcome.delta2()[i].is_finite(),
                "trial {i} ({kind}): {}",
                outcome.delta2()[i]
            );
            inf += 1;
        } else {
            assert!(outcome.delta1()[i].is_finite(), "trial {i} ({kind})");
        }
    }
    assert_eq!(inf, overflowing_trials);
    let worst = outcome.worst_trial();
    assert!(
        overflowing(&outcome.input_kinds()[worst]),
        "the worst trial is of kind {}",
        outcome.input_kinds()[worst]
    );
    println!(
        "{inf} of {trials} trials overflowed (error +inf); worst trial {worst} of kind {}",
        outcome.input_kinds()[worst]
    );
}

/// The separation of `oracle` from PyTorch's CPU half matmul and the GPU
/// strategy for the shape (replayed on the CPU, bit for bit), with
/// [`matmul_dd`] as the reference.
fn separation(
    oracle: fn(&MatmulInput) -> Vec<f64>,
    name: &str,
    (m, k, n): (usize, usize, usize),
) -> SeparationReport {
    let strategy = GemmConfig::default().strategy_for(m, k, n);
    let report = Separation::new(oracle, matmul_dd, matmul_input(m, k, n, normal::<f16>(1.0)))
        .name(format!("dual_delta_gpu::edge_cases::{name}_{m}x{k}x{n}"))
        .implementation("matmul_cpu_f16", matmul_cpu_f16)
        .implementation(format!("gpu {strategy}"), move |x: &MatmulInput| {
            matmul_cpu_emulated(x, strategy)
        })
        .sample(3)
        .check()
        .expect("the check runs");
    report.record();
    print!("{report}");
    report
}

#[test]
fn separation_passes_the_f64_oracle_and_flags_an_f32_one() {
    for shape in [(128, 128, 128), (128, 4096, 128)] {
        let good = separation(matmul_f64, "f64", shape);
        assert!(good.passed && good.ratio >= 100.0, "{good}");
        let weak = separation(matmul_f32, "f32", shape);
        assert!(!weak.passed && weak.ratio < 100.0, "{weak}");
        let recorded = environment();
        assert!(recorded[&weak.key()].starts_with("WARNING"), "{recorded:?}");
        assert!(recorded[&good.key()].starts_with("ok"), "{recorded:?}");
    }
}

#[test]
fn edge_case_inputs_convert_for_the_kernels() {
    let input = matmul_input(1..=3, [1, 7, 64], 2, with_edges(0.5, normal::<f16>(1.0)));
    for i in 0..50 {
        let mut rng = TrialRng::for_trial(1, i);
        let x = input(&mut rng);
        let (m, k, n) = x.shape();
        assert!((1..=3).contains(&m) && [1, 7, 64].contains(&k) && n == 2);
        assert_eq!(matmul_dd(&x).len(), m * n);
        assert!(!rng.input_kind().is_empty());
    }
}
