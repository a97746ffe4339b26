//! The harness: the paper's Algorithm 1 as a builder.

use std::marker::PhantomData;
use std::time::Instant;

use crate::baseline;
use crate::claim;
use crate::config::{Overrides, Settings};
use crate::error::RunError;
use crate::evidence::{NonFinite, NonFiniteTrial, SequentialVerdict, Summaries};
use crate::expect::Expect;
use crate::judgement::{self, Evidence};
use crate::metric::Metric;
use crate::outcome::{Names, Outcome};
use crate::output::{NumberFormat, Output};
use crate::progress::Progress;
use crate::rng::{TrialRng, trial_seed};
use crate::schedule::{self, Look};
use crate::screen::{self, Mode, Screen};
use crate::stats::sequential::{Decision, Sequential, alpha_split};
use crate::stats::{self, Alternative, StatsError, ZeroMethod};
use crate::trial::{Candidate, Checked, Trial, TrialErrors, Widened, implementation};
use crate::verdict::{self, AccuracyTest};

/// A Dual-Delta Test over a candidate f1, a baseline f2, an oracle fΩ and an
/// input generator (the paper's Algorithm 1).
///
/// ```
/// use dual_delta_runtime::prelude::*;
///
/// fn naive(x: &Vec<f32>) -> f32 { x.iter().sum() }
/// fn kahan(x: &Vec<f32>) -> f32 {
///     let (mut s, mut c) = (0.0f32, 0.0f32);
///     for &v in x { let y = v - c; let t = s + y; c = (t - s) - y; s = t; }
///     s
/// }
/// fn exact(x: &Vec<f32>) -> f64 { x.iter().map(|&v| f64::from(v)).sum() }
/// fn input(rng: &mut TrialRng) -> Vec<f32> {
///     (0..1000).map(|_| rng.random_range(0.0f32..1.0)).collect()
/// }
///
/// let outcome = DualDelta::new(naive, kahan, exact, input).n(200).run().unwrap();
/// assert_eq!(outcome.verdict.accuracy, Accuracy::LessAccurate);
/// ```
///
/// Trial `i` draws its input from [`TrialRng::for_trial`]`(seed, i)`, so runs
/// are reproducible and trials run in parallel (results are identical to a
/// serial run). The environment overrides `n`, the seed and α (see
/// [the crate docs](crate#configuration)).
///
/// The four functions are erased when the test is made: from there on a
/// `DualDelta` is generic only over the input type `I`, and `'a` is the
/// lifetime of what the functions borrow.
pub struct DualDelta<'a, I> {
    trial: Trial<'a, I>,
    names: Names,
    overrides: Overrides,
    _input: PhantomData<fn() -> I>,
}

/// The trials a batched candidate receives per call unless
/// [`DualDelta::batch_size`] says otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 32;

