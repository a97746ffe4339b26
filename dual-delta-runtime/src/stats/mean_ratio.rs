//! A one-sided test of a ratio of mean errors, and the confidence bounds
//! it gives by inversion.
//!
//! For paired non-negative errors `x` and `y` (the candidate's and the
//! baseline's on the same inputs) and a ratio `r`, the test of
//! `H0: E[x] ≤ r·E[y]` against `H1: E[x] > r·E[y]` reads the differences
//! `D = x − r·y`:
//!
//! * **Studentized, its skewness removed.** The statistic is the
//!   studentized mean `T = √n · mean(D) / s(D)`, passed through Hall's
//!   cubic transformation `T + aT² + a²T³/3 + a/2` with `a = ĝ / (3√n)`
//!   and `ĝ` the sample skewness of `D` (P. Hall, "On the removal of
//!   skewness by transformation", JRSS B 54, 1992), which removes the
//!   `n^{-1/2}` skewness term of its distribution: at a ratio of means
//!   exactly `r`, a loss on the low-error inputs beside ties on the
//!   high-error ones gives `D` a long tail toward the null, and a plain
//!   t-test then rejects several times too often. The p-value is Student's
//!   `t` with `n − 1` degrees of freedom at the transformed statistic: no
//!   Monte Carlo, so it goes as low as the evidence.
//! * **The tail no sample has seen.** A mean of heavy-tailed errors rests
//!   on inputs rarer than `1/n`: a sample of a thousand lognormal(2.5)
//!   errors typically holds about half their mean. Where the inputs with
//!   the largest `y` favour the null (their `D` sums to less than zero),
//!   the test extrapolates that tail beyond the sample and counts what it
//!   is missing: Hill's estimate `γ̂` of the tail index of `y` over its
//!   `k = ⌈√n⌉` largest values, its one-sided upper confidence bound
//!   `γ⁺ = 2kγ̂ / χ²_{2k}(1 − c)` at [`TAIL_CONFIDENCE`] `c` (exact for a
//!   Pareto tail), and Weissman's estimate `k·u / (1 − γ⁺)` of the sum of
//!   the `k` largest values (`u` the `k + 1`-th). The shortfall of the
//!   observed sum, times the tail's `ΣD / Σy`, lowers `mean(D)`. The tail is
//!   extrapolated up to the largest error a sample [`HORIZON`] times as
//!   large would see, so that a tail index `γ⁺ ≥ 1` (no finite mean) weighs
//!   heavily but finitely: a loss large against it still shows. The
//!   extrapolation only ever removes rejections: the other tail, which would
//!   favour `H1`, is never extrapolated.
//!
//! The methods: Hall, P. (1992), "On the removal of skewness by
//! transformation", *Journal of the Royal Statistical Society B* 54(1),
//! 221–228; Hill, B. M. (1975), "A simple general approach to inference
//! about the tail of a distribution", *Annals of Statistics* 3(5),
//! 1163–1174; Weissman, I. (1978), "Estimation of parameters and large
//! quantiles based on the k largest observations", *Journal of the
//! American Statistical Association* 73(364), 812–815; Bahadur, R. R. and
//! Savage, L. J. (1956), "The nonexistence of certain statistical
//! procedures in nonparametric problems", *Annals of Mathematical
//! Statistics* 27(4), 1115–1122.
//!
//! No test bounds a mean under every distribution (Bahadur and Savage,
//! 1956): the level holds asymptotically for errors of finite variance,
//! and is measured by seeded simulation over the shapes the claim's grid
//! names (lognormal σ up to 2.5, gamma, exponential, bimodal, Pareto with a
//! tail index above 2, many ties).
//!
//! Each pair carries a frequency weight (a measured tie standing for the
//! ties the oracle skipped), and the errors are scaled by one power of two
//! before any sum, so that errors near `1e304` or `1e-300` give the
//! statistics they give near `1e-6`.

use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};

use super::{StatsError, check_paired};

const TEST: &str = "ratio of mean errors";

/// The confidence of the upper bound on the tail index that the
/// extrapolated tail uses. Tuned on the claim's grid
/// (`tests/runtime/adversary.rs`, `margin_edges` and `fooling`): a higher
/// confidence inflates the tail index of light tails and costs power on
/// the heavy-tailed must-fail cells (lognormal(2.5) at 2× in mean), a lower
/// one lets the margin's edge with lognormal(2.5) errors fail above α.
pub const TAIL_CONFIDENCE: f64 = 0.75;

/// How far the tail is extrapolated: up to the largest error a sample this
/// many times as large would see. It bounds what a tail index `γ⁺ ≥ 1`
/// (no finite mean) can add, so that a loss large against it still shows;
/// Pareto(1.3) equal accuracy in the grid (`small_losses_pass_…`) keeps
/// its level with it.
pub const HORIZON: f64 = 1000.0;

/// The tail's size: Hill's estimate over the `⌈√n⌉` largest values, the
/// usual order of `k` that balances the estimate's bias (too many values
/// from the body) against its variance (too few).
fn tail_size(total: f64) -> f64 {
    total.sqrt().ceil()
}

