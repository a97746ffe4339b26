//! The evidence a run gathers before it is judged: descriptive statistics,
//! the non-finite outputs, and the sequential test's verdict. The screen
//! and the judgement read it; the outcome keeps it.

use crate::stats::Summary;
use crate::stats::sequential::{AlphaSplit, Crossed, TracePoint};

/// Descriptive statistics of Δ1, Δ2 and their paired differences.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Summaries {
    /// Δ1, the candidate's errors.
    pub candidate: Summary,
    /// Δ2, the baseline's errors.
    pub baseline: Summary,
    /// Δ1 - Δ2.
    pub differences: Summary,
}

/// A trial whose output held a NaN or an infinity.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct NonFiniteTrial {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed ([`crate::TrialRng::from_trial_seed`] replays its
    /// input).
    #[serde(with = "crate::rng::hex")]
    pub seed: u64,
    /// The position of the first non-finite element of the output.
    pub position: usize,
    /// That element (`NaN`, `inf` or `-inf`).
    #[serde(with = "crate::json_number")]
    pub value: f64,
}

/// The trials on which each implementation's output held a NaN or an
/// infinity, in trial order. The oracle is always finite (a run stops
/// otherwise).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct NonFinite {
    /// Trials where the candidate's output was not finite.
    pub candidate: Vec<NonFiniteTrial>,
    /// Trials where the baseline's output was not finite.
    pub baseline: Vec<NonFiniteTrial>,
}

impl NonFinite {
    /// The trials where the candidate's output was not finite while the
    /// baseline's (and the oracle's) was: each one fails a test unless
    /// non-finite outputs are allowed.
    pub fn candidate_only(&self) -> Vec<&NonFiniteTrial> {
        only(&self.candidate, &self.baseline)
    }

    /// The trials where the baseline's output was not finite while the
    /// candidate's was.
    pub fn baseline_only(&self) -> Vec<&NonFiniteTrial> {
        only(&self.baseline, &self.candidate)
    }
}

/// The trials of `these` that are not in `others` (both sorted by trial).
fn only<'a>(these: &'a [NonFiniteTrial], others: &[NonFiniteTrial]) -> Vec<&'a NonFiniteTrial> {
    these
        .iter()
        .filter(|t| others.binary_search_by_key(&t.trial, |o| o.trial).is_err())
        .collect()
}

/// The anytime-valid sequential verdict of a run (see
/// [`crate::stats::sequential`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct SequentialEvidence {
    /// The decision over the trials run ([`Crossed::Neither`] when the
    /// evidence reached no threshold). It is computed whether or not the
    /// run stops at it.
    #[serde(rename = "decision")]
    pub crossed: Crossed,
    /// Whether the run stopped at the decision ([`crate::settings::Settings::stop_early`]):
    /// then the decision is the verdict, and the fixed-N tests over the
    /// trials run are descriptive.
    pub stopped: bool,
    /// The evidence after each trial run.
    pub trace: Vec<TracePoint>,
    /// How α is shared between the sequential test and the fixed-N test at
    /// the cap.
    pub alpha_split: AlphaSplit,
    /// The margin of the early decision ([`crate::settings::Settings::margin`]).
    #[serde(with = "crate::json_number")]
    pub margin: f64,
}

impl SequentialEvidence {
    /// Whether the run stopped at a pass, in the quick mode (`quick`: the
    /// run's mode is it).
    pub fn quick_pass(&self, quick: bool) -> bool {
        quick && self.stopped && matches!(self.crossed, Crossed::Pass { .. })
    }

    /// The trials after which the sequential test decided, if it did.
    pub fn decided_after(&self) -> Option<usize> {
        match self.crossed {
            Crossed::Neither => None,
            Crossed::Fail { after, .. } | Crossed::Pass { after, .. } => Some(after),
        }
    }
}
