//! A run: the test's inputs checked in rounds, stopped early only at a
//! failure, then the gates, the statistics and the judgement (see
//! [`crate::claim`] and [`crate::screen`]).

use std::time::Instant;

use crate::baseline;
use crate::claim;
use crate::config::{Overrides, Settings};
use crate::error::RunError;
use crate::evidence::{NonFinite, NonFiniteTrial, SequentialVerdict, Summaries};
use crate::expect::Expect;
use crate::judgement::{self, Evidence};
use crate::outcome::{Names, Outcome};
use crate::output::NumberFormat;
use crate::progress::Progress;
use crate::rng::trial_seed;
use crate::schedule::{self, Look};
use crate::screen::{self, Mode, Screen};
use crate::stats::sequential::{Decision, Sequential, alpha_split};
use crate::stats::{self, Alternative, StatsError, ZeroMethod};
use crate::trial::{Checked, Trial, TrialErrors};
use crate::verdict;

/// Runs `trial` as test `names.test` with `overrides`: the body of
/// [`crate::DualDelta::run`].
pub(crate) fn run<I: Send + Sync>(
    trial: &Trial<'_, I>,
    names: &Names,
    overrides: &Overrides,
) -> Result<Outcome, RunError> {
    let settings = Settings::resolve(&names.test, overrides)?;
    let split = alpha_split(settings.expect, settings.alpha);
    let level = if settings.stop_early {
        split.fallback
    } else {
        settings.alpha
    };
    let min = settings.test.min_trials(level);
    if settings.n < min {
        return Err(RunError::TooFewTrials {
            test: settings.test.name(),
            n: settings.n,
            min,
            alpha: level,
        });
    }

    let baseline = baseline::load(&settings, &names.test)?;
    // Watched until the run returns.
    let _watch = settings
        .trial_timeout
        .map(|limit| crate::guard::watch(settings.seed, &names.test, limit));
    // A run that saves or compares a baseline measures every input, so
    // that the comparison covers all of them.
    let mode = if !settings.stop_early || baseline.is_some() || settings.baselines.save.is_some() {
        Mode::AllTrials
    } else if settings.screen {
        Mode::Screened
    } else {
        Mode::Quick
    };
    let start = Instant::now();
    // Drawn only on a terminal, outside CI, for runs longer than half a
    // second.
    let progress = Progress::new(settings.n, &names.test, settings.progress);
    let mut sequential = Sequential::new(settings.expect, settings.alpha, settings.margin)
        .and_then(|s| s.with_fixed_margin(settings.margin))?
        // A run ends early only at a failure, except in the quick mode
        // and for `expect = worse`, whose pass (the candidate shown
        // less accurate) more inputs could only confirm.
        .fail_only(mode != Mode::Quick && settings.expect != Expect::Worse);
    let mut observed: Result<(), StatsError> = Ok(());
    let mut seen = 0;
    let mut observed_total = 0;
    // An early failure carries enough evidence to be kept in a suite
    // (see [`claim::STOP_EVIDENCE`]).
    let stop_evidence = claim::STOP_EVIDENCE.max(1.0 / split.fail).log10();
    // The trials the sequential test sees: those whose outputs differ (a
    // tie is neutral); in the quick mode every trial, ties as evidence of
    // no loss beyond the margin.
    let sees = |t: &TrialErrors| mode == Mode::Quick || !t.identical_outputs;
    let look = |checked: &[Checked]| {
        let (checked_before, observed_before) = (seen, observed_total);
        let (d1, d2): (Vec<f64>, Vec<f64>) = checked[seen..]
            .iter()
            .filter_map(Checked::full)
            .filter(|t| sees(t))
            .map(|t| (t.candidate, t.baseline))
            .unzip();
        seen = checked.len();
        observed_total += d1.len();
        // The errors are never NaN (the trial checked them); an error
        // here ends the run with it.
        observed = sequential.observe(&d1, &d2);
        // A non-finite output fails the run at once: it stops after that
        // input (the earlier rounds had none).
        let gate = checked[checked_before..].iter().position(|c| {
            c.full()
                .is_some_and(|t| screen::fails_non_finite(t, &settings))
        });
        // The first new input at which the sequential test has seen
        // `after` trials and `holds` holds on the inputs so far: the same
        // on any rounds.
        let first = |after: usize, holds: &dyn Fn(usize, usize) -> bool| {
            let mut observed_so_far = observed_before;
            for k in checked_before + 1..=checked.len() {
                observed_so_far += usize::from(checked[k - 1].full().is_some_and(sees));
                if observed_so_far >= after && holds(k, observed_so_far) {
                    return Look::Stop { trials: k };
                }
            }
            Look::Continue
        };
        match sequential.decision() {
            _ if observed.is_err() => Look::Stop {
                trials: checked.len(),
            },
            _ if settings.stop_early && gate.is_some() => Look::Stop {
                trials: checked_before + gate.map_or(0, |i| i + 1),
            },
            // Once the fail side has crossed: where it carries the suite's
            // evidence and the claim's rule holds.
            Decision::Fail { after, .. } if settings.stop_early => first(after, &|k, seen| {
                sequential.trace()[seen - 1].log10_fail >= stop_evidence
                    && fails_so_far(&checked[..k], &settings, split.fail)
            }),
            // The quick mode, and `expect = worse`.
            Decision::Pass { after, .. } if settings.stop_early => first(after, &|_, _| true),
            _ => Look::Continue,
        }
    };
    let checked = schedule::run(trial, &settings, &progress, mode == Mode::Screened, look);
    progress.finish();
    let checked = checked?;
    observed?;
    let trial_time = start.elapsed();
    let screen = Screen::of(mode, &checked, settings.n);
    let trials: Vec<&TrialErrors> = checked.iter().filter_map(Checked::full).collect();
    let observed = checked
        .iter()
        .filter_map(Checked::full)
        .filter(|t| sees(t))
        .count();
    let sequential = sequential_verdict(&sequential, &settings, &screen, observed);
    let (delta1, delta2): (Vec<f64>, Vec<f64>) =
        trials.iter().map(|t| (t.candidate, t.baseline)).unzip();
    let input_kinds = trials.iter().map(|t| t.input_kind.clone()).collect();
    let identical_outputs = trials.iter().all(|t| t.identical_outputs);
    let non_finite = non_finite(&trials, &settings);
    let reference_scale = screen::reference_scale(trials.iter().copied());
    let gross = screen::gross_errors(trials.iter().copied(), reference_scale, &settings);
    let format = trials
        .first()
        .map(|t| t.format)
        .unwrap_or(NumberFormat::F64);

    let errors = screen::errors(&checked);
    let fixed_alpha = sequential.fixed_alpha(&settings);
    // The interval whose lower end is the rule's one-sided bound.
    let ratio_of_means = errors
        .interval(
            1.0 - 2.0 * fixed_alpha,
            claim::RESAMPLES,
            trial_seed(settings.seed, usize::MAX),
        )
        .ok_or_else(|| {
            let all = || delta1.iter().chain(&delta2);
            match all().position(|v| !v.is_finite()) {
                Some(index) => StatsError::InvalidValue {
                    test: "ratio of means",
                    index,
                    value: all().nth(index).copied().unwrap_or(f64::NAN),
                },
                None => StatsError::TooFewObservations {
                    test: "ratio of means",
                    needed: 1,
                    got: 0,
                },
            }
        });
    let (analysis, verdict) = verdict::analyse(
        &verdict::Sample {
            delta1: &delta1,
            delta2: &delta2,
            unmeasured_ties: screen.ties_unmeasured(),
            identical_outputs,
            ratio: errors.ratio(),
            ratio_lower: ratio_of_means.as_ref().map_or(f64::INFINITY, |r| r.lower),
        },
        settings.test,
        fixed_alpha,
        settings.margin,
    );
    let differences = stats::paired_differences(&delta1, &delta2)?;
    let summaries = Summaries {
        candidate: stats::describe(&delta1)?,
        baseline: stats::describe(&delta2)?,
        differences: stats::describe(&differences)?,
    };
    let fingerprints: Vec<u64> = trials.iter().map(|t| t.fingerprint).collect();
    let environment = crate::environment::environment();
    let regression = baseline
        .as_ref()
        .map(|b| {
            let paired: Vec<(usize, f64, u64)> = trials
                .iter()
                .map(|t| (t.index, t.candidate, t.fingerprint))
                .collect();
            baseline::against(b, &settings, &paired, &environment)
        })
        .transpose()?;
    let judgement = judgement::judge(&Evidence {
        settings: &settings,
        sequential: &sequential,
        analysis: &analysis,
        verdict: &verdict,
        summaries: &summaries,
        ratio: errors.ratio(),
        non_finite: &non_finite,
        gross: &gross,
        screen: &screen,
        regression: regression.as_ref(),
    });

    let outcome = Outcome {
        names: names.clone(),
        candidate_format: format,
        trials: trials.iter().map(|t| t.index).collect(),
        delta1,
        delta2,
        input_kinds,
        summaries,
        non_finite,
        gross,
        reference_scale,
        screen,
        sequential,
        ratio_of_means,
        analysis,
        verdict,
        judgement,
        trial_time,
        elapsed: start.elapsed(),
        environment,
        fingerprints,
        regression,
        settings,
    };
    baseline::save_if_asked(
        &outcome.settings,
        &outcome.names.test,
        &outcome.delta1,
        &outcome.delta2,
        &outcome.fingerprints,
        &outcome.environment,
    )?;
    Ok(outcome)
}

