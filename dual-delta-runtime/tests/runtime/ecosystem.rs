//! The ecosystem's types as outputs (the `num-complex`, `ndarray` and
//! `nalgebra` features): a test whose implementations return an ndarray
//! array, a nalgebra vector or matrix, or complex numbers is judged
//! exactly as its `Vec` twin on the same seeds: the same judgement, the
//! same errors Δ1 and Δ2 bit for bit.
//!
//! The computation: the sums of the 16 rows of a 16 × 256 matrix of
//! numbers drawn from [0, 1), naive left to right in f32 (the candidate),
//! pairwise in f32 (the baseline), and in f64 (the oracle). Naive summation
//! is significantly less accurate: the test fails; swapped, it passes.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{Metric, decision::Judgement};
use dual_delta_runtime::{decision::Accuracy, output::NumberFormat, output::Output};
use nalgebra::{DMatrix, DVector};
use ndarray::{Array1, Array2, ShapeBuilder};
use num_complex::Complex;

const ROWS: usize = 16;
const LEN: usize = 256;
const SEED: u64 = 0x5eed_ca5e;

fn matrix(rng: &mut TrialRng) -> Vec<f32> {
    (0..ROWS * LEN)
        .map(|_| rng.random_range(0.0f32..1.0))
        .collect()
}

fn naive(x: &Vec<f32>) -> Vec<f32> {
    x.chunks(LEN)
        .map(|row| row.iter().fold(0.0, |s, &v| s + v))
        .collect()
}

fn pairwise(x: &Vec<f32>) -> Vec<f32> {
    fn go(x: &[f32]) -> f32 {
        if x.len() <= 8 {
            x.iter().fold(0.0, |s, &v| s + v)
        } else {
            let (a, b) = x.split_at(x.len() / 2);
            go(a) + go(b)
        }
    }
    x.chunks(LEN).map(go).collect()
}

fn exact(x: &Vec<f32>) -> Vec<f64> {
    x.chunks(LEN)
        .map(|row| row.iter().map(|&v| f64::from(v)).sum())
        .collect()
}

/// The row sums as a 4 × 4 ndarray matrix in logical (row-major) order,
/// stored column by column: its memory order is not the `Vec`'s.
fn in_array(sums: Vec<f32>) -> Array2<f32> {
    let rows = Array2::from_shape_vec((4, 4), sums).unwrap();
    let mut columns = Array2::zeros((4, 4).f());
    columns.assign(&rows);
    columns
}

/// The row sums as pairs of complex numbers: `[s0 + s1·i, s2 + s3·i, …]`.
fn in_pairs<T: Copy>(sums: Vec<T>) -> Vec<Complex<T>> {
    sums.chunks(2).map(|p| Complex::new(p[0], p[1])).collect()
}

/// Two runs are the same run: the same judgement, trials, errors (bit for
/// bit) and p-values.
fn assert_same_run(vec: &Outcome, twin: &Outcome) {
    let bits = |v: &[f64]| v.iter().map(|d| d.to_bits()).collect::<Vec<_>>();
    assert_eq!(vec.trials_run(), twin.trials_run());
    assert_eq!(bits(vec.delta1()), bits(twin.delta1()));
    assert_eq!(bits(vec.delta2()), bits(twin.delta2()));
    let judgement = |o: &Outcome| -> Judgement { *o.judgement() };
    assert_eq!(judgement(vec), judgement(twin));
    let p = |o: &Outcome| {
        o.analysis()
            .worse
            .as_ref()
            .map(|t| t.p_value.to_bits())
            .ok()
    };
    assert!(p(vec).is_some());
    assert_eq!(p(vec), p(twin));
}

