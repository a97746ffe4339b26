//! A run, in stages: **plan** (the settings, their levels, the mode, a
//! saved baseline) → **schedule** (rounds of inputs, [`crate::schedule`])
//! watched by the **monitor** (which may stop at a failure,
//! [`crate::decide`]) → **collect** (one pass over the inputs run: errors,
//! ties, gates, summaries) → **decide** (the tests, the claim, the
//! judgement) → **publish** (the outcome, and the baseline it saves).

use std::time::{Duration, Instant};

use crate::advice::{self, MetricAdvice};
use crate::baseline::{self, Baseline, Regression};
use crate::config::{Overrides, Process, Settings};
use crate::decide::claim::{self, Claim, Errors};
use crate::decide::{self, Evidence, Judgement, Levels, Monitor};
use crate::decide::{GrossError, OverBound};
use crate::device::Record;
use crate::error::TrialId;
use crate::error::{NothingCompared, RunError, TooFewTrials};
use crate::evidence::{NonFinite, NonFiniteTrial, SequentialEvidence, Summaries};
use crate::outcome::{Names, Outcome};
use crate::output::NumberFormat;
use crate::progress::Progress;
use crate::rng::trial_seed;
use crate::rule::Rule;
use crate::schedule;
use crate::screen::{Mode, Screen};
use crate::stats;
use crate::stats::sequential::Sequential;
use crate::trial::{Checked, Functions, Trial, TrialErrors};
use crate::verdict::{self, Analysis, PairedTest, Verdict};
use crate::worst::{self, AtWorst, WorstInput};

mod locate;
mod one_trial;
pub(crate) use self::locate::FeatureFn;
use self::locate::{Measured, WorstElement, locate};
use self::one_trial::Describe;
pub(crate) use self::one_trial::replay_trial;
use crate::regions::Localization;

