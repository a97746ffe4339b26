//! Oracles of higher precision, and the check that an oracle is precise
//! enough (the paper's *precision separation* property, §3.2.2).
//!
//! A Dual-Delta Test measures the candidate and the baseline against an
//! oracle fΩ and takes the oracle's output as the truth. That is sound only
//! while the oracle's own error is far below the implementations' errors:
//! otherwise Δ1 and Δ2 partly measure the oracle. [`Separation`] checks it on
//! a sample of trials, measuring the oracle and each implementation against a
//! reference of higher precision still, and warns (in every report of the
//! process, through [`record_environment`](crate::record_environment)) when
//! the oracle's error is less than 100× below the implementations'.
//!
//! This module provides that higher precision: double-double arithmetic
//! ([`DoubleDouble`], about 106 significant bits) built on the error-free
//! transformations [`two_sum`] and [`two_prod`], and from it an accurately
//! rounded [`dot`] product and [`matmul`].
//!
//! ```
//! use dual_delta_runtime::generate::{matrix_pair, normal, MatrixPair};
//! use dual_delta_runtime::oracle::{self, Separation};
//! use half::f16;
//!
//! fn product(x: &MatrixPair<f16>, acc: impl Fn(&[f16], &[f16], usize, usize, usize) -> Vec<f64>) -> Vec<f64> {
//!     let (m, k, n) = x.shape();
//!     acc(x.a().data(), x.b().data(), m, k, n)
//! }
//! // Implementations: f32 accumulation rounded to f16; oracle: f64; reference: double-double.
//! let naive = |a: &[f16], b: &[f16], m: usize, k: usize, n: usize| -> Vec<f64> {
//!     let mut c = vec![0.0; m * n];
//!     for i in 0..m {
//!         for j in 0..n {
//!             c[i * n + j] = (0..k).map(|p| a[i * k + p].to_f64() * b[p * n + j].to_f64()).sum();
//!         }
//!     }
//!     c
//! };
//! let f16_f32acc = |x: &MatrixPair<f16>| -> Vec<f16> {
//!     let (m, k, n) = x.shape();
//!     let (a, b) = (x.a().data(), x.b().data());
//!     (0..m * n)
//!         .map(|ij| {
//!             let (i, j) = (ij / n, ij % n);
//!             let s: f32 = (0..k).map(|p| a[i * k + p].to_f32() * b[p * n + j].to_f32()).sum();
//!             f16::from_f32(s)
//!         })
//!         .collect()
//! };
//! let report = Separation::new(
//!     move |x: &MatrixPair<f16>| product(x, naive),
//!     |x: &MatrixPair<f16>| product(x, |a, b, m, k, n| oracle::matmul(a, b, m, k, n)),
//!     matrix_pair(16, 64, 16, normal::<f16>(1.0)),
//! )
//! .implementation("f32 accumulation", f16_f32acc)
//! .sample(4)
//! .check()
//! .unwrap();
//! assert!(report.passed, "{report}");
//! ```

mod compensated;
mod separation;

pub use self::compensated::{DoubleDouble, dot, matmul, sum, two_prod, two_sum};
pub use self::separation::{
    ErrorSummary, ImplementationErrors, Separation, SeparationError, SeparationReport,
};
