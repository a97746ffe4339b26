//! The one cut that best separates a loss, and whether it is more than
//! noise: a permutation test of the maximum over every feature and cut.
//!
//! Each input's loss is the rank of its log-ratio `ln(Δ1 / Δ2)` (a tie's
//! is 0). For a feature of numbers, every threshold between two of its
//! values splits the inputs in two; for a feature of labels, each label
//! against the rest. A split's statistic is the standardized rank sum of
//! the worse side (a Wilcoxon-Mann-Whitney z), so that splits of any size
//! compare; the cut is the split with the largest. Its p-value is the
//! share of random permutations of the losses over the inputs (the
//! features fixed) whose largest statistic, over every feature and cut, is
//! at least as large: exact for the search as a whole, whatever the
//! number of features and cuts, so that no region is made of noise. Under
//! equal accuracy, and under a loss that is the same on every input, the
//! losses are exchangeable over the inputs and a region is named on at
//! most α of runs.

use rand::RngExt;

use super::Side;
use super::threshold::simplicity;
use crate::rng::TrialRng;

/// The fewest inputs on each side of a cut: 5, or 2% of the inputs.
pub(crate) fn min_side(n: usize) -> usize {
    5usize.max(n.div_ceil(50))
}

/// One feature's values over the inputs.
#[derive(Clone, Debug)]
pub(crate) enum Values {
    /// Numbers (`NaN` where an input has none: left out of its cuts).
    Numbers(Vec<f64>),
    /// Labels.
    Labels(Vec<String>),
}

/// The best split of one feature.
#[derive(Clone, Debug)]
pub(crate) struct Split {
    pub(crate) feature: usize,
    pub(crate) side: Side,
    /// Whether each input is on the worse side.
    pub(crate) inside: Vec<bool>,
    pub(crate) z: f64,
}

/// The ranks of `loss` (mid-ranks for equals), 1-based.
fn ranks(loss: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..loss.len()).collect();
    order.sort_by(|&a, &b| loss[a].total_cmp(&loss[b]));
    let mut r = vec![0.0; loss.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && loss[order[j + 1]] == loss[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = mid;
        }
        i = j + 1;
    }
    r
}

/// A feature, prepared for the search: its inputs in order of value (the
/// ones that have one), and where its thresholds lie.
struct Prepared<'a> {
    values: &'a Values,
    /// For numbers: the inputs with a value, in increasing order; for
    /// labels: the inputs of each label.
    order: Vec<usize>,
    /// For numbers: the positions `k` where `order[k - 1] < order[k]` in
    /// value; for labels: each label's inputs.
    groups: Vec<Vec<usize>>,
}

fn prepare(values: &Values) -> Prepared<'_> {
    match values {
        Values::Numbers(v) => {
            let mut order: Vec<usize> = (0..v.len()).filter(|&i| !v[i].is_nan()).collect();
            order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
            Prepared {
                values,
                order,
                groups: Vec::new(),
            }
        }
        Values::Labels(l) => {
            let mut names: Vec<&String> = l.iter().collect();
            names.sort();
            names.dedup();
            let groups = names
                .iter()
                .map(|name| (0..l.len()).filter(|&i| &l[i] == *name).collect())
                .collect();
            Prepared {
                values,
                order: Vec::new(),
                groups,
            }
        }
    }
}