/// Runs `functions` as test `names.test` with `overrides`: the body of
/// [`crate::DualDelta::run`].
pub(crate) fn run<I: Send + Sync>(
    functions: &Functions<'_, I>,
    names: &Names,
    overrides: &Overrides,
    describe: Option<&Describe<'_, I>>,
    features: &[FeatureFn<'_, I>],
) -> Result<Outcome, RunError> {
    // The run's own record of the device its functions use.
    let device = Record::default();
    let trial = &Trial::of(functions, &device);
    let plan = Plan::of(&names.test, overrides)?;
    let settings = &plan.settings;
    // Watched until the run returns.
    let _watch = settings
        .trial_timeout
        .map(|limit| crate::guard::watch(device.run(), &names.test, limit));
    let start = Instant::now();
    // Drawn only on a terminal, outside CI, for runs longer than half a
    // second.
    let progress = Progress::new(settings.n, &names.test, plan.progress);
    let mut monitor = Monitor::new(settings, &plan.levels, plan.mode)?;
    let checked = schedule::run(
        trial,
        settings,
        &progress,
        plan.mode == Mode::Screened,
        |c| monitor.observe(c),
    );
    progress.finish();
    let mut checked = checked?;
    let sequential = monitor.finish()?;
    measure_skipped_ties(trial, &plan, &sequential, &mut checked)?;
    let trial_time = start.elapsed();
    let collected = Collected::of(&plan, &checked, &sequential)?;
    let decided = Decided::of(trial, &plan, &collected, features, &device)?;
    let worst_inputs = show_worst(trial, &plan, &collected, describe);
    let outcome = publish(
        names,
        plan,
        collected,
        decided,
        worst_inputs,
        Timing {
            trials: trial_time,
            elapsed: start.elapsed(),
        },
    )?;
    Ok(outcome)
}

/// What a run will do, from its settings alone.
struct Plan {
    settings: Settings,
    levels: Levels,
    mode: Mode,
    /// The saved baseline to compare with.
    baseline: Option<Baseline>,
    /// Whether the progress line may be drawn (the process's setting).
    progress: bool,
}

impl Plan {
    fn of(test: &str, overrides: &Overrides) -> Result<Plan, RunError> {
        let settings = Settings::resolve(test, overrides)?;
        let levels = Levels::of(&settings);
        if settings.n < levels.min_n {
            return Err(RunError::TooFewTrials(TooFewTrials {
                test: settings.test.key(),
                n: settings.n,
                min: levels.min_n,
                alpha: levels.test_level,
            }));
        }
        let baseline = baseline::load(&settings, test)?;
        // A run that saves or compares a baseline measures every input, so
        // that the comparison covers all of them, whatever it expects.
        // So does a run with a documented bound: every input is checked
        // against it.
        // The paper's rule never stops early, and needs no oracle on a tie
        // (bitwise-equal outputs have equal errors: a zero difference,
        // which its paired test drops, or counts as zero for the t-test):
        // every input screened, decided exactly as over full trials.
        let paper = settings.rule == Rule::Paper;
        let mode = if baseline.is_some()
            || settings.baselines.save.is_some()
            || settings.bound.is_some()
            || (!settings.stop_early && !paper)
        {
            Mode::AllTrials
        } else if settings.screen || paper {
            Mode::Screened
        } else {
            Mode::Quick
        };
        let progress = Process::from_env()?.shows_progress(crate::config::env_var);
        Ok(Plan {
            settings,
            levels,
            mode,
            baseline,
            progress,
        })
    }
}

/// The ties the oracle skipped, measured where the claim's decision in
/// mean depends on their errors ([`claim::needs_skipped_ties`]): a run
/// never fails on an estimate of them.
fn measure_skipped_ties<I: Send + Sync>(
    trial: &Trial<'_, I>,
    plan: &Plan,
    sequential: &Sequential,
    checked: &mut [Checked],
) -> Result<(), RunError> {
    let s = &plan.settings;
    let stopped = checked.len() < s.n && sequential.crossed().is_final();
    let fixed = plan
        .levels
        .fixed_after(stopped, &sequential.crossed(), plan.mode == Mode::Quick);
    if claim::needs_skipped_ties(&Errors::of(checked), fixed, s.margin) {
        schedule::measure_ties(trial, s, checked)?;
    }
    Ok(())
}

/// How long a run took: its trials alone, and in all.
struct Timing {
    trials: Duration,
    elapsed: Duration,
}

/// One pass over the inputs run: everything the decision reads.
struct Collected {
    delta1: Vec<f64>,
    delta2: Vec<f64>,
    indices: Vec<usize>,
    input_kinds: Vec<String>,
    /// Each full trial's candidate and baseline outputs at its worst
    /// element.
    outputs_at_worst: Vec<(f64, f64)>,
    /// Each full trial's worst element: the oracle there, where it is, and
    /// whether the trial's outputs were identical.
    worst: Vec<WorstElement>,
    /// Advice on the metric.
    metric_advice: Option<MetricAdvice>,
    fingerprints: Vec<u64>,
    format: NumberFormat,
    identical_outputs: bool,
    errors: Errors,
    screen: Screen,
    sequential: SequentialEvidence,
    non_finite: NonFinite,
    reference_scale: f64,
    gross: Vec<GrossError>,
    over_bound: Option<OverBound>,
    summaries: Summaries,
}

impl Collected {
    fn of(plan: &Plan, checked: &[Checked], sequential: &Sequential) -> Result<Self, RunError> {
        let s = &plan.settings;
        let screen = Screen::of(plan.mode, checked, s.n);
        let trials: Vec<&TrialErrors> = checked.iter().filter_map(Checked::full).collect();
        // Nothing compared is no pass.
        if !trials.is_empty() && trials.iter().all(|t| t.compared() == 0) {
            return Err(RunError::NothingCompared(NothingCompared {
                measured: trials.len(),
            }));
        }
        let (delta1, delta2): (Vec<f64>, Vec<f64>) =
            trials.iter().map(|t| (t.candidate, t.baseline)).unzip();
        let reference_scale = decide::reference_scale(trials.iter().copied());
        let differences = stats::paired_differences(&delta1, &delta2)?;
        let summaries = Summaries {
            candidate: stats::describe(&delta1)?,
            baseline: stats::describe(&delta2)?,
            differences: stats::describe(&differences)?,
        };
        Ok(Collected {
            indices: trials.iter().map(|t| t.index).collect(),
            input_kinds: trials.iter().map(|t| t.input_kind.clone()).collect(),
            outputs_at_worst: trials.iter().map(|t| t.outputs_at_worst).collect(),
            worst: trials
                .iter()
                .map(|t| WorstElement {
                    oracle: t.oracle_at_worst,
                    element: t.worst,
                    tie: t.identical_outputs,
                })
                .collect(),
            metric_advice: advice::advise(
                s.metric.name(),
                &trials
                    .iter()
                    .filter_map(|t| t.relative.map(|r| (t.candidate, t.baseline, r)))
                    .collect::<Vec<_>>(),
                s.margin,
            ),
            fingerprints: trials.iter().map(|t| t.fingerprint).collect(),
            format: trials.first().map_or(NumberFormat::F64, |t| t.format),
            identical_outputs: trials.iter().all(|t| t.identical_outputs),
            errors: Errors::of(checked),
            sequential: SequentialEvidence {
                crossed: sequential.crossed(),
                stopped: screen.unchecked > 0 && sequential.crossed().is_final(),
                trace: sequential.trace().to_vec(),
                alpha_split: plan.levels.split,
                margin: s.margin,
            },
            non_finite: non_finite(&trials, s),
            gross: decide::gross_errors(trials.iter().copied(), reference_scale, s),
            over_bound: decide::over_bound(trials.iter().copied(), s),
            reference_scale,
            screen,
            summaries,
            delta1,
            delta2,
        })
    }
}

/// The tests over every input run, the claim, where the loss is, the
/// comparison with a saved baseline and the judgement.
struct Decided {
    analysis: Analysis,
    claim: Claim,
    regions: Option<Localization>,
    verdict: Verdict,
    regression: Option<Regression>,
    judgement: Judgement,
    environment: std::collections::BTreeMap<String, String>,
}

impl Decided {
    fn of<I: Send + Sync>(
        trial: &Trial<'_, I>,
        plan: &Plan,
        c: &Collected,
        features: &[FeatureFn<'_, I>],
        device: &Record,
    ) -> Result<Self, RunError> {
        let s = &plan.settings;
        let fixed = plan.levels.fixed_after(
            c.sequential.stopped,
            &c.sequential.crossed,
            c.screen.mode == Mode::Quick,
        );
        let sample = verdict::Sample {
            delta1: &c.delta1,
            delta2: &c.delta2,
            unmeasured_ties: c.screen.ties_unmeasured(),
            identical_outputs: c.identical_outputs,
        };
        let analysis = verdict::analyse(&sample, s.test, fixed.level());
        let claim = claim::assess(
            &c.errors,
            fixed,
            s.margin,
            &PairedTest::of_analysis(&analysis),
        );
        let accuracy = match s.rule {
            Rule::Paper => decide::paper_accuracy(&analysis, fixed.level()),
            _ => claim.accuracy(),
        };
        let verdict = verdict::verdicts(&analysis, &sample, accuracy, fixed.level());
        let environment = crate::environment::of_run(device.facts().as_ref());
        let regression = plan
            .baseline
            .as_ref()
            .map(|b| {
                let paired: Vec<(usize, f64, u64)> = (0..c.indices.len())
                    .map(|i| (c.indices[i], c.delta1[i], c.fingerprints[i]))
                    .collect();
                baseline::against(b, s, &plan.levels, &paired, &environment)
            })
            .transpose()?;
        let judgement = decide::judge(&Evidence {
            settings: s,
            levels: &plan.levels,
            fixed,
            sequential: &c.sequential,
            analysis: &analysis,
            claim: &claim,
            verdict: &verdict,
            summaries: &c.summaries,
            non_finite: &c.non_finite,
            gross: &c.gross,
            over_bound: c.over_bound,
            screen: &c.screen,
            regressed: regression.as_ref().is_some_and(Regression::fails),
        });
        // Where the loss is, for a run that fails the claim: nothing for a
        // pass.
        let regions = claim.less_accurate().then(|| {
            let measured = Measured {
                settings: s,
                level: claim.level,
                screen: &c.screen,
                indices: &c.indices,
                delta1: &c.delta1,
                delta2: &c.delta2,
                worst: &c.worst,
            };
            locate(trial, &measured, features)
        });
        Ok(Decided {
            analysis,
            claim,
            regions,
            verdict,
            regression,
            judgement,
            environment,
        })
    }
}

/// The trials with the candidate's largest errors, their inputs drawn
/// again from their seeds and described where the test can.
fn show_worst<I>(
    trial: &Trial<'_, I>,
    plan: &Plan,
    c: &Collected,
    describe: Option<&Describe<'_, I>>,
) -> Vec<WorstInput> {
    let seed = plan.settings.seed;
    worst::positions(&c.delta1)
        .into_iter()
        .map(|p| {
            let index = c.indices[p];
            let id = TrialId::of(seed, index);
            let (candidate, baseline) = c.outputs_at_worst[p];
            let WorstElement {
                oracle, element, ..
            } = c.worst[p];
            let cut = worst::Cut {
                max: worst::MAX_CHARS,
                around: Some(element),
            };
            let input = describe.map(|describe| match trial.draw(id) {
                Ok((x, _)) => describe(&x, &cut),
                Err(e) => format!("(could not be drawn again: {e})"),
            });
            WorstInput {
                at: AtWorst {
                    trial: index,
                    seed: id.seed,
                    delta1: c.delta1[p],
                    delta2: c.delta2[p],
                    element,
                    candidate,
                    baseline,
                    oracle,
                },
                input,
            }
        })
        .collect()
}

/// The outcome of the run, and the baseline it saves if asked to.
fn publish(
    names: &Names,
    plan: Plan,
    c: Collected,
    d: Decided,
    worst_inputs: Vec<WorstInput>,
    timing: Timing,
) -> Result<Outcome, RunError> {
    let Timing {
        trials: trial_time,
        elapsed,
    } = timing;
    let outcome = Outcome {
        names: names.clone(),
        candidate_format: c.format,
        trials: c.indices,
        delta1: c.delta1,
        delta2: c.delta2,
        input_kinds: c.input_kinds,
        summaries: c.summaries,
        non_finite: c.non_finite,
        gross: c.gross,
        reference_scale: c.reference_scale,
        screen: c.screen,
        sequential: c.sequential,
        analysis: d.analysis,
        claim: d.claim,
        regions: d.regions,
        metric_advice: c.metric_advice,
        verdict: d.verdict,
        judgement: d.judgement,
        levels: plan.levels,
        trial_time,
        elapsed,
        environment: d.environment,
        fingerprints: c.fingerprints,
        regression: d.regression,
        worst_inputs,
        check: None,
        settings: plan.settings,
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