/// Whether the claim's rule ([`crate::claim`]) fails the candidate on the
/// inputs checked so far at `level` (the fail side's share of α): the
/// margin-0 signed-rank test over the full trials (ties are zeros, which
/// it drops) and the ratio of means over every input so far.
fn fails_so_far(checked: &[Checked], settings: &Settings, level: f64) -> bool {
    if settings.expect != Expect::NoWorse {
        return true;
    }
    let (d1, d2): (Vec<f64>, Vec<f64>) = checked
        .iter()
        .filter_map(Checked::full)
        .map(|t| (t.candidate, t.baseline))
        .unzip();
    let p = stats::wilcoxon(&d1, &d2, Alternative::Greater, ZeroMethod::Wilcox, false)
        .ok()
        .map(|t| t.p_value);
    let seed = trial_seed(settings.seed, usize::MAX);
    claim::fails(p, &screen::errors(checked), level, settings.margin, seed)
}

/// The sequential test's verdict over the run, as `screen` covered it, its
/// trace over the `observed` trials it saw among those kept: the run
/// stopped at it when inputs were left unchecked.
fn sequential_verdict(
    test: &Sequential,
    settings: &Settings,
    screen: &Screen,
    observed: usize,
) -> SequentialVerdict {
    SequentialVerdict {
        decision: test.decision(),
        stopped: screen.unchecked > 0 && test.decision().is_final(),
        trace: test.trace()[..observed.min(test.trace().len())].to_vec(),
        alpha_split: test.alpha_split(),
        margin: settings.margin,
    }
}

/// The trials whose outputs held a NaN or an infinity, per implementation,
/// in the order of `trials` (by index).
fn non_finite(trials: &[&TrialErrors], settings: &Settings) -> NonFinite {
    let list = |pick: fn(&TrialErrors) -> Option<(usize, f64)>| {
        trials
            .iter()
            .filter_map(|t| {
                pick(t).map(|(position, value)| NonFiniteTrial {
                    trial: t.index,
                    seed: trial_seed(settings.seed, t.index),
                    position,
                    value,
                })
            })
            .collect()
    };
    NonFinite {
        candidate: list(|t| t.candidate_non_finite),
        baseline: list(|t| t.baseline_non_finite),
    }
}
