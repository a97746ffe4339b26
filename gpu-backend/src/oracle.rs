//! A higher-precision matmul oracle, and matmul inputs from the runtime's
//! generators (edge cases included).
//!
//! [`matmul_dd`] is the reference for the precision separation check
//! ([`dual_delta_runtime::oracle::Separation`]): it accumulates every dot
//! product in double-double, so it can tell how far [`matmul_f64`] is from
//! the exact product.
//!
//! ```
//! use dual_delta_runtime::oracle::Separation;
//! use dual_delta_gpu::oracle::{matmul_dd, matmul_input};
//! use dual_delta_gpu::matmul::{matmul_cpu_f16, matmul_f64};
//! use dual_delta_runtime::generate::normal;
//! use dual_delta_gpu::f16;
//!
//! let report = Separation::new(matmul_f64, matmul_dd, matmul_input(32, 128, 32, normal::<f16>(1.0)))
//!     .implementation("cpu f16", matmul_cpu_f16)
//!     .sample(2)
//!     .check()
//!     .unwrap();
//! assert!(report.passed, "{report}");
//! ```
//!
//! [`matmul_f64`]: crate::matmul::matmul_f64

use dual_delta_runtime::TrialRng;
use dual_delta_runtime::generate::{MatrixPair, Shape, Values, matrix_pair};
use half::f16;

use crate::{GpuError, matmul::MatmulInput};

/// `C = A · B` with every element accumulated in double-double arithmetic
/// and rounded once to `f64`: the higher-precision oracle for checking
/// [`matmul_f64`](crate::matmul::matmul_f64).
///
/// The products of two `f16` values are exact in `f64`; they are summed in
/// double-double ([`dual_delta_runtime::oracle::matmul`]), so each element is
/// within `u·|c| + 3k·u²·Σₚ|aᵢₚ·bₚⱼ|` of the exact value `c` (`u = 2⁻⁵³`):
/// the exact product correctly rounded to `f64`, give or take one unit in
/// the last place, unless the products cancel by a factor beyond about
/// `2⁵⁰/k`. About 10 to 20 times slower than [`matmul_f64`](crate::matmul::matmul_f64).
pub fn matmul_dd(input: &MatmulInput) -> Vec<f64> {
    let (m, k, n) = input.shape();
    dual_delta_runtime::oracle::matmul(input.a(), input.b(), m, k, n)
}

impl TryFrom<MatrixPair<f16>> for MatmulInput {
    type Error = GpuError;

    /// The pair as a matmul input; fails when a dimension is zero.
    fn try_from(pair: MatrixPair<f16>) -> Result<Self, GpuError> {
        let (m, k, n) = pair.shape();
        let (a, b) = pair.into_parts();
        MatmulInput::new(m, k, n, a.into_vec(), b.into_vec())
    }
}

/// An input generator of matmul inputs from the runtime's
/// [`matrix_pair`]: shapes drawn per trial, values from any
/// [`Values`] (distributions, edge cases, patterns), the kind noted.
///
/// ```
/// use dual_delta_runtime::generate::{normal, with_edges};
/// use dual_delta_runtime::TrialRng;
/// use dual_delta_gpu::f16;
/// use dual_delta_gpu::oracle::matmul_input;
///
/// let input = matmul_input(128, 128, 128, with_edges(0.1, normal::<f16>(1.0)));
/// let mut rng = TrialRng::for_trial(0, 0);
/// assert_eq!(input(&mut rng).shape(), (128, 128, 128));
/// ```
///
/// # Panics
///
/// The generator panics when a dimension drawn is zero.
pub fn matmul_input<V>(
    m: impl Into<Shape>,
    k: impl Into<Shape>,
    n: impl Into<Shape>,
    values: V,
) -> impl Fn(&mut TrialRng) -> MatmulInput + Send + Sync + Clone
where
    V: Values<f16> + Clone,
{
    let pairs = matrix_pair(m, k, n, values);
    move |rng: &mut TrialRng| {
        MatmulInput::try_from(pairs(rng)).unwrap_or_else(|e| panic!("matmul input: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{matmul_f64, random_matmul_input};
    use dual_delta_runtime::generate::{Matrix, normal};

    #[test]
    fn double_double_and_f64_agree_to_rounding() {
        let x = random_matmul_input(16, 300, 8)(&mut TrialRng::for_trial(4, 0));
        let (dd, f) = (matmul_dd(&x), matmul_f64(&x));
        for (a, b) in dd.iter().zip(&f) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn pairs_convert_and_zero_dimensions_are_refused() {
        let x = matmul_input(3, 5, 2, normal::<f16>(1.0))(&mut TrialRng::for_trial(0, 0));
        assert_eq!(x.shape(), (3, 5, 2));
        let empty = MatrixPair::new(Matrix::new(0, 1, vec![]), Matrix::new(1, 1, vec![f16::ONE]));
        assert!(MatmulInput::try_from(empty).is_err());
    }
}