/// Paired non-negative errors with frequency weights, scaled, and the
/// tails each side would extrapolate.
///
/// Invariants: `x`, `y` and `w` have one entry per pair, every value
/// finite and non-negative, every weight positive; `total` is the sum of
/// the weights, at least 2.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MeanRatio {
    x: Vec<f64>,
    y: Vec<f64>,
    w: Vec<f64>,
    total: f64,
    /// The tail of `y`: the null's side of `E[x] > r·E[y]`.
    y_tail: Option<Tail>,
    /// The tail of `x`: the null's side of `E[x] < r·E[y]`.
    x_tail: Option<Tail>,
}

/// The largest values of one error, as the extrapolation reads them.
#[derive(Clone, Debug)]
struct Tail {
    /// The pairs in the tail: those with the `k` largest values.
    top: Vec<usize>,
    /// Their weight.
    weight: f64,
    /// The largest value below them.
    threshold: f64,
    /// The upper confidence bound on the tail index.
    index_upper: f64,
}

impl Tail {
    /// The tail of `v` (weights `w`, total `total`), if it has one: the
    /// `⌈√total⌉` largest values above a positive threshold.
    fn of(v: &[f64], w: &[f64], total: f64) -> Option<Tail> {
        let k = tail_size(total);
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_unstable_by(|&a, &b| v[b].total_cmp(&v[a]));
        let mut weight = 0.0;
        let mut cut = 0;
        while cut < order.len() && weight < k {
            weight += w[order[cut]];
            cut += 1;
        }
        let threshold = *v.get(*order.get(cut)?)?;
        if threshold <= 0.0 {
            return None;
        }
        let top = order[..cut].to_vec();
        let hill = top
            .iter()
            .map(|&i| w[i] * (v[i] / threshold).ln())
            .sum::<f64>()
            / weight;
        let quantile = ChiSquared::new(2.0 * weight)
            .ok()?
            .inverse_cdf(1.0 - TAIL_CONFIDENCE);
        Some(Tail {
            top,
            weight,
            threshold,
            index_upper: 2.0 * weight * hill / quantile,
        })
    }
}

impl Tail {
    /// The sum the tail's pairs would have in expectation, the tail
    /// extrapolated as a Pareto tail of index [`Tail::index_upper`] above
    /// the threshold up to the [`HORIZON`]: Weissman's `k·u / (1 − γ)` as
    /// the horizon goes to infinity, finite for every `γ`.
    fn expected_sum(&self) -> f64 {
        let (k, u, g) = (self.weight, self.threshold, self.index_upper);
        let reach = k * HORIZON;
        if g <= 0.0 {
            k * u
        } else if (g - 1.0).abs() < 1e-9 {
            k * u * reach.ln()
        } else {
            let a = 1.0 / g;
            k * u * a / (a - 1.0) * (1.0 - reach.powf(g - 1.0))
        }
    }
}

impl MeanRatio {
    /// The pairs `(x[i], y[i])`, each of weight `w[i]`.
    ///
    /// # Errors
    ///
    /// [`StatsError::LengthMismatch`] for slices of different lengths,
    /// [`StatsError::InvalidValue`] for an error that is negative or not
    /// finite or a weight that is not positive, and
    /// [`StatsError::TooFewObservations`] for a total weight below 2.
    pub fn weighted(x: &[f64], y: &[f64], w: &[f64]) -> Result<MeanRatio, StatsError> {
        check_paired(x, y)?;
        check_paired(x, w)?;
        for v in [x, y] {
            if let Some(index) = v.iter().position(|e| !(e.is_finite() && *e >= 0.0)) {
                return Err(StatsError::InvalidValue {
                    test: TEST,
                    index,
                    value: v[index],
                });
            }
        }
        if let Some(index) = w.iter().position(|e| !(e.is_finite() && *e > 0.0)) {
            return Err(StatsError::InvalidValue {
                test: TEST,
                index,
                value: w[index],
            });
        }
        let total: f64 = w.iter().sum();
        if total < 2.0 {
            return Err(StatsError::TooFewObservations {
                test: TEST,
                needed: 2,
                got: x.len(),
            });
        }
        let scale = PowerOfTwo::of(x.iter().chain(y));
        let x: Vec<f64> = x.iter().map(|&v| scale.down(v)).collect();
        let y: Vec<f64> = y.iter().map(|&v| scale.down(v)).collect();
        Ok(MeanRatio {
            y_tail: Tail::of(&y, w, total),
            x_tail: Tail::of(&x, w, total),
            x,
            y,
            w: w.to_vec(),
            total,
        })
    }

    /// The pairs `(x[i], y[i])`, each of weight 1 (see
    /// [`MeanRatio::weighted`] for the errors).
    pub fn new(x: &[f64], y: &[f64]) -> Result<MeanRatio, StatsError> {
        MeanRatio::weighted(x, y, &vec![1.0; x.len()])
    }

    /// `mean(x) / mean(y)` (1 where both are 0, ∞ where only `y`'s is).
    pub fn ratio(&self) -> f64 {
        let (sx, sy) = (self.sum(&self.x), self.sum(&self.y));
        if sx == 0.0 && sy == 0.0 { 1.0 } else { sx / sy }
    }

