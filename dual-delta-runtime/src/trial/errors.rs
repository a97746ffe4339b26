//! One trial's errors: the candidate's and the baseline's outputs measured
//! against the oracle's by the run's metric, with what else the run
//! records of them (non-finite values, ties, the worst element, the
//! gross-error gate's floor).

use super::outputs::{fingerprint, first_non_finite, worst_element};
use super::{References, bitwise_equal};
use crate::config::Settings;
use crate::device::Record;
use crate::error::{Fault, Role, RunError, TrialFault, TrialId};
use crate::guard::guarded;
use crate::metric::Metric;
use crate::output::NumberFormat;

/// One trial's errors and what else the run records of its outputs.
#[derive(Debug)]
pub(crate) struct TrialErrors {
    /// The trial's index.
    pub(crate) index: usize,
    /// The candidate's error (Δ1).
    pub(crate) candidate: f64,
    /// The baseline's error (Δ2).
    pub(crate) baseline: f64,
    /// The candidate's output format.
    pub(crate) format: NumberFormat,
    /// The kind of input the generator noted.
    pub(crate) input_kind: String,
    /// The position and value of the candidate's first non-finite output.
    pub(crate) candidate_non_finite: Option<(usize, f64)>,
    /// The same for the baseline.
    pub(crate) baseline_non_finite: Option<(usize, f64)>,
    /// The candidate's and the baseline's outputs are the same numbers.
    pub(crate) identical_outputs: bool,
    /// The output elements where the metric was undefined for both
    /// outputs, left out of both errors (all of them: the input is a tie
    /// the metric could not judge, both errors infinite).
    pub(crate) shared_undefined: usize,
    /// The error one unit in the last place of the output's format makes
    /// under the metric: every element of the oracle's output moved by one
    /// ulp of `format`. It is the gross-error gate's floor, computed only
    /// where the trial could be gross (the candidate's error above `G` ×
    /// the baseline's); 0 elsewhere.
    pub(crate) ulp_error: f64,
    /// A hash of the oracle's output bits: it changes when the input
    /// generator or the oracle does (see [`crate::baseline`]).
    pub(crate) fingerprint: u64,
    /// The element where the candidate's error is largest, and the
    /// output's length (see [`worst_element`]).
    pub(crate) worst: (usize, usize),
    /// `fΩ(x)` at that element.
    pub(crate) oracle_at_worst: f64,
    /// The candidate's and the baseline's outputs at that element.
    pub(crate) outputs_at_worst: (f64, f64),
    /// Under a hybrid metric, both errors again under `max_relative`, and
    /// whether the absolute branch decided the candidate's error (`|fΩ|`
    /// below 1 at its worst element); `None` under other metrics.
    pub(crate) relative: Option<(f64, f64, bool)>,
}

impl TrialErrors {
    /// The output elements the metric compared: every element but those
    /// undefined for both outputs (0 for empty outputs).
    pub(crate) fn compared(&self) -> usize {
        self.worst.1 - self.shared_undefined
    }
}

#[cfg(test)]
impl TrialErrors {
    /// A trial with these errors and finite outputs.
    pub(crate) fn for_test(candidate: f64, baseline: f64, identical_outputs: bool) -> Self {
        TrialErrors {
            index: 0,
            candidate,
            baseline,
            format: NumberFormat::F64,
            input_kind: String::new(),
            candidate_non_finite: None,
            baseline_non_finite: None,
            identical_outputs,
            shared_undefined: 0,
            ulp_error: 0.0,
            fingerprint: 0,
            worst: (0, 1),
            oracle_at_worst: 1.0,
            outputs_at_worst: (1.0, 1.0),
            relative: None,
        }
    }
}

