//! The trial: a test's four functions (candidate, baseline, oracle, input
//! generator), erased once into one value that is generic only over the
//! input type, and the steps of one trial (the paper's Algorithm 1, lines
//! 2-7). Every output is widened to `f64` as soon as it is returned, so no
//! output type travels further than this module.
//!
//! The scheduler (the `schedule` module) decides which trials run where and
//! when; this module only knows how one trial is done.

pub(crate) mod batch;
mod errors;
mod outputs;

pub(crate) use self::errors::{TrialErrors, measure};

use std::cell::RefCell;
use std::ops::Deref;

use crate::config::Settings;
use crate::device::Record;
use crate::error::{Fault, Role, RunError, TrialFault, TrialId};
use crate::guard::guarded;
use crate::output::{NumberFormat, Output};
use crate::rng::TrialRng;

/// An implementation called on one input: appends its output, widened to
/// `f64`, to the buffer and returns the output's format.
pub(crate) type Implementation<'a, I> = Box<dyn Fn(&I, &mut Vec<f64>) -> NumberFormat + Sync + 'a>;
/// A batched candidate: the outputs for consecutive trials' inputs, each
/// widened, in order (as many as it returned).
pub(crate) type BatchFn<'a, I> = Box<dyn Fn(&[I]) -> Vec<Widened> + Sync + 'a>;
/// An input generator.
pub(crate) type InputFn<'a, I> = Box<dyn Fn(&mut TrialRng) -> I + Sync + 'a>;

/// An output widened to `f64`, with its format.
#[derive(Clone, Debug)]
pub(crate) struct Widened {
    pub(crate) values: Vec<f64>,
    pub(crate) format: NumberFormat,
}

impl Widened {
    /// The output, widened.
    pub(crate) fn of<O: Output>(output: &O) -> Widened {
        let mut values = Vec::with_capacity(output.len());
        output.extend_f64(&mut values);
        Widened {
            values,
            format: output.format(),
        }
    }
}

/// How the candidate is called.
pub(crate) enum Candidate<'a, I> {
    /// One input per call.
    One(Implementation<'a, I>),
    /// Up to `size` consecutive trials' inputs per call.
    Batched {
        /// The candidate.
        f: BatchFn<'a, I>,
        /// The most inputs per call (≥ 1).
        size: usize,
    },
}

/// The four functions of a test, erased.
pub(crate) struct Functions<'a, I> {
    pub(crate) candidate: Candidate<'a, I>,
    pub(crate) baseline: Implementation<'a, I>,
    pub(crate) oracle: Implementation<'a, I>,
    pub(crate) input: InputFn<'a, I>,
}

/// A test's functions as one run calls them: each call's device use goes
/// to the run's record ([`crate::device`]). Reads as its [`Functions`].
pub(crate) struct Trial<'r, I> {
    functions: &'r Functions<'r, I>,
    /// The device the run's functions used.
    pub(crate) device: &'r Record,
}

impl<'r, I> Trial<'r, I> {
    /// `functions`, called by the run whose device record is `device`.
    pub(crate) fn of(functions: &'r Functions<'_, I>, device: &'r Record) -> Self {
        Trial { functions, device }
    }
}

impl<'r, I> Deref for Trial<'r, I> {
    type Target = Functions<'r, I>;

    fn deref(&self) -> &Functions<'r, I> {
        self.functions
    }
}

/// Trial `trial`'s input from `input`, and the kind of input it noted; a
/// panic becomes an error naming the trial. A device it uses is
/// `device`'s.
pub(crate) fn draw<I>(
    input: &InputFn<'_, I>,
    device: &Record,
    trial: TrialId,
) -> Result<(I, String), RunError> {
    let mut rng = TrialRng::from_trial_seed(trial.seed);
    let x = guarded(device, Role::Input, trial, || input(&mut rng))?;
    Ok((x, rng.input_kind().to_owned()))
}

/// Calls the erased implementation `f` for `role` on `x`: its output
/// widened, and its format; a panic becomes an error naming the trial. A
/// device it uses is `device`'s.
pub(crate) fn call<I>(
    f: &Implementation<'_, I>,
    device: &Record,
    role: Role,
    trial: TrialId,
    x: &I,
) -> Result<Widened, RunError> {
    let mut values = Vec::new();
    let format = guarded(device, role, trial, || f(x, &mut values))?;
    Ok(Widened { values, format })
}

