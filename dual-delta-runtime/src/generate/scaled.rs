//! Per-tensor scaling, as FP8 GEMMs take their inputs: values stored in a
//! narrow format with one `f32` scale for the whole tensor, the value of
//! element `i` being `data[i] · scale`.

use core::fmt;

use super::matrix::debug_values;
use super::{Float, Matrix, MatrixPair, Shape, Values, matrix_pair, saturate};
use crate::output::Element;
use crate::rng::TrialRng;

/// Values in format `E` with one scale: element `i` stands for
/// `data[i] · scale`, which [`Scaled::dequantize`] computes exactly in
/// `f64` (an FP8 significand times an `f32` one fits in 53 bits).
///
/// Invariant: `scale` is finite and positive.
#[derive(Clone, PartialEq)]
pub struct Scaled<E> {
    data: Vec<E>,
    scale: f32,
}

/// `values` quantized to `E` with one scale, as an FP8 GEMM's inputs are:
/// `scale = amax / max` with `amax` the largest magnitude of `values` and
/// `max` the largest finite value of `E`, and `data[i] = values[i] / scale`
/// (divided in `f64`, rounded once to `E`, ties to even, saturating).
///
/// The scale is rounded to `f32` and kept within
/// `[f32::MIN_POSITIVE, f32::MAX]`; it is 1 when every value is zero.
/// Unless clamped, the largest magnitude becomes exactly `max` (and
/// dequantizes to itself within the rounding of the scale to `f32`).
///
/// ```
/// use dual_delta_runtime::generate::scaled;
/// use dual_delta_runtime::E4m3;
///
/// let x = scaled::<E4m3>(&[0.5f32, -2.0, 0.1]);
/// assert_eq!(x.scale(), 2.0 / 448.0);
/// assert_eq!(x.data()[1], E4m3::MIN); // -448
/// let back = x.dequantize();
/// // -448 · scale: -2 but for the rounding of the scale to f32.
/// assert!((back[1] + 2.0).abs() <= 2.0 * f64::from(f32::EPSILON));
/// assert!((back[2] - 0.1).abs() <= 0.1 / 16.0); // within half an e4m3 ulp
/// ```
///
/// # Panics
///
/// Panics when a value is not finite.
#[track_caller]
pub fn scaled<E: Float>(values: &[impl Element]) -> Scaled<E> {
    let wide: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
    quantize(&wide)
}

#[track_caller]
fn quantize<E: Float>(values: &[f64]) -> Scaled<E> {
    let mut amax = 0.0f64;
    for &v in values {
        assert!(v.is_finite(), "cannot scale a tensor holding {v}");
        amax = amax.max(v.abs());
    }
    let scale = if amax == 0.0 {
        1.0
    } else {
        ((amax / E::FORMAT.max_finite()) as f32).clamp(f32::MIN_POSITIVE, f32::MAX)
    };
    let divisor = f64::from(scale);
    let data = values.iter().map(|&v| saturate::<E>(v / divisor)).collect();
    Scaled { data, scale }
}

impl<E: Element> Scaled<E> {
    /// Values with their scale.
    ///
    /// # Panics
    ///
    /// Panics unless `scale` is finite and positive.
    #[track_caller]
    pub fn new(data: Vec<E>, scale: f32) -> Self {
        assert!(
            scale.is_finite() && scale > 0.0,
            "a scale must be finite and positive, got {scale}"
        );
        Scaled { data, scale }
    }

    /// The stored values.
    pub fn data(&self) -> &[E] {
        &self.data
    }

    /// The scale.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The values they stand for, `data[i] · scale`, exact for the FP8
    /// formats, `f16` and `bf16` (a product of at most 24 + 11 significant
    /// bits), short of underflow.
    pub fn dequantize(&self) -> Vec<f64> {
        let scale = f64::from(self.scale);
        self.data.iter().map(|v| v.to_f64() * scale).collect()
    }

    /// `(data, scale)`.
    pub fn into_parts(self) -> (Vec<E>, f32) {
        (self.data, self.scale)
    }
}

impl<E: Element> fmt::Debug for Scaled<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scaled<{}>(scale {:e}) ", E::FORMAT, self.scale)?;
        debug_values(f, &self.data)
    }
}

/// The factors of a scaled matrix product `(A · scale_a) · (B · scale_b)`,
/// as an FP8 GEMM takes them: `A` (`m × k`) and `B` (`k × n`) in format
/// `E`, each with its own per-tensor scale.
///
/// Invariant: both scales are finite and positive.
#[derive(Clone, PartialEq)]
pub struct ScaledPair<E> {
    pair: MatrixPair<E>,
    scale_a: f32,
    scale_b: f32,
}

impl<E: Float> ScaledPair<E> {
    /// Both factors of `pair` quantized to `E`, each with its own scale (as
    /// [`scaled`] does).
    ///
    /// # Panics
    ///
    /// Panics when a value is not finite.
    #[track_caller]
    pub fn quantize<W: Element>(pair: &MatrixPair<W>) -> Self {
        let (m, k, n) = pair.shape();
        let a = scaled::<E>(pair.a().data());
        let b = scaled::<E>(pair.b().data());
        ScaledPair {
            pair: MatrixPair::new(Matrix::new(m, k, a.data), Matrix::new(k, n, b.data)),
            scale_a: a.scale,
            scale_b: b.scale,
        }
    }
}

