//! Where the loss is: the inputs of a run that is significantly less
//! accurate, broken down by what is known of them without the user's help,
//! and the regions that carry the loss named.
//!
//! Three groupings of the inputs measured (the full trials):
//!
//! * **the oracle's magnitude**, in deciles: `|fΩ(x)|` at the element where
//!   the candidate's error is largest; and, where the oracle takes both
//!   signs there, **the oracle's value** in deciles too (a loss at `x < 1`
//!   of a logarithm is a loss where the oracle is negative);
//! * **the position of the worst element** (vector outputs), in eight equal
//!   ranges of positions;
//! * **the input's kind**, where the generator labels its inputs (edge
//!   cases, `#[case]` and `#[matrix]` parameters, a user's own labels).
//!
//! In each region the ratio of mean errors is computed over its inputs, and
//! a one-sided paired sign-flip test of `mean(Δ1 − Δ2)` asks whether the
//! candidate is less accurate there. A region **carries the loss** where
//! that test rejects at α divided by the number of regions tested
//! (Bonferroni over all groupings) and its ratio exceeds `1 + δ`. The
//! sentence names the grouping whose carrying regions hold the largest part
//! of the total excess error `Σ (Δ1 − Δ2)`: `worse on 48% of inputs, those
//! with |oracle| < 0.98: ×1760; elsewhere ×1.00`. The breakdown reads the
//! outcome's errors; it decides nothing.

use crate::stats::{Alternative, sign_flip::SignFlips};

/// How the inputs are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grouping {
    /// Deciles of the oracle's magnitude at the candidate's worst element.
    OracleMagnitude,
    /// Deciles of the oracle's value there, where it takes both signs.
    OracleValue,
    /// Eight equal ranges of the position of the candidate's worst element.
    WorstPosition,
    /// The input's kind, as its generator labelled it.
    InputKind,
}

/// One region of the inputs, and the loss in it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Region {
    /// The grouping it belongs to.
    pub grouping: Grouping,
    /// The region in words: `|oracle| in [0.5, 0.98)`, `worst element at
    /// positions 3584–4095 of 4096`, `kind subnormal`.
    pub label: String,
    /// The inputs measured in it.
    pub inputs: usize,
    /// Its share of every input checked: a measured tie stands for the
    /// ties the oracle skipped.
    #[serde(with = "crate::json_number")]
    pub share: f64,
    /// The range of the grouping's value it covers (deciles only).
    pub range: Option<[f64; 2]>,
    /// The candidate's mean error over them.
    #[serde(with = "crate::json_number")]
    pub mean_candidate: f64,
    /// The baseline's.
    #[serde(with = "crate::json_number")]
    pub mean_baseline: f64,
    /// `mean Δ1 / mean Δ2` over them.
    #[serde(with = "crate::json_number")]
    pub ratio: f64,
    /// The one-sided sign-flip p-value of "less accurate here".
    pub p_value: Option<f64>,
    /// Whether it carries the loss (see the module docs).
    pub carries: bool,
}

/// The breakdown of a run's loss by region.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Localization {
    /// Every region tested, grouping by grouping.
    pub regions: Vec<Region>,
    /// The level each region's test was held to: α over the regions tested.
    #[serde(with = "crate::json_number")]
    pub level: f64,
    /// The inputs measured (the full trials).
    pub inputs: usize,
    /// The regions that carry the loss in one sentence, where some do.
    pub sentence: Option<String>,
}

/// One measured input, as the breakdown needs it.
#[derive(Clone, Debug)]
pub(crate) struct Point<'a> {
    pub(crate) delta1: f64,
    pub(crate) delta2: f64,
    /// `fΩ(x)` at the candidate's worst element.
    pub(crate) oracle: f64,
    /// The inputs it stands for: 1, or for a measured tie the ties it
    /// represents.
    pub(crate) weight: f64,
    /// The candidate's worst element, and the output's length.
    pub(crate) position: (usize, usize),
    pub(crate) kind: &'a str,
}

