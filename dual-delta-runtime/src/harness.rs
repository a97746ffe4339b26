//! The harness: the paper's Algorithm 1 as a builder.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::candidate::{Batched, Batches, Candidate, References};
use crate::config::{Overrides, Settings};
use crate::error::{Role, RunError, TrialId};
use crate::guard::guarded;
use crate::metric::Metric;
use crate::outcome::{Names, NonFinite, NonFiniteTrial, Outcome, Summaries};
use crate::output::{NumberFormat, Output};
use crate::report::progress::Progress;
use crate::rng::{TrialRng, trial_seed};
use crate::stats;
use crate::verdict::{self, AccuracyTest, Expect};

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
/// [`crate::config`]).
pub struct DualDelta<I, C, B, O, G> {
    candidate: C,
    baseline: B,
    oracle: O,
    input: G,
    names: Names,
    overrides: Overrides,
    _input: PhantomData<fn() -> I>,
}

/// The trials a batched candidate receives per call unless
/// [`DualDelta::batch_size`] says otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 32;

impl<I, F, B, O, G> DualDelta<I, Batched<F>, B, O, G> {
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
    pub fn batched<O1, O2, OO>(candidate: F, baseline: B, oracle: O, input: G) -> Self
    where
        F: Fn(&[I]) -> Vec<O1>,
        B: Fn(&I) -> O2,
        O: Fn(&I) -> OO,
        G: Fn(&mut TrialRng) -> I,
    {
        DualDelta {
            candidate: Batched {
                f: candidate,
                size: DEFAULT_BATCH_SIZE,
            },
            baseline,
            oracle,
            input,
            names: Names::of::<F, B, O, G>(),
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
        self.candidate.size = size;
        self
    }
}

impl<I, C, B, O, G> DualDelta<I, C, B, O, G> {
    /// A test of `candidate` (f1) against `baseline` (f2), both measured
    /// against `oracle` (fΩ) on inputs from `input`: the paper's order.
    pub fn new<O1, O2, OO>(candidate: C, baseline: B, oracle: O, input: G) -> Self
    where
        C: Fn(&I) -> O1,
        B: Fn(&I) -> O2,
        O: Fn(&I) -> OO,
        G: Fn(&mut TrialRng) -> I,
    {
        DualDelta {
            candidate,
            baseline,
            oracle,
            input,
            names: Names::of::<C, B, O, G>(),
            overrides: Overrides::default(),
            _input: PhantomData,
        }
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

    /// Non-inferiority margin δ: the candidate counts as worse only if its
    /// errors are significantly larger than `(1 + δ)` × the baseline's.
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

    /// Runs the N trials and the statistics. Nothing is written to disk:
    /// [`Outcome::write_report`] writes the report an annotated test writes.
    pub fn run<O1, O2, OO>(&self) -> Result<Outcome, RunError>
    where
        C: Candidate<I, O1>,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        let settings = Settings::resolve(&self.names.test, &self.overrides)?;
        let min = settings.test.min_trials(settings.alpha);
        if settings.n < min {
            return Err(RunError::TooFewTrials {
                test: settings.test.name(),
                n: settings.n,
                min,
                alpha: settings.alpha,
            });
        }

        let start = Instant::now();
        let trials = self.run_trials(&settings)?;
        let trial_time = start.elapsed();
        let (delta1, delta2): (Vec<f64>, Vec<f64>) =
            trials.iter().map(|t| (t.candidate, t.baseline)).unzip();
        let input_kinds = trials.iter().map(|t| t.input_kind.clone()).collect();
        let identical_outputs = trials.iter().all(|t| t.identical_outputs);
        let non_finite = non_finite(&trials, &settings);
        let format = trials
            .first()
            .map(|t| t.format)
            .unwrap_or(NumberFormat::F64);

        let (analysis, verdict) = verdict::analyse(
            &delta1,
            &delta2,
            settings.test,
            settings.alpha,
            settings.margin,
            identical_outputs,
        );
        let differences = stats::paired_differences(&delta1, &delta2)?;
        let summaries = Summaries {
            candidate: stats::describe(&delta1)?,
            baseline: stats::describe(&delta2)?,
            differences: stats::describe(&differences)?,
        };
        let ratio_of_means = stats::ratio_of_means(
            &delta1,
            &delta2,
            0.95,
            BOOTSTRAP_RESAMPLES,
            trial_seed(settings.seed, usize::MAX),
        );

        Ok(Outcome {
            names: self.names.clone(),
            candidate_format: format,
            delta1,
            delta2,
            input_kinds,
            summaries,
            non_finite,
            ratio_of_means,
            analysis,
            verdict,
            trial_time,
            elapsed: start.elapsed(),
            environment: crate::environment::environment(),
            settings,
        })
    }