/// The largest statistic of `p` under the ranks `r`: its value and, where
/// `split` is asked for, the split.
fn best(p: &Prepared<'_>, r: &[f64], feature: usize, split: bool) -> Option<Split> {
    let stat = |members: usize, total: usize, sum: f64, mean: f64, var: f64| {
        let (k, m) = (members as f64, total as f64);
        let sd = (k * (m - k) / m * var).sqrt();
        if sd > 0.0 { (sum - k * mean) / sd } else { 0.0 }
    };
    let moments = |idx: &mut dyn Iterator<Item = usize>| {
        let (mut n, mut s, mut s2) = (0usize, 0.0, 0.0);
        for i in idx {
            n += 1;
            s += r[i];
            s2 += r[i] * r[i];
        }
        let mean = s / n.max(1) as f64;
        let var = if n > 1 {
            (s2 - n as f64 * mean * mean) / (n as f64 - 1.0)
        } else {
            0.0
        };
        (n, mean, var)
    };
    match p.values {
        Values::Numbers(v) => {
            let o = &p.order;
            let (n, mean, var) = moments(&mut o.iter().copied());
            let least = min_side(n);
            let mut found: Option<(f64, usize, bool)> = None;
            // Each cut's statistic, for the bound of the reported one.
            let mut zs: Vec<(usize, f64)> = Vec::new();
            let mut sum = 0.0;
            for k in 1..n {
                sum += r[o[k - 1]];
                if v[o[k - 1]] == v[o[k]] || k < least || n - k < least {
                    continue;
                }
                let z = stat(k, n, sum, mean, var);
                if split {
                    zs.push((k, z));
                }
                // Below worse where the low values rank high.
                for (zz, below) in [(z, true), (-z, false)] {
                    if found.is_none_or(|(b, _, _)| zz > b) {
                        found = Some((zz, k, below));
                    }
                }
            }
            let (z, k, below) = found?;
            let side_at = |k: usize| Side::between(v[o[k - 1]], v[o[k]], below);
            let (k, side) = if split {
                simplest_near(&zs, n, (z, k, below), side_at)
            } else {
                (k, side_at(k))
            };
            Some(Split {
                feature,
                side,
                inside: if split {
                    let mut inside = vec![false; r.len()];
                    let worse = if below { &o[..k] } else { &o[k..] };
                    for &i in worse {
                        inside[i] = true;
                    }
                    inside
                } else {
                    Vec::new()
                },
                z,
            })
        }
        Values::Labels(l) => {
            let (n, mean, var) = moments(&mut (0..r.len()));
            let least = min_side(n);
            p.groups
                .iter()
                .filter(|g| g.len() >= least && n - g.len() >= least)
                .map(|g| {
                    (
                        stat(g.len(), n, g.iter().map(|&i| r[i]).sum(), mean, var),
                        g,
                    )
                })
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(z, g)| Split {
                    feature,
                    side: Side::Is {
                        label: l[g[0]].clone(),
                    },
                    inside: if split {
                        let mut inside = vec![false; r.len()];
                        for &i in g {
                            inside[i] = true;
                        }
                        inside
                    } else {
                        Vec::new()
                    },
                    z,
                })
        }
    }
}

/// The inputs a reported cut may move across from the best one, for a
/// simpler bound: 2, or one in 400 of the `n` with a value.
fn nearby(n: usize) -> usize {
    2usize.max(n.div_ceil(400))
}

/// The statistic a reported cut may give up from the best one's, for a
/// simpler bound.
const GIVE_UP: f64 = 0.5;

/// Of the cuts (position `k` in value order of the `n` inputs with a value,
/// statistic `z` of the lower side) within [`nearby`] inputs of the best,
/// `(z, k, below)`, and within [`GIVE_UP`] of its statistic, the one of
/// simplest bound ([`simplicity`]), the nearest to the best among equals:
/// `len(x) > 2048` rather than `len(x) > 2053` where the two inputs
/// between them are all that differ.
fn simplest_near(
    zs: &[(usize, f64)],
    n: usize,
    (z, k, below): (f64, usize, bool),
    side_at: impl Fn(usize) -> Side,
) -> (usize, Side) {
    let sign = if below { 1.0 } else { -1.0 };
    let near = nearby(n);
    zs.iter()
        .filter(|&&(j, zj)| j.abs_diff(k) <= near && sign * zj >= z - GIVE_UP)
        .map(|&(j, _)| (j, side_at(j)))
        .min_by(|a, b| {
            let simple = |s: &Side| s.bound().map_or(f64::INFINITY, simplicity);
            let far = |j: usize| j.abs_diff(k);
            simple(&a.1)
                .total_cmp(&simple(&b.1))
                .then(far(a.0).cmp(&far(b.0)))
        })
        .unwrap_or_else(|| (k, side_at(k)))
}