/// The breakdown of `points` at level `alpha` and margin `margin`, the
/// sign flips drawn from `seed`. Non-finite errors are left out.
pub(crate) fn localize(points: &[Point<'_>], alpha: f64, margin: f64, seed: u64) -> Localization {
    let points: Vec<&Point<'_>> = points
        .iter()
        .filter(|p| p.delta1.is_finite() && p.delta2.is_finite())
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    groups.extend(deciles(&points, Grouping::OracleMagnitude, |p| {
        p.oracle.abs()
    }));
    if points.iter().any(|p| p.oracle < 0.0) && points.iter().any(|p| p.oracle > 0.0) {
        groups.extend(deciles(&points, Grouping::OracleValue, |p| p.oracle));
    }
    groups.extend(by_position(&points));
    groups.extend(by_kind(&points));
    let tested = groups.len().max(1);
    let level = alpha / tested as f64;
    let total: f64 = points.iter().map(|p| p.weight).sum();
    let regions: Vec<Region> = groups
        .into_iter()
        .map(|(grouping, label, range, members)| {
            let d1: Vec<f64> = members.iter().map(|&i| points[i].delta1).collect();
            let d2: Vec<f64> = members.iter().map(|&i| points[i].delta2).collect();
            let weight: f64 = members.iter().map(|&i| points[i].weight).sum();
            let weighted = |d: fn(&Point<'_>) -> f64| {
                members
                    .iter()
                    .map(|&i| points[i].weight * d(points[i]))
                    .sum::<f64>()
            };
            let (s1, s2) = (weighted(|p| p.delta1), weighted(|p| p.delta2));
            let ratio = ratio_of(s1, s2);
            let p_value = SignFlips::of(&d1, &d2, seed)
                .ok()
                .map(|f| f.p_value(Alternative::Greater));
            Region {
                grouping,
                label,
                inputs: members.len(),
                share: weight / total,
                range,
                mean_candidate: s1 / weight,
                mean_baseline: s2 / weight,
                ratio,
                carries: p_value.is_some_and(|p| p < level) && ratio > 1.0 + margin,
                p_value,
            }
        })
        .collect();
    let sentence = sentence(&regions, &points);
    Localization {
        regions,
        level,
        inputs: points.len(),
        sentence,
    }
}

/// A region before it is measured: its grouping, label, decile range and
/// members (indices into the points).
type Group = (Grouping, String, Option<[f64; 2]>, Vec<usize>);

/// Deciles of `key` (fewer where values repeat).
fn deciles(
    points: &[&Point<'_>],
    grouping: Grouping,
    key: impl Fn(&Point<'_>) -> f64,
) -> Vec<Group> {
    let keys: Vec<f64> = points.iter().map(|p| key(p)).collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
    let name = match grouping {
        Grouping::OracleMagnitude => "|oracle|",
        _ => "oracle",
    };
    if points.len() < 20 {
        return Vec::new();
    }
    let mut out: Vec<Group> = Vec::new();
    let mut start = 0;
    for k in 1..=10 {
        let mut end = k * points.len() / 10;
        // Equal magnitudes stay in one region.
        while end < points.len() && end > start && keys[order[end]] == keys[order[end - 1]] {
            end += 1;
        }
        if end <= start {
            continue;
        }
        let (lo, hi) = (keys[order[start]], keys[order[end - 1]]);
        out.push((
            grouping,
            format!("{name} in [{}, {}]", short(lo), short(hi)),
            Some([lo, hi]),
            order[start..end].to_vec(),
        ));
        start = end;
    }
    if out.len() < 2 { Vec::new() } else { out }
}

/// Eight equal ranges of the worst element's position, for outputs longer
/// than one element.
fn by_position(points: &[&Point<'_>]) -> Vec<Group> {
    let len = points.iter().map(|p| p.position.1).max().unwrap_or(0);
    if len < 2 {
        return Vec::new();
    }
    let bins = len.min(8);
    let mut out: Vec<Group> = (0..bins)
        .map(|b| {
            let (lo, hi) = (b * len / bins, (b + 1) * len / bins - 1);
            let label = if lo == hi {
                format!("worst element at position {lo} of {len}")
            } else {
                format!("worst element at positions {lo}–{hi} of {len}")
            };
            (Grouping::WorstPosition, label, None, Vec::new())
        })
        .collect();
    for (i, p) in points.iter().enumerate() {
        let b = (p.position.0 * bins / len).min(bins - 1);
        out[b].3.push(i);
    }
    out.retain(|g| !g.3.is_empty());
    out
}

/// The generator's labels, where it gave at least two.
fn by_kind(points: &[&Point<'_>]) -> Vec<Group> {
    let mut kinds: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (i, p) in points.iter().enumerate() {
        kinds.entry(p.kind).or_default().push(i);
    }
    if kinds.len() < 2 {
        return Vec::new();
    }
    kinds
        .into_iter()
        .map(|(k, v)| {
            let label = if k.is_empty() {
                "unlabelled inputs".to_owned()
            } else {
                format!("kind {k}")
            };
            (Grouping::InputKind, label, None, v)
        })
        .collect()
}

/// The sentence for the grouping whose carrying regions hold the most of
/// the excess error `Σ (Δ1 − Δ2)`, with the ratio inside them and
/// elsewhere; consecutive deciles are named as one range.
fn sentence(regions: &[Region], points: &[&Point<'_>]) -> Option<String> {
    // Sums over every input, in units of the total weight.
    let sums = |rs: &[&Region]| {
        rs.iter().fold((0.0, 0.0, 0.0), |(a, b, w), r| {
            (
                a + r.share * r.mean_candidate,
                b + r.share * r.mean_baseline,
                w + r.share,
            )
        })
    };
    let total: f64 = points.iter().map(|p| p.weight).sum();
    let whole =
        |d: fn(&Point<'_>) -> f64| points.iter().map(|p| p.weight * d(p)).sum::<f64>() / total;
    let (total1, total2) = (whole(|p| p.delta1), whole(|p| p.delta2));
    let (carrying, (in1, in2, inside)) = [
        Grouping::OracleMagnitude,
        Grouping::OracleValue,
        Grouping::WorstPosition,
        Grouping::InputKind,
    ]
    .into_iter()
    .map(|g| {
        let carrying: Vec<&Region> = regions
            .iter()
            .filter(|r| r.grouping == g && r.carries)
            .collect();
        let s = sums(&carrying);
        (carrying, s)
    })
    .filter(|(c, _)| !c.is_empty())
    // The most excess; of equal excess, the fewest inputs.
    .max_by(|(_, a), (_, b)| {
        (a.0 - a.1)
            .total_cmp(&(b.0 - b.1))
            .then(b.2.total_cmp(&a.2))
    })?;
    let elsewhere = if inside > 1.0 - 1e-9 {
        String::new()
    } else {
        format!(
            "; elsewhere ×{}",
            short(ratio_of(total1 - in1, total2 - in2))
        )
    };
    Some(format!(
        "worse on {:.0}% of inputs, those with {}: ×{}{elsewhere}",
        100.0 * inside,
        labels(regions, &carrying).join(", "),
        short(ratio_of(in1, in2)),
    ))
}

/// The labels of `carrying` (regions of one grouping, in order), runs of
/// consecutive deciles merged into one range.
fn labels(regions: &[Region], carrying: &[&Region]) -> Vec<String> {
    let position = |r: &Region| regions.iter().position(|x| std::ptr::eq(x, r)).unwrap_or(0);
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(usize, [f64; 2], &str)> = None;
    let name = |r: &Region| {
        if r.grouping == Grouping::OracleMagnitude {
            "|oracle|"
        } else {
            "oracle"
        }
    };
    for r in carrying {
        match (r.range, run) {
            (Some([_, hi]), Some((last, [first, _], n))) if position(r) == last + 1 => {
                run = Some((position(r), [first, hi], n));
            }
            (Some(range), _) => {
                if let Some((_, [a, b], n)) = run.take() {
                    out.push(format!("{n} in [{}, {}]", short(a), short(b)));
                }
                run = Some((position(r), range, name(r)));
            }
            (None, _) => out.push(r.label.clone()),
        }
    }
    if let Some((_, [a, b], n)) = run {
        out.push(format!("{n} in [{}, {}]", short(a), short(b)));
    }
    out
}

/// `a / b`, 1 where both are 0.
fn ratio_of(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 { 1.0 } else { a / b }
}

/// Three significant digits.
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    if v.abs() >= 1e5 || v.abs() < 1e-3 {
        format!("{v:.2e}")
    } else {
        format!("{v:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_below_one_is_named_with_its_share_and_ratio() {
        // 1000 inputs with magnitudes 0.002 .. 2; the candidate 100× worse
        // where the magnitude is below 1, equal elsewhere.
        let points: Vec<Point<'_>> = (1..=1000)
            .map(|i| {
                let magnitude = f64::from(i) / 500.0;
                let e = 1e-7 * (1.0 + f64::from(i % 7));
                Point {
                    delta1: if magnitude <= 1.0 {
                        100.0 * e
                    } else {
                        e * (1.0 + 1e-3 * f64::from(i % 3))
                    },
                    delta2: e,
                    oracle: magnitude,
                    weight: 1.0,
                    position: (0, 1),
                    kind: "",
                }
            })
            .collect();
        let l = localize(&points, 0.01, 0.05, 1);
        assert_eq!(l.regions.len(), 10);
        assert_eq!(l.level, 0.001);
        let carrying: Vec<&Region> = l.regions.iter().filter(|r| r.carries).collect();
        assert_eq!(carrying.len(), 5, "{:#?}", l.regions);
        assert!(
            carrying
                .iter()
                .all(|r| (r.ratio / 100.0 - 1.0).abs() < 1e-12)
        );
        assert_eq!(
            l.sentence.as_deref(),
            Some(
                "worse on 50% of inputs, those with |oracle| in [0.00200, 1.00]: ×100; elsewhere ×1.00"
            )
        );
    }

    #[test]
    fn positions_and_kinds_are_regions_and_equal_errors_carry_nothing() {
        let points: Vec<Point<'_>> = (0..400)
            .map(|i| Point {
                delta1: if i % 64 >= 56 { 5.0 } else { 1.0 },
                delta2: 1.0,
                oracle: 1.0,
                weight: 1.0,
                position: (i % 64, 64),
                kind: if i % 2 == 0 { "even" } else { "odd" },
            })
            .collect();
        let l = localize(&points, 0.01, 0.05, 1);
        // One magnitude: no deciles; 8 position ranges and 2 kinds.
        assert_eq!(l.regions.len(), 10);
        let s = l.sentence.unwrap();
        // The kinds carry the same excess over every input: the narrower
        // grouping names it.
        assert_eq!(
            s,
            "worse on 12% of inputs, those with worst element at positions 56–63 of 64: ×5.00; elsewhere ×1.00"
        );
        let flat: Vec<Point<'_>> = points
            .iter()
            .map(|p| Point {
                delta1: 1.0,
                ..p.clone()
            })
            .collect();
        let l = localize(&flat, 0.01, 0.05, 1);
        assert!(l.sentence.is_none() && l.regions.iter().all(|r| !r.carries));
    }
}
