//! The input generators: every value in the target format, parameters
//! honoured over many draws, edge cases that do what they say, shapes in
//! range, kinds noted, and everything reproducible from the trial seed.
//!
//! Frequencies are checked against their binomial expectation within 4σ
//! (a false alarm about once in 16 000 checks); the seeds are fixed, so the
//! suite is deterministic.

use dual_delta_runtime::generate::{
    self, EdgeKind, Float, Matrix, MatrixPair, ScaledPair, Shape, Values, activations, edges,
    large_row, log_uniform, matrix, matrix_pair, matrix_pair_from, mix, mix_values, normal,
    scaled_matrix_pair, sparse, student_t, uniform, vector, with_edges,
};
use dual_delta_runtime::oracle;
use dual_delta_runtime::{
    DualDelta, E4m3, E5m2, TrialRng, generate::trial_seed, output::NumberFormat, output::Output,
};
use half::{bf16, f16};
use statrs::distribution::{ContinuousCDF, StudentsT};

const SEED: u64 = 0x6e6e_7261_7465;

/// Draws `trials` inputs of `g`, with the kind each noted.
fn draws<T>(g: impl Fn(&mut TrialRng) -> T, trials: usize) -> Vec<(T, String)> {
    (0..trials)
        .map(|i| {
            let mut rng = TrialRng::for_trial(SEED, i);
            let x = g(&mut rng);
            (x, rng.input_kind().to_owned())
        })
        .collect()
}

/// Asserts that `count` successes out of `n` are within 4σ of a binomial
/// with probability `p`.
#[track_caller]
fn assert_binomial(what: &str, count: usize, n: usize, p: f64) {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    let z = (count as f64 - mean) / sd.max(1e-12);
    assert!(
        z.abs() <= 4.0,
        "{what}: {count} of {n} (expected {mean:.1} ± {sd:.1}, z = {z:.2})"
    );
    println!(
        "{what}: {count} of {n} = {:.4} (expected {p}, z = {z:+.2})",
        count as f64 / n as f64
    );
}