impl<E: Element> ScaledPair<E> {
    /// Factors with their scales.
    ///
    /// # Panics
    ///
    /// Panics unless both scales are finite and positive.
    #[track_caller]
    pub fn new(pair: MatrixPair<E>, scale_a: f32, scale_b: f32) -> Self {
        for s in [scale_a, scale_b] {
            assert!(
                s.is_finite() && s > 0.0,
                "a scale must be finite and positive, got {s}"
            );
        }
        ScaledPair {
            pair,
            scale_a,
            scale_b,
        }
    }

    /// The stored factors.
    pub fn pair(&self) -> &MatrixPair<E> {
        &self.pair
    }

    /// `A`, `m × k`, as stored.
    pub fn a(&self) -> &Matrix<E> {
        self.pair.a()
    }

    /// `B`, `k × n`, as stored.
    pub fn b(&self) -> &Matrix<E> {
        self.pair.b()
    }

    /// `A`'s scale.
    pub fn scale_a(&self) -> f32 {
        self.scale_a
    }

    /// `B`'s scale.
    pub fn scale_b(&self) -> f32 {
        self.scale_b
    }

    /// `(m, k, n)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        self.pair.shape()
    }

    /// The factors they stand for, `A · scale_a` and `B · scale_b`, exact
    /// as in [`Scaled::dequantize`]: what an oracle multiplies.
    pub fn dequantize(&self) -> MatrixPair<f64> {
        let (m, k, n) = self.shape();
        let widen = |x: &Matrix<E>, scale: f32| {
            let s = f64::from(scale);
            x.data().iter().map(|v| v.to_f64() * s).collect()
        };
        MatrixPair::new(
            Matrix::new(m, k, widen(self.a(), self.scale_a)),
            Matrix::new(k, n, widen(self.b(), self.scale_b)),
        )
    }

    /// `(pair, scale_a, scale_b)`.
    pub fn into_parts(self) -> (MatrixPair<E>, f32, f32) {
        (self.pair, self.scale_a, self.scale_b)
    }
}

impl<E: Element> fmt::Debug for ScaledPair<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScaledPair")
            .field("scale_a", &self.scale_a)
            .field("scale_b", &self.scale_b)
            .field("pair", &self.pair)
            .finish()
    }
}

/// Inputs of a scaled FP8 matrix product: the factors drawn from `values`
/// in a wider format `W` as [`matrix_pair`] draws them (shapes, kinds and
/// coordinated edge cases included), then each quantized to `E` with its
/// own per-tensor scale ([`ScaledPair::quantize`]).
///
/// ```
/// use dual_delta_runtime::generate::{ScaledPair, normal, scaled_matrix_pair};
/// use dual_delta_runtime::{E4m3, TrialRng, oracle};
///
/// let input = scaled_matrix_pair::<E4m3, _, _>(16, 64, 8, normal::<f32>(3.0));
/// let mut rng = TrialRng::for_trial(0, 0);
/// let x: ScaledPair<E4m3> = input(&mut rng);
/// assert_eq!(rng.input_kind(), "normal");
/// // The oracle multiplies the values the FP8 data and scales stand for.
/// let (m, k, n) = x.shape();
/// let exact = x.dequantize();
/// let c = oracle::matmul(exact.a().data(), exact.b().data(), m, k, n);
/// assert_eq!(c.len(), 16 * 8);
/// ```
pub fn scaled_matrix_pair<E, W, V>(
    m: impl Into<Shape>,
    k: impl Into<Shape>,
    n: impl Into<Shape>,
    values: V,
) -> impl Fn(&mut TrialRng) -> ScaledPair<E> + Send + Sync + Clone
where
    E: Float,
    W: Element,
    V: Values<W> + Clone,
{
    let pairs = matrix_pair(m, k, n, values);
    move |rng: &mut TrialRng| ScaledPair::quantize(&pairs(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp8::{E4m3, E5m2};

    #[test]
    fn the_largest_magnitude_becomes_the_largest_value() {
        let x = scaled::<E4m3>(&[1e-3f64, -7.0, 3.5]);
        assert_eq!(x.data()[1], E4m3::MIN);
        assert_eq!(f64::from(x.scale()), 7.0f64 / 448.0);
        let y = scaled::<E5m2>(&[1e6f64, 0.0]);
        assert_eq!(y.data()[0], E5m2::MAX);
        assert_eq!(y.dequantize()[1], 0.0);
    }

    #[test]
    fn degenerate_scales_stay_finite_and_positive() {
        assert_eq!(scaled::<E4m3>(&[0.0f32, -0.0]).scale(), 1.0);
        assert_eq!(scaled::<E4m3>(&[1e-300f64]).scale(), f32::MIN_POSITIVE);
        let huge = scaled::<E5m2>(&[1e300f64, -1e300]);
        assert_eq!(huge.scale(), f32::MAX);
        assert_eq!(huge.data(), &[E5m2::MAX, E5m2::MIN]);
        assert!(scaled::<E4m3>(&[] as &[f32]).is_empty());
    }

    #[test]
    #[should_panic(expected = "cannot scale")]
    fn non_finite_values_are_refused() {
        let _ = scaled::<E4m3>(&[1.0f64, f64::NAN]);
    }

    #[test]
    #[should_panic(expected = "finite and positive")]
    fn zero_scales_are_refused() {
        let _ = Scaled::new(vec![E4m3::ONE], 0.0);
    }
}
