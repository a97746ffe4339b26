//! The input of the matmuls, generic over the element type (`f16`,
//! `bf16`, FP8 E4M3), and its random generation.

use dual_delta_runtime::generate::scaled;
use dual_delta_runtime::{E4m3, TrialRng};
use half::{bf16, f16};

use crate::error::GpuError;

/// An element type of matmul inputs: [`f16`](struct@half::f16), [`bf16`] or FP8
/// [`E4m3`](dual_delta_runtime::E4m3) (sealed).
pub trait MatmulElement: Copy + core::fmt::Debug + PartialEq + sealed::Sealed + 'static {
    /// Whether `self` may be an input: every value but an FP8 NaN code
    /// (FP8 inputs must be finite; E4M3 has no infinities).
    fn admissible(self) -> bool;

    /// `len` values like `torch.randn(len)` in this type, with their
    /// per-tensor scale (1 but for FP8, see [`MatmulInput::random`]).
    fn randn(len: usize, rng: &mut TrialRng) -> (Vec<Self>, f32);
}

mod sealed {
    use crate::matmul::pool::Pool;

    pub trait Sealed: Sized + 'static {
        /// Where the matrices of this type's dropped inputs are kept for
        /// the next one drawn, if anywhere.
        fn pool() -> Option<&'static Pool<Self>> {
            None
        }
    }
    impl Sealed for dual_delta_runtime::E4m3 {}
}

/// A 16-bit format as a matmul element: every value admissible, drawn as
/// `torch.randn(len)` rounded by `$fill` into a kept matrix of a dropped
/// input ([`super::pool`]).
macro_rules! half_element {
    ($t:ty, $fill:path) => {
        impl sealed::Sealed for $t {
            fn pool() -> Option<&'static super::pool::Pool<Self>> {
                static POOL: super::pool::Pool<$t> = super::pool::Pool::new();
                Some(&POOL)
            }
        }

        impl MatmulElement for $t {
            fn admissible(self) -> bool {
                true
            }
            fn randn(len: usize, rng: &mut TrialRng) -> (Vec<Self>, f32) {
                let mut v = pooled(len, <$t>::ZERO);
                $fill(rng, &mut v);
                (v, 1.0)
            }
        }
    };
}

half_element!(f16, crate::randn::fill_f16);
half_element!(bf16, crate::randn::fill_bf16);

impl MatmulElement for E4m3 {
    fn admissible(self) -> bool {
        !self.is_nan()
    }
    fn randn(len: usize, rng: &mut TrialRng) -> (Vec<Self>, f32) {
        scaled::<E4m3>(&crate::randn::f32s(len, rng)).into_parts()
    }
}

/// A vector of `len` values to draw into: a kept matrix of a dropped input
/// when there is one ([`super::pool`]), else `len` copies of `fill`.
fn pooled<E: MatmulElement>(len: usize, fill: E) -> Vec<E> {
    match E::pool() {
        Some(pool) => pool.take(len, fill),
        None => vec![fill; len],
    }
}

/// The input of one matmul `C = (A · scale_a) · (B · scale_b)`: `A` is
/// `m × k`, `B` is `k × n`, both row-major, of element type `E`, each with
/// one `f32` per-tensor scale as FP8 GEMMs take them (1 for `f16` and
/// `bf16`, whose kernels do not read them).
///
/// Invariants (checked by [`MatmulInput::new`] and
/// [`MatmulInput::scaled`], relied on everywhere): `m, k, n ≥ 1`,
/// `a.len() == m · k`, `b.len() == k · n`, every value
/// [admissible](MatmulElement::admissible) (no FP8 NaN code), and both
/// scales finite and positive. The fields are private so that no value
/// breaks them; read them through the accessors.
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulInput<E: MatmulElement = f16> {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<E>,
    b: Vec<E>,
    scale_a: f32,
    scale_b: f32,
}

/// Gives the matrices back to their type's pool, for the next input drawn.
impl<E: MatmulElement> Drop for MatmulInput<E> {
    fn drop(&mut self) {
        if let Some(pool) = E::pool() {
            pool.give(std::mem::take(&mut self.a));
            pool.give(std::mem::take(&mut self.b));
        }
    }
}

impl<E: MatmulElement> MatmulInput<E> {
    /// An input from its shape and its two matrices (row-major), with
    /// scales 1. Fails when a dimension is zero, a matrix's length does not
    /// match the shape, or a value is not admissible.
    pub fn new(m: usize, k: usize, n: usize, a: Vec<E>, b: Vec<E>) -> Result<Self, GpuError> {
        Self::scaled((m, k, n), a, b, 1.0, 1.0)
    }