/// Asserts that every value is finite and exactly a value of `E`'s format.
#[track_caller]
fn assert_in_format<E: Float>(values: &[E]) {
    for v in values {
        let x = v.to_f64();
        assert!(x.is_finite(), "{x} is not finite");
        assert_eq!(
            E::FORMAT.round(x).to_bits(),
            x.to_bits(),
            "{x} is not a {}",
            E::FORMAT
        );
    }
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

fn widen<E: Float>(x: &[E]) -> Vec<f64> {
    x.iter().map(|v| v.to_f64()).collect()
}

// ---------------------------------------------------------------- formats

fn check_normal<E: Float>() {
    let n = 100_000;
    let x: Vec<E> = vector(n, normal::<E>(3.0).mean(-1.0))(&mut TrialRng::for_trial(SEED, 0));
    assert_eq!(x.format(), E::FORMAT);
    assert_in_format(&x);
    let (mean, sd) = mean_sd(&widen(&x));
    // Standard errors: 3/√n for the mean, 3/√(2n) for the deviation.
    let se_mean = 3.0 / (n as f64).sqrt();
    let se_sd = 3.0 / (2.0 * n as f64).sqrt();
    assert!(
        (mean + 1.0).abs() <= 4.0 * se_mean,
        "{}: mean {mean}",
        E::FORMAT
    );
    assert!((sd - 3.0).abs() <= 4.0 * se_sd, "{}: sd {sd}", E::FORMAT);
    println!(
        "normal::<{}>(3).mean(-1): mean {mean:.4}, sd {sd:.4}",
        E::FORMAT
    );
}

#[test]
fn normal_values_are_in_format_and_honour_scale_and_mean() {
    check_normal::<f16>();
    check_normal::<bf16>();
    check_normal::<f32>();
    check_normal::<f64>();
    check_normal::<E4m3>();
    check_normal::<E5m2>();
}

#[test]
fn uniform_values_stay_in_bounds() {
    let n = 100_000;
    let x: Vec<bf16> = vector(n, uniform::<bf16>(-2.0, 6.0))(&mut TrialRng::for_trial(SEED, 1));
    assert_in_format(&x);
    let w = widen(&x);
    assert!(w.iter().all(|v| (-2.0..=6.0).contains(v)));
    let (mean, _) = mean_sd(&w);
    let se = 8.0 / 12f64.sqrt() / (n as f64).sqrt();
    assert!((mean - 2.0).abs() <= 4.0 * se, "mean {mean}");
    let below_zero = w.iter().filter(|v| **v < 0.0).count();
    assert_binomial("uniform(-2, 6) below 0", below_zero, n, 0.25);
}

#[test]
fn log_uniform_values_cover_every_decade_equally() {
    let n = 60_000;
    let x: Vec<f32> = vector(n, log_uniform::<f32>(1e-3, 1e3))(&mut TrialRng::for_trial(SEED, 2));
    assert_in_format(&x);
    let w = widen(&x);
    for decade in -3..3 {
        let (lo, hi) = (10f64.powi(decade), 10f64.powi(decade + 1));
        let count = w.iter().filter(|v| (lo..hi).contains(&v.abs())).count();
        assert_binomial(
            &format!("log_uniform decade 1e{decade}"),
            count,
            n,
            1.0 / 6.0,
        );
    }
    let negative = w.iter().filter(|v| **v < 0.0).count();
    assert_binomial("log_uniform negative", negative, n, 0.5);
    let positive: Vec<f16> =
        vector(1000, log_uniform::<f16>(1e-2, 1e4).positive())(&mut TrialRng::for_trial(SEED, 3));
    assert_in_format(&positive);
    assert!(
        positive
            .iter()
            .all(|v| v.to_f64() > 0.0 && v.to_f64() <= 1e4 * 1.001)
    );
}

#[test]
fn student_t_values_have_the_tails_of_their_distribution() {
    let n = 100_000;
    let (dof, scale) = (3.0, 2.0);
    let x: Vec<f32> = vector(n, student_t::<f32>(dof, scale))(&mut TrialRng::for_trial(SEED, 4));
    assert_in_format(&x);
    let t = StudentsT::new(0.0, 1.0, dof).unwrap();
    for c in [0.5, 3.0, 10.0] {
        let p = 2.0 * (1.0 - t.cdf(c));
        let count = x.iter().filter(|v| f64::from(v.abs()) > scale * c).count();
        assert_binomial(&format!("student_t(3) |x| > {c}·scale"), count, n, p);
    }
    // Cauchy tails in f16 saturate at the largest finite value.
    let cauchy: Vec<f16> =
        vector(n, student_t::<f16>(1.0, 1000.0))(&mut TrialRng::for_trial(SEED, 5));
    assert_in_format(&cauchy);
    let saturated = cauchy
        .iter()
        .filter(|v| v.to_f64().abs() == 65504.0)
        .count();
    // P(|Cauchy| > 65.504) = 1 - 2/π·atan(65.504).
    let p = 1.0 - 2.0 / core::f64::consts::PI * 65.504f64.atan();
    assert_binomial("cauchy·1000 saturated in f16", saturated, n, p);
}

// ------------------------------------------------------------- patterns

#[test]
fn sparsity_masks_honour_their_density() {
    for density in [0.01, 0.1, 0.5, 0.9] {
        let trials = draws(vector(1000, sparse(density, normal::<f16>(1.0))), 100);
        let mut kept = 0;
        for (x, kind) in &trials {
            assert_in_format(x);
            assert_eq!(kind, "sparse/normal");
            kept += x.iter().filter(|v| v.to_f64() != 0.0).count();
        }
        assert_binomial(&format!("sparse({density}) kept"), kept, 100_000, density);
    }
    // Pairs: both factors masked, the kind noted once.
    let (pair, kind) = draws(matrix_pair(50, 40, 30, sparse(0.25, normal::<f32>(1.0))), 1)
        .pop()
        .unwrap();
    assert_eq!(kind, "sparse/normal");
    let kept = pair
        .a()
        .data()
        .iter()
        .chain(pair.b().data())
        .filter(|v| **v != 0.0)
        .count();
    assert_binomial("sparse(0.25) pair kept", kept, 50 * 40 + 40 * 30, 0.25);
}

#[test]
fn activations_have_a_few_outlier_channels() {
    let values = activations::<f16>(0.5).outliers(0.05, 30.0);
    assert_eq!(values.outlier_count(200), 10);
    assert_eq!(activations::<f16>(1.0).outlier_count(768), 8);
    assert_eq!(activations::<f16>(1.0).outlier_count(10), 1);
    for (x, kind) in draws(matrix(256, 200, values), 5) {
        assert_eq!(kind, "activations");
        assert_in_format(x.data());
        let rms: Vec<f64> = (0..200)
            .map(|c| {
                let s: f64 = (0..256).map(|t| x.get(t, c).to_f64().powi(2)).sum();
                (s / 256.0).sqrt()
            })
            .collect();
        let outliers: Vec<f64> = rms.iter().copied().filter(|&r| r > 5.0).collect();
        let ordinary: Vec<f64> = rms.iter().copied().filter(|&r| r <= 5.0).collect();
        assert_eq!(outliers.len(), 10, "{rms:?}");
        let ratio = (outliers.iter().sum::<f64>() / 10.0) / (ordinary.iter().sum::<f64>() / 190.0);
        assert!((ratio / 30.0 - 1.0).abs() < 0.06, "outlier factor {ratio}");
        let ordinary_rms = ordinary.iter().sum::<f64>() / 190.0;
        assert!(
            (ordinary_rms / 0.5 - 1.0).abs() < 0.05,
            "scale {ordinary_rms}"
        );
    }
}

#[test]
fn large_rows_are_one_row_and_factor_times_larger() {
    for (x, kind) in draws(matrix(16, 512, large_row(100.0, normal::<f32>(1.0))), 20) {
        assert_eq!(kind, "large_row/normal");
        let norms: Vec<f64> = (0..16)
            .map(|r| {
                x.row(r)
                    .iter()
                    .map(|v| f64::from(*v).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        let big: Vec<usize> = (0..16).filter(|&r| norms[r] > 500.0).collect();
        assert_eq!(big.len(), 1, "{norms:?}");
        let others = norms.iter().sum::<f64>() - norms[big[0]];
        let ratio = norms[big[0]] / (others / 15.0);
        assert!((ratio / 100.0 - 1.0).abs() < 0.15, "factor {ratio}");
    }
}

// ------------------------------------------------------------ edge cases

#[test]
fn edge_cases_come_with_their_probability() {
    for p in [0.05, 0.2, 0.5] {
        let trials = draws(vector(64, with_edges(p, normal::<f16>(1.0))), 4000);
        let edge = trials
            .iter()
            .filter(|(_, k)| k.starts_with("edge/"))
            .count();
        assert!(
            trials
                .iter()
                .all(|(_, k)| k == "normal" || k.starts_with("edge/"))
        );
        assert_binomial(&format!("with_edges({p}) edge trials"), edge, 4000, p);
    }
    // Every kind equally likely among the edge cases.
    let trials = draws(vector(64, edges(normal::<f16>(1.0))), 8000);
    for kind in EdgeKind::ALL {
        let prefix = format!("edge/{kind}");
        let count = trials
            .iter()
            .filter(|(_, k)| k.starts_with(&prefix))
            .count();
        assert_binomial(
            &format!("{prefix} among edges"),
            count,
            8000,
            1.0 / EdgeKind::ALL.len() as f64,
        );
    }
    // A mixture of generators, and one of pairs.
    let g = mix(
        0.3,
        vector(8, edges(normal::<f32>(1.0))),
        vector(8, normal::<f32>(1.0)),
    );
    let edge = draws(g, 4000)
        .iter()
        .filter(|(_, k)| k.starts_with("edge/"))
        .count();
    assert_binomial("mix(0.3) first branch", edge, 4000, 0.3);
    let g = matrix_pair(
        4,
        8,
        4,
        mix_values(0.1, edges(normal::<bf16>(1.0)), normal::<bf16>(1.0)),
    );
    let edge = draws(g, 4000)
        .iter()
        .filter(|(_, k)| k.starts_with("edge/"))
        .count();
    assert_binomial("mix_values(0.1) pairs", edge, 4000, 0.1);
}

#[test]
fn scattered_edge_values_come_at_their_rate() {
    let rate = 0.3;
    let values = edges(normal::<f16>(1.0)).kinds([EdgeKind::Zero]).rate(rate);
    let trials = draws(vector(1000, values), 100);
    let zeros: usize = trials
        .iter()
        .map(|(x, _)| x.iter().filter(|v| v.to_f64() == 0.0).count())
        .sum();
    assert_binomial("zero rate 0.3", zeros, 100_000, rate);
    let negative: usize = trials
        .iter()
        .map(|(x, _)| {
            x.iter()
                .filter(|v| v.to_f64() == 0.0 && v.is_sign_negative())
                .count()
        })
        .sum();
    assert_binomial("-0 among zeros", negative, zeros, 0.5);
    // At least one value per tensor, even at a tiny rate.
    let values = edges(normal::<f16>(1.0))
        .kinds([EdgeKind::MaxFinite])
        .rate(1e-9);
    for (x, _) in draws(vector(3, values), 50) {
        assert_eq!(
            x.iter()
                .filter(|v| v.to_f64().abs() >= 65504.0 - 3.0 * 32.0)
                .count(),
            1
        );
    }
}

/// The scattered kinds in format `E`: replaced values are of the kind.
fn check_scattered_kinds<E: Float>() {
    let fmt = E::FORMAT;
    let max = fmt.max_finite();
    let min_normal = 2f64.powi(fmt.min_exponent());
    let p = fmt.mantissa_bits() as i32;
    let base = normal::<E>(1.0);
    let draw = |kind: EdgeKind, rate: f64, i: usize| {
        let mut rng = TrialRng::for_trial(SEED, i);
        let x = vector(2000, edges(base).kinds([kind]).rate(rate))(&mut rng);
        assert_in_format(&x);
        assert_eq!(rng.input_kind(), format!("edge/{kind}/normal"));
        widen(&x)
    };
    let x = draw(EdgeKind::Subnormal, 0.25, 0);
    let sub = x
        .iter()
        .filter(|v| **v != 0.0 && v.abs() < min_normal)
        .count();
    assert!(sub >= 400, "{fmt}: {sub} subnormals");
    let x = draw(EdgeKind::MaxFinite, 0.1, 1);
    let top = x
        .iter()
        .filter(|v| v.abs() >= max - 3.0 * fmt.ulp(max))
        .count();
    assert!(
        top >= 120 && x.iter().any(|v| *v > 0.0 && *v == max),
        "{fmt}: {top}"
    );
    let x = draw(EdgeKind::PowerOfTwo, 1.0, 2);
    for v in &x {
        let e = v.abs().log2().round();
        let rel = v.abs() / 2f64.powf(e) - 1.0;
        assert!(
            rel.abs() <= 2.0 * 2f64.powi(-p) * 1.0001,
            "{fmt}: {v} is not near 2^{e}"
        );
    }
    let x = draw(EdgeKind::OverflowProduct, 0.05, 3);
    let big: Vec<f64> = x
        .iter()
        .copied()
        .filter(|v| v.abs() >= (2.0 * max).sqrt() * 0.99)
        .collect();
    assert!(big.len() >= 50, "{fmt}: {}", big.len());
    for w in big.windows(2) {
        // Infinite, or NaN in e4m3, which has no infinities.
        let product = E::from_f64(w[0] * w[1]).to_f64();
        assert!(!product.is_finite(), "{fmt}: {w:?}");
        assert_eq!(product.is_nan(), fmt == NumberFormat::E4m3);
    }
    let x = draw(EdgeKind::MinNormal, 0.25, 5);
    let boundary = [
        min_normal - fmt.ulp(min_normal / 2.0),
        min_normal,
        min_normal + fmt.ulp(min_normal),
    ];
    let at = x.iter().filter(|v| boundary.contains(&v.abs())).count();
    assert!(at >= 400, "{fmt}: {at} values at the smallest normal");
    for b in boundary {
        assert!(x.iter().any(|v| v.abs() == b), "{fmt}: no {b}");
    }
    let x = draw(EdgeKind::Zero, 0.5, 4);
    assert!(x.iter().any(|v| *v == 0.0 && v.is_sign_negative()));
    assert!(x.iter().any(|v| *v == 0.0 && v.is_sign_positive()));
}

#[test]
fn scattered_edge_values_are_of_their_kind() {
    check_scattered_kinds::<f16>();
    check_scattered_kinds::<bf16>();
    check_scattered_kinds::<f32>();
    check_scattered_kinds::<E4m3>();
    check_scattered_kinds::<E5m2>();
}

/// Sums `x` left to right in format `E`, rounding every partial sum.
fn naive_sum<E: Float>(x: &[E]) -> f64 {
    x.iter()
        .fold(0.0, |s, v| E::from_f64(s + v.to_f64()).to_f64())
}

fn check_row_kinds<E: Float>() {
    let fmt = E::FORMAT;
    let max = fmt.max_finite();
    let p = fmt.mantissa_bits() as i32;
    let base = normal::<E>(1.0);
    for (i, len) in [4usize, 7, 64, 1000, 4097].into_iter().enumerate() {
        let mut rng = TrialRng::for_trial(SEED, i);
        let x = vector(len, edges(base).kinds([EdgeKind::OverflowSum]))(&mut rng);
        assert_eq!(rng.input_kind(), "edge/overflow_sum");
        assert_in_format(&x);
        let (mut running, mut peak) = (0.0f64, 0.0f64);
        for v in &x {
            running += v.to_f64();
            peak = peak.max(running.abs());
        }
        assert!(peak > max, "{fmt} len {len}: running sum peaks at {peak}");
        // An odd row leaves one value of the first run (at most 0.625 max
        // before rounding); in FP8 rounding and one-ulp nudges (2^-p of
        // each value) weigh more.
        let bound = if p >= 7 { 0.7 } else { 1.2 };
        assert!(
            running.abs() <= bound * max,
            "{fmt} len {len}: total {running}"
        );
        // Infinite, or NaN in e4m3. In FP8 the naive sum of a long row
        // stalls instead: its terms fall below half its spacing.
        if p >= 7 || len <= 7 {
            assert!(
                !naive_sum(&x).is_finite(),
                "{fmt} len {len}: the naive sum stays finite"
            );
        }

        let x = vector(len, edges(base).kinds([EdgeKind::Cancelling]))(&mut rng);
        assert_in_format(&x);
        let w = widen(&x);
        let exact = oracle::sum(w.iter().copied()).to_f64();
        let magnitude: f64 = w.iter().map(|v| v.abs()).sum();
        let condition = magnitude / exact.abs();
        assert!(
            condition > 2f64.powi(p),
            "{fmt} len {len}: condition number {condition:.3e}"
        );
    }
    let m = matrix(5, 7, edges(base).kinds([EdgeKind::ConstantRows]))(&mut TrialRng::for_trial(
        SEED, 9,
    ));
    for r in 0..5 {
        assert!(m.row(r).iter().all(|v| v.to_f64() == m.get(r, 0).to_f64()));
    }
}

#[test]
fn row_edge_cases_overflow_cancel_and_repeat() {
    check_row_kinds::<f16>();
    check_row_kinds::<bf16>();
    check_row_kinds::<f32>();
    check_row_kinds::<E4m3>();
    check_row_kinds::<E5m2>();
}

/// The exact dot products of a pair and the sums of the products'
/// magnitudes, and the peak of each running sum.
fn dots<E: Float>(pair: &MatrixPair<E>) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (m, k, n) = pair.shape();
    let (a, b) = (pair.a(), pair.b());
    let exact = oracle::matmul(a.data(), b.data(), m, k, n);
    let mut magnitude = vec![0.0; m * n];
    let mut peak = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f64;
            for p in 0..k {
                let t = a.get(i, p).to_f64() * b.get(p, j).to_f64();
                magnitude[i * n + j] += t.abs();
                s += t;
                peak[i * n + j] = peak[i * n + j].max(s.abs());
            }
        }
    }
    (exact, magnitude, peak)
}

fn check_pair_kinds<E: Float>(k: usize) {
    let fmt = E::FORMAT;
    let max = fmt.max_finite();
    let p = fmt.mantissa_bits() as i32;
    let base = edges(normal::<E>(1.0));
    let pair = |kind: EdgeKind| {
        let mut rng = TrialRng::for_trial(SEED, k);
        let x = matrix_pair(6, k, 5, base.clone().kinds([kind]))(&mut rng);
        assert!(rng.input_kind().starts_with(&format!("edge/{kind}")));
        assert_in_format(x.a().data());
        assert_in_format(x.b().data());
        x
    };

    let x = pair(EdgeKind::OverflowSum);
    let (exact, magnitude, peak) = dots(&x);
    for i in 0..exact.len() {
        assert!(peak[i] > 2.0 * max * 0.95, "{fmt} k={k}: peak {}", peak[i]);
        assert!(
            exact[i].abs() <= max / 4.0,
            "{fmt} k={k}: result {}",
            exact[i]
        );
        assert!(magnitude[i] > 3.0 * max, "{fmt} k={k}");
    }
    for i in 0..6 {
        for q in 0..k {
            for j in 0..5 {
                let t = x.a().get(i, q).to_f64() * x.b().get(q, j).to_f64();
                assert!(t.abs() <= max / 4.0, "{fmt}: product {t}");
            }
        }
    }

    let x = pair(EdgeKind::OverflowProduct);
    let (exact, _, _) = dots(&x);
    for i in 0..6 {
        for q in 0..k / 2 {
            let t = x.a().get(i, 2 * q).to_f64() * x.b().get(2 * q, 0).to_f64();
            assert!(t.abs() > max, "{fmt}: product {t} does not overflow");
        }
    }
    assert!(
        exact.iter().all(|v| v.abs() <= max),
        "{fmt} k={k}: {exact:?}"
    );

    let x = pair(EdgeKind::Cancelling);
    let (exact, magnitude, _) = dots(&x);
    for i in 0..exact.len() {
        let condition = magnitude[i] / exact[i].abs();
        assert!(
            condition > 2f64.powi(p),
            "{fmt} k={k}: condition {condition:.3e}"
        );
    }

    let x = pair(EdgeKind::ConstantRows);
    for r in 0..6 {
        assert!(
            x.a()
                .row(r)
                .iter()
                .all(|v| v.to_f64() == x.a().get(r, 0).to_f64())
        );
    }
}

#[test]
fn pair_edge_cases_act_on_the_dot_products() {
    for k in [128, 129, 4096] {
        check_pair_kinds::<f16>(k);
    }
    check_pair_kinds::<bf16>(128);
    check_pair_kinds::<f32>(256);
    check_pair_kinds::<E4m3>(128);
    check_pair_kinds::<E5m2>(129);
}

/// Scaled FP8 factors: data in the format, the largest magnitude of each
/// factor at the format's largest value, and the values they stand for
/// within half a unit in the last place of the drawn ones.
fn check_scaled<E: Float>() {
    let fmt = E::FORMAT;
    let max = fmt.max_finite();
    let wide = matrix_pair(8, 32, 4, normal::<f32>(1e-2));
    let input = scaled_matrix_pair::<E, _, _>(8, 32, 4, normal::<f32>(1e-2));
    for i in 0..50 {
        let x: ScaledPair<E> = input(&mut TrialRng::for_trial(SEED, i));
        let drawn = wide(&mut TrialRng::for_trial(SEED, i));
        let exact = x.dequantize();
        let parts = [
            (x.a(), x.scale_a(), drawn.a(), exact.a()),
            (x.b(), x.scale_b(), drawn.b(), exact.b()),
        ];
        for (data, scale, drawn, exact) in parts {
            assert_in_format(data.data());
            let amax = data
                .data()
                .iter()
                .map(|v| v.to_f64().abs())
                .fold(0.0, f64::max);
            assert_eq!(amax, max, "{fmt}");
            let s = f64::from(scale);
            for ((&d, &e), v) in drawn.data().iter().zip(exact.data()).zip(data.data()) {
                assert_eq!(e, v.to_f64() * s);
                let d = f64::from(d);
                assert!(
                    (d - e).abs() <= s * fmt.ulp(d / s) / 2.0,
                    "{fmt}: {d} ≉ {e}"
                );
            }
        }
    }
}

#[test]
fn scaled_fp8_factors_use_the_top_of_the_range() {
    check_scaled::<E4m3>();
    check_scaled::<E5m2>();
}

// ----------------------------------------------------------------- shapes

#[test]
fn shapes_stay_in_range_and_cover_their_sizes() {
    let g = vector(Shape::range(1..=17), normal::<f16>(1.0));
    let lens: Vec<usize> = draws(g, 2000).into_iter().map(|(x, _)| x.len()).collect();
    for size in 1..=17 {
        let count = lens.iter().filter(|&&l| l == size).count();
        assert_binomial(&format!("range length {size}"), count, 2000, 1.0 / 17.0);
    }
    assert!(lens.iter().all(|l| (1..=17).contains(l)));

    let g = vector([3, 5, 1000], uniform::<f32>(0.0, 1.0));
    let lens: Vec<usize> = draws(g, 300).into_iter().map(|(x, _)| x.len()).collect();
    for size in [3, 5, 1000] {
        let count = lens.iter().filter(|&&l| l == size).count();
        assert_binomial(&format!("list length {size}"), count, 300, 1.0 / 3.0);
    }

    let awkward = Shape::awkward(256);
    let sizes = awkward.sizes();
    for s in [1, 2, 3, 5, 7, 15, 17, 31, 127, 129, 251, 255, 256] {
        assert!(sizes.contains(&s), "{s} not in {sizes:?}");
    }
    let g = matrix(awkward.clone(), Shape::awkward(9), normal::<bf16>(1.0));
    for (x, _) in draws(g, 500) {
        assert!(sizes.contains(&x.rows()) && Shape::awkward(9).sizes().contains(&x.cols()));
        assert_eq!(x.data().len(), x.rows() * x.cols());
    }

    let g = matrix_pair(1..=3, [1, 7, 64], 2..4, normal::<f16>(1.0));
    let mut seen_k = std::collections::BTreeSet::new();
    for (x, _) in draws(g, 300) {
        let (m, k, n) = x.shape();
        assert!((1..=3).contains(&m) && (2..4).contains(&n));
        assert_eq!(
            (x.a().rows(), x.a().cols(), x.b().rows(), x.b().cols()),
            (m, k, k, n)
        );
        seen_k.insert(k);
    }
    assert_eq!(seen_k.into_iter().collect::<Vec<_>>(), vec![1, 7, 64]);

    // Tiny and odd sizes work for every kind of values.
    let values = mix_values(
        0.5,
        edges(normal::<f16>(1.0)),
        sparse(0.5, activations::<f16>(1.0)),
    );
    for (x, _) in draws(
        matrix_pair(Shape::awkward(5), Shape::awkward(5), 1..=3, values),
        400,
    ) {
        let (m, k, n) = x.shape();
        assert_eq!((x.a().data().len(), x.b().data().len()), (m * k, k * n));
        assert_in_format(x.a().data());
        assert_in_format(x.b().data());
    }
    // Zero-length vectors are allowed.
    assert!(vector(0, normal::<f32>(1.0))(&mut TrialRng::for_trial(0, 0)).is_empty());
}

// ----------------------------------------------- reproducibility and kinds

#[test]
fn inputs_replay_from_the_trial_seed() {
    let values = with_edges(
        0.3,
        mix_values(
            0.5,
            sparse(0.2, student_t::<f16>(2.0, 3.0)),
            large_row(8.0, normal::<f16>(1.0)),
        ),
    );
    let g = generate::zip(
        vector(Shape::awkward(300), values.clone()),
        matrix_pair(Shape::range(1..=9), [16, 33], 1..=5, values),
    );
    let bits = |x: &(Vec<f16>, MatrixPair<f16>)| -> Vec<u16> {
        x.0.iter()
            .chain(x.1.a().data())
            .chain(x.1.b().data())
            .map(|v| v.to_bits())
            .collect()
    };
    let mut distinct = std::collections::HashSet::new();
    for i in 0..200 {
        let mut first = TrialRng::for_trial(SEED, i);
        let mut again = TrialRng::from_trial_seed(trial_seed(SEED, i));
        let x = g(&mut first);
        let y = g(&mut again);
        assert_eq!(bits(&x), bits(&y), "trial {i}");
        assert_eq!(x.1.shape(), y.1.shape());
        assert_eq!(first.input_kind(), again.input_kind());
        distinct.insert(bits(&x));
    }
    assert_eq!(
        distinct.len(),
        200,
        "different trials give different inputs"
    );
}

#[test]
fn every_generator_notes_its_kind() {
    fn kind<T>(g: impl Fn(&mut TrialRng) -> T) -> String {
        let mut rng = TrialRng::for_trial(SEED, 0);
        g(&mut rng);
        rng.input_kind().to_owned()
    }
    let n = normal::<f16>(1.0);
    assert_eq!(kind(vector(8, n)), "normal");
    assert_eq!(kind(vector(8, uniform::<f16>(0.0, 1.0))), "uniform");
    assert_eq!(kind(vector(8, log_uniform::<f16>(1.0, 2.0))), "log_uniform");
    assert_eq!(kind(vector(8, student_t::<f16>(1.0, 1.0))), "student_t");
    assert_eq!(kind(vector(8, sparse(0.5, n))), "sparse/normal");
    assert_eq!(kind(matrix(4, 8, activations::<f16>(1.0))), "activations");
    assert_eq!(kind(matrix(4, 8, large_row(2.0, n))), "large_row/normal");
    assert_eq!(
        kind(vector(8, edges(n).kinds([EdgeKind::Zero]))),
        "edge/zero/normal"
    );
    assert_eq!(
        kind(vector(8, edges(n).kinds([EdgeKind::OverflowSum]))),
        "edge/overflow_sum"
    );
    assert_eq!(
        kind(matrix_pair(
            2,
            8,
            2,
            edges(n).kinds([EdgeKind::OverflowProduct])
        )),
        "edge/overflow_product"
    );
    assert_eq!(kind(matrix_pair(2, 8, 2, n)), "normal");
    assert_eq!(kind(matrix_pair(2, 8, 2, sparse(0.5, n))), "sparse/normal");
    assert_eq!(
        kind(matrix_pair_from(2, 8, 2, activations::<f16>(1.0), n)),
        "activations/normal"
    );
    assert_eq!(
        kind(generate::named("weights", vector(8, n))),
        "weights/normal"
    );
    assert_eq!(kind(generate::scalar(n)), "normal");
    assert_eq!(
        kind(generate::map(vector(8, n), |x: Vec<f16>| x.len())),
        "normal"
    );
    // Plain closures are named by the mix.
    let plain = |_: &mut TrialRng| 0u8;
    assert!(["mix.a", "mix.b"].contains(&kind(mix(0.5, plain, plain)).as_str()));
    // A user closure as Values notes once per factor.
    let ramp = |rng: &mut TrialRng, rows: usize, cols: usize| {
        rng.note_input_kind("ramp");
        (0..rows * cols).map(|i| i as f32).collect::<Vec<f32>>()
    };
    assert_eq!(kind(matrix_pair(2, 3, 2, ramp)), "ramp/ramp");
    let x = matrix(2, 3, ramp)(&mut TrialRng::for_trial(0, 0));
    assert_eq!(x, Matrix::new(2, 3, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
    assert_eq!(
        ramp.draw(&mut TrialRng::for_trial(0, 0), 1, 2),
        vec![0.0, 1.0]
    );
}

#[test]
fn outputs_carry_their_format() {
    let formats = [
        vector(4, normal::<f16>(1.0))(&mut TrialRng::for_trial(0, 0)).format(),
        vector(4, normal::<bf16>(1.0))(&mut TrialRng::for_trial(0, 0)).format(),
        matrix(2, 2, normal::<f32>(1.0))(&mut TrialRng::for_trial(0, 0)).format(),
        matrix(2, 2, normal::<f64>(1.0))(&mut TrialRng::for_trial(0, 0)).format(),
    ];
    assert_eq!(
        formats,
        [
            NumberFormat::F16,
            NumberFormat::Bf16,
            NumberFormat::F32,
            NumberFormat::F64
        ]
    );
}

// --------------------------------------------------------------- in a run

#[test]
// The harness hands each implementation a `&I`, here `&Vec<f16>`.
#[allow(clippy::ptr_arg)]
fn runs_record_the_kind_of_each_trial() {
    fn naive(x: &Vec<f16>) -> f16 {
        x.iter().fold(f16::ZERO, |s, &v| s + v)
    }
    fn widened(x: &Vec<f16>) -> f16 {
        f16::from_f32(x.iter().map(|v| v.to_f32()).sum())
    }
    fn exact(x: &Vec<f16>) -> f64 {
        oracle::sum(x.iter().map(|v| v.to_f64())).to_f64()
    }
    let n = 300;
    let input = vector(Shape::range(64..=256), with_edges(0.25, normal::<f16>(1.0)));
    let outcome = DualDelta::new(naive, widened, exact, input.clone())
        .seed(SEED)
        .n(n)
        .stop_early(false)
        .run()
        .expect("the run completes");
    assert_eq!(outcome.input_kinds().len(), n);
    let mut overflowed = 0;
    for i in 0..n {
        let mut rng = TrialRng::for_trial(SEED, i);
        input(&mut rng);
        assert_eq!(outcome.input_kinds()[i], rng.input_kind(), "trial {i}");
        if rng.input_kind() == "edge/overflow_sum" {
            // Summed in f16 the running sum overflows; in f32 it does not.
            assert_eq!(outcome.delta1()[i], f64::INFINITY, "trial {i}");
            assert!(outcome.delta2()[i].is_finite(), "trial {i}");
            overflowed += 1;
        }
    }
    assert!(overflowed > 0);
    assert!(outcome.input_kinds()[outcome.worst_trial()].starts_with("edge/"));
}