/// Both errors of a trial from the candidate's widened output `y1` (of
/// `format`) and the references; a device the metric uses is `device`'s.
pub(crate) fn measure(
    settings: &Settings,
    device: &Record,
    trial: TrialId,
    y1: &[f64],
    format: NumberFormat,
    refs: &References,
    input_kind: String,
) -> Result<TrialErrors, RunError> {
    let oracle = &refs.oracle;
    for (role, y) in [(Role::Candidate, y1), (Role::Baseline, &refs.baseline)] {
        if y.len() != oracle.len() {
            return Err(TrialFault::new(
                role,
                trial,
                Fault::Length {
                    len: y.len(),
                    oracle_len: oracle.len(),
                },
            )
            .into());
        }
    }
    let error = |role: Role, y: &[f64], oracle: &[f64]| {
        let e = guarded(device, Role::Metric, trial, || {
            settings.metric.error(y, oracle, format)
        })?;
        if e.is_nan() || e < 0.0 {
            Err(RunError::Trial(TrialFault::new(
                role,
                trial,
                Fault::InvalidError { value: e },
            )))
        } else {
            Ok(e)
        }
    };
    let identical_outputs = bitwise_equal(y1, &refs.baseline);
    let worst = if oracle.len() > 1 {
        worst_element(&settings.metric, y1, oracle, format)
    } else {
        0
    };
    let (mut candidate, mut baseline) = (
        error(Role::Candidate, y1, oracle)?,
        error(Role::Baseline, &refs.baseline, oracle)?,
    );
    // Elements where the metric is undefined for both outputs are left out
    // of both errors (see [`crate::decide::claim`]): a shared NaN must not hide the
    // candidate's error elsewhere.
    let mut shared_undefined = 0;
    if candidate.is_infinite() && baseline.is_infinite() && !identical_outputs {
        let undefined = |y: &[f64], i: usize| {
            !y[i].is_finite()
                || !matches!(settings.metric, crate::metric::Metric::Custom { .. })
                    && settings
                        .metric
                        .error(&y[i..=i], &oracle[i..=i], format)
                        .is_infinite()
        };
        let keep: Vec<usize> = (0..oracle.len())
            .filter(|&i| !(undefined(y1, i) && undefined(&refs.baseline, i)))
            .collect();
        shared_undefined = oracle.len() - keep.len();
        if shared_undefined > 0 && !keep.is_empty() {
            let pick = |y: &[f64]| keep.iter().map(|&i| y[i]).collect::<Vec<f64>>();
            let o = pick(oracle);
            candidate = error(Role::Candidate, &pick(y1), &o)?;
            baseline = error(Role::Baseline, &pick(&refs.baseline), &o)?;
        }
    }
    // The floor matters only where the trial could be a gross error: the
    // reference is at least the baseline's error, so a candidate within
    // `G` × that never is.
    let ulp_error = if candidate > settings.gross_factor * baseline {
        let one_ulp: Vec<f64> = oracle.iter().map(|&o| o + format.ulp(o)).collect();
        // A metric that cannot measure the shifted output (a custom one may
        // panic on it) leaves the gate without its floor, not the run failed.
        guarded(device, Role::Metric, trial, || {
            settings.metric.error(&one_ulp, oracle, format)
        })
        .unwrap_or(0.0)
    } else {
        0.0
    };
    Ok(TrialErrors {
        index: trial.index,
        candidate,
        baseline,
        format,
        input_kind,
        candidate_non_finite: first_non_finite(y1),
        baseline_non_finite: first_non_finite(&refs.baseline),
        identical_outputs,
        shared_undefined,
        ulp_error: if ulp_error.is_finite() {
            ulp_error
        } else {
            0.0
        },
        fingerprint: fingerprint(oracle),
        worst: (worst, oracle.len()),
        oracle_at_worst: oracle.get(worst).copied().unwrap_or(0.0),
        outputs_at_worst: (
            y1.get(worst).copied().unwrap_or(0.0),
            refs.baseline.get(worst).copied().unwrap_or(0.0),
        ),
        relative: matches!(settings.metric, Metric::MaxHybrid | Metric::MeanHybrid).then(|| {
            let relative = |y: &[f64]| Metric::MaxRelative.error(y, oracle, format);
            let absolute = oracle.get(worst).is_some_and(|o| o.abs() < 1.0);
            (relative(y1), relative(&refs.baseline), absolute)
        }),
    })
}
