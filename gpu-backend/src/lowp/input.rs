//! Inputs of the `bf16` and FP8 matmuls, and their random generation.

use dual_delta_runtime::generate::scaled;
use dual_delta_runtime::{E4m3, TrialRng};
use half::bf16;

use crate::GpuError;

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

/// The input of one `bf16` matmul `C = A · B`: `A` is `m × k`, `B` is
/// `k × n`, both row-major.
///
/// Invariants (checked by [`Bf16MatmulInput::new`]): `m, k, n ≥ 1`,
/// `a.len() == m · k`, `b.len() == k · n`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bf16MatmulInput {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<bf16>,
    b: Vec<bf16>,
}

impl Bf16MatmulInput {
    /// An input from its shape and its two matrices (row-major); fails when
    /// a dimension is zero or a length does not match the shape.
    pub fn new(m: usize, k: usize, n: usize, a: Vec<bf16>, b: Vec<bf16>) -> Result<Self, GpuError> {
        check_shape(m, k, n, a.len(), b.len())?;
        Ok(Self { m, k, n, a, b })
    }

    /// A random input like `torch.randn(m, k).bfloat16()` and
    /// `torch.randn(k, n).bfloat16()`: standard normal `f32` samples rounded
    /// to the nearest `bf16`, `A` first, then `B`.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    #[track_caller]
    pub fn random(m: usize, k: usize, n: usize, rng: &mut TrialRng) -> Self {
        assert_dims(m, k, n);
        let a = crate::randn::bf16s(m * k, rng);
        let b = crate::randn::bf16s(k * n, rng);
        Self { m, k, n, a, b }
    }

    /// `(m, k, n)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.m, self.k, self.n)
    }

    /// `A`, `m × k`, row-major.
    pub fn a(&self) -> &[bf16] {
        &self.a
    }

    /// `B`, `k × n`, row-major.
    pub fn b(&self) -> &[bf16] {
        &self.b
    }
}

/// The input of one FP8 GEMM `C = (A · scale_a) · (B · scale_b)`, as FP8
/// GEMMs take it: `A` (`m × k`) and `B` (`k × n`) row-major E4M3 codes,
/// each with one `f32` per-tensor scale.
///
/// Invariants (checked by [`Fp8MatmulInput::new`]): `m, k, n ≥ 1`, the
/// lengths match the shape, no code is a NaN (E4M3 has no infinities), and
/// both scales are finite and positive.
#[derive(Clone, Debug, PartialEq)]
pub struct Fp8MatmulInput {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<E4m3>,
    b: Vec<E4m3>,
    scale_a: f32,
    scale_b: f32,
}

impl Fp8MatmulInput {
    /// An input from its shape, its two matrices and their scales.
    pub fn new(
        (m, k, n): (usize, usize, usize),
        a: Vec<E4m3>,
        b: Vec<E4m3>,
        scale_a: f32,
        scale_b: f32,
    ) -> Result<Self, GpuError> {
        check_shape(m, k, n, a.len(), b.len())?;
        if let Some(i) = a.iter().chain(&b).position(|v| v.is_nan()) {
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

    /// A random input as a real FP8 GEMM gets it: `torch.randn(m, k)` and
    /// `torch.randn(k, n)` in `f32`, each quantized with its own per-tensor
    /// scale ([`dual_delta_runtime::generate::scaled`]): `scale = amax / 448`
    /// rounded to `f32`, `data = x / scale` rounded to E4M3 (nearest, ties to
    /// even). The largest magnitude lands on ±448, the largest E4M3 value.
    ///
    /// Overflow: E4M3 has no infinity, and the plain cast turns a value
    /// beyond 464 into NaN. The quotient `x / scale` can exceed 448 only by
    /// the rounding of the scale to `f32` (far less than one E4M3 step), and
    /// the conversion saturates anyway (the `satfinite` cast of FP8 GEMM
    /// kernels): out-of-range values become ±448, never NaN.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    #[track_caller]
    pub fn random(m: usize, k: usize, n: usize, rng: &mut TrialRng) -> Self {
        assert_dims(m, k, n);
        let a = scaled::<E4m3>(&crate::randn::f32s(m * k, rng));
        let b = scaled::<E4m3>(&crate::randn::f32s(k * n, rng));
        let ((a, scale_a), (b, scale_b)) = (a.into_parts(), b.into_parts());
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

    /// `(m, k, n)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.m, self.k, self.n)
    }

    /// `A`'s codes, `m × k`, row-major.
    pub fn a(&self) -> &[E4m3] {
        &self.a
    }

    /// `B`'s codes, `k × n`, row-major.
    pub fn b(&self) -> &[E4m3] {
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
}

/// An input generator for dual-delta tests: a fresh
/// [`Bf16MatmulInput::random`] of shape `m × k @ k × n` per trial.
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_matmul_input_bf16(
    m: usize,
    k: usize,
    n: usize,
) -> impl Fn(&mut TrialRng) -> Bf16MatmulInput + Send + Sync + Clone + 'static {
    assert_dims(m, k, n);
    move |rng: &mut TrialRng| Bf16MatmulInput::random(m, k, n, rng)
}

/// An input generator for dual-delta tests: a fresh
/// [`Fp8MatmulInput::random`] of shape `m × k @ k × n` per trial.
///
/// ```
/// use dual_delta_runtime::TrialRng;
/// use dual_delta_gpu::lowp::random_matmul_input_fp8;
///
/// let x = random_matmul_input_fp8(4, 64, 3)(&mut TrialRng::for_trial(1, 0));
/// let amax = x.a().iter().map(|v| v.to_f32().abs()).fold(0.0, f32::max);
/// assert_eq!(amax, 448.0);
/// ```
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_matmul_input_fp8(
    m: usize,
    k: usize,
    n: usize,
) -> impl Fn(&mut TrialRng) -> Fp8MatmulInput + Send + Sync + Clone + 'static {
    assert_dims(m, k, n);
    move |rng: &mut TrialRng| Fp8MatmulInput::random(m, k, n, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_check_their_invariants() {
        let one = || vec![E4m3::ONE];
        assert!(Fp8MatmulInput::new((1, 1, 1), one(), one(), 1.0, 0.5).is_ok());
        let e = Fp8MatmulInput::new((1, 1, 1), vec![E4m3::NAN], one(), 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("NaN code"), "{e}");
        assert!(Fp8MatmulInput::new((1, 1, 1), one(), one(), 0.0, 1.0).is_err());
        assert!(Fp8MatmulInput::new((1, 2, 1), one(), one(), 1.0, 1.0).is_err());
        let h = vec![bf16::ONE];
        assert!(Bf16MatmulInput::new(1, 1, 1, h.clone(), h.clone()).is_ok());
        assert!(Bf16MatmulInput::new(0, 1, 1, vec![], h).is_err());
    }

    #[test]
    fn random_inputs_are_scaled_randn() {
        let x = Fp8MatmulInput::random(32, 256, 16, &mut TrialRng::for_trial(5, 0));
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
        let y = random_matmul_input_bf16(32, 256, 16)(&mut TrialRng::for_trial(5, 0));
        let v: Vec<f64> = y.a().iter().chain(y.b()).map(|v| v.to_f64()).collect();
        let var = v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64;
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }
}
