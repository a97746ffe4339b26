//! Every kernel family compiled with each driver freedom imitated
//! ([`SourceTransform`]: division and square root a few ulps off, NaN and
//! infinity comparisons folded, `a * b + c` fused, `f32 → f16` conversions
//! rounded toward zero, round trips removed, `f32` and `f16` subnormals
//! flushed, identities folded, `NaN · 0 = 0`, additions and
//! multiplications reassociated), and with all of them at once, against
//! its CPU emulation: bit for bit where the emulations hold (lavapipe), as
//! the kernel tests check them. The kernels divide and take square roots
//! exactly whatever the device's own are, test special values on the bits,
//! round every inexact product on its own and keep every order their bits
//! depend on (bit barriers), and store only values `round16` has made
//! exact, so no freedom changes a bit; where
//! `f16` subnormals are flushed, the emulation flushes the input and the
//! output alike (`KernelInput::as_loaded_on`).

use crate::common::{
    KernelInput, assert_identical, assert_matches_emulation, assert_same_bits, every_mismatch,
    f16_subnormals, fail, gpus, path,
};
use dual_delta_gpu::{
    Gpu, GpuOptions,
    attention::{AttentionShape, AttentionStrategy, attention_emulated, random_attention_input},
    bf16,
    device::{F16Path, MatmulTiling, SourceTransform, Subgroups},
    f16,
    matmul::{Accumulation, MatmulInput, matmul_emulated_with, random_matmul_input},
    matmul_lowp::{Bf16Accumulation, Fp8Accumulation, matmul_emulated_bf16, matmul_emulated_fp8},
    norm::{
        LayerNormStrategy, NormInput, RmsNormStrategy, layer_norm_emulated, random_norm_input,
        random_offset_norm_input, rms_norm_emulated,
    },
    reductions::{
        RowsInput, SoftmaxStrategy, SumStrategy, random_offset_rows, random_outlier_rows,
        random_rows, reduce_sum_emulated_with, softmax_emulated,
    },
};
use dual_delta_runtime::E4m3;
use dual_delta_runtime::TrialRng;

fn rng(trial: usize) -> TrialRng {
    TrialRng::for_trial(0x00f7_ee00, trial)
}

/// A context like `gpu` (same adapter, `f16` path, subgroups and tiling)
/// whose shaders are compiled with `imitate`, on a device of its own
/// ([`Gpu::on_another_device`]): almost every source is new under a
/// freedom, so there is little to share with `gpu`'s device, and the
/// freedoms' tests, run in parallel, compile their kernels in parallel.
fn imitating(gpu: &Gpu, imitate: SourceTransform) -> Gpu {
    let info = gpu.adapter_info();
    let options = GpuOptions::from_env().expect("valid settings");
    gpu.on_another_device(&GpuOptions {
        f16: if info.shader_f16 {
            F16Path::Native
        } else {
            F16Path::Fallback
        },
        subgroups: if info.subgroups {
            options.subgroups
        } else {
            Subgroups::Off
        },
        tiling: if info.shared_tiles {
            MatmulTiling::Shared
        } else {
            MatmulTiling::Registers
        },
        imitate,
        ..options
    })
    .unwrap_or_else(|e| panic!("a context imitating {imitate}: {e}"))
}

/// Rows for the sums and softmax: single elements and rows shorter than a
/// workgroup (the idle invocations' `-∞` maxima meet in the tree), long
/// rows, outliers, an offset of 1000, and rows holding NaN and `±∞`.
fn rows() -> Vec<(String, RowsInput<f16>)> {
    let mut v = Vec::new();
    for (t, (rows, len)) in [(1, 1), (2, 3), (3, 7), (4, 65), (3, 1000), (1, 4096)]
        .into_iter()
        .enumerate()
    {
        v.push((
            format!("randn {rows}×{len}"),
            random_rows(rows, len)(&mut rng(t)),
        ));
    }
    let outliers = random_outlier_rows(3, 2048, 3, 100.0)(&mut rng(20));
    v.push(("outliers ±100 3×2048".into(), outliers));
    let offset = random_offset_rows(3, 1500, 1000.0, 1.0)(&mut rng(21));
    v.push(("1000 ± 1 3×1500".into(), offset));
    let mut special = random_rows(4, 9)(&mut rng(22)).data().to_vec();
    special[2] = f16::NAN;
    special[9 + 4] = f16::INFINITY;
    special[18 + 1] = f16::NEG_INFINITY;
    special[27..36].fill(f16::NEG_INFINITY);
    v.push(("NaN, ±∞ 4×9".into(), RowsInput::new(4, 9, special).unwrap()));
    // randn · 2⁻¹⁶: most values f16 subnormals, which a device flushing
    // them (`ftz16`) loads as zeros, and some sums subnormal too.
    let tiny = scaled(random_rows(3, 300)(&mut rng(23)).data(), -16);
    v.push((
        "randn·2⁻¹⁶ 3×300".into(),
        RowsInput::new(3, 300, tiny).unwrap(),
    ));
    v
}

