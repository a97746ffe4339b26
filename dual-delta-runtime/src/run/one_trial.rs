//! One trial run on its own, in full ([`crate::DualDelta::replay_trial`]):
//! its input drawn from its seed, every output and both errors.

use crate::config::{Overrides, Settings};
use crate::device::Record;
use crate::error::{RunError, TrialId};
use crate::outcome::Names;
use crate::rng::trial_seed;
use crate::trial::{Functions, References, Trial, measure};
use crate::worst::{self, ReplayedTrial};

/// How a test describes an input, cut as [`worst::Cut`] says.
pub(super) type Describe<'a, I> = dyn Fn(&I, &worst::Cut) -> String + Sync + 'a;

/// Trial `seed` run on its own, in full: the body of
/// [`crate::DualDelta::replay_trial`].
pub(crate) fn replay_trial<I>(
    functions: &Functions<'_, I>,
    names: &Names,
    overrides: &Overrides,
    describe: Option<&Describe<'_, I>>,
    seed: u64,
) -> Result<ReplayedTrial, RunError> {
    let settings = Settings::resolve(&names.test, overrides)?;
    let index = (0..settings.n).find(|&i| trial_seed(settings.seed, i) == seed);
    let id = TrialId {
        index: index.unwrap_or(0),
        seed,
        base_seed: settings.seed,
    };
    let device = Record::default();
    let trial = Trial::of(functions, &device);
    let (x, kind) = trial.draw(id)?;
    let mut candidate = Vec::new();
    let format = trial.candidate_one(id, &x, &mut candidate)?;
    let mut refs = References::default();
    trial.references(id, &x, &mut refs)?;
    let errors = measure(&settings, &device, id, &candidate, format, &refs, kind)?;
    Ok(ReplayedTrial {
        index,
        seed,
        input: describe.map(|d| d(&x, &worst::Cut::chars(worst::REPLAY_CHARS))),
        candidate,
        baseline: refs.baseline,
        oracle: refs.oracle,
        delta1: errors.candidate,
        delta2: errors.baseline,
    })
}
