//! Distributions: normal (Ziggurat), uniform, log-uniform over decades and
//! Student-t heavy tails, each rounded to the target format.

use core::marker::PhantomData;

use rand::RngExt;
use rand_distr::StandardNormal;

use super::{Float, Values, check_scale, saturate};
use crate::rng::TrialRng;

/// A distribution of single values, rounded to `E` when drawn.
trait Scalar {
    /// The kind noted for the values.
    const KIND: &'static str;
    /// One sample, before rounding.
    fn sample(&self, rng: &mut TrialRng) -> f64;
}

fn draw_all<E: Float, S: Scalar>(s: &S, rng: &mut TrialRng, len: usize) -> Vec<E> {
    (0..len).map(|_| saturate::<E>(s.sample(rng))).collect()
}

/// Declares a distribution: its struct, generic over the format `E` its
/// values are rounded to, its kind and its sampler (`Scalar`); implements
/// `Values` (noting the kind once, for a pair too), `Clone`, `Copy` and
/// `Debug` for it. `Debug` shows the format and the parameters; a field
/// after `;` is derived from them and left out.
macro_rules! distribution {
    (
        $(#[$attr:meta])*
        pub struct $name:ident { $($field:ident: $ty:ty),* $(; $derived:ident: $derived_ty:ty)? }

        const KIND: &str = $kind:literal;

        fn sample $params:tt -> f64 $sample:block
    ) => {
        $(#[$attr])*
        pub struct $name<E> {
            $($field: $ty,)*
            $($derived: $derived_ty,)?
            format: PhantomData<fn() -> E>,
        }

        impl<E> Scalar for $name<E> {
            const KIND: &'static str = $kind;
            #[inline]
            fn sample $params -> f64 $sample
        }

        impl<E: Float> Values<E> for $name<E> {
            fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
                rng.note_input_kind(<Self as Scalar>::KIND);
                draw_all(self, rng, rows * cols)
            }

            fn draw_pair(
                &self,
                rng: &mut TrialRng,
                m: usize,
                k: usize,
                n: usize,
            ) -> (Vec<E>, Vec<E>) {
                rng.note_input_kind(<Self as Scalar>::KIND);
                let a = draw_all(self, rng, m * k);
                let b = draw_all(self, rng, k * n);
                (a, b)
            }
        }

        clone_copy_debug!($name { $($field),* });
    };
}

distribution! {
    /// Normal values `mean + scale · z`, `z` standard normal drawn with
    /// `rand_distr`'s Ziggurat sampler ([`StandardNormal`]) in `f64`, rounded
    /// once to `E`. Kind `normal`. Made by [`normal`].
    pub struct Normal { mean: f64, scale: f64 }

    const KIND: &str = "normal";

    fn sample(&self, rng: &mut TrialRng) -> f64 {
        let z: f64 = rng.sample(StandardNormal);
        self.mean + self.scale * z
    }
}

/// Normal values with standard deviation `scale` (mean 0; see
/// [`Normal::mean`]), rounded to `E`, like `torch.randn(...).half()`
/// for `normal::<f16>(1.0)`.
///
/// ```
/// use dual_delta_runtime::generate::{normal, vector};
/// use dual_delta_runtime::TrialRng;
/// use half::bf16;
///
/// let x: Vec<bf16> = vector(1000, normal::<bf16>(2.0))(&mut TrialRng::for_trial(0, 0));
/// assert_eq!(x.len(), 1000);
/// ```
///
/// # Panics
///
/// Panics when `scale` is negative or not finite.
#[track_caller]
pub fn normal<E: Float>(scale: f64) -> Normal<E> {
    check_scale(scale);
    Normal {
        mean: 0.0,
        scale,
        format: PhantomData,
    }
}

impl<E> Normal<E> {
    /// The same distribution centred on `mean`.
    ///
    /// # Panics
    ///
    /// Panics when `mean` is not finite.
    #[track_caller]
    pub fn mean(mut self, mean: f64) -> Self {
        assert!(mean.is_finite(), "a mean must be finite, got {mean}");
        self.mean = mean;
        self
    }
}

distribution! {
    /// Uniform values over `[low, high)`, rounded to `E` (so `high` itself can
    /// occur after rounding). Kind `uniform`. Made by [`uniform`].
    pub struct Uniform { low: f64, high: f64 }

    const KIND: &str = "uniform";

    fn sample(&self, rng: &mut TrialRng) -> f64 {
        let u: f64 = rng.random();
        self.low + (self.high - self.low) * u
    }
}

/// Uniform values over `[low, high)`, rounded to `E`.
///
/// ```
/// use dual_delta_runtime::generate::{uniform, vector};
/// use dual_delta_runtime::TrialRng;
///
/// let x: Vec<f32> = vector(100, uniform::<f32>(-1.0, 1.0))(&mut TrialRng::for_trial(0, 0));
/// assert!(x.iter().all(|v| (-1.0..=1.0).contains(v)));
/// ```
///
/// # Panics
///
/// Panics unless `low < high`, both finite.
#[track_caller]
pub fn uniform<E: Float>(low: f64, high: f64) -> Uniform<E> {
    assert!(
        low.is_finite() && high.is_finite() && low < high,
        "a uniform distribution needs finite bounds low < high, got {low} and {high}"
    );
    Uniform {
        low,
        high,
        format: PhantomData,
    }
}

distribution! {
    /// Values whose magnitudes are log-uniform between `min` and `max`: every
    /// decade of the range equally likely, each sign with probability ½ (see
    /// [`LogUniform::positive`]). Kind `log_uniform`. Made by [`log_uniform`].
    pub struct LogUniform { min: f64, max: f64, positive: bool }

    const KIND: &str = "log_uniform";

    fn sample(&self, rng: &mut TrialRng) -> f64 {
        let (lo, hi) = (self.min.log2(), self.max.log2());
        let u: f64 = rng.random();
        // Within [min, max] despite the rounding of log2 and exp2.
        let magnitude = (lo + (hi - lo) * u).exp2().clamp(self.min, self.max);
        if self.positive || rng.random::<bool>() {
            magnitude
        } else {
            -magnitude
        }
    }
}

/// Values with magnitudes log-uniform over `[min, max)`, so that each decade
/// (each binade) between them is equally likely, with random signs; rounded
/// to `E` (magnitudes below the format's smallest subnormal round to zero).
///
/// ```
/// use dual_delta_runtime::generate::{log_uniform, vector};
/// use dual_delta_runtime::TrialRng;
///
/// // From 1e-3 to 1e3: six decades.
/// let x: Vec<f32> = vector(100, log_uniform::<f32>(1e-3, 1e3))(&mut TrialRng::for_trial(0, 0));
/// assert!(x.iter().all(|v| (1e-3..=1e3).contains(&v.abs())));
/// ```
///
/// # Panics
///
/// Panics unless `0 < min < max`, both finite.
#[track_caller]
pub fn log_uniform<E: Float>(min: f64, max: f64) -> LogUniform<E> {
    assert!(
        min > 0.0 && max.is_finite() && min < max,
        "a log-uniform distribution needs finite bounds 0 < min < max, got {min} and {max}"
    );
    LogUniform {
        min,
        max,
        positive: false,
        format: PhantomData,
    }
}

impl<E> LogUniform<E> {
    /// Positive values only.
    pub fn positive(mut self) -> Self {
        self.positive = true;
        self
    }
}

distribution! {
    /// Heavy-tailed values `scale · t`, `t` from Student's t distribution with
    /// `dof` degrees of freedom (`rand_distr`'s [`rand_distr::StudentT`]).
    /// Kind `student_t`. Made by [`student_t`].
    pub struct StudentT { dof: f64, scale: f64; dist: rand_distr::StudentT<f64> }

    const KIND: &str = "student_t";

    fn sample(&self, rng: &mut TrialRng) -> f64 {
        let t: f64 = rng.sample(self.dist);
        self.scale * t
    }
}

/// Heavy-tailed values: `scale` times a Student-t variate with `dof`
/// degrees of freedom, rounded to `E`. Small `dof` gives heavy tails (`1` is
/// the Cauchy distribution); magnitudes beyond the format's range saturate
/// at its largest finite value.
///
/// ```
/// use dual_delta_runtime::generate::{student_t, vector};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let x: Vec<f16> = vector(1000, student_t::<f16>(2.0, 1.0))(&mut TrialRng::for_trial(0, 0));
/// assert!(x.iter().all(|v| v.is_finite()));
/// ```
///
/// # Panics
///
/// Panics when `dof` is not positive and finite, or `scale` negative or not
/// finite.
#[track_caller]
pub fn student_t<E: Float>(dof: f64, scale: f64) -> StudentT<E> {
    check_scale(scale);
    assert!(
        dof.is_finite() && dof > 0.0,
        "Student's t needs positive, finite degrees of freedom, got {dof}"
    );
    let dist = rand_distr::StudentT::new(dof)
        .unwrap_or_else(|e| panic!("Student's t with {dof} degrees of freedom: {e}"));
    StudentT {
        dof,
        scale,
        dist,
        format: PhantomData,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn kinds_are_noted_once_per_draw_and_per_pair() {
        let mut rng = TrialRng::for_trial(0, 0);
        let _ = normal::<f16>(1.0).draw(&mut rng, 2, 3);
        assert_eq!(rng.input_kind(), "normal");
        let mut rng = TrialRng::for_trial(0, 0);
        let (a, b) = student_t::<f32>(3.0, 1.0).draw_pair(&mut rng, 2, 3, 4);
        assert_eq!((a.len(), b.len()), (6, 12));
        assert_eq!(rng.input_kind(), "student_t");
    }

    #[test]
    fn debug_names_the_format() {
        let d = format!("{:?}", uniform::<f16>(0.0, 1.0));
        assert!(d.contains("F16") && d.contains("low"), "{d}");
    }

    #[test]
    #[should_panic(expected = "low < high")]
    fn empty_uniform_is_refused() {
        let _ = uniform::<f32>(1.0, 1.0);
    }
}
