//! How the harness calls the candidate: one input at a time (any
//! `Fn(&I) -> O`), or many trials' inputs at once ([`Batched`]).

use rayon::prelude::*;

use crate::error::{Role, RunError, TrialId};
use crate::harness::TrialErrors;
use crate::output::Output;
use crate::report::progress::Progress;

/// A candidate f1 as the harness calls it. Implemented for every
/// `Fn(&I) -> O` (one input per call) and for [`Batched`] (made by
/// [`crate::DualDelta::batched`]); it cannot be implemented elsewhere.
pub trait Candidate<I, O>: Sync + sealed::Sealed<I, O> {
    /// The candidate's output for one input.
    #[doc(hidden)]
    fn call_one(&self, x: &I) -> O;

    /// Runs every trial through `batches` if this candidate takes batches;
    /// `None` if it takes one input at a time.
    #[doc(hidden)]
    fn run_batches(
        &self,
        batches: &Batches<'_, I, O>,
    ) -> Option<Result<Vec<TrialErrors>, RunError>>;
}

mod sealed {
    pub trait Sealed<I, O> {}
    impl<I, O, F: Fn(&I) -> O> Sealed<I, O> for F {}
    impl<I, O, F: Fn(&[I]) -> Vec<O>> Sealed<I, O> for super::Batched<F> {}
}

impl<I, O, F> Candidate<I, O> for F
where
    F: Fn(&I) -> O + Sync,
{
    fn call_one(&self, x: &I) -> O {
        self(x)
    }

    fn run_batches(&self, _: &Batches<'_, I, O>) -> Option<Result<Vec<TrialErrors>, RunError>> {
        None
    }
}

/// A candidate that takes a slice of consecutive trials' inputs and returns
/// their outputs in the same order, at most `size` inputs per call. Made by
/// [`crate::DualDelta::batched`].
#[derive(Clone, Debug)]
pub struct Batched<F> {
    pub(crate) f: F,
    pub(crate) size: usize,
}

impl<F> Batched<F> {
    /// The most trials one call receives.
    pub fn size(&self) -> usize {
        self.size
    }
}

impl<I, O, F> Candidate<I, O> for Batched<F>
where
    F: Fn(&[I]) -> Vec<O> + Sync,
    I: Send + Sync,
    O: Output + Send + Sync,
{
    fn call_one(&self, x: &I) -> O {
        let mut out = (self.f)(std::slice::from_ref(x));
        assert_eq!(
            out.len(),
            1,
            "a batched candidate returns one output per input"
        );
        out.swap_remove(0)
    }

    fn run_batches(&self, b: &Batches<'_, I, O>) -> Option<Result<Vec<TrialErrors>, RunError>> {
        Some(run_batched(&self.f, self.size, b))
    }
}

/// The baseline's and the oracle's outputs for one trial, widened to `f64`;
/// the oracle's are finite.
#[derive(Clone, Debug, Default)]
pub(crate) struct References {
    /// The baseline f2.
    pub(crate) baseline: Vec<f64>,
    /// The oracle fΩ.
    pub(crate) oracle: Vec<f64>,
}

/// Draws trial `index`'s input and notes its kind.
type Draw<'a, I> = dyn Fn(usize) -> Result<(I, String), RunError> + Sync + 'a;
/// Runs the baseline and the oracle on trial `index`'s input.
type Refer<'a, I> = dyn Fn(usize, &I) -> Result<References, RunError> + Sync + 'a;
/// Both errors of trial `index` from the candidate's output, the
/// references and the kind of input.
type Measure<'a, O> =
    dyn Fn(usize, &O, &References, String) -> Result<TrialErrors, RunError> + Sync + 'a;

/// What a batched candidate's run needs from the harness: each step of a
/// trial, by trial index.
pub struct Batches<'a, I, O> {
    /// Number of trials.
    pub(crate) n: usize,
    /// Run everything on the calling thread (`threads = 1`).
    pub(crate) serial: bool,
    /// Counts finished trials.
    pub(crate) progress: &'a Progress,
    /// Names a trial.
    pub(crate) trial: &'a (dyn Fn(usize) -> TrialId + Sync),
    /// Draws a trial's input and notes its kind.
    pub(crate) draw: &'a Draw<'a, I>,
    /// Runs the baseline and the oracle on a trial's input.
    pub(crate) references: &'a Refer<'a, I>,
    /// Both errors of a trial from the candidate's output.
    pub(crate) measure: &'a Measure<'a, O>,
}

/// `f(i)` for each `i` in `range`, in order: on the rayon pool unless
/// `serial`.
fn map_range<R: Send>(
    serial: bool,
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> R + Sync + Send,
) -> Vec<R> {
    if serial {
        range.map(f).collect()
    } else {
        range.into_par_iter().map(f).collect()
    }
}

/// Runs the trials `size` at a time. In each batch the inputs are drawn in
/// parallel; then the candidate runs on the whole batch while the other
/// threads run the baseline and the oracle on the same inputs; then each
/// trial's errors are measured. The first failure stops the run: an input
/// that could not be drawn, then the candidate, then the references, then
/// the measurement, each the first by trial index.
fn run_batched<I, O, F>(
    f: &F,
    size: usize,
    b: &Batches<'_, I, O>,
) -> Result<Vec<TrialErrors>, RunError>
where
    F: Fn(&[I]) -> Vec<O> + Sync,
    I: Send + Sync,
    O: Output + Send + Sync,
{
    let mut trials = Vec::with_capacity(b.n);
    let mut start = 0;
    while start < b.n {
        let end = b.n.min(start + size);
        let (inputs, kinds): (Vec<I>, Vec<String>) = map_range(b.serial, start..end, b.draw)
            .into_iter()
            .collect::<Result<_, _>>()?;
        let candidate = || {
            let first = (b.trial)(start);
            let outputs = catch_batch(first, end, || f(&inputs))?;
            if outputs.len() == inputs.len() {
                Ok(outputs)
            } else {
                Err(RunError::BatchLength {
                    first,
                    last: end - 1,
                    len: outputs.len(),
                    expected: inputs.len(),
                })
            }
        };
        let references = || {
            map_range(b.serial, start..end, |i| {
                (b.references)(i, &inputs[i - start])
            })
        };
        let (outputs, references) = if b.serial {
            (candidate(), references())
        } else {
            rayon::join(candidate, references)
        };
        let outputs = outputs?;
        let references = references.into_iter().collect::<Result<Vec<_>, _>>()?;
        let measured = map_range(b.serial, start..end, |i| {
            let j = i - start;
            (b.measure)(i, &outputs[j], &references[j], kinds[j].clone())
        });
        for m in measured {
            trials.push(m?);
            b.progress.inc();
        }
        start = end;
    }
    Ok(trials)
}

/// Calls a batched candidate on trials `first.index .. end`: a panic
/// becomes an error naming the batch's first trial and its range.
fn catch_batch<T>(first: TrialId, end: usize, f: impl FnOnce() -> T) -> Result<T, RunError> {
    crate::guard::guarded(Role::Candidate, first, f).map_err(|e| match e {
        RunError::Panicked {
            role,
            trial,
            message,
        } => RunError::Panicked {
            role,
            trial,
            message: format!(
                "{message} (in the batch of trials {} to {}; the trial named is the batch's first)",
                trial.index,
                end - 1
            ),
        },
        other => other,
    })
}
