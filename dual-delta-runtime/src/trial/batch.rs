//! A batch of trials: the inputs drawn in parallel, a batched candidate
//! called once on all of them while the other threads run the references,
//! then each trial measured (or each input checked, the oracle skipped on
//! ties).

use std::ops::Range;

use rayon::prelude::*;

use super::{Checked, References, Trial, Widened, measure, trial_id};
use crate::config::Settings;
use crate::device::Record;
use crate::error::{Fault, Role, RunError, TrialFault, TrialId};
use crate::guard::guarded;

/// The trials of `range` with a batched candidate `f`: full trials, or,
/// with `check`, each input checked (see [`Trial::checked`]). A panic or a
/// wrong number of outputs fails the whole batch; other errors are per
/// trial.
pub(crate) fn batch<I: Send + Sync>(
    trial: &Trial<'_, I>,
    f: &(dyn Fn(&[I]) -> Vec<Widened> + Sync + '_),
    settings: &Settings,
    serial: bool,
    range: Range<usize>,
    check: bool,
) -> Result<Vec<Result<Checked, RunError>>, RunError> {
    let (start, end) = (range.start, range.end);
    let (inputs, kinds): (Vec<I>, Vec<String>) =
        map_range(serial, range.clone(), |i| trial.draw(trial_id(settings, i)))
            .into_iter()
            .collect::<Result<_, _>>()?;
    let candidate = || {
        let first = trial_id(settings, start);
        let outputs = catch_batch(trial.device, first, end, || f(&inputs))?;
        if outputs.len() == inputs.len() {
            Ok(outputs)
        } else {
            Err(RunError::Trial(TrialFault::new(
                Role::Candidate,
                first,
                Fault::Batch {
                    last: end - 1,
                    len: outputs.len(),
                    expected: inputs.len(),
                },
            )))
        }
    };
    let references = || {
        map_range(serial, range.clone(), |i| {
            let mut refs = References::default();
            let (id, x) = (trial_id(settings, i), &inputs[i - start]);
            if check {
                trial.baseline_into(id, x, &mut refs.baseline)
            } else {
                trial.references(id, x, &mut refs)
            }
            .map(|()| refs)
        })
    };
    let (outputs, references) = if serial {
        (candidate(), references())
    } else {
        rayon::join(candidate, references)
    };
    let outputs = outputs?;
    let references = references.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(map_range(serial, range, |i| {
        let j = i - start;
        let (id, y) = (trial_id(settings, i), &outputs[j]);
        if check {
            trial.checked(
                settings,
                id,
                &inputs[j],
                (&y.values, y.format),
                &references[j].baseline,
                kinds[j].clone(),
            )
        } else {
            measure(
                settings,
                trial.device,
                id,
                &y.values,
                y.format,
                &references[j],
                kinds[j].clone(),
            )
            .map(Checked::Full)
        }
    }))
}

/// `f(i)` for each `i` in `range`, in order: on the rayon pool unless
/// `serial`.
pub(crate) fn map_range<R: Send>(
    serial: bool,
    range: Range<usize>,
    f: impl Fn(usize) -> R + Sync + Send,
) -> Vec<R> {
    if serial {
        range.map(f).collect()
    } else {
        range.into_par_iter().map(f).collect()
    }
}

/// Calls a batched candidate on trials `first.index .. end`: a panic
/// becomes an error naming the batch's first trial and its range.
fn catch_batch<T>(
    device: &Record,
    first: TrialId,
    end: usize,
    f: impl FnOnce() -> T,
) -> Result<T, RunError> {
    guarded(device, Role::Candidate, first, f).map_err(|mut e| {
        if let RunError::Trial(TrialFault {
            kind: Fault::Panicked { message },
            trial,
            ..
        }) = &mut e
        {
            message.push_str(&format!(
                " (in the batch of trials {} to {}; the trial named is the batch's first)",
                trial.index,
                end - 1
            ));
        }
        e
    })
}