    fn run_trials<O1, O2, OO>(&self, settings: &Settings) -> Result<Vec<TrialErrors>, RunError>
    where
        C: Candidate<I, O1>,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        // Drawn only on a terminal, outside CI, for runs longer than half a
        // second.
        let progress = Progress::new(settings.n, &self.names.test);
        let serial = settings.threads == Some(1);
        let draw = |index: usize| self.draw(settings, index);
        let references = |index: usize, x: &I| {
            let mut refs = References::default();
            self.references(settings, index, x, &mut refs)?;
            Ok(refs)
        };
        let measure = |index: usize, y1: &O1, refs: &References, input_kind: String| {
            BUFFERS
                .with_borrow_mut(|(b1, _)| self.measure(settings, index, y1, b1, refs, input_kind))
        };
        let batches = Batches {
            n: settings.n,
            serial,
            progress: &progress,
            trial: &|index| trial_id(settings, index),
            draw: &draw,
            references: &references,
            measure: &measure,
        };
        let all = || match self.candidate.run_batches(&batches) {
            Some(result) => result,
            None => self.one_by_one(settings, serial, &progress),
        };
        let result = match settings.threads {
            Some(t) if t > 1 => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| {
                    RunError::Config(crate::config::ConfigError {
                        source: "threads".to_owned(),
                        value: format!("{t} ({e})"),
                        expected: "a thread count the system can start",
                    })
                })?
                .install(all),
            _ => all(),
        };
        progress.finish();
        result
    }

    /// The trials of a candidate that takes one input at a time: each trial
    /// runs whole on one thread, trials in parallel unless `serial`.
    fn one_by_one<O1, O2, OO>(
        &self,
        settings: &Settings,
        serial: bool,
        progress: &Progress,
    ) -> Result<Vec<TrialErrors>, RunError>
    where
        C: Candidate<I, O1>,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        let failed = AtomicBool::new(false);
        let one = |index: usize| -> Option<Result<TrialErrors, RunError>> {
            if failed.load(Ordering::Relaxed) {
                return None;
            }
            let result = self.trial(settings, index);
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            progress.inc();
            Some(result)
        };
        let results: Vec<Option<Result<TrialErrors, RunError>>> = if serial {
            (0..settings.n).map(one).collect()
        } else {
            (0..settings.n).into_par_iter().map(one).collect()
        };
        // The first failure by trial index among the trials that ran.
        results.into_iter().flatten().collect()
    }

    fn trial<O1, O2, OO>(&self, settings: &Settings, index: usize) -> Result<TrialErrors, RunError>
    where
        C: Candidate<I, O1>,
        B: Fn(&I) -> O2,
        O: Fn(&I) -> OO,
        G: Fn(&mut TrialRng) -> I,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        let (x, input_kind) = self.draw(settings, index)?;
        let y1 = guarded(Role::Candidate, trial_id(settings, index), || {
            self.candidate.call_one(&x)
        })?;
        BUFFERS.with_borrow_mut(|(b1, refs)| {
            self.references(settings, index, &x, refs)?;
            self.measure(settings, index, &y1, b1, refs, input_kind)
        })
    }

    /// Trial `index`'s input and the kind of input its generator noted.
    fn draw(&self, settings: &Settings, index: usize) -> Result<(I, String), RunError>
    where
        G: Fn(&mut TrialRng) -> I,
    {
        let trial = trial_id(settings, index);
        let mut rng = TrialRng::from_trial_seed(trial.seed);
        let x = guarded(Role::Input, trial, || (self.input)(&mut rng))?;
        Ok((x, rng.input_kind().to_owned()))
    }

    /// Runs the baseline, then the oracle, on trial `index`'s input, into
    /// `refs` (cleared first); the oracle must be finite.
    fn references<O2, OO>(
        &self,
        settings: &Settings,
        index: usize,
        x: &I,
        refs: &mut References,
    ) -> Result<(), RunError>
    where
        B: Fn(&I) -> O2,
        O: Fn(&I) -> OO,
        O2: Output,
        OO: Output,
    {
        let trial = trial_id(settings, index);
        let y2 = guarded(Role::Baseline, trial, || (self.baseline)(x))?;
        let yo = guarded(Role::Oracle, trial, || (self.oracle)(x))?;
        refs.baseline.clear();
        refs.oracle.clear();
        yo.extend_f64(&mut refs.oracle);
        if let Some(position) = refs.oracle.iter().position(|v| !v.is_finite()) {
            return Err(RunError::OracleNotFinite {
                trial,
                position,
                value: refs.oracle[position],
            });
        }
        y2.extend_f64(&mut refs.baseline);
        Ok(())
    }

    /// Both errors of trial `index`, the candidate's output widened into
    /// `b1`.
    fn measure<O1: Output>(
        &self,
        settings: &Settings,
        index: usize,
        y1: &O1,
        b1: &mut Vec<f64>,
        refs: &References,
        input_kind: String,
    ) -> Result<TrialErrors, RunError> {
        let trial = trial_id(settings, index);
        let format = y1.format();
        b1.clear();
        y1.extend_f64(b1);
        let bo = &refs.oracle;
        for (role, b) in [(Role::Candidate, &*b1), (Role::Baseline, &refs.baseline)] {
            if b.len() != bo.len() {
                return Err(RunError::LengthMismatch {
                    role,
                    trial,
                    len: b.len(),
                    oracle_len: bo.len(),
                });
            }
        }
        let error = |role: Role, b: &[f64]| {
            let e = guarded(Role::Metric, trial, || settings.metric.error(b, bo, format))?;
            if e.is_nan() || e < 0.0 {
                Err(RunError::InvalidError {
                    role,
                    trial,
                    value: e,
                })
            } else {
                Ok(e)
            }
        };
        let identical_outputs = b1.len() == refs.baseline.len()
            && b1
                .iter()
                .zip(&refs.baseline)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        Ok(TrialErrors {
            candidate: error(Role::Candidate, b1)?,
            baseline: error(Role::Baseline, &refs.baseline)?,
            format,
            input_kind,
            candidate_non_finite: first_non_finite(b1),
            baseline_non_finite: first_non_finite(&refs.baseline),
            identical_outputs,
        })
    }
}