/// The `Vec` twins: naive against pairwise (fails), and swapped (passes).
fn vec_runs() -> (Outcome, Outcome) {
    let fails = DualDelta::new(naive, pairwise, exact, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert!(!fails.passed());
    assert_eq!(fails.judgement().accuracy(), Accuracy::LessAccurate);
    assert!(fails.trials_run() < 200, "{}", fails.trials_run());
    let mean = |d: &[f64]| d.iter().sum::<f64>() / d.len() as f64;
    assert!(mean(fails.delta1()) > 3.0 * mean(fails.delta2()));
    let passes = DualDelta::new(pairwise, naive, exact, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert!(passes.passed(), "{}", passes.verdict_sentence());
    assert_eq!(passes.trials_run(), 200);
    assert!(passes.delta1().iter().any(|&d| d > 0.0));
    (fails, passes)
}

#[test]
fn ndarray_outputs_are_judged_as_their_vec_twins() {
    let (fails, passes) = vec_runs();
    let naive_array = |x: &Vec<f32>| in_array(naive(x));
    let pairwise_array = |x: &Vec<f32>| Array1::from(pairwise(x));
    let exact_array = |x: &Vec<f32>| Array1::from(exact(x));
    let twin = DualDelta::new(naive_array, pairwise_array, exact_array, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&fails, &twin);
    // A view of the array is the array.
    let as_view = |x: &Vec<f32>| in_array(pairwise(x)).view().to_shared();
    let twin = DualDelta::new(as_view, naive_array, exact_array, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&passes, &twin);
}

#[test]
fn nalgebra_outputs_are_judged_as_their_vec_twins() {
    let (fails, passes) = vec_runs();
    let naive_vector = |x: &Vec<f32>| DVector::from_vec(naive(x));
    // Filled column by column: nalgebra reads it in the `Vec`'s order.
    let pairwise_matrix = |x: &Vec<f32>| DMatrix::from_vec(4, 4, pairwise(x));
    let exact_vector = |x: &Vec<f32>| DVector::from_vec(exact(x));
    let twin = DualDelta::new(naive_vector, pairwise_matrix, exact_vector, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&fails, &twin);
    let twin = DualDelta::new(pairwise_matrix, naive_vector, exact_vector, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&passes, &twin);
    // Filled row by row, the same matrix is read column-major: its sums
    // meet the oracle's of other rows, and the errors are those of the
    // wrong elements, a hundred times the pairwise sum's own.
    let by_rows = |x: &Vec<f32>| DMatrix::from_row_slice(4, 4, &pairwise(x));
    let misread = DualDelta::new(by_rows, naive_vector, exact_vector, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert!(!misread.passed());
    assert!(misread.delta1()[0] > 100.0 * passes.delta1()[0]);
}

#[test]
fn complex_outputs_are_judged_as_their_vec_twins() {
    let (fails, passes) = vec_runs();
    let naive_pairs = |x: &Vec<f32>| in_pairs(naive(x));
    let pairwise_pairs =
        |x: &Vec<f32>| -> [Complex<f32>; ROWS / 2] { in_pairs(pairwise(x)).try_into().unwrap() };
    let exact_pairs = |x: &Vec<f32>| in_pairs(exact(x));
    let twin = DualDelta::new(naive_pairs, pairwise_pairs, exact_pairs, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&fails, &twin);
    let twin = DualDelta::new(pairwise_pairs, naive_pairs, exact_pairs, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&passes, &twin);
    // Complex numbers in an ndarray array and a nalgebra vector.
    let naive_array = |x: &Vec<f32>| Array1::from(in_pairs(naive(x)));
    let exact_vector = |x: &Vec<f32>| DVector::from_vec(in_pairs(exact(x)));
    let twin = DualDelta::new(naive_array, pairwise, exact_vector, matrix)
        .seed(SEED)
        .n(200)
        .run()
        .unwrap();
    assert_same_run(&fails, &twin);
}

/// The metric reads the parts of a complex number as elements of their
/// own: every built-in metric gives a complex output the error of its
/// parts, interleaved, as a real output; `max_relative` and `max_hybrid`
/// are relative to each part, and `norm_relative` is the norm-wise error
/// of the complex vector.
#[test]
fn the_metric_reads_each_part_of_a_complex_number() {
    let widened = |o: &dyn Output| {
        let mut v = Vec::new();
        o.extend_f64(&mut v);
        v
    };
    let output = vec![Complex::new(3.0f32, 1e-3), Complex::new(-2.0, 4.0)];
    let parts: Vec<f32> = output.iter().flat_map(|z| [z.re, z.im]).collect();
    let oracle = vec![Complex::new(3.0f64, 0.0), Complex::new(-2.0, 4.0 + 1e-2)];
    let (y, r, o) = (widened(&output), widened(&parts), widened(&oracle));
    assert_eq!(y, r);
    assert_eq!(o, [3.0, 0.0, -2.0, 4.01]);
    for metric in Metric::BUILT_IN {
        let (complex, real) = (
            metric.error(&y, &o, NumberFormat::F32),
            metric.error(&r, &o, NumberFormat::F32),
        );
        assert_eq!(complex.to_bits(), real.to_bits(), "{}", metric.name());
    }
    // A real result with a small imaginary part left over: infinitely
    // wrong to max_relative (the imaginary part is off 0), 1e-3 off to
    // max_hybrid (|1e-3 - 0| / (1 + 0)), and small norm-wise.
    assert_eq!(
        Metric::MaxRelative.error(&y[..2], &o[..2], NumberFormat::F32),
        f64::INFINITY
    );
    let hybrid = Metric::MaxHybrid.error(&y[..2], &o[..2], NumberFormat::F32);
    assert_eq!(hybrid, f64::from(1e-3f32));
    let norm = Metric::NormRelative.error(&y[..2], &o[..2], NumberFormat::F32);
    assert!((norm - f64::from(1e-3f32) / 3.0).abs() < 1e-12, "{norm}");
}

// The attribute takes them as it takes a `Vec`.
#[dual_delta_test(oracle = exact, baseline = naive, input = matrix, n = 200)]
fn pairwise_as_an_ndarray_array(x: &Vec<f32>) -> Array1<f32> {
    Array1::from(pairwise(x))
}

/// By default the runtime depends on none of the three crates: a test
/// build without the features compiles none of them (the cargo metadata,
/// read with `cargo tree`, which builds nothing). Each feature brings its
/// own crate, and `nalgebra` brings num-complex with it.
#[test]
fn without_their_features_none_of_the_three_is_a_dependency() {
    let direct = |features: &[&str]| {
        let out = std::process::Command::new(env!("CARGO"))
            .args(["tree", "--offline", "-e", "normal", "--depth", "1"])
            .args(["-p", "dual-delta-runtime", "--prefix", "none"])
            .args(features)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree = String::from_utf8(out.stdout).unwrap();
        ["num-complex", "ndarray", "nalgebra"]
            .into_iter()
            .filter(|name| tree.lines().any(|l| l.starts_with(&format!("{name} v"))))
            .collect::<Vec<_>>()
    };
    assert_eq!(direct(&[]), [] as [&str; 0]);
    assert_eq!(direct(&["--features", "num-complex"]), ["num-complex"]);
    assert_eq!(direct(&["--features", "ndarray"]), ["ndarray"]);
    assert_eq!(
        direct(&["--features", "nalgebra"]),
        ["num-complex", "nalgebra"]
    );
    assert_eq!(
        direct(&["--features", "num-complex,ndarray,nalgebra"]),
        ["num-complex", "ndarray", "nalgebra"]
    );
}