/// `v · 2^e`, each product rounded to `f16`.
fn scaled(v: &[f16], e: i32) -> Vec<f16> {
    v.iter()
        .map(|x| f16::from_f32(x.to_f32() * 2f32.powi(e)))
        .collect()
}

/// Rows for LayerNorm and RMSNorm: short and long, affine or not, and
/// offset activations (1000 ± 1: one ulp of `mu * mu` there is tens of
/// `f16` ulps of the output).
fn norm_inputs() -> Vec<(String, NormInput<f16>)> {
    let mut v = Vec::new();
    for (t, (rows, len)) in [(1, 1), (3, 7), (4, 65), (2, 1000), (1, 4096)]
        .into_iter()
        .enumerate()
    {
        let affine = t % 2 == 1;
        let x = random_norm_input(rows, len, affine, 1e-5)(&mut rng(30 + t));
        v.push((format!("randn {rows}×{len} affine={affine}"), x));
    }
    for (t, (offset, spread)) in [(1000.0, 1.0), (-100.0, 10.0)].into_iter().enumerate() {
        let x = random_offset_norm_input(3, 1500, offset, spread, true, 1e-5)(&mut rng(40 + t));
        v.push((format!("{offset} ± {spread} 3×1500"), x));
    }
    v
}

fn check_matmuls(gpu: &Gpu, what: &str) {
    let shapes = [(1, 1, 1), (17, 33, 65), (32, 300, 16), (9, 40, 7)];
    for (t, (m, k, n)) in shapes.into_iter().enumerate() {
        let mut x = random_matmul_input(m, k, n)(&mut rng(50 + t));
        if t == 3 {
            // A and B · 2⁻⁹: some inputs and most outputs (and split-K
            // partials) f16 subnormals.
            x = MatmulInput::new(m, k, n, scaled(x.a(), -9), scaled(x.b(), -9)).unwrap();
        }
        for acc in [
            Accumulation::F32,
            Accumulation::F16,
            Accumulation::SplitK { splits: 7 },
        ] {
            let got = gpu.run(&x, acc).unwrap();
            let what = format!("{m}×{k}×{n} {acc} matmul {what}");
            let want = matmul_emulated_with(&x, acc, f16_subnormals(gpu));
            assert_identical(&got, &want, &what);
        }
    }
}

fn check_rows(gpu: &Gpu, what: &str) {
    for (name, x) in &rows() {
        for strategy in SumStrategy::ALL {
            let got = gpu.run(x, strategy).unwrap();
            let what = format!("{strategy} sum of {name} {what}");
            let want = reduce_sum_emulated_with(x, strategy, f16_subnormals(gpu));
            assert_identical(&got, &want, &what);
        }
        for variant in SoftmaxStrategy::ALL {
            let got = gpu.run(x, variant).unwrap();
            let what = format!("softmax ({variant}) of {name} {what}");
            let want = softmax_emulated(&x.as_loaded_on(gpu), variant);
            assert_matches_emulation(gpu, x, &got, &want, &what);
        }
    }
}

fn check_norms(gpu: &Gpu, what: &str) {
    for (name, x) in &norm_inputs() {
        for variant in LayerNormStrategy::ALL {
            let got = gpu.run(x, variant).unwrap();
            let what = format!("{variant} LayerNorm of {name} {what}");
            let want = layer_norm_emulated(&x.as_loaded_on(gpu), variant);
            assert_matches_emulation(gpu, x, &got, &want, &what);
        }
        for variant in RmsNormStrategy::ALL {
            let got = gpu.run(x, variant).unwrap();
            let what = format!("{variant} RMSNorm of {name} {what}");
            let want = rms_norm_emulated(&x.as_loaded_on(gpu), variant);
            assert_matches_emulation(gpu, x, &got, &want, &what);
        }
    }
}

