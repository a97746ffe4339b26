//! The scheduler: runs a test's trials in rounds, in trial order, and after
//! each round lets the caller look at every trial so far and stop.
//!
//! A round is a batch of the batched candidate (its `size` trials), or
//! [`ROUND`] trials of a candidate taking one input at a time. Within a
//! round the trials run in parallel on the rayon pool (unless
//! `threads = 1`): a one-input candidate runs each trial whole on one
//! thread; a batched candidate gets the round's inputs in one call while the
//! other threads run the baseline and the oracle on the same inputs.
//!
//! Results never depend on the number of threads: each trial draws from its
//! own seed, rounds are fixed by the trial count and the batch size, and the
//! look after a round sees the trials in order and says how many to keep,
//! so a run that stops keeps exactly the same trials on any machine.

use std::ops::Range;

use crate::config::{ConfigError, Settings};
use crate::error::RunError;
use crate::progress::Progress;
use crate::trial::batch::{batch, map_range};
use crate::trial::{Candidate, Checked, Trial};

/// Trials per round for a candidate that takes one input at a time.
pub(crate) const ROUND: usize = 32;

/// What the look after a round decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    /// Run the next round.
    Continue,
    /// Stop, keeping the first `trials` trials (at most the trials run).
    Stop {
        /// How many trials to keep.
        trials: usize,
    },
}

/// Runs inputs `0..settings.n` of `trial` in rounds; after each round
/// `look` sees every input so far (in order) and may stop the run. Each
/// input is a full trial, or with `check` it is checked: the oracle is
/// skipped where the candidate's and the baseline's outputs are bitwise
/// equal (see [`Trial::checked`]). The first failure by index in a round
/// ends the run with its error.
pub(crate) fn run<I: Send + Sync>(
    trial: &Trial<'_, I>,
    settings: &Settings,
    progress: &Progress,
    check: bool,
    look: impl FnMut(&[Checked]) -> Look + Send,
) -> Result<Vec<Checked>, RunError> {
    let serial = settings.threads == Some(1);
    rounds(
        trial,
        settings,
        progress,
        0..settings.n,
        look,
        |range| match &trial.candidate {
            Candidate::One(_) => Ok(map_range(serial, range, |i| {
                if check {
                    trial.check_one(settings, i)
                } else {
                    trial.run_one(settings, i).map(Checked::Full)
                }
            })),
            Candidate::Batched { f, .. } => batch(trial, f, settings, serial, range, check),
        },
    )
}

/// The rounds of `range`: each round's results come from `round`, are
/// appended in order (the first error ends the run), and `look` decides
/// whether to go on. Runs on a pool of `settings.threads` threads when set.
fn rounds<I: Send + Sync, T: Send>(
    trial: &Trial<'_, I>,
    settings: &Settings,
    progress: &Progress,
    range: Range<usize>,
    mut look: impl FnMut(&[T]) -> Look + Send,
    round: impl Fn(Range<usize>) -> Result<Vec<Result<T, RunError>>, RunError> + Send + Sync,
) -> Result<Vec<T>, RunError> {
    let size = match &trial.candidate {
        Candidate::One(_) => ROUND,
        Candidate::Batched { size, .. } => *size,
    };
    let all = || {
        let mut done: Vec<T> = Vec::with_capacity(range.len().min(4096));
        let mut start = range.start;
        while start < range.end {
            let end = range.end.min(start + size);
            for result in round(start..end)? {
                done.push(result?);
                progress.inc();
            }
            if let Look::Stop { trials: keep } = look(&done) {
                done.truncate(keep);
                break;
            }
            start = end;
        }
        Ok(done)
    };
    on_pool(settings, all)
}

/// Runs `f` on a pool of `settings.threads` threads when set, on the
/// global pool otherwise.
fn on_pool<R: Send>(
    settings: &Settings,
    f: impl FnOnce() -> Result<R, RunError> + Send,
) -> Result<R, RunError> {
    match settings.threads {
        Some(t) if t > 1 => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| {
                RunError::Config(ConfigError {
                    source: "threads".to_owned(),
                    value: format!("{t} ({e})"),
                    expected: "a thread count the system can start",
                })
            })?
            .install(f),
        _ => f(),
    }
}

