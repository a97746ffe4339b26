//! The CPU references of the `f16` matmul: PyTorch's CPU half matmul
//! ([`matmul_cpu_f16`]), the `f64` oracle ([`matmul_f64`]), a
//! higher-precision oracle ([`matmul_dd`]), and matmul inputs from the
//! runtime's generators ([`matmul_input`]).
//!
//! The two GEMM-based references use the [`gemm`] crate's `f32` and `f64`
//! kernels, single-threaded (dual-delta already runs trials on every core).
//! `gemm` was chosen over `matrixmultiply` because its `f64` kernel was the
//! faster of the two at `128×4096 @ 4096×128` (3.3 ms against 4.0 ms on an
//! AVX2 core; the `f32` kernels were on par), and the oracle is the hot path
//! of every dual-delta matmul test. Its `x86-v4` kernels are enabled: where
//! the processor has AVX-512 (checked at run time), the `f64` oracle takes
//! 2.4 ms instead of 3.8 ms at that shape. The inputs are widened with `half`'s vectorised
//! slice conversions into per-thread buffers that are reused from call to
//! call. Its own `f16`
//! path is *not* used (the crate is built without it): it rounds the
//! accumulator to `f16` between K blocks of 512, which is not what PyTorch's
//! CPU matmul does and gives errors of 4.6e-2 at `k = 4096`.
//!
//! [`matmul_dd`] is the reference for the precision separation check
//! ([`dual_delta_runtime::oracle::Separation`]): it accumulates every dot
//! product in double-double, so it can tell how far [`matmul_f64`] is from
//! the exact product.
//!
//! ```
//! use dual_delta_runtime::oracle::Separation;
//! use dual_delta_gpu::matmul::{matmul_dd, matmul_input};
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

use std::cell::RefCell;

use half::f16;
use half::slice::HalfFloatSliceExt as _;

use super::MatmulInput;

/// `C = A · B` computed like PyTorch's CPU half matmul: the `f16` inputs are
/// widened to `f32`, the products accumulated in `f32` (aten
/// `native/cpu/BlasKernel.cpp` uses `opmath_t = float` for `Half`), and each
/// result rounded once to `f16`.
///
/// The summation order is the GEMM kernel's, so results may differ from
/// [`Accumulation::F32`](super::Accumulation::F32) on the GPU by one `f16` ulp where the `f32` sums
/// fall on either side of an `f16` rounding boundary.
pub fn matmul_cpu_f16(input: &MatmulInput) -> Vec<f16> {
    let c = SCRATCH_F32.with_borrow_mut(|(a, b)| {
        widen(input.a(), a);
        widen(input.b(), b);
        gemm_row_major(input.shape(), a, b)
    });
    let mut out = vec![f16::ZERO; c.len()];
    out.convert_from_f32_slice(&c);
    out
}

/// The oracle `C = A · B` in `f64`, on the exact `f16` input values widened
/// to `f64`. Each output carries only the `f64` rounding errors of its sum
/// (relative error about `k · 2⁻⁵³` at worst), far below any `f16` effect.
pub fn matmul_f64(input: &MatmulInput) -> Vec<f64> {
    SCRATCH_F64.with_borrow_mut(|(a, b)| {
        widen(input.a(), a);
        widen(input.b(), b);
        gemm_row_major(input.shape(), a, b)
    })
}

thread_local! {
    /// Per-thread buffers for the inputs widened to `f32` and `f64`, reused
    /// from call to call: allocating them afresh (zeroed pages from the
    /// operating system) cost more than the GEMM itself at
    /// `128×4096 @ 4096×128`.
    static SCRATCH_F32: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    static SCRATCH_F64: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Widens `src` into `dst` (resized to fit), exactly. Every element is
/// overwritten, so a buffer that already has the right length is not
/// cleared first (zeroing it cost 8% of a `128×4096 @ 4096×128` trial).
fn widen<T: Widen>(src: &[f16], dst: &mut Vec<T>) {
    dst.resize(src.len(), T::default());
    T::convert(src, dst);
}

/// `f32` or `f64`, converted from `f16` slices with `half`'s vectorised
/// conversions.
pub(crate) trait Widen: Copy + Default + From<f32> + 'static {
    fn convert(src: &[f16], dst: &mut [Self]);
    /// The `gemm` kernel for this type (chosen for the processor once).
    fn gemm_fn() -> GemmFn<Self>;
}

impl Widen for f32 {
    fn convert(src: &[f16], dst: &mut [f32]) {
        src.convert_to_f32_slice(dst);
    }
    fn gemm_fn() -> GemmFn<f32> {
        gemm_f32::gemm::f32::get_gemm_fn()
    }
}

impl Widen for f64 {
    fn convert(src: &[f16], dst: &mut [f64]) {
        src.convert_to_f64_slice(dst);
    }
    fn gemm_fn() -> GemmFn<f64> {
        gemm_f64::gemm::f64::get_gemm_fn()
    }
}

/// `C = A · B` for row-major `A` (`m × k`) and `B` (`k × n`) through the
/// `gemm` crate's kernels, called as `gemm::gemm` calls them for row-major
/// operands: transposed, `Cᵀ = Bᵀ · Aᵀ` with column-major strides; `T` is
/// `f32` or `f64`.
pub(crate) fn gemm_row_major<T: Widen>(
    (m, k, n): (usize, usize, usize),
    a: &[T],
    b: &[T],
) -> Vec<T> {
    assert_eq!(a.len(), m * k);
    assert_eq!(b.len(), k * n);
    let mut c = vec![T::default(); m * n];
    // SAFETY: `a`, `b` and `c` hold `m·k`, `k·n` and `m·n` elements (checked
    // above). Seen column-major, `c` is the `n × m` matrix `Cᵀ` (column
    // stride `n`, row stride 1), `b` the `n × k` matrix `Bᵀ` and `a` the
    // `k × m` matrix `Aᵀ`, every element addressed inside its buffer; `c`
    // does not alias the inputs.
    unsafe {
        T::gemm_fn()(
            n,
            m,
            k,
            c.as_mut_ptr(),
            n as isize,
            1,
            false,
            b.as_ptr(),
            n as isize,
            1,
            a.as_ptr(),
            k as isize,
            1,
            T::from(0.0),
            T::from(1.0),
            false,
            false,
            false,
            gemm_common::Parallelism::None,
        );
    }
    c
}

/// The signature of the `gemm` crate's kernels for `T`.
type GemmFn<T> = unsafe fn(
    usize,
    usize,
    usize,
    *mut T,
    isize,
    isize,
    bool,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    T,
    bool,
    bool,
    bool,
    gemm_common::Parallelism,
);

use dual_delta_runtime::TrialRng;
use dual_delta_runtime::generate::{MatrixPair, Shape, Values, matrix_pair};

use crate::error::GpuError;

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
/// use dual_delta_gpu::matmul::matmul_input;
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
