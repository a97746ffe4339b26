//! The screen: every one of the `n` inputs checked, and the two gates.
//!
//! # Every input counts
//!
//! A pass is a statement about all `n` inputs drawn. Under the defaults
//! each input runs the candidate and the baseline; where their outputs are
//! bitwise equal (same length, same bits), their errors are equal under
//! every metric, so the input is an exact *tie*: it needs no oracle and is
//! neutral in the test (a zero difference, dropped by the signed-rank
//! test as SciPy's `zero_method = "wilcox"` drops it). Everywhere else the
//! oracle runs and the input is a full trial. The oracle also runs on a
//! seeded sample of the ties (one in eight, chosen
//! by the trial's seed, and every tie among the first 32 inputs): the
//! ratio of mean errors and the descriptive figures need the errors on
//! ties, and take them from this sample (the report says so).
//!
//! A run stops before `n` only at a failure: the anytime-valid sequential
//! test of the fail side (see [`crate::stats::sequential`]), a non-finite
//! output, or an error. With `stop_early = false` every input is a full
//! trial. With `screen = false` (the quick mode) an early pass is final
//! after `k` trials, and the report states the share of bad inputs that
//! `k` trials cannot rule out.
//!
//! # The gates
//!
//! Both apply to every full trial, in every mode:
//!
//! * **non-finite**: the candidate returned a NaN or an infinity where the
//!   baseline and the oracle were finite (unless
//!   [`Settings::allow_non_finite`](crate::Settings::allow_non_finite));
//! * **gross error**: the candidate's error exceeds `G` × the larger of
//!   the largest finite error the baseline made on any full trial of the
//!   run and `u`, the error one unit in the last place of the output's
//!   format makes under the metric on that input. `G` is
//!   [`Settings::gross_factor`](crate::Settings::gross_factor), 100 by
//!   default: two orders of magnitude beyond anything the baseline shows.
//!   The floor `u` does not come from the candidate: a kernel that is wrong
//!   where the baseline is exact is caught, and rounding-level differences
//!   are not. A finite output whose error is infinite where the
//!   baseline's is finite (under `max_relative`, a non-zero output where
//!   the oracle is zero) is a gross error at any `G`.
//!
//! Either fails the run whatever the statistics say (with `expect = worse`
//! it counts as the candidate being worse).
//!
//! # The guarantee
//!
//! A pass means: on **every one** of the `n` inputs drawn, the candidate
//! returned a finite output wherever the baseline did, raised no panic or
//! error, made no gross error, and the one-sided Wilcoxon signed-rank test
//! over all `n` inputs found it not significantly less accurate, or less
//! accurate by no more than the margin (see [`crate::Judgement`]). For the
//! input distribution it rules out, at confidence `1 − β`, any rate of the
//! gate events above `ln(1/β) / n` (inputs i.i.d. from the generator):
//! above 0.46 % for `n = 1000` at 99 %.
//!
//! The price: the candidate and the baseline on every input, and the
//! oracle wherever their outputs differ (and on one tie in eight).

use crate::config::Settings;
use crate::rng::trial_seed;
use crate::trial::{Checked, TrialErrors};

/// How the inputs of a run were run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every input a full trial (`stop_early = false`, or a run that saves
    /// or compares a baseline).
    AllTrials,
    /// Every input checked; the oracle skipped on ties outside the sample.
    Screened,
    /// The quick mode (`screen = false`): full trials, and an early pass
    /// is final.
    Quick,
}

/// What the screen covered in a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Screen {
    /// How the inputs were run.
    pub mode: Mode,
    /// The inputs the candidate ran on.
    pub checked: usize,
    /// The inputs whose two outputs were bitwise equal (ties), measured or
    /// not.
    pub ties: usize,
    /// The ties the oracle ran on.
    pub ties_measured: usize,
    /// The inputs never run: after an early failure, or after a quick
    /// pass.
    pub unchecked: usize,
}