/// Measures every tie of `checked` the oracle skipped: its input drawn
/// again, the baseline and the oracle run on it (the candidate's output is
/// the baseline's, bit for bit), in parallel as the rounds are. The first
/// failure by index ends the run with its error.
pub(crate) fn measure_ties<I: Send + Sync>(
    trial: &Trial<'_, I>,
    settings: &Settings,
    checked: &mut [Checked],
) -> Result<(), RunError> {
    let Some(format) = checked.iter().find_map(Checked::full).map(|t| t.format) else {
        return Ok(());
    };
    let skipped: Vec<usize> = (0..checked.len())
        .filter(|&i| matches!(checked[i], Checked::Tie))
        .collect();
    let serial = settings.threads == Some(1);
    let measured = on_pool(settings, || {
        Ok(map_range(serial, 0..skipped.len(), |k| {
            trial.measure_tie(settings, skipped[k], format)
        }))
    })?;
    for (k, t) in measured.into_iter().enumerate() {
        checked[skipped[k]] = Checked::Full(t?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;
    use crate::device::Record;
    use crate::trial::{Functions, Widened, implementation};

    fn settings(n: usize, threads: Option<usize>) -> Settings {
        let overrides = Overrides {
            n: Some(n),
            seed: Some(5),
            threads,
            ..Overrides::default()
        };
        Settings::resolve_with("schedule", &overrides, |_| None).unwrap()
    }

    fn input(rng: &mut crate::rng::TrialRng) -> f32 {
        rng.seed() as f32
    }

    /// Runs `trial` over `n` inputs, keeping 37 trials once a look sees
    /// 40 when `stop`: the candidate's errors on the trials kept, and the
    /// trials each look saw.
    fn looked(
        functions: &Functions<'_, f32>,
        n: usize,
        threads: Option<usize>,
        stop: bool,
    ) -> (Vec<f64>, Vec<usize>) {
        let mut looks = Vec::new();
        let device = Record::default();
        let kept = run(
            &Trial::of(functions, &device),
            &settings(n, threads),
            &Progress::hidden(),
            false,
            |t| {
                looks.push(t.len());
                if stop && t.len() >= 40 {
                    Look::Stop { trials: 37 }
                } else {
                    Look::Continue
                }
            },
        )
        .unwrap();
        let errors = kept.iter().map(|t| t.full().unwrap().candidate);
        (errors.collect(), looks)
    }

    #[test]
    fn a_look_stops_the_run_keeping_the_same_trials_on_any_number_of_threads() {
        let functions = |candidate| Functions {
            candidate,
            baseline: implementation(|x: &f32| *x),
            oracle: implementation(|x: &f32| f64::from(*x)),
            input: Box::new(input),
        };
        let one = functions(Candidate::One(implementation(|x: &f32| x * 1.5)));
        let batched = functions(Candidate::Batched {
            f: Box::new(|xs: &[f32]| xs.iter().map(|x| Widened::of(&(x * 1.5))).collect()),
            size: 7,
        });
        for functions in [&one, &batched] {
            let runs: Vec<_> = [Some(1), Some(2), None]
                .into_iter()
                .map(|threads| looked(functions, 200, threads, true))
                .collect();
            assert_eq!(runs[0].0.len(), 37);
            assert!(runs.windows(2).all(|w| w[0] == w[1]));
        }
        // Rounds: 32 trials for a one-input candidate, the batch size for a
        // batched one.
        let looks = |functions: &Functions<'_, f32>| looked(functions, 70, None, false).1;
        assert_eq!(looks(&one), [32, 64, 70]);
        assert_eq!(
            looks(&batched),
            (1..=10).map(|r| (7 * r).min(70)).collect::<Vec<_>>()
        );
    }
}