    /// An input from its shape, its two matrices and their scales; fails as
    /// [`MatmulInput::new`] does, and when a scale is not finite and
    /// positive.
    pub fn scaled(
        (m, k, n): (usize, usize, usize),
        a: Vec<E>,
        b: Vec<E>,
        scale_a: f32,
        scale_b: f32,
    ) -> Result<Self, GpuError> {
        check_shape(m, k, n, a.len(), b.len())?;
        if let Some(i) = a.iter().chain(&b).position(|v| !v.admissible()) {
            return Err(GpuError::InvalidInput(format!(
                "value {i} of A then B is a NaN code; FP8 inputs must be finite"
            )));
        }
        for s in [scale_a, scale_b] {
            if !(s.is_finite() && s > 0.0) {
                return Err(GpuError::InvalidInput(format!(
                    "a scale must be finite and positive, got {s}"
                )));
            }
        }
        Ok(Self {
            m,
            k,
            n,
            a,
            b,
            scale_a,
            scale_b,
        })
    }

    /// A random input like PyTorch's `torch.randn(m, k)` and
    /// `torch.randn(k, n)` in `E`, `A` first, then `B`: standard normal
    /// `f32` samples (drawn a block at a time by [`randn`](crate::randn))
    /// rounded to the nearest `f16` or `bf16` (`.half()`, `.bfloat16()`);
    /// for FP8, each matrix quantized as a real FP8 GEMM gets it, with its
    /// own per-tensor scale ([`dual_delta_runtime::generate::scaled`]):
    /// `scale = amax / 448` rounded to `f32`, `data = x / scale` rounded to
    /// E4M3 (nearest, ties to even, saturating: out-of-range values become
    /// ±448, never NaN), so the largest magnitude lands on ±448.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    #[track_caller]
    pub fn random(m: usize, k: usize, n: usize, rng: &mut TrialRng) -> Self {
        assert_dims(m, k, n);
        let (a, scale_a) = E::randn(m * k, rng);
        let (b, scale_b) = E::randn(k * n, rng);
        Self {
            m,
            k,
            n,
            a,
            b,
            scale_a,
            scale_b,
        }
    }

    /// Rows of `A` and of `C`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Columns of `A`, rows of `B`: the length of every dot product.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns of `B` and of `C`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// `(m, k, n)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.m, self.k, self.n)
    }

    /// `A`, `m × k`, row-major.
    pub fn a(&self) -> &[E] {
        &self.a
    }

    /// `B`, `k × n`, row-major.
    pub fn b(&self) -> &[E] {
        &self.b
    }

    /// `A`'s scale.
    pub fn scale_a(&self) -> f32 {
        self.scale_a
    }

    /// `B`'s scale.
    pub fn scale_b(&self) -> f32 {
        self.scale_b
    }

    /// The factor the kernels multiply the accumulated sum by:
    /// `scale_a · scale_b` rounded to `f32`.
    pub fn output_scale(&self) -> f32 {
        self.scale_a * self.scale_b
    }

    /// The number of elements of the result `C` (`m · n`).
    pub fn output_len(&self) -> usize {
        self.m * self.n
    }
}

/// Checks `m, k, n ≥ 1` and the lengths of `A` (`m·k`) and `B` (`k·n`).
fn check_shape(m: usize, k: usize, n: usize, a: usize, b: usize) -> Result<(), GpuError> {
    if m == 0 || k == 0 || n == 0 {
        return Err(GpuError::InvalidInput(format!(
            "every dimension must be at least 1, got m={m}, k={k}, n={n}"
        )));
    }
    let (Some(mk), Some(kn)) = (m.checked_mul(k), k.checked_mul(n)) else {
        return Err(GpuError::InvalidInput(format!(
            "shape m={m}, k={k}, n={n} overflows"
        )));
    };
    if a != mk {
        return Err(GpuError::InvalidInput(format!(
            "A must hold m·k = {m}·{k} = {mk} values, it holds {a}"
        )));
    }
    if b != kn {
        return Err(GpuError::InvalidInput(format!(
            "B must hold k·n = {k}·{n} = {kn} values, it holds {b}"
        )));
    }
    Ok(())
}

#[track_caller]
fn assert_dims(m: usize, k: usize, n: usize) {
    assert!(
        m > 0 && k > 0 && n > 0,
        "every dimension must be at least 1, got m={m}, k={k}, n={n}"
    );
}

