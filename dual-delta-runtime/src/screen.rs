//! The screen: what an early pass checks before it is final, and the
//! gross-error gate.
//!
//! The sequential test can pass a run after a handful of trials. Its claim
//! is about typical inputs: the candidate is not worse beyond the margin on
//! most of them. After `k` trials nothing can be said about events rarer
//! than about one in `k`, yet `n` is how many inputs the test was asked to
//! check. So, before an early pass is final, every one of the `n` inputs is
//! *screened*:
//!
//! 1. the candidate and the baseline run on each input the sequential test
//!    did not need (the oracle, usually the costly part, does not);
//! 2. an input is *flagged* when the candidate's output holds a NaN or an
//!    infinity where the baseline's is finite, or when its distance from
//!    the baseline's output (the test's metric, with the baseline's output
//!    as the reference) exceeds `G · m / 8`;
//! 3. a flagged input runs the oracle and becomes a full trial, which the
//!    two gates below judge exactly as at fixed `N`; a panic or an error of
//!    any function on any input ends the run with that error, naming the
//!    trial and its seed.
//!
//! The screen stops at the end of the first round in which a gate fails.
//! A flagged trial's errors are reported but not added to Δ1 and Δ2: they
//! were chosen for being far from the baseline, so they would bias the
//! paired tests; the gates, not the statistics, judge them.
//!
//! # The gates
//!
//! Both apply to every full trial, with early stopping on or off, so the
//! two modes judge the same events:
//!
//! * **non-finite**: the candidate returned a NaN or an infinity where the
//!   baseline and the oracle were finite (unless
//!   [`Settings::allow_non_finite`](crate::Settings::allow_non_finite));
//! * **gross error**: the candidate's error exceeds `G` × the larger of
//!   the baseline's error on the same input and `m`, the median of the
//!   baseline's positive errors over the trials that decided the run (the
//!   candidate's when the baseline's are all zero). `G` is
//!   [`Settings::gross_factor`](crate::Settings::gross_factor), 100 by
//!   default: two orders of magnitude beyond anything the baseline shows,
//!   which no rounding difference reaches on errors of ordinary spread.
//!
//! Either fails the run whatever the statistics say (with `expect = worse`
//! it counts as the candidate being worse).
//!
//! # The guarantee
//!
//! With the screen on, a pass means: on **every one** of the `n` inputs
//! drawn, the candidate returned a finite output wherever the baseline did,
//! raised no panic or error, and made no gross error. This is exhaustive
//! over the inputs drawn, not a probability. For the input distribution it
//! rules out, at confidence `1 − β`, any rate of these events above
//! `ln(1/β) / n` (inputs i.i.d. from the generator): above 0.46 % for
//! `n = 1000` at 99 %.
//!
//! No gross error is missed when the metric satisfies
//! `ε(y1, o) ≤ ε(y2, o) + (1 + ε(y2, o)) · ε(y1, y2)`, which the hybrid,
//! relative and absolute metrics do, and `m < 1`: a gross error then lies
//! at distance above `(G − 1) · m / 2 > G · m / 8` from the baseline, so it
//! is flagged. `max_ulp` meets the bound up to a factor 2 (the ulp of the
//! baseline's output against the oracle's), which the `/ 8` covers. For a
//! custom metric the screen flags by the same metric and guarantees only
//! the non-finite and panic checks.
//!
//! The price is one run of the candidate and of the baseline per input not
//! needed by the sequential test, and the oracle on flagged inputs only.
//! `screen = false` (or `DUAL_DELTA_SCREEN=0`) makes the early pass final
//! without it; the report then says that rare events were not checked.

use crate::config::Settings;
use crate::error::RunError;
use crate::evidence::SequentialVerdict;
use crate::expect::Expect;
use crate::progress::Progress;
use crate::rng::trial_seed;
use crate::schedule::{self, Look};
use crate::stats::sequential::Decision;
use crate::trial::{Trial, TrialErrors};

pub use crate::trial::Flag;

/// A trial the screen ran the oracle on.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlaggedTrial {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed ([`crate::TrialRng::from_trial_seed`] replays its
    /// input).
    pub seed: u64,
    /// Why it was flagged.
    #[serde(flatten)]
    pub flag: Flag,
    /// The candidate's error on it.
    pub delta1: f64,
    /// The baseline's error on it.
    pub delta2: f64,
}

/// Why a run needed no screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoScreen {
    /// Every input ran as a full trial (early stopping off, or no early
    /// decision before the cap).
    AllTrials,
    /// The run failed before it could pass.
    Failed,
    /// The run passed on `expect = worse`: whatever the screen found could
    /// only confirm that the candidate is worse.
    OnlyConfirms,
}

/// What the screen did in a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "screen", rename_all = "snake_case")]
pub enum Screen {
    /// Nothing was left to screen.
    NotNeeded {
        /// Why.
        why: NoScreen,
    },
    /// The screen is off ([`Settings::screen`]): the early pass is final
    /// and `unchecked` inputs never ran.
    Off {
        /// The inputs never run.
        unchecked: usize,
    },
    /// The screen ran on inputs `from .. to`: all the rest of the run's
    /// `n` when `to == n`, fewer when a gate failed on the way.
    Ran {
        /// The first input screened (the trials the sequential test ran).
        from: usize,
        /// One past the last input screened.
        to: usize,
        /// The distance from the baseline above which an input was flagged.
        threshold: f64,
        /// The inputs flagged, with their errors.
        flagged: Vec<FlaggedTrial>,
    },
}

