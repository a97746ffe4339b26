//! Error metrics ε(y, y′): how far an implementation's output `y` is from the
//! oracle's `y′` (paper §3.2.3).

use core::fmt;
use std::sync::Arc;

use crate::output::NumberFormat;

/// A user metric: `(output, oracle) -> error`, both widened to `f64`, of equal
/// length, the oracle finite.
pub type MetricFn = dyn Fn(&[f64], &[f64]) -> f64 + Send + Sync;

/// An error metric.
///
/// All built-in metrics return `+inf` when the output holds a `NaN` or an
/// infinity (the oracle is always finite: the harness checks it first), so a
/// non-finite output is the worst possible error, never a silently small one.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Metric {
    /// Maximum hybrid error `max_i |y_i - y′_i| / (1 + |y′_i|)`: the largest
    /// `allclose` tolerance the output needs (paper §3.2.3). The default.
    #[default]
    MaxHybrid,
    /// Mean hybrid error `mean_i |y_i - y′_i| / (1 + |y′_i|)`.
    MeanHybrid,
    /// Norm-wise relative error `‖y - y′‖₂ / ‖y′‖₂` (`+inf` when `y′ = 0` and
    /// `y ≠ y′`, `0` when both are zero).
    NormRelative,
    /// Maximum absolute error `max_i |y_i - y′_i|`.
    MaxAbsolute,
    /// Maximum relative error `max_i |y_i - y′_i| / |y′_i|` (`+inf` where
    /// `y′_i = 0` and `y_i ≠ 0`).
    MaxRelative,
    /// Maximum distance in units in the last place of the *candidate's*
    /// format: `max_i |y_i - y′_i| / ulp(y′_i)`. Both error samples are
    /// measured in the candidate's format so that they compare.
    MaxUlp,
    /// A user metric.
    Custom {
        /// The name shown in reports.
        name: String,
        /// The metric.
        f: Arc<MetricFn>,
    },
}

impl Metric {
    /// A user metric with a name for reports.
    pub fn custom(
        name: impl Into<String>,
        f: impl Fn(&[f64], &[f64]) -> f64 + Send + Sync + 'static,
    ) -> Self {
        Metric::Custom {
            name: name.into(),
            f: Arc::new(f),
        }
    }

    /// Every built-in metric, in the order documented.
    pub const BUILT_IN: [Metric; 6] = [
        Metric::MaxHybrid,
        Metric::MeanHybrid,
        Metric::NormRelative,
        Metric::MaxAbsolute,
        Metric::MaxRelative,
        Metric::MaxUlp,
    ];

    /// The metric's name: `max_hybrid`, `mean_hybrid`, `norm_relative`,
    /// `max_absolute`, `max_relative`, `max_ulp`, or the custom name.
    pub fn name(&self) -> &str {
        match self {
            Metric::MaxHybrid => "max_hybrid",
            Metric::MeanHybrid => "mean_hybrid",
            Metric::NormRelative => "norm_relative",
            Metric::MaxAbsolute => "max_absolute",
            Metric::MaxRelative => "max_relative",
            Metric::MaxUlp => "max_ulp",
            Metric::Custom { name, .. } => name,
        }
    }

    /// What the metric computes, with `f` the output, `fΩ` the oracle and
    /// `i` an element: the unit of every error a report shows.
    ///
    /// ```
    /// use dual_delta_runtime::Metric;
    /// assert_eq!(
    ///     Metric::MaxHybrid.formula(),
    ///     "max_hybrid = max_i |f_i − fΩ_i| / (1 + |fΩ_i|), the largest element's"
    /// );
    /// ```
    pub fn formula(&self) -> String {
        let body = match self {
            Metric::MaxHybrid => "max_i |f_i − fΩ_i| / (1 + |fΩ_i|), the largest element's",
            Metric::MeanHybrid => "mean_i |f_i − fΩ_i| / (1 + |fΩ_i|), over the elements",
            Metric::NormRelative => "‖f − fΩ‖₂ / ‖fΩ‖₂",
            Metric::MaxAbsolute => "max_i |f_i − fΩ_i|",
            Metric::MaxRelative => "max_i |f_i − fΩ_i| / |fΩ_i|",
            Metric::MaxUlp => {
                "max_i |f_i − fΩ_i| / ulp(fΩ_i), in units in the last place of the candidate's \
                 format"
            }
            Metric::Custom { .. } => "the test's own function of the output and the oracle",
        };
        format!("{} = {body}", self.name())
    }

    /// The built-in metric with this name.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::BUILT_IN.into_iter().find(|m| m.name() == name)
    }

    /// The error of `output` against `oracle`, both of the same length.
    /// `format` is the candidate's format (used by [`Metric::MaxUlp`]).
    pub fn error(&self, output: &[f64], oracle: &[f64], format: NumberFormat) -> f64 {
        debug_assert_eq!(output.len(), oracle.len());
        if let Metric::Custom { f, .. } = self {
            return f(output, oracle);
        }
        if output.iter().any(|v| !v.is_finite()) {
            return f64::INFINITY;
        }
        let pairs = output.iter().zip(oracle);
        match self {
            Metric::MaxHybrid => pairs
                .map(|(&y, &o)| (y - o).abs() / (1.0 + o.abs()))
                .fold(0.0, f64::max),
            Metric::MeanHybrid => {
                if output.is_empty() {
                    0.0
                } else {
                    pairs
                        .map(|(&y, &o)| (y - o).abs() / (1.0 + o.abs()))
                        .sum::<f64>()
                        / output.len() as f64
                }
            }
            Metric::NormRelative => {
                let (mut num, mut den) = (0.0f64, 0.0f64);
                for (&y, &o) in pairs {
                    num += (y - o) * (y - o);
                    den += o * o;
                }
                ratio(num.sqrt(), den.sqrt())
            }
            Metric::MaxAbsolute => pairs.map(|(&y, &o)| (y - o).abs()).fold(0.0, f64::max),
            Metric::MaxRelative => pairs
                .map(|(&y, &o)| ratio((y - o).abs(), o.abs()))
                .fold(0.0, f64::max),
            Metric::MaxUlp => pairs
                .map(|(&y, &o)| (y - o).abs() / format.ulp(o))
                .fold(0.0, f64::max),
            Metric::Custom { .. } => unreachable!("handled above"),
        }
    }
}