impl Screen {
    /// What `checked` (the inputs run so far, in order) covered of `n`.
    pub(crate) fn of(mode: Mode, checked: &[Checked], n: usize) -> Screen {
        let mut ties = 0;
        let mut ties_measured = 0;
        for c in checked {
            match c {
                Checked::Tie => ties += 1,
                Checked::Full(t) if t.identical_outputs => {
                    ties += 1;
                    ties_measured += 1;
                }
                Checked::Full(_) => {}
            }
        }
        Screen {
            mode,
            checked: checked.len(),
            ties,
            ties_measured,
            unchecked: n - checked.len(),
        }
    }

    /// The ties the oracle did not run on.
    pub fn ties_unmeasured(&self) -> usize {
        self.ties - self.ties_measured
    }

    /// Whether a quick pass left inputs unchecked.
    pub fn quick_pass(&self) -> bool {
        self.mode == Mode::Quick && self.unchecked > 0
    }
}

/// The errors of the inputs checked so far, as the claim's effect needs
/// them.
pub(crate) fn errors(checked: &[Checked]) -> crate::claim::Errors {
    let mut e = crate::claim::Errors::default();
    for c in checked {
        match c {
            Checked::Tie => e.unmeasured += 1,
            Checked::Full(t) => e.push(t.candidate, t.baseline, t.identical_outputs),
        }
    }
    e
}

/// A trial on which the candidate's error was gross (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrossError {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed.
    pub seed: u64,
    /// The candidate's error.
    #[serde(with = "crate::json_number")]
    pub delta1: f64,
    /// The baseline's error.
    #[serde(with = "crate::json_number")]
    pub delta2: f64,
    /// The reference error it was compared with: the larger of the
    /// baseline's largest finite error and the one-ulp error `u` of the
    /// trial.
    #[serde(with = "crate::json_number")]
    pub reference: f64,
}

/// The largest finite error of the baseline over `trials`, `0` when none
/// is positive.
pub(crate) fn reference_scale<'a>(trials: impl IntoIterator<Item = &'a TrialErrors>) -> f64 {
    trials
        .into_iter()
        .map(|t| t.baseline)
        .filter(|e| e.is_finite())
        .fold(0.0, f64::max)
}

/// The reference of trial `t` at scale `m`, if the gate applies to it: the
/// candidate's output is finite (the non-finite gate judges it otherwise)
/// and so is the baseline's error.
fn reference(t: &TrialErrors, scale: f64) -> Option<f64> {
    (t.candidate_non_finite.is_none() && t.baseline.is_finite()).then(|| scale.max(t.ulp_error))
}

/// Whether trial `t` is a gross error at scale `m` and factor `G`: its
/// reference, if so.
fn gross(t: &TrialErrors, scale: f64, factor: f64) -> Option<f64> {
    let reference = reference(t, scale)?;
    (t.candidate.is_infinite() || (reference > 0.0 && t.candidate > factor * reference))
        .then_some(reference)
}

/// The gross errors among `trials`, in the order given, at `scale`
/// ([`reference_scale`] over every full trial of the run).
pub(crate) fn gross_errors<'a>(
    trials: impl IntoIterator<Item = &'a TrialErrors>,
    scale: f64,
    settings: &Settings,
) -> Vec<GrossError> {
    trials
        .into_iter()
        .filter_map(|t| {
            gross(t, scale, settings.gross_factor).map(|reference| GrossError {
                trial: t.index,
                seed: trial_seed(settings.seed, t.index),
                delta1: t.candidate,
                delta2: t.baseline,
                reference,
            })
        })
        .collect()
}

/// Whether trial `t` fails the non-finite gate: a non-finite output where
/// the baseline's is finite, unless allowed.
pub(crate) fn fails_non_finite(t: &TrialErrors, settings: &Settings) -> bool {
    t.candidate_non_finite.is_some()
        && t.baseline_non_finite.is_none()
        && !settings.allow_non_finite
}