impl Screen {
    /// The number of inputs the candidate ran on in the screen.
    pub fn screened(&self) -> usize {
        match self {
            Screen::Ran { from, to, .. } => to - from,
            _ => 0,
        }
    }

    /// The inputs flagged, if the screen ran.
    pub fn flagged(&self) -> &[FlaggedTrial] {
        match self {
            Screen::Ran { flagged, .. } => flagged,
            _ => &[],
        }
    }
}

/// A trial on which the candidate's error was gross (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GrossError {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed.
    pub seed: u64,
    /// The candidate's error.
    pub delta1: f64,
    /// The baseline's error.
    pub delta2: f64,
    /// The reference error it was compared with: the larger of `delta2`
    /// and the median reference error `m`.
    pub reference: f64,
}

/// `m`: the median of the baseline's positive finite errors over `trials`,
/// or of the candidate's when the baseline has none; `None` when neither
/// has any (the gross-error gate is then off).
pub(crate) fn reference_scale(trials: &[TrialErrors]) -> Option<f64> {
    let median_positive = |pick: fn(&TrialErrors) -> f64| {
        let mut v: Vec<f64> = trials
            .iter()
            .map(pick)
            .filter(|e| e.is_finite() && *e > 0.0)
            .collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(v[n / 2]),
            _ => Some(0.5 * (v[n / 2 - 1] + v[n / 2])),
        }
    };
    median_positive(|t| t.baseline).or_else(|| median_positive(|t| t.candidate))
}

/// The screen's threshold on the distance from the baseline: `G · m / 8`
/// (`+inf` without a scale: only non-finite outputs are flagged then).
pub(crate) fn threshold(scale: Option<f64>, factor: f64) -> f64 {
    scale.map_or(f64::INFINITY, |m| factor * m / 8.0)
}

/// Whether trial `t` is a gross error at scale `m` and factor `G`.
fn gross(t: &TrialErrors, scale: Option<f64>, factor: f64) -> Option<f64> {
    let reference = t.baseline.max(scale?);
    (t.candidate.is_finite() && t.candidate > factor * reference).then_some(reference)
}

/// The gross errors among `trials`, in the order given.
pub(crate) fn gross_errors<'a>(
    trials: impl IntoIterator<Item = &'a TrialErrors>,
    scale: Option<f64>,
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

/// Whether trial `t` fails a gate.
fn fails_gate(t: &TrialErrors, scale: Option<f64>, settings: &Settings) -> bool {
    let non_finite = t.candidate_non_finite.is_some() && t.baseline_non_finite.is_none();
    (non_finite && !settings.allow_non_finite) || gross(t, scale, settings.gross_factor).is_some()
}

/// The screen after the sequential test over `trials` (the trials the run
/// kept, whose [`reference_scale`] is `scale`): runs it where an early pass
/// needs it, and returns what it did and the full trials of the inputs it
/// flagged.
pub(crate) fn after<I: Send + Sync>(
    trial: &Trial<'_, I>,
    settings: &Settings,
    progress: &Progress,
    sequential: &SequentialVerdict,
    trials: &[TrialErrors],
    scale: Option<f64>,
) -> Result<(Screen, Vec<TrialErrors>), RunError> {
    let kept = trials.len();
    let not_needed = |why| Ok((Screen::NotNeeded { why }, Vec::new()));
    if !sequential.stopped || kept >= settings.n {
        return not_needed(NoScreen::AllTrials);
    }
    if matches!(sequential.decision, Decision::Fail { .. })
        || trials.iter().any(|t| fails_gate(t, scale, settings))
    {
        return not_needed(NoScreen::Failed);
    }
    if settings.expect == Expect::Worse {
        return not_needed(NoScreen::OnlyConfirms);
    }
    if !settings.screen {
        return Ok((
            Screen::Off {
                unchecked: settings.n - kept,
            },
            Vec::new(),
        ));
    }
    let threshold = threshold(scale, settings.gross_factor);
    let look = |done: &[crate::trial::Screened]| {
        let failed = done
            .iter()
            .filter_map(|s| s.errors.as_ref())
            .any(|t| fails_gate(t, scale, settings));
        if failed {
            Look::Stop { trials: done.len() }
        } else {
            Look::Continue
        }
    };
    let screened = schedule::screen(trial, settings, progress, kept..settings.n, threshold, look)
        .map_err(|error| match error {
        RunError::Skipped { .. } => error,
        error => RunError::InScreen {
            after: kept,
            error: Box::new(error),
        },
    })?;
    let to = kept + screened.len();
    let mut flagged = Vec::new();
    let mut full = Vec::new();
    for s in screened {
        if let (Some(flag), Some(t)) = (s.flag, s.errors) {
            flagged.push(FlaggedTrial {
                trial: t.index,
                seed: trial_seed(settings.seed, t.index),
                flag,
                delta1: t.candidate,
                delta2: t.baseline,
            });
            full.push(t);
        }
    }
    Ok((
        Screen::Ran {
            from: kept,
            to,
            threshold,
            flagged,
        },
        full,
    ))
}
