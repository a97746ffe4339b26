//! Where the loss is, found in the input itself: the inputs of a run that
//! fails the claim, cut once by the feature that best separates the loss.
//!
//! Every input checked has features: its own coordinates
//! (`coordinates`: a number's value and magnitude, each component of a
//! tuple, a vector's length, extremes, norm and counts, its value at the
//! worst output element, or the coordinates a type names for itself), the
//! features the test adds ([`crate::DualDelta::feature`]), the oracle's
//! value and magnitude and the position at the candidate's worst output
//! element, and the kind its generator labelled it with. The search
//! (`search`) finds the one threshold, or label, of one feature whose
//! worse side ranks highest in loss, and a permutation test of the largest
//! statistic over every feature and cut says whether noise would do as well.
//!
//! The cut **carries the loss** only where it is shown to: its permutation
//! p-value is below α, the ratio of mean errors on its worse side is beyond
//! the margin with confidence (the mean's test at the claim's level,
//! [`crate::stats::MeanRatio`]), and beyond the ratio on the rest. A loss
//! the same on every input has no such side: it is spread. The breakdown
//! reads the outcome's errors and the inputs drawn again from their seeds;
//! it decides nothing, and only a run that fails the claim has one.

pub(crate) mod coordinates;
mod search;
mod threshold;

pub use self::coordinates::{Coordinate, Coordinates, Sink};
pub(crate) use self::search::Values;
pub use self::threshold::Side;

use crate::stats::MeanRatio;

/// The cut that best separates the loss.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cut {
    /// The feature it cuts.
    pub feature: String,
    /// Its worse side.
    #[serde(flatten)]
    pub side: Side,
    /// The inputs on the worse side.
    pub inputs: usize,
    /// Their share of every input checked.
    #[serde(with = "crate::json_number")]
    pub share: f64,
    /// `mean Δ1 / mean Δ2` on the worse side (each measured tie standing
    /// for the ties the oracle skipped).
    #[serde(with = "crate::json_number")]
    pub ratio: f64,
    /// The one-sided lower bound on it, at the claim's level.
    #[serde(with = "crate::json_number")]
    pub lower: f64,
    /// `mean Δ1 / mean Δ2` on the other side.
    #[serde(with = "crate::json_number")]
    pub ratio_elsewhere: f64,
    /// The cut's standardized rank statistic.
    #[serde(with = "crate::json_number")]
    pub z: f64,
}

/// The breakdown of a run's loss by the features of its inputs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Localization {
    /// Every feature read, in order.
    pub features: Vec<String>,
    /// The best cut, where a feature has one.
    pub cut: Option<Cut>,
    /// The permutation p-value of the search over every feature and cut.
    pub p_value: Option<f64>,
    /// The cuts the search tried.
    pub cuts: usize,
    /// The permutations its test drew.
    pub permutations: usize,
    /// The level the cut is held to: the run's α.
    #[serde(with = "crate::json_number")]
    pub level: f64,
    /// Every input checked.
    pub inputs: usize,
    /// Whether the cut carries the loss (see the module docs).
    pub carries: bool,
    /// The time the breakdown took, in seconds: the inputs drawn again,
    /// their features read and the search.
    #[serde(with = "crate::json_number")]
    pub seconds: f64,
    /// Each input measured: its value of the cut's feature and its
    /// `Δ1 / Δ2`, for the plot.
    #[serde(skip)]
    pub points: Vec<(f64, f64)>,
}

/// One input checked, as the breakdown reads it.
#[derive(Clone, Debug)]
pub(crate) struct Point {
    /// Its errors, where the oracle ran on it.
    pub(crate) errors: Option<(f64, f64)>,
    /// Whether its outputs were identical.
    pub(crate) tie: bool,
    /// The inputs its errors stand for in a mean: 1, for a measured tie
    /// the ties it represents.
    pub(crate) weight: f64,
}

/// The breakdown of the loss over `points` by `features` (one value per
/// point each), held to `alpha`, with the claim's `level` and `margin`;
/// the permutations drawn from `seed`.
pub(crate) fn localize(
    points: &[Point],
    features: Vec<(String, Values)>,
    (alpha, level, margin): (f64, f64, f64),
    seed: u64,
) -> Localization {
    let loss: Vec<f64> = points
        .iter()
        .map(|p| match p.errors {
            _ if p.tie => 0.0,
            Some((a, b)) => log_ratio(a, b),
            None => 0.0,
        })
        .collect();
    let (names, values): (Vec<String>, Vec<Values>) = features.into_iter().unzip();
    let found = search::search(&values, &loss, seed);
    let mut l = Localization {
        features: names.clone(),
        cut: None,
        p_value: found.as_ref().map(|f| f.p_value),
        cuts: found.as_ref().map_or(0, |f| f.cuts),
        permutations: found.as_ref().map_or(0, |f| f.permutations),
        level: alpha,
        inputs: points.len(),
        carries: false,
        seconds: 0.0,
        points: Vec::new(),
    };
    let Some(found) = found else {
        return l;
    };
    let split = &found.split;
    let side = |inside: bool| ratio_of(points, &split.inside, inside, level);
    let (ratio, lower) = side(true);
    let (ratio_elsewhere, _) = side(false);
    let inputs = split.inside.iter().filter(|&&i| i).count();
    l.carries = found.p_value < alpha && lower > 1.0 + margin && ratio > ratio_elsewhere;
    if let Values::Numbers(v) = &values[split.feature] {
        l.points = points
            .iter()
            .zip(v)
            .filter_map(|(p, &x)| {
                let (a, b) = p.errors?;
                (a.is_finite() && b.is_finite() && !x.is_nan())
                    .then(|| (x, if p.tie { 1.0 } else { a / b }))
            })
            .collect();
    }
    l.cut = Some(Cut {
        feature: names[split.feature].clone(),
        side: split.side.clone(),
        inputs,
        share: inputs as f64 / points.len().max(1) as f64,
        ratio,
        lower,
        ratio_elsewhere,
        z: split.z,
    });
    l
}

/// `ln(Δ1 / Δ2)`, ordered for ranks: `+∞` where only the candidate's
/// error is infinite or the baseline's is 0, `−∞` where only the
/// baseline's is infinite, 0 where the two are equal.
fn log_ratio(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if !b.is_finite() || a == 0.0 {
        f64::NEG_INFINITY
    } else if !a.is_finite() || b == 0.0 {
        f64::INFINITY
    } else {
        (a / b).ln()
    }
}

/// `mean Δ1 / mean Δ2` over the measured points on one side of a cut, and
/// its one-sided lower bound at `level`.
fn ratio_of(points: &[Point], inside: &[bool], side: bool, level: f64) -> (f64, f64) {
    let (mut x, mut y, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for (p, &i) in points.iter().zip(inside) {
        if let (true, Some((a, b))) = (i == side, p.errors)
            && a.is_finite()
            && b.is_finite()
            && p.weight > 0.0
        {
            x.push(a);
            y.push(b);
            w.push(p.weight);
        }
    }
    match MeanRatio::weighted(&x, &y, &w) {
        Ok(m) => (m.ratio(), m.lower(level)),
        Err(_) => (f64::NAN, 0.0),
    }
}

#[cfg(test)]
mod tests;