/// The cut found, and how often noise does as well.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub(crate) split: Split,
    /// The permutation p-value of the search as a whole.
    pub(crate) p_value: f64,
    /// The cuts the search tried, over every feature.
    pub(crate) cuts: usize,
    /// The permutations drawn.
    pub(crate) permutations: usize,
}

/// The permutations of the search's test.
pub(crate) const PERMUTATIONS: usize = 999;

/// The best cut of `features` for the losses `loss` (one per input), and
/// its permutation p-value over [`PERMUTATIONS`] permutations drawn from
/// `seed`; `None` where no feature has a cut with enough inputs on each
/// side.
pub(crate) fn search(features: &[Values], loss: &[f64], seed: u64) -> Option<Found> {
    let r = ranks(loss);
    let prepared: Vec<Prepared<'_>> = features.iter().map(prepare).collect();
    // The first feature of the largest statistic: an input's own
    // coordinates before what the output shows of it.
    let largest = |r: &[f64], split: bool| {
        prepared
            .iter()
            .enumerate()
            .filter_map(|(f, p)| best(p, r, f, split))
            .reduce(|a, b| if b.z > a.z { b } else { a })
    };
    let split = largest(&r, true)?;
    let cuts = prepared
        .iter()
        .map(|p| match p.values {
            Values::Numbers(v) => p.order.windows(2).filter(|w| v[w[0]] != v[w[1]]).count() * 2,
            Values::Labels(_) => p.groups.len(),
        })
        .sum();
    let mut rng = TrialRng::from_trial_seed(seed);
    let mut shuffled = r.clone();
    let mut as_large = 0usize;
    for _ in 0..PERMUTATIONS {
        for i in (1..shuffled.len()).rev() {
            let j = rng.random_range(0..=i);
            shuffled.swap(i, j);
        }
        if largest(&shuffled, false).is_some_and(|s| s.z >= split.z - 1e-12) {
            as_large += 1;
        }
    }
    Some(Found {
        p_value: (1 + as_large) as f64 / (PERMUTATIONS + 1) as f64,
        split,
        cuts,
        permutations: PERMUTATIONS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_below_a_threshold_is_found_and_noise_is_not() {
        let n = 400;
        let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
        let noise = |i: usize| ((i * 7919 % 101) as f64 / 101.0) - 0.5;
        let loss: Vec<f64> = (0..n)
            .map(|i| noise(i) + if x[i] < 0.3 { 3.0 } else { 0.0 })
            .collect();
        let found = search(&[Values::Numbers(x.clone())], &loss, 1).unwrap();
        assert!(found.p_value <= 0.002, "{}", found.p_value);
        assert_eq!(
            found.split.side,
            Side::Below {
                bound: 0.3,
                inclusive: false
            }
        );
        // The same losses with no structure: not significant.
        let flat: Vec<f64> = (0..n).map(noise).collect();
        let found = search(&[Values::Numbers(x)], &flat, 1).unwrap();
        assert!(found.p_value > 0.05, "{}", found.p_value);
    }

    #[test]
    fn a_label_that_carries_the_loss_is_found() {
        let labels: Vec<String> = (0..300)
            .map(|i| if i % 3 == 0 { "edge" } else { "random" }.to_owned())
            .collect();
        let loss: Vec<f64> = (0..300).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let found = search(&[Values::Labels(labels)], &loss, 2).unwrap();
        assert_eq!(
            found.split.side,
            Side::Is {
                label: "edge".into()
            }
        );
        assert!(found.p_value <= 0.002);
    }
}