/// Erases an implementation `Fn(&I) -> O`.
pub(crate) fn implementation<'a, I, O: Output>(
    f: impl Fn(&I) -> O + Sync + 'a,
) -> Implementation<'a, I> {
    Box::new(move |x, out| {
        let y = f(x);
        y.extend_f64(out);
        y.format()
    })
}

impl<I> Trial<'_, I> {
    /// Trial `trial`'s input and the kind of input its generator noted.
    pub(crate) fn draw(&self, trial: TrialId) -> Result<(I, String), RunError> {
        draw(&self.input, self.device, trial)
    }

    /// Runs the baseline, then the oracle, on `x` into `refs` (cleared
    /// first); the oracle must be finite.
    pub(crate) fn references(
        &self,
        trial: TrialId,
        x: &I,
        refs: &mut References,
    ) -> Result<(), RunError> {
        self.baseline_into(trial, x, &mut refs.baseline)?;
        self.references_oracle(trial, x, refs)
    }

    /// Runs the oracle on `x` into `refs.oracle` (cleared first); it must be
    /// finite.
    fn references_oracle(
        &self,
        trial: TrialId,
        x: &I,
        refs: &mut References,
    ) -> Result<(), RunError> {
        refs.oracle.clear();
        guarded(self.device, Role::Oracle, trial, || {
            (self.oracle)(x, &mut refs.oracle)
        })?;
        if let Some(position) = refs.oracle.iter().position(|v| !v.is_finite()) {
            return Err(TrialFault::new(
                Role::Oracle,
                trial,
                Fault::OracleNotFinite {
                    position,
                    value: refs.oracle[position],
                },
            )
            .into());
        }
        Ok(())
    }

    /// The whole of trial `index` on this thread: the input, the candidate
    /// (one input per call; a batched candidate is called on a batch of
    /// one), the references and the errors.
    pub(crate) fn run_one(
        &self,
        settings: &Settings,
        index: usize,
    ) -> Result<TrialErrors, RunError> {
        let trial = trial_id(settings, index);
        let (x, input_kind) = self.draw(trial)?;
        BUFFERS.with_borrow_mut(|(y1, refs)| {
            y1.clear();
            let format = self.candidate_one(trial, &x, y1)?;
            self.references(trial, &x, refs)?;
            measure(settings, self.device, trial, y1, format, refs, input_kind)
        })
    }

    /// Input `index` checked on this thread: its input, the candidate and
    /// the baseline, and the oracle unless the two outputs are bitwise equal
    /// and the input is not in the tie sample ([`tie_sampled`]); see
    /// [`Trial::checked`].
    pub(crate) fn check_one(&self, settings: &Settings, index: usize) -> Result<Checked, RunError> {
        let trial = trial_id(settings, index);
        let (x, input_kind) = self.draw(trial)?;
        BUFFERS.with_borrow_mut(|(y1, refs)| {
            y1.clear();
            let format = self.candidate_one(trial, &x, y1)?;
            self.baseline_into(trial, &x, &mut refs.baseline)?;
            self.checked(
                settings,
                trial,
                &x,
                (y1, format),
                &refs.baseline,
                input_kind,
            )
        })
    }

    /// Input `index`, a tie whose oracle was skipped, measured: its input
    /// drawn again, the baseline and the oracle run on it, and the
    /// candidate's output (of `format`) taken as the baseline's, which it
    /// equalled bit for bit.
    pub(crate) fn measure_tie(
        &self,
        settings: &Settings,
        index: usize,
        format: NumberFormat,
    ) -> Result<TrialErrors, RunError> {
        let trial = trial_id(settings, index);
        let (x, input_kind) = self.draw(trial)?;
        BUFFERS.with_borrow_mut(|(y1, refs)| {
            self.references(trial, &x, refs)?;
            y1.clear();
            y1.extend_from_slice(&refs.baseline);
            measure(settings, self.device, trial, y1, format, refs, input_kind)
        })
    }

    /// The baseline's output on `x`, widened into `out` (cleared first).
    pub(crate) fn baseline_into(
        &self,
        trial: TrialId,
        x: &I,
        out: &mut Vec<f64>,
    ) -> Result<(), RunError> {
        out.clear();
        guarded(self.device, Role::Baseline, trial, || {
            (self.baseline)(x, out)
        })?;
        Ok(())
    }

    /// One input checked, given the candidate's output `y` (of `format`) and
    /// the baseline's `baseline`: a tie, with no oracle, where the two are
    /// bitwise equal (their errors are then equal under every metric) and
    /// the input is not in the tie sample; otherwise the oracle runs and the
    /// input becomes a full trial.
    pub(crate) fn checked(
        &self,
        settings: &Settings,
        trial: TrialId,
        x: &I,
        (y, format): (&[f64], NumberFormat),
        baseline: &[f64],
        input_kind: String,
    ) -> Result<Checked, RunError> {
        if bitwise_equal(y, baseline) && !tie_sampled(settings.seed, trial.index) {
            return Ok(Checked::Tie);
        }
        let mut refs = References::default();
        refs.baseline.extend_from_slice(baseline);
        self.references_oracle(trial, x, &mut refs)?;
        measure(settings, self.device, trial, y, format, &refs, input_kind).map(Checked::Full)
    }

    /// The candidate's output on one input, widened into `out`.
    pub(crate) fn candidate_one(
        &self,
        trial: TrialId,
        x: &I,
        out: &mut Vec<f64>,
    ) -> Result<NumberFormat, RunError> {
        match &self.candidate {
            Candidate::One(f) => guarded(self.device, Role::Candidate, trial, || f(x, out)),
            Candidate::Batched { f, .. } => {
                let mut outputs = guarded(self.device, Role::Candidate, trial, || {
                    f(std::slice::from_ref(x))
                })?;
                if outputs.len() != 1 {
                    return Err(TrialFault::new(
                        Role::Candidate,
                        trial,
                        Fault::Batch {
                            last: trial.index,
                            len: outputs.len(),
                            expected: 1,
                        },
                    )
                    .into());
                }
                let y = outputs.swap_remove(0);
                out.extend_from_slice(&y.values);
                Ok(y.format)
            }
        }
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

thread_local! {
    /// Per-thread buffers for the widened outputs (the candidate's, then
    /// the baseline's and the oracle's), reused across trials.
    static BUFFERS: RefCell<(Vec<f64>, References)> = const {
        RefCell::new((Vec::new(), References { baseline: Vec::new(), oracle: Vec::new() }))
    };
}

/// Trial `index` of the run with `settings`.
pub(crate) fn trial_id(settings: &Settings, index: usize) -> TrialId {
    TrialId::of(settings.seed, index)
}

/// One input of a run, checked.
#[derive(Debug)]
pub(crate) enum Checked {
    /// The oracle ran: both errors are known.
    Full(TrialErrors),
    /// The candidate's and the baseline's outputs were bitwise equal and
    /// the oracle did not run: their errors are equal, whatever they are.
    Tie,
}

impl Checked {
    /// The full trial, if the oracle ran.
    pub(crate) fn full(&self) -> Option<&TrialErrors> {
        match self {
            Checked::Full(t) => Some(t),
            Checked::Tie => None,
        }
    }
}

/// One in `TIE_SAMPLE` ties (chosen by the trial's seed, before its outputs
/// are seen) runs the oracle all the same, as do the ties among the first
/// [`TIES_MEASURED_FIRST`] inputs: the errors on ties are estimated from
/// them.
pub(crate) const TIE_SAMPLE: u64 = 8;

/// The first inputs, whose ties all run the oracle (a round of a one-input
/// candidate).
pub(crate) const TIES_MEASURED_FIRST: usize = 32;

/// Whether input `index` of a run with base seed `seed` runs the oracle
/// even when the two outputs are bitwise equal.
pub(crate) fn tie_sampled(seed: u64, index: usize) -> bool {
    index < TIES_MEASURED_FIRST
        || (crate::rng::trial_seed(seed, index) >> 40).is_multiple_of(TIE_SAMPLE)
}

/// Whether two widened outputs have the same length and the same bits.
fn bitwise_equal(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
