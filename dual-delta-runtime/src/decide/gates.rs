//! The gates: every full trial, in every mode, is checked for a
//! non-finite output and for a gross error (see [`crate::screen`] for the
//! definitions and what a pass guarantees), or, where the test documents
//! one, against its error bound ([`crate::settings::Settings::bound`]), which takes
//! the gross-error gate's place. A non-finite output and an input over the
//! bound each fail the run whatever the statistics say; gross errors fail
//! it where there are too many to be chance ([`gross_shown`]). What each gate found is its evidence, defined here where it is
//! measured: [`OverBound`], [`GrossError`].

use crate::config::Settings;
use crate::rng::trial_seed;
use crate::stats::{Alternative, binom_test_half};
use crate::trial::TrialErrors;
use crate::worst::AtWorst;

/// The first of `trials`, in the order given, whose candidate error is
/// above `settings.bound`; `None` without a bound.
pub(crate) fn over_bound<'a>(
    trials: impl IntoIterator<Item = &'a TrialErrors>,
    settings: &Settings,
) -> Option<OverBound> {
    let bound = settings.bound?;
    trials
        .into_iter()
        .find(|t| exceeds(t, settings))
        .map(|t| OverBound {
            bound,
            at: at_worst(t, settings),
        })
}

/// Trial `t`, its errors and its outputs where the candidate's error is
/// largest.
fn at_worst(t: &TrialErrors, settings: &Settings) -> AtWorst {
    AtWorst {
        trial: t.index,
        seed: trial_seed(settings.seed, t.index),
        delta1: t.candidate,
        delta2: t.baseline,
        element: t.worst,
        candidate: t.outputs_at_worst.0,
        baseline: t.outputs_at_worst.1,
        oracle: t.oracle_at_worst,
    }
}

/// Whether trial `t`'s candidate error is above the test's bound (a NaN
/// error is: nothing shows it within).
pub(crate) fn exceeds(t: &TrialErrors, settings: &Settings) -> bool {
    settings
        .bound
        .is_some_and(|b| t.candidate.is_nan() || t.candidate > b)
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
/// ([`reference_scale`] over every full trial of the run); none where the
/// test documents a bound, which takes the gate's place.
pub(crate) fn gross_errors<'a>(
    trials: impl IntoIterator<Item = &'a TrialErrors>,
    scale: f64,
    settings: &Settings,
) -> Vec<GrossError> {
    if settings.bound.is_some() {
        return Vec::new();
    }
    trials
        .into_iter()
        .filter_map(|t| {
            gross(t, scale, settings.gross_factor).map(|reference| GrossError {
                reference,
                at: at_worst(t, settings),
            })
        })
        .collect()
}

/// The p-value of `count` gross errors of the candidate, the baseline
/// having none against the candidate's: `2^-count`. Where the two are
/// equally accurate, each input's pair of errors is as likely either way
/// round, so the `count` largest of the pooled errors are all the
/// candidate's with probability at most `2^-count`, whatever their
/// distribution: a rare spike that both draw independently, and that the
/// baseline happened not to draw over the run, is no gross error. (No
/// baseline error can be gross against the candidate's at the same time:
/// the two would each exceed `G` × the other.)
pub(crate) fn gross_p_value(count: usize) -> f64 {
    // The exact sign test of `count` against none.
    binom_test_half(count as u64, count as u64, Alternative::Greater)
}

/// Whether `count` gross errors fail the run at `level` (the level of the
/// tests over every input): their [`gross_p_value`] is below it, so that
/// at equal accuracy the gate fails a run at most that often. Fewer are
/// reported and left to the claim, which weighs them in the mean.
pub(crate) fn gross_shown(count: usize, level: f64) -> bool {
    count > 0 && gross_p_value(count) < level
}

/// Whether trial `t` fails the non-finite gate: a non-finite output where
/// the baseline's is finite, unless allowed.
pub(crate) fn fails_non_finite(t: &TrialErrors, settings: &Settings) -> bool {
    t.candidate_non_finite.is_some()
        && t.baseline_non_finite.is_none()
        && !settings.allow_non_finite
}

/// The first input whose candidate error exceeded the test's documented
/// bound: what it was and where.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct OverBound {
    /// The bound, in the metric's unit.
    #[serde(with = "crate::json_number")]
    pub bound: f64,
    /// The trial, its errors and its outputs where the candidate's error
    /// is largest.
    #[serde(flatten)]
    pub at: AtWorst,
}

/// A trial on which the candidate's error was gross (see [`crate::screen`]):
/// what it was and where.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct GrossError {
    /// The reference error it was compared with: the larger of the
    /// baseline's largest finite error and the one-ulp error `u` of the
    /// trial.
    #[serde(with = "crate::json_number")]
    pub reference: f64,
    /// The trial, its errors and its outputs where the candidate's error
    /// is largest.
    #[serde(flatten)]
    pub at: AtWorst,
}