/// An input generator for dual-delta tests: every call draws a fresh
/// [`MatmulInput::random`] of shape `m × k @ k × n` from the trial's
/// generator.
///
/// ```
/// use dual_delta_runtime::{E4m3, TrialRng};
/// use dual_delta_gpu::{f16, matmul::random_matmul_input};
///
/// let generate = random_matmul_input::<f16>(2, 3, 4);
/// let input = generate(&mut TrialRng::for_trial(1, 0));
/// assert_eq!(input.shape(), (2, 3, 4));
/// assert_eq!(input.a().len(), 6);
///
/// let x = random_matmul_input::<E4m3>(4, 64, 3)(&mut TrialRng::for_trial(1, 0));
/// let amax = x.a().iter().map(|v| v.to_f32().abs()).fold(0.0, f32::max);
/// assert_eq!(amax, 448.0);
/// ```
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
#[track_caller]
pub fn random_matmul_input<E: MatmulElement>(
    m: usize,
    k: usize,
    n: usize,
) -> impl Fn(&mut TrialRng) -> MatmulInput<E> + Send + Sync + Clone + 'static {
    assert_dims(m, k, n);
    move |rng: &mut TrialRng| MatmulInput::random(m, k, n, rng)
}

/// The shape a failing run's loss is cut by: `m`, `k` (the length of every
/// dot product, where accumulation loses accuracy) and `n`.
impl<E: MatmulElement> dual_delta_runtime::regions::Coordinates for MatmulInput<E> {
    fn coordinates(&self, sink: &mut dual_delta_runtime::regions::Sink<'_>) {
        sink.push("m", self.m as f64);
        sink.push("k", self.k as f64);
        sink.push("n", self.n as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dual_delta_runtime::E4m3;
    use half::bf16;

    #[test]
    fn constructors_check_their_invariants() {
        let one = || vec![E4m3::ONE];
        assert!(MatmulInput::scaled((1, 1, 1), one(), one(), 1.0, 0.5).is_ok());
        let e = MatmulInput::scaled((1, 1, 1), vec![E4m3::NAN], one(), 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("NaN code"), "{e}");
        assert!(MatmulInput::scaled((1, 1, 1), one(), one(), 0.0, 1.0).is_err());
        assert!(MatmulInput::scaled((1, 2, 1), one(), one(), 1.0, 1.0).is_err());
        let h = vec![bf16::ONE];
        assert!(MatmulInput::new(1, 1, 1, h.clone(), h.clone()).is_ok());
        assert!(MatmulInput::new(0, 1, 1, vec![], h).is_err());
    }

    #[test]
    fn random_inputs_are_scaled_randn() {
        let x = MatmulInput::<E4m3>::random(32, 256, 16, &mut TrialRng::for_trial(5, 0));
        for (data, scale) in [(x.a(), x.scale_a()), (x.b(), x.scale_b())] {
            let amax = data.iter().map(|v| v.to_f32().abs()).fold(0.0, f32::max);
            assert_eq!(amax, 448.0);
            // randn's largest of thousands of draws: between 2.5 and 6.
            assert!((2.5 / 448.0..6.0 / 448.0).contains(&scale), "{scale}");
            let var = data
                .iter()
                .map(|v| (f64::from(v.to_f32()) * f64::from(scale)).powi(2))
                .sum::<f64>()
                / data.len() as f64;
            assert!((var - 1.0).abs() < 0.1, "variance {var}");
        }
        let y = random_matmul_input::<bf16>(32, 256, 16)(&mut TrialRng::for_trial(5, 0));
        let v: Vec<f64> = y.a().iter().chain(y.b()).map(|v| v.to_f64()).collect();
        let var = v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64;
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }

    #[test]
    fn constructor_checks_shapes() {
        let one = vec![f16::ONE];
        assert!(MatmulInput::new(1, 1, 1, one.clone(), one.clone()).is_ok());
        let e = MatmulInput::new(1, 2, 1, one.clone(), vec![f16::ONE; 2]).unwrap_err();
        assert!(
            e.to_string().contains("A must hold m·k = 1·2 = 2 values"),
            "{e}"
        );
        let e = MatmulInput::new(1, 1, 2, one.clone(), one.clone()).unwrap_err();
        assert!(e.to_string().contains("B must hold k·n"), "{e}");
        let e = MatmulInput::new(0, 1, 1, vec![], one).unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
    }

    #[test]
    fn random_inputs_look_like_randn_half() {
        let x = MatmulInput::<f16>::random(64, 128, 32, &mut TrialRng::for_trial(3, 0));
        let y = random_matmul_input(64, 128, 32)(&mut TrialRng::for_trial(3, 0));
        assert_eq!(x, y, "same trial, same input");
        let z = MatmulInput::random(64, 128, 32, &mut TrialRng::for_trial(3, 1));
        assert_ne!(x, z);
        let v: Vec<f64> = x.a().iter().chain(x.b()).map(|v| v.to_f64()).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }
}