impl<'a, I: Send + Sync> DualDelta<'a, I> {
    /// A test of `candidate` (f1) against `baseline` (f2), both measured
    /// against `oracle` (fΩ) on inputs from `input`: the paper's order.
    pub fn new<C, B, O, G, O1, O2, OO>(candidate: C, baseline: B, oracle: O, input: G) -> Self
    where
        C: Fn(&I) -> O1 + Sync + 'a,
        B: Fn(&I) -> O2 + Sync + 'a,
        O: Fn(&I) -> OO + Sync + 'a,
        G: Fn(&mut TrialRng) -> I + Sync + 'a,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        DualDelta {
            names: Names::of::<C, B, O, G>(),
            trial: Trial {
                candidate: Candidate::One(implementation(candidate)),
                baseline: implementation(baseline),
                oracle: implementation(oracle),
                input: Box::new(input),
            },
            overrides: Overrides::default(),
            _input: PhantomData,
        }
    }

    /// A test whose candidate takes many trials' inputs at once and returns
    /// their outputs in the same order: a GPU kernel that runs a whole batch
    /// in one submission, say. Each call receives up to
    /// [`DEFAULT_BATCH_SIZE`] consecutive trials (see
    /// [`DualDelta::batch_size`]); while it runs, the baseline and the
    /// oracle of the same trials run on the other threads.
    ///
    /// The trials, their seeds and their errors are those of
    /// [`DualDelta::new`] with a candidate that gives the same outputs one
    /// input at a time: batching changes the speed, never the verdict.
    ///
    /// ```
    /// use dual_delta_runtime::prelude::*;
    ///
    /// fn naive(x: &Vec<f32>) -> f32 { x.iter().sum() }
    /// fn naive_batch(xs: &[Vec<f32>]) -> Vec<f32> { xs.iter().map(naive).collect() }
    /// fn exact(x: &Vec<f32>) -> f64 { x.iter().map(|&v| f64::from(v)).sum() }
    /// fn input(rng: &mut TrialRng) -> Vec<f32> {
    ///     (0..100).map(|_| rng.random_range(0.0f32..1.0)).collect()
    /// }
    ///
    /// let batched = DualDelta::batched(naive_batch, naive, exact, input)
    ///     .batch_size(16)
    ///     .n(100)
    ///     .run()
    ///     .unwrap();
    /// let one_by_one = DualDelta::new(naive, naive, exact, input).n(100).run().unwrap();
    /// assert_eq!(batched.delta1, one_by_one.delta1);
    /// ```
    pub fn batched<C, B, O, G, O1, O2, OO>(candidate: C, baseline: B, oracle: O, input: G) -> Self
    where
        C: Fn(&[I]) -> Vec<O1> + Sync + 'a,
        B: Fn(&I) -> O2 + Sync + 'a,
        O: Fn(&I) -> OO + Sync + 'a,
        G: Fn(&mut TrialRng) -> I + Sync + 'a,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        DualDelta {
            names: Names::of::<C, B, O, G>(),
            trial: Trial {
                candidate: Candidate::Batched {
                    f: Box::new(move |xs| candidate(xs).iter().map(Widened::of).collect()),
                    size: DEFAULT_BATCH_SIZE,
                },
                baseline: implementation(baseline),
                oracle: implementation(oracle),
                input: Box::new(input),
            },
            overrides: Overrides::default(),
            _input: PhantomData,
        }
    }

    /// The most trials the batched candidate receives per call (default
    /// [`DEFAULT_BATCH_SIZE`]; the last call of a run may get fewer).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    #[track_caller]
    pub fn batch_size(mut self, size: usize) -> Self {
        assert!(size > 0, "a batch holds at least one trial");
        match &mut self.trial.candidate {
            Candidate::Batched { size: s, .. } => *s = size,
            Candidate::One(_) => panic!(
                "batch_size is for a batched candidate (DualDelta::batched); this one takes one \
                 input at a time"
            ),
        }
        self
    }

    /// Names the test (also the default seed's source) and the three
    /// implementations, for tables and reports.
    pub fn names(mut self, names: Names) -> Self {
        self.names = names;
        self
    }

    /// Names the test; the default base seed is derived from it.
    pub fn test_name(mut self, name: impl Into<String>) -> Self {
        self.names.test = name.into();
        self
    }

    /// Names the candidate and the baseline.
    pub fn labels(mut self, candidate: impl Into<String>, baseline: impl Into<String>) -> Self {
        self.names.candidate = candidate.into();
        self.names.baseline = baseline.into();
        self
    }

    /// Number of trials N (default 1000; `DUAL_DELTA_N` overrides).
    pub fn n(mut self, n: usize) -> Self {
        self.overrides.n = Some(n);
        self
    }

    /// Base seed (default: derived from the test name; `DUAL_DELTA_SEED`
    /// overrides).
    pub fn seed(mut self, seed: u64) -> Self {
        self.overrides.seed = Some(seed);
        self
    }

    /// Significance level α (default 0.01; `DUAL_DELTA_ALPHA` overrides).
    pub fn alpha(mut self, alpha: f64) -> Self {
        self.overrides.alpha = Some(alpha);
        self
    }

    /// Error metric (default [`Metric::MaxHybrid`]).
    pub fn metric(mut self, metric: Metric) -> Self {
        self.overrides.metric = Some(metric);
        self
    }

    /// Accuracy expectation checked by [`Outcome::check`] (default
    /// [`Expect::NoWorse`]).
    pub fn expect(mut self, expect: Expect) -> Self {
        self.overrides.expect = Some(expect);
        self
    }

    /// Paired test deciding accuracy (default Wilcoxon).
    pub fn test(mut self, test: AccuracyTest) -> Self {
        self.overrides.test = Some(test);
        self
    }

    /// Non-inferiority margin δ (default 5 %): the candidate counts as worse
    /// only if its errors are significantly larger than `(1 + δ)` × the
    /// baseline's. The same margin serves the early decision and the
    /// fixed-N test; `0` is the paper's own test (any significant loss
    /// fails). A significant loss inside the margin passes and is stated in
    /// the verdict.
    pub fn margin(mut self, margin: f64) -> Self {
        self.overrides.margin = Some(margin);
        self
    }

    /// Stability expectation checked by [`Outcome::check`] (default: none).
    pub fn stability(mut self, expect: Expect) -> Self {
        self.overrides.stability = Some(expect);
        self
    }

    /// Accepts non-finite candidate outputs (default: off). Off, a trial
    /// where the candidate returns a NaN or an infinity while the baseline
    /// and the oracle are finite fails the run whatever the statistics say;
    /// on, such a trial only counts as the worst possible error (`+inf` for
    /// the built-in metrics). For kernels where overflow on edge-case inputs
    /// is expected and tested separately.
    pub fn allow_non_finite(mut self, allow: bool) -> Self {
        self.overrides.allow_non_finite = Some(allow);
        self
    }

    /// Stops the run as soon as the anytime-valid sequential test decides
    /// (default `true`; `DUAL_DELTA_STOP_EARLY` overrides): `n` is then the
    /// most trials a run takes. A failure stops at once; a pass is final
    /// once the screen has checked every other input (see
    /// [`DualDelta::screen`]). `false` runs all `n` trials and decides by
    /// the fixed-N test at α, as the paper does; the sequential decision is
    /// still recorded. Both modes test the same claim at the same margin.
    pub fn stop_early(mut self, stop: bool) -> Self {
        self.overrides.stop_early = Some(stop);
        self
    }

    /// Whether an early pass waits for the screen of every remaining input
    /// (default `true`; `DUAL_DELTA_SCREEN` overrides; see
    /// [`crate::screen`]). `false` makes an early pass final after the
    /// trials the sequential test took: cheaper, but a NaN, a panic or a
    /// gross error on one input in a hundred can then pass, and the report
    /// says that rare events were not checked.
    pub fn screen(mut self, screen: bool) -> Self {
        self.overrides.screen = Some(screen);
        self
    }

    /// The per-trial time limit (default 300 s; `Duration::ZERO` turns it
    /// off): a call that runs longer ends the process, naming the trial,
    /// its seed and the command that replays it (see
    /// [`Settings::trial_timeout`]).
    pub fn trial_timeout(mut self, limit: std::time::Duration) -> Self {
        self.overrides.trial_timeout = Some(limit);
        self
    }

    /// The gross-error gate's factor `G` (default 100, `> 1`; `f64::INFINITY`
    /// turns the gate off): a trial on which the candidate's error exceeds
    /// `G` × the larger of the baseline's error on that input and the median
    /// reference error fails the run (see [`crate::screen`]).
    pub fn gross_factor(mut self, factor: f64) -> Self {
        self.overrides.gross_factor = Some(factor);
        self
    }

    /// Saves the run as a baseline, or compares it with one (see
    /// [`crate::baseline`]); the `DUAL_DELTA_*BASELINE*` variables override
    /// each field they set.
    pub fn baselines(mut self, baselines: crate::Baselines) -> Self {
        self.overrides.baselines = Some(baselines);
        self
    }

    /// Limits the threads running trials; `1` for implementations that must
    /// not run concurrently. Results do not depend on it.
    pub fn threads(mut self, threads: usize) -> Self {
        self.overrides.threads = Some(threads);
        self
    }

    /// Replaces every setting at once (used by `#[dual_delta_test]`).
    pub fn overrides(mut self, overrides: Overrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// Runs the test over its `n` inputs and decides it (see
    /// [`crate::claim`] and [`crate::screen`]). Writes no report
    /// ([`Outcome::write_report`] does); saves the run as a baseline when
    /// [`Settings::baselines`] asks for it.
    pub fn run(&self) -> Result<Outcome, RunError> {
        let settings = Settings::resolve(&self.names.test, &self.overrides)?;
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

        let baseline = baseline::load(&settings, &self.names.test)?;
        // Watched until the run returns.
        let _watch = settings
            .trial_timeout
            .map(|limit| crate::guard::watch(settings.seed, &self.names.test, limit));
        // A run that saves or compares a baseline measures every input, so
        // that the comparison covers all of them.
        let mode =
            if !settings.stop_early || baseline.is_some() || settings.baselines.save.is_some() {
                Mode::AllTrials
            } else if settings.screen {
                Mode::Screened
            } else {
                Mode::Quick
            };
        let start = Instant::now();
        // Drawn only on a terminal, outside CI, for runs longer than half a
        // second.
        let progress = Progress::new(settings.n, &self.names.test, settings.progress);
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
        let look = |checked: &[Checked]| {
            let (checked_before, observed_before) = (seen, observed_total);
            // The sequential test sees the full trials whose outputs
            // differ, in order: a tie is neutral (in the quick mode it sees
            // every trial, ties as evidence of no loss beyond the margin).
            let (d1, d2): (Vec<f64>, Vec<f64>) = checked[seen..]
                .iter()
                .filter_map(Checked::full)
                .filter(|t| mode == Mode::Quick || !t.identical_outputs)
                .map(|t| (t.candidate, t.baseline))
                .unzip();
            seen = checked.len();
            observed_total += d1.len();
            // The errors are never NaN (the trial checked them); an error
            // here ends the run with it.
            observed = sequential.observe(&d1, &d2);
            // A non-finite output fails the run at once: it stops after
            // that input.
            let gate = checked.iter().position(|c| {
                c.full()
                    .is_some_and(|t| screen::fails_non_finite(t, &settings))
            });
            match sequential.decision() {
                _ if observed.is_err() => Look::Stop {
                    trials: checked.len(),
                },
                _ if settings.stop_early && gate.is_some() => Look::Stop {
                    trials: gate.map_or(checked.len(), |i| i + 1),
                },
                Decision::Fail { after, .. } if settings.stop_early => {
                    // The first input at which the rule holds, once the
                    // fail side has crossed: the same on any rounds.
                    let mut observed_so_far = observed_before;
                    for k in checked_before + 1..=checked.len() {
                        if let Some(t) = checked[k - 1].full()
                            && (mode == Mode::Quick || !t.identical_outputs)
                        {
                            observed_so_far += 1;
                        }
                        if observed_so_far >= after
                            && sequential.trace()[observed_so_far - 1].log10_fail >= stop_evidence
                            && fails_so_far(&checked[..k], &settings, split.fail)
                        {
                            return Look::Stop { trials: k };
                        }
                    }
                    Look::Continue
                }
                Decision::Pass { after, .. } if mode == Mode::Quick => Look::Stop { trials: after },
                Decision::Pass { after, .. } if settings.stop_early => {
                    // `expect = worse`: the first input at which the
                    // evidence crossed.
                    let mut observed_so_far = observed_before;
                    for k in checked_before + 1..=checked.len() {
                        if checked[k - 1].full().is_some_and(|t| !t.identical_outputs) {
                            observed_so_far += 1;
                        }
                        if observed_so_far >= after {
                            return Look::Stop { trials: k };
                        }
                    }
                    Look::Continue
                }
                _ => Look::Continue,
            }
        };
        let checked = schedule::run(
            &self.trial,
            &settings,
            &progress,
            mode == Mode::Screened,
            look,
        );
        progress.finish();
        let checked = checked?;
        observed?;
        let trial_time = start.elapsed();
        let screen = Screen::of(mode, &checked, settings.n);
        let trials: Vec<&TrialErrors> = checked.iter().filter_map(Checked::full).collect();
        let observed = checked
            .iter()
            .filter_map(Checked::full)
            .filter(|t| mode == Mode::Quick || !t.identical_outputs)
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
            names: self.names.clone(),
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
    let errors = screen::errors(checked);
    // The bootstrap only where the cheaper conditions hold.
    claim::less_accurate(p, level, errors.ratio(), settings.margin)
        && claim::less_accurate(
            p,
            level,
            errors
                .interval(
                    1.0 - 2.0 * level,
                    claim::RESAMPLES / 4,
                    trial_seed(settings.seed, usize::MAX),
                )
                .map_or(f64::INFINITY, |r| r.lower),
            settings.margin,
        )
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
