//! Matmul inputs and their random generation.

use dual_delta_runtime::TrialRng;
use half::f16;

use crate::GpuError;

/// The input of one FP16 matmul `C = A · B`: `A` is `m × k`, `B` is `k × n`,
/// both row-major.
///
/// Invariants (checked by [`MatmulInput::new`], relied on everywhere):
/// `m, k, n ≥ 1`, `a.len() == m · k` and `b.len() == k · n`. The fields are
/// private so that no value breaks them; read them through the accessors.
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulInput {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<f16>,
    b: Vec<f16>,
}

impl MatmulInput {
    /// An input from its shape and its two matrices (row-major).
    ///
    /// Fails when a dimension is zero or a matrix's length does not match the
    /// shape.
    pub fn new(m: usize, k: usize, n: usize, a: Vec<f16>, b: Vec<f16>) -> Result<Self, GpuError> {
        if m == 0 || k == 0 || n == 0 {
            return Err(GpuError::InvalidInput(format!(
                "every dimension must be at least 1, got m={m}, k={k}, n={n}"
            )));
        }
        let (mk, kn) = match (m.checked_mul(k), k.checked_mul(n)) {
            (Some(mk), Some(kn)) => (mk, kn),
            _ => {
                return Err(GpuError::InvalidInput(format!(
                    "shape m={m}, k={k}, n={n} overflows"
                )));
            }
        };
        if a.len() != mk {
            return Err(GpuError::InvalidInput(format!(
                "A must hold m·k = {m}·{k} = {mk} values, it holds {}",
                a.len()
            )));
        }
        if b.len() != kn {
            return Err(GpuError::InvalidInput(format!(
                "B must hold k·n = {k}·{n} = {kn} values, it holds {}",
                b.len()
            )));
        }
        Ok(Self { m, k, n, a, b })
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
    pub fn a(&self) -> &[f16] {
        &self.a
    }

    /// `B`, `k × n`, row-major.
    pub fn b(&self) -> &[f16] {
        &self.b
    }

    /// The number of elements of the result `C` (`m · n`).
    pub fn output_len(&self) -> usize {
        self.m * self.n
    }

    /// A random input like PyTorch's `torch.randn(m, k).half()` and
    /// `torch.randn(k, n).half()`: standard normal `f32` samples (drawn a
    /// block at a time by [`randn::f16s`](crate::randn::f16s)) rounded to
    /// the nearest `f16`, `A` first, then `B`, both in row-major order.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero.
    pub fn random(m: usize, k: usize, n: usize, rng: &mut TrialRng) -> Self {
        assert!(
            m > 0 && k > 0 && n > 0,
            "every dimension must be at least 1, got m={m}, k={k}, n={n}"
        );
        let a = crate::randn::f16s(m * k, rng);
        let b = crate::randn::f16s(k * n, rng);
        Self { m, k, n, a, b }
    }
}

/// An input generator for dual-delta tests: every call draws a fresh
/// [`MatmulInput::random`] of shape `m × k @ k × n` from the trial's
/// generator.
///
/// ```
/// use dual_delta_runtime::TrialRng;
/// use dual_delta_gpu::matmul::random_matmul_input;
///
/// let generate = random_matmul_input(2, 3, 4);
/// let input = generate(&mut TrialRng::for_trial(1, 0));
/// assert_eq!(input.shape(), (2, 3, 4));
/// assert_eq!(input.a().len(), 6);
/// ```
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero.
pub fn random_matmul_input(
    m: usize,
    k: usize,
    n: usize,
) -> impl Fn(&mut TrialRng) -> MatmulInput + Send + Sync + Clone + 'static {
    assert!(
        m > 0 && k > 0 && n > 0,
        "every dimension must be at least 1, got m={m}, k={k}, n={n}"
    );
    move |rng: &mut TrialRng| MatmulInput::random(m, k, n, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let x = MatmulInput::random(64, 128, 32, &mut TrialRng::for_trial(3, 0));
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