fn check_attention(gpu: &Gpu, what: &str) {
    let shapes = [(1, 1, 1, 1, 1), (2, 7, 13, 5, 3), (1, 20, 70, 32, 16)];
    for (t, (heads, seq_q, seq_k, d, d_v)) in shapes.into_iter().enumerate() {
        let shape = AttentionShape {
            heads,
            seq_q,
            seq_k,
            d,
            d_v,
        };
        for causal in [false, true] {
            let x = random_attention_input(shape, causal)(&mut rng(60 + 2 * t));
            for variant in AttentionStrategy::ALL {
                let got = gpu.run(&x, variant).unwrap();
                let what = format!("{variant} attention {shape:?} causal={causal} {what}");
                let want = attention_emulated(&x.as_loaded_on(gpu), variant);
                assert_matches_emulation(gpu, &x, &got, &want, &what);
            }
        }
    }
}

fn check_lowp(gpu: &Gpu, what: &str) {
    for (t, (m, k, n)) in [(1, 1, 1), (9, 33, 7), (8, 300, 16)]
        .into_iter()
        .enumerate()
    {
        let x = random_matmul_input::<bf16>(m, k, n)(&mut rng(70 + t));
        for acc in Bf16Accumulation::ALL {
            let got = gpu.run(&x, acc).unwrap();
            let want = matmul_emulated_bf16(&x, acc);
            let bits = |v: &[bf16]| v.iter().map(|b| u32::from(b.to_bits())).collect::<Vec<_>>();
            assert_same_bits(
                &bits(&got),
                &bits(&want),
                &format!("{acc} {m}×{k}×{n} {what}"),
            );
        }
        let x = random_matmul_input::<E4m3>(m, k, n)(&mut rng(80 + t));
        for acc in Fp8Accumulation::ALL {
            let got = gpu.run(&x, acc).unwrap();
            let want = matmul_emulated_fp8(&x, acc);
            let bits = |v: &[f32]| v.iter().map(|b| b.to_bits()).collect::<Vec<_>>();
            assert_same_bits(
                &bits(&got),
                &bits(&want),
                &format!("{acc} {m}×{k}×{n} {what}"),
            );
        }
    }
}

/// A family's check: its kernels on a context, against their emulations,
/// with what to name in a failure.
type Check = fn(&Gpu, &str);

/// Every family under `imitate`, on each context of [`gpus`]: every
/// family, case and strategy runs, and the failure lists each that differs
/// (a family that panics is listed with its message).
fn every_family_under(imitate: SourceTransform) {
    let families: [(&str, Check); 5] = [
        ("matmul", check_matmuls),
        ("sums and softmax", check_rows),
        ("LayerNorm and RMSNorm", check_norms),
        ("attention", check_attention),
        ("bf16 and FP8 matmul", check_lowp),
    ];
    every_mismatch(|| {
        for base in gpus() {
            let gpu = imitating(base, imitate);
            let what = format!("imitating {imitate} on the {} path", path(&gpu));
            for (family, check) in families {
                let run =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&gpu, &what)));
                if let Err(e) = run {
                    let message = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    fail(format!("{family} panicked: {message}"));
                }
            }
        }
    });
}

#[test]
fn kernels_keep_their_bits_with_round_trips_stripped() {
    every_family_under(SourceTransform::STRIP_ROUND_TRIPS);
}

#[test]
fn kernels_keep_their_bits_with_division_and_square_root_off_by_ulps() {
    every_family_under(SourceTransform::DIV_SQRT);
}

#[test]
fn kernels_keep_their_bits_with_nan_and_infinity_comparisons_folded() {
    every_family_under(SourceTransform::NAN_FOLD);
}

#[test]
fn kernels_keep_their_bits_with_products_contracted() {
    every_family_under(SourceTransform::CONTRACT);
}

#[test]
fn kernels_keep_their_bits_with_f16_conversions_toward_zero() {
    every_family_under(SourceTransform::F16_STORE);
}

#[test]
fn kernels_keep_their_bits_under_every_freedom_at_once() {
    every_family_under(SourceTransform::ALL);
}

#[test]
fn kernels_keep_their_bits_with_f32_subnormals_flushed() {
    every_family_under(SourceTransform::FTZ32);
}

#[test]
fn kernels_keep_their_bits_with_f16_subnormals_flushed() {
    every_family_under(SourceTransform::FTZ16);
}

#[test]
fn kernels_keep_their_bits_with_identities_folded() {
    every_family_under(SourceTransform::FOLD_IDENTITIES);
}

#[test]
fn kernels_keep_their_bits_with_nan_times_zero_zero() {
    every_family_under(SourceTransform::NAN_TIMES_ZERO);
}

#[test]
fn kernels_keep_their_bits_with_adds_and_multiplies_reassociated() {
    every_family_under(SourceTransform::REASSOC);
}