    fn sum(&self, v: &[f64]) -> f64 {
        v.iter().zip(&self.w).map(|(a, w)| a * w).sum()
    }

    /// The one-sided p-value of `E[x] > r·E[y]`.
    pub fn p_greater(&self, r: f64) -> f64 {
        p_excess(
            &self.x,
            &self.y,
            &self.w,
            self.total,
            r,
            self.y_tail.as_ref(),
        )
    }

    /// The one-sided p-value of `E[x] < r·E[y]` (`r > 0`).
    pub fn p_less(&self, r: f64) -> f64 {
        p_excess(
            &self.y,
            &self.x,
            &self.w,
            self.total,
            1.0 / r,
            self.x_tail.as_ref(),
        )
    }

    /// The one-sided lower confidence bound on `E[x] / E[y]` at `level`:
    /// the largest `r` at which [`MeanRatio::p_greater`] is below `level`
    /// (0 where none is), so that the bound exceeds `r` exactly where the
    /// test at `r` rejects.
    pub fn lower(&self, level: f64) -> f64 {
        if self.p_greater(0.0) >= level {
            return 0.0;
        }
        let hi = self.ratio();
        if !hi.is_finite() {
            return f64::INFINITY;
        }
        bisect(0.0, hi, |r| self.p_greater(r) < level)
    }

    /// The one-sided upper confidence bound on `E[x] / E[y]` at `level`:
    /// the smallest `r` at which [`MeanRatio::p_less`] is below `level`
    /// (∞ where none is).
    pub fn upper(&self, level: f64) -> f64 {
        let lo = self.ratio();
        if !lo.is_finite() {
            return f64::INFINITY;
        }
        let mut hi = lo.max(f64::MIN_POSITIVE) * 2.0;
        for _ in 0..64 {
            if self.p_less(hi) < level {
                return bisect(lo, hi, |r| self.p_less(r) >= level);
            }
            hi *= 2.0;
        }
        f64::INFINITY
    }
}

/// The largest `r` in `[lo, hi]` with `holds(r)`, where `holds` is true
/// at `lo` and false at `hi` (to 60 halvings).
fn bisect(mut lo: f64, mut hi: f64, holds: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if holds(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The power of two that brings the largest of some values into
/// `[0.5, 1)`: a scale that changes no ratio and no test, applied in two
/// steps so that no factor overflows or underflows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PowerOfTwo(i32);

impl PowerOfTwo {
    /// The scale of `values` (none where all are 0 or one is not finite).
    pub(crate) fn of<'a>(values: impl IntoIterator<Item = &'a f64>) -> PowerOfTwo {
        let max = values.into_iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if max == 0.0 || !max.is_finite() {
            return PowerOfTwo(0);
        }
        PowerOfTwo(max.log2().floor() as i32 + 1)
    }

    /// `v` brought into scale: `v · 2^−e`.
    pub(crate) fn down(self, v: f64) -> f64 {
        let half = -self.0 / 2;
        v * 2f64.powi(half) * 2f64.powi(-self.0 - half)
    }

    /// `v` back at its magnitude: `v · 2^e`.
    pub(crate) fn up(self, v: f64) -> f64 {
        let half = self.0 / 2;
        v * 2f64.powi(half) * 2f64.powi(self.0 - half)
    }
}

/// The one-sided p-value of `E[u] > k·E[v]` over pairs of weights `w`
/// (total `total`), the null's tail (that of `v`) extrapolated.
fn p_excess(u: &[f64], v: &[f64], w: &[f64], total: f64, k: f64, tail: Option<&Tail>) -> f64 {
    let d = |i: usize| u[i] - k * v[i];
    let mean = (0..u.len()).map(|i| w[i] * d(i)).sum::<f64>() / total;
    let (mut m2, mut m3) = (0.0, 0.0);
    for (i, wi) in w.iter().enumerate() {
        let c = d(i) - mean;
        m2 += wi * c * c;
        m3 += wi * c * c * c;
    }
    let var = m2 / (total - 1.0);
    let mut shifted = mean;
    if let Some(t) = tail {
        let dsum: f64 = t.top.iter().map(|&i| w[i] * d(i)).sum();
        if dsum < 0.0 {
            let observed: f64 = t.top.iter().map(|&i| w[i] * v[i]).sum();
            let missing = (t.expected_sum() - observed).max(0.0);
            shifted += dsum / observed * missing / total;
        }
    }
    if var.is_nan() || var <= 0.0 {
        return if shifted > 0.0 { 0.0 } else { 1.0 };
    }
    let sd = var.sqrt();
    let t = shifted / (sd / total.sqrt());
    let skew = m3 / total / (sd * sd * sd);
    let a = skew / (3.0 * total.sqrt());
    let transformed = t + a * t * t + a * a * t * t * t / 3.0 + a / 2.0;
    match StudentsT::new(0.0, 1.0, total - 1.0) {
        Ok(dist) => dist.sf(transformed).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

#[cfg(test)]
mod tests;