/// `num / den` with `0/0 = 0` and `x/0 = +inf`.
fn ratio(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else if den == 0.0 {
        f64::INFINITY
    } else {
        num / den
    }
}

impl fmt::Debug for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Metric({})", self.name())
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A metric is written by its name.
impl serde::Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A metric read back by its name (from a report): a built-in one, or a
/// [`Metric::Custom`] of that name whose function is not stored, so it
/// returns NaN; a report read back names its metric, it does not measure.
impl<'de> serde::Deserialize<'de> for Metric {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(Metric::from_name(&name).unwrap_or_else(|| Metric::custom(name, |_, _| f64::NAN)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: NumberFormat = NumberFormat::F16;

    #[test]
    fn max_hybrid_is_the_allclose_tolerance() {
        // Per element: 0, 0.5 / (1 + 10), 0.01 / (1 + 0.01); the largest is the second.
        let e = Metric::MaxHybrid.error(&[1.0, 10.5, 0.0], &[1.0, 10.0, 0.01], F);
        assert_eq!(e, 0.5 / 11.0);
        // `e <= tol` is exactly numpy's `allclose(y, y', rtol=tol, atol=tol)`.
        let tol = e;
        assert!((10.5f64 - 10.0).abs() <= tol + tol * 10.0);
    }

    #[test]
    fn each_builtin_on_a_known_pair() {
        let y = [1.0, 3.0];
        let o = [2.0, 3.0];
        assert_eq!(Metric::MeanHybrid.error(&y, &o, F), (1.0 / 3.0) / 2.0);
        assert_eq!(Metric::NormRelative.error(&y, &o, F), 1.0 / 13f64.sqrt());
        assert_eq!(Metric::MaxAbsolute.error(&y, &o, F), 1.0);
        assert_eq!(Metric::MaxRelative.error(&y, &o, F), 0.5);
        // 1.0 away from 2.0, where an f16 ulp is 2^-9.
        assert_eq!(Metric::MaxUlp.error(&y, &o, F), 512.0);
    }

    #[test]
    fn max_ulp_counts_in_the_candidates_format() {
        let ulps = |f: NumberFormat, y: f64, o: f64| Metric::MaxUlp.error(&[y], &[o], f);
        // 1.0 away from 2.0, where the ulp is 2^-6 in bf16, 2^-2 in e4m3, 2^-1 in e5m2.
        assert_eq!(ulps(NumberFormat::Bf16, 3.0, 2.0), 64.0);
        assert_eq!(ulps(NumberFormat::E4m3, 3.0, 2.0), 4.0);
        assert_eq!(ulps(NumberFormat::E5m2, 3.0, 2.0), 2.0);
        // The largest finite values against an oracle beyond them.
        assert_eq!(ulps(NumberFormat::E4m3, 448.0, 512.0), 1.0);
        assert_eq!(ulps(NumberFormat::E5m2, 57344.0, 65536.0), 0.5);
        // Subnormals: in units of the smallest subnormal.
        assert_eq!(ulps(NumberFormat::E4m3, 0.0, 3.0 * 2f64.powi(-9)), 3.0);
        assert_eq!(ulps(NumberFormat::E5m2, 2f64.powi(-14), 0.0), 4.0);
        // A NaN (an e4m3 overflow) or an infinity (e5m2's) is the worst.
        assert_eq!(ulps(NumberFormat::E4m3, f64::NAN, 1.0), f64::INFINITY);
        assert_eq!(ulps(NumberFormat::E5m2, f64::INFINITY, 1.0), f64::INFINITY);
    }

    #[test]
    fn zero_denominators() {
        assert_eq!(Metric::MaxRelative.error(&[0.0], &[0.0], F), 0.0);
        assert_eq!(Metric::MaxRelative.error(&[1.0], &[0.0], F), f64::INFINITY);
        assert_eq!(Metric::NormRelative.error(&[0.0], &[0.0], F), 0.0);
        assert_eq!(
            Metric::NormRelative.error(&[1e-3], &[0.0], F),
            f64::INFINITY
        );
        assert_eq!(Metric::MaxHybrid.error(&[], &[], F), 0.0);
    }

    #[test]
    fn non_finite_output_is_the_worst_error() {
        for m in Metric::BUILT_IN {
            assert_eq!(m.error(&[f64::NAN], &[1.0], F), f64::INFINITY, "{m}");
            assert_eq!(
                m.error(&[f64::NEG_INFINITY], &[1.0], F),
                f64::INFINITY,
                "{m}"
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for m in Metric::BUILT_IN {
            assert_eq!(Metric::from_name(m.name()).unwrap().name(), m.name());
        }
        assert!(Metric::from_name("nope").is_none());
        let c = Metric::custom("l1", |y, o| {
            y.iter().zip(o).map(|(a, b)| (a - b).abs()).sum()
        });
        assert_eq!(c.error(&[1.0, 2.0], &[0.0, 0.0], F), 3.0);
        assert_eq!(c.name(), "l1");
    }
}
