//! Double-double arithmetic and accurately rounded sums, dot products and
//! matrix products.
//!
//! A [`DoubleDouble`] is an unevaluated sum `hi + lo` of two `f64`s with
//! `|lo| ≤ ulp(hi) / 2`: about 106 significant bits. It is built on two
//! error-free transformations, exact in IEEE 754 binary64 arithmetic with
//! rounding to nearest (absent overflow, and for [`two_prod`] underflow):
//! [`two_sum`] (Knuth) and [`two_prod`] (one fused multiply-add). The
//! algorithms and error bounds are those of Joldes, Muller and Popescu,
//! *Tight and rigorous error bounds for basic building blocks of double-word
//! arithmetic*, ACM TOMS 44(2), 2017.
//!
//! With `u = 2⁻⁵³`:
//!
//! * [`DoubleDouble::add_f64`] has a relative error of at most `2u²`;
//!   [`DoubleDouble::add_dd`] at most `3u²/(1 − 4u)`.
//! * [`sum`], [`dot`] and [`matmul`] accumulate in double-double. For `k`
//!   terms `tᵢ` the accumulated value is within `3k·u²·Σ|tᵢ|` of the exact
//!   sum, and rounding it to `f64` adds at most `u·|exact|`: the result is
//!   the exact value correctly rounded, give or take one unit in the last
//!   place, unless the terms cancel by a factor beyond about `2⁵⁰/k`.
//!
//! Products of two `f16`, `bf16`, `f32`, `e4m3` or `e5m2` values are exact
//! in `f64` (at most 48 significant bits, exponents well inside `f64`'s
//! range), so for those formats [`matmul`] adds exact products and skips
//! [`two_prod`].
//!
//! The crate implements these few algorithms itself rather than depending on
//! a multiple-precision library: they are short, have published error
//! bounds, run at a few nanoseconds per term, and need no C library (MPFR).

pub use crate::numerics::double_double::{DoubleDouble, two_prod, two_sum};
use crate::output::{Element, NumberFormat};

/// The sum of `values` in double-double: within `2k·u²·Σ|xᵢ|` of the exact
/// sum of `k` values.
///
/// ```
/// use dual_delta_runtime::oracle::sum;
///
/// let x = [1e16, 1.0, -1e16, 1.0];
/// assert_eq!(sum(x).to_f64(), 2.0);
/// assert_eq!(x.iter().sum::<f64>(), 1.0); // naive: one of the ones is lost
/// ```
pub fn sum(values: impl IntoIterator<Item = f64>) -> DoubleDouble {
    values
        .into_iter()
        .fold(DoubleDouble::ZERO, DoubleDouble::add_f64)
}

/// The dot product `Σ aᵢ·bᵢ` in double-double (every product split exactly
/// by [`two_prod`]): within `3k·u²·Σ|aᵢ·bᵢ|` of the exact value for `k`
/// terms, absent underflow.
///
/// # Panics
///
/// Panics when the lengths differ.
///
/// ```
/// use dual_delta_runtime::oracle::dot;
///
/// let a = [1e8, 1.0, -1e8];
/// let b = [1e8, 1e-9, 1e8];
/// assert_eq!(dot(&a, &b).to_f64(), 1e-9);
/// ```
#[track_caller]
pub fn dot(a: &[f64], b: &[f64]) -> DoubleDouble {
    assert_eq!(
        a.len(),
        b.len(),
        "a dot product of vectors of unequal lengths"
    );
    a.iter().zip(b).fold(DoubleDouble::ZERO, |acc, (&x, &y)| {
        acc.add_dd(DoubleDouble::exact_product(x, y))
    })
}

/// `C = A · B` for row-major `A` (`m × k`) and `B` (`k × n`), every element
/// accumulated in double-double and rounded once to `f64`: within
/// `u·|c| + 3k·u²·Σₚ|aᵢₚ·bₚⱼ|` of the exact value `c` (`u = 2⁻⁵³`), that
/// is, correctly rounded give or take one unit in the last place unless the
/// products cancel by a factor beyond about `2⁵⁰/k`.
///
/// For `f16`, `bf16`, `f32` and FP8 elements the products are exact in `f64` and
/// added as they are; for `f64` elements each is split by [`two_prod`].
///
/// # Panics
///
/// Panics when `a.len() != m·k` or `b.len() != k·n`.
///
/// ```
/// use dual_delta_runtime::oracle::matmul;
/// use half::f16;
///
/// let h = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
/// // [1 2] · [3]   = [11]
/// //         [4]
/// assert_eq!(matmul(&h(&[1.0, 2.0]), &h(&[3.0, 4.0]), 1, 2, 1), vec![11.0]);
/// ```
#[track_caller]
pub fn matmul<E: Element>(a: &[E], b: &[E], m: usize, k: usize, n: usize) -> Vec<f64> {
    assert_eq!(a.len(), m * k, "A must hold m·k = {m}·{k} values");
    assert_eq!(b.len(), k * n, "B must hold k·n = {k}·{n} values");
    let b: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
    let exact_products = E::FORMAT != NumberFormat::F64;
    let mut c = Vec::with_capacity(m * n);
    let mut acc = vec![DoubleDouble::ZERO; n];
    for i in 0..m {
        acc.fill(DoubleDouble::ZERO);
        for (p, x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = x.to_f64();
            let row = &b[p * n..(p + 1) * n];
            if exact_products {
                for (s, &y) in acc.iter_mut().zip(row) {
                    *s = s.add_f64(x * y);
                }
            } else {
                for (s, &y) in acc.iter_mut().zip(row) {
                    *s = s.add_dd(DoubleDouble::exact_product(x, y));
                }
            }
        }
        c.extend(acc.iter().map(|s| s.to_f64()));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn matmul_is_exact_on_cancelling_f16_products() {
        // 1000·1000 + 0.5·0.5 - 1000·1000 in one dot product: f64 keeps it,
        // and so must the reference; with 2^-24 terms it must too.
        let h = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
        let a = h(&[1000.0, 0.5, -1000.0, 2f64.powi(-24)]);
        let b = h(&[1000.0, 0.5, 1000.0, 2f64.powi(-24)]);
        let c = matmul(&a, &b, 1, 4, 1);
        assert_eq!(c, vec![0.25 + 2f64.powi(-48)]);
        // f64 elements take the two_prod path.
        let a64 = [1.0 + f64::EPSILON, -1.0];
        let b64 = [1.0 + f64::EPSILON, 1.0 + 2.0 * f64::EPSILON];
        assert_eq!(
            matmul(&a64, &b64, 1, 2, 1),
            vec![f64::EPSILON * f64::EPSILON]
        );
    }
}