/// Trial `index` of the run with `settings`.
fn trial_id(settings: &Settings, index: usize) -> TrialId {
    TrialId {
        index,
        seed: trial_seed(settings.seed, index),
        base_seed: settings.seed,
    }
}

thread_local! {
    /// Per-thread buffers for the widened outputs (the candidate's, then
    /// the baseline's and the oracle's), reused across trials.
    static BUFFERS: RefCell<(Vec<f64>, References)> = const {
        RefCell::new((Vec::new(), References { baseline: Vec::new(), oracle: Vec::new() }))
    };
}

const BOOTSTRAP_RESAMPLES: usize = 2000;

/// One trial's errors and what else the run records of its outputs.
#[derive(Debug)]
pub struct TrialErrors {
    candidate: f64,
    baseline: f64,
    format: NumberFormat,
    input_kind: String,
    /// The position and value of the candidate's first non-finite output.
    candidate_non_finite: Option<(usize, f64)>,
    /// The same for the baseline.
    baseline_non_finite: Option<(usize, f64)>,
    /// The candidate's and the baseline's outputs are the same numbers.
    identical_outputs: bool,
}

/// The position and value of the first NaN or infinity in `values`.
fn first_non_finite(values: &[f64]) -> Option<(usize, f64)> {
    values
        .iter()
        .position(|v| !v.is_finite())
        .map(|i| (i, values[i]))
}

/// The trials whose outputs held a NaN or an infinity, per implementation.
fn non_finite(trials: &[TrialErrors], settings: &Settings) -> NonFinite {
    let list = |pick: fn(&TrialErrors) -> Option<(usize, f64)>| {
        trials
            .iter()
            .enumerate()
            .filter_map(|(index, t)| {
                pick(t).map(|(position, value)| NonFiniteTrial {
                    trial: index,
                    seed: trial_seed(settings.seed, index),
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
