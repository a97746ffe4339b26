//! The errors of a run's inputs as the claim reads them: the differing
//! inputs, the ties (measured or skipped by the oracle), and the inputs
//! whose errors are not finite.

use crate::stats::{MeanRatio, PowerOfTwo};
use crate::trial::Checked;

/// How the claim counts the ties the oracle skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Skipped {
    /// Each measured tie stands for the skipped ones too: the estimate.
    Weighted,
    /// Every skipped tie at error 0, the count most adverse to the
    /// candidate (a tie's `Δ1 − (1 + δ)·Δ2` is `−δ·Δ2 ≤ 0`): where (M)
    /// does not reject with them so, it rejects with no errors they could
    /// have.
    AtZero,
}

/// The errors of a run's inputs as the claim needs them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Errors {
    /// Δ1 of the full trials whose outputs differ, both errors finite.
    pub(crate) delta1: Vec<f64>,
    /// Δ2 of the same trials.
    pub(crate) delta2: Vec<f64>,
    /// The error on each measured tie (both implementations'), finite.
    pub(crate) ties: Vec<f64>,
    /// The ties the oracle did not run on.
    pub(crate) unmeasured: usize,
    /// Inputs the metric could not judge for either: ties.
    pub(crate) not_judged: usize,
    /// Inputs where only the baseline's error is infinite.
    pub(crate) baseline_non_finite: usize,
    /// Inputs where only the candidate's error is infinite.
    pub(crate) candidate_non_finite: usize,
    /// Output elements undefined for both outputs, left out of both
    /// errors.
    pub(crate) undefined_elements: usize,
}

impl Errors {
    /// The errors of the inputs checked so far.
    pub(crate) fn of(checked: &[Checked]) -> Errors {
        let mut e = Errors::default();
        for c in checked {
            match c {
                Checked::Tie => e.unmeasured += 1,
                // No element compared (empty outputs, or every element
                // undefined for both): a tie the metric could not judge.
                Checked::Full(t) if t.compared() == 0 => {
                    e.undefined_elements += t.shared_undefined;
                    e.not_judged += 1;
                }
                Checked::Full(t) => {
                    e.undefined_elements += t.shared_undefined;
                    e.push(t.candidate, t.baseline, t.identical_outputs);
                }
            }
        }
        e
    }

    /// Adds a full trial: its errors, and whether it is a tie (equal
    /// outputs, or no element the metric could judge).
    pub(crate) fn push(&mut self, candidate: f64, baseline: f64, tie: bool) {
        let (c, b) = (candidate.is_finite(), baseline.is_finite());
        if tie && b {
            self.ties.push(baseline);
        } else if tie || !c && !b {
            self.not_judged += 1;
        } else if !b {
            self.baseline_non_finite += 1;
        } else if !c {
            self.candidate_non_finite += 1;
        } else {
            self.delta1.push(candidate);
            self.delta2.push(baseline);
        }
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> usize {
        self.in_mean() + self.not_judged + self.baseline_non_finite + self.candidate_non_finite
    }

    /// The inputs whose errors are both finite: those of (M)'s mean.
    pub(super) fn in_mean(&self) -> usize {
        self.delta1.len() + self.ties.len() + self.unmeasured
    }

    /// The weight of each measured tie: the ties it stands for.
    fn tie_weight(&self) -> f64 {
        if self.ties.is_empty() {
            0.0
        } else {
            (self.ties.len() + self.unmeasured) as f64 / self.ties.len() as f64
        }
    }

    /// The inputs of (M)'s mean as weighted pairs `(Δ1, Δ2, weight)`, the
    /// skipped ties counted as `skipped` says.
    pub(super) fn pairs(&self, skipped: Skipped) -> [Vec<f64>; 3] {
        let mut x = self.delta1.clone();
        let mut y = self.delta2.clone();
        let mut w = vec![1.0; x.len()];
        let tie_weight = match skipped {
            Skipped::Weighted => self.tie_weight(),
            Skipped::AtZero => 1.0,
        };
        x.extend_from_slice(&self.ties);
        y.extend_from_slice(&self.ties);
        w.extend(std::iter::repeat_n(tie_weight, self.ties.len()));
        // With no measured tie to stand for them, the skipped ties count
        // at 0 in the estimate too.
        if self.unmeasured > 0 && (skipped == Skipped::AtZero || self.ties.is_empty()) {
            x.push(0.0);
            y.push(0.0);
            w.push(self.unmeasured as f64);
        }
        [x, y, w]
    }

    /// (M)'s finite part, the skipped ties counted as `skipped` says;
    /// `None` with fewer than two inputs in the mean.
    pub(super) fn mean_ratio(&self, skipped: Skipped) -> Option<MeanRatio> {
        let [x, y, w] = self.pairs(skipped);
        MeanRatio::weighted(&x, &y, &w).ok()
    }

    /// Mean Δ1 and mean Δ2 over every input with finite errors, each
    /// measured tie standing for the ties the oracle skipped (`NaN`
    /// without one), summed at a scale no magnitude overflows.
    pub(super) fn means(&self) -> [f64; 2] {
        let [x, y, w] = self.pairs(Skipped::Weighted);
        let scale = PowerOfTwo::of(x.iter().chain(&y));
        let n = self.in_mean() as f64;
        let mean = |v: &[f64]| {
            scale.up(v
                .iter()
                .zip(&w)
                .map(|(&a, w)| scale.down(a) * w)
                .sum::<f64>()
                / n)
        };
        [mean(&x), mean(&y)]
    }

    /// `R = mean Δ1 / mean Δ2` over every input with finite errors.
    pub(crate) fn ratio(&self) -> f64 {
        let [m1, m2] = self.means();
        if m1 == 0.0 && m2 == 0.0 || self.in_mean() == 0 {
            1.0
        } else {
            m1 / m2
        }
    }

    /// `Δ1 / Δ2` of every input, sorted: 1 for a tie (and for two zero
    /// errors), 0 where only the baseline's error is infinite, ∞ where only
    /// the candidate's is (or the baseline's is 0).
    pub(super) fn ratios(&self) -> Vec<f64> {
        let ones = self.ties.len() + self.unmeasured + self.not_judged;
        let mut r: Vec<f64> = self
            .delta1
            .iter()
            .zip(&self.delta2)
            .map(|(&a, &b)| match (a, b) {
                (a, b) if a == b => 1.0,
                (a, 0.0) if a > 0.0 => f64::INFINITY,
                (a, b) => a / b,
            })
            .chain(std::iter::repeat_n(1.0, ones))
            .chain(std::iter::repeat_n(0.0, self.baseline_non_finite))
            .chain(std::iter::repeat_n(
                f64::INFINITY,
                self.candidate_non_finite,
            ))
            .collect();
        r.sort_unstable_by(f64::total_cmp);
        r
    }
}
