//! The harness: the paper's Algorithm 1 as a builder, and the outcome of a run.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::candidate::{Batched, Batches, Candidate, References};
use crate::config::{Overrides, Settings};
use crate::error::{Role, RunError, SkipPayload, TrialId};
use crate::metric::Metric;
use crate::output::{NumberFormat, Output};
use crate::report::progress::Progress;
use crate::rng::{TrialRng, trial_seed};
use crate::stats::{self, RatioInterval, StatsError, Summary};
use crate::verdict::{self, AccuracyTest, Analysis, Expect, Verdict};

/// What the implementations are called in tables and reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Names {
    /// The test (for annotated tests, `module::path::function`). It names
    /// the report's directory and derives the default seed. By default, the
    /// name of the thread that created the run: under `cargo test`, the
    /// test's path (`tests::kahan_is_better`); elsewhere `dual_delta`.
    pub test: String,
    /// The candidate f1.
    pub candidate: String,
    /// The baseline f2.
    pub baseline: String,
    /// The oracle fΩ.
    pub oracle: String,
    /// The input generator.
    pub input: String,
}

impl Default for Names {
    fn default() -> Self {
        // libtest names each test's thread after the test.
        let thread = std::thread::current();
        let test = match thread.name() {
            Some(name) if name != "main" && !name.is_empty() => name.to_owned(),
            _ => "dual_delta".to_owned(),
        };
        Names {
            test,
            candidate: "candidate".to_owned(),
            baseline: "baseline".to_owned(),
            oracle: "oracle".to_owned(),
            input: "input".to_owned(),
        }
    }
}

/// A Dual-Delta Test over a candidate f1, a baseline f2, an oracle fΩ and an
/// input generator (the paper's Algorithm 1).
///
/// ```
/// use dual_delta_runtime::prelude::*;
/// use rand::RngExt;
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
    /// use rand::RngExt;
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
            names: Names::default(),
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
            names: Names::default(),
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

    /// Runs the N trials and the statistics.
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
        Ok(TrialErrors {
            candidate: error(Role::Candidate, b1)?,
            baseline: error(Role::Baseline, &refs.baseline)?,
            format,
            input_kind,
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

/// Calls `f` for `role` in `trial`: a panic becomes an error naming the
/// trial; [`crate::skip`] becomes a skip.
pub(crate) fn guarded<T>(role: Role, trial: TrialId, f: impl FnOnce() -> T) -> Result<T, RunError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| match payload.downcast::<SkipPayload>() {
        Ok(skip) => RunError::Skipped {
            role,
            reason: skip.0,
        },
        Err(payload) => RunError::Panicked {
            role,
            trial,
            message: panic_message(&*payload),
        },
    })
}

thread_local! {
    /// Per-thread buffers for the widened outputs (the candidate's, then
    /// the baseline's and the oracle's), reused across trials.
    static BUFFERS: RefCell<(Vec<f64>, References)> = const {
        RefCell::new((Vec::new(), References { baseline: Vec::new(), oracle: Vec::new() }))
    };
}

const BOOTSTRAP_RESAMPLES: usize = 2000;

/// One trial's errors.
#[derive(Debug)]
pub struct TrialErrors {
    candidate: f64,
    baseline: f64,
    format: NumberFormat,
    input_kind: String,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_owned()
    }
}

/// Descriptive statistics of Δ1, Δ2 and their paired differences.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summaries {
    /// Δ1, the candidate's errors.
    pub candidate: Summary,
    /// Δ2, the baseline's errors.
    pub baseline: Summary,
    /// Δ1 - Δ2.
    pub differences: Summary,
}

/// The result of a run: Δ1 and Δ2 paired by trial, their statistics, every
/// test and the verdict.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The names of the test and implementations.
    pub names: Names,
    /// The resolved settings the run used.
    pub settings: Settings,
    /// The candidate's output format.
    pub candidate_format: NumberFormat,
    /// Δ1: the candidate's error on each trial.
    pub delta1: Vec<f64>,
    /// Δ2: the baseline's error on each trial.
    pub delta2: Vec<f64>,
    /// The kind of input of each trial, as noted by the generator with
    /// [`TrialRng::note_input_kind`] (empty where it noted none).
    pub input_kinds: Vec<String>,
    /// Descriptive statistics.
    pub summaries: Summaries,
    /// Ratio of mean errors `mean Δ1 / mean Δ2` with a 95% paired bootstrap
    /// interval (seeded from the base seed).
    pub ratio_of_means: Result<RatioInterval, StatsError>,
    /// Every test.
    pub analysis: Analysis,
    /// The verdicts.
    pub verdict: Verdict,
    /// Time spent in the trials.
    pub trial_time: Duration,
    /// Total time of the run.
    pub elapsed: Duration,
    /// Facts about the process recorded with
    /// [`crate::record_environment`] (such as the GPU adapter), at the end
    /// of the run.
    pub environment: std::collections::BTreeMap<String, String>,
}

impl Outcome {
    /// The seed of trial `index`.
    pub fn trial_seed(&self, index: usize) -> u64 {
        trial_seed(self.settings.seed, index)
    }

    /// The trial where the candidate's error was largest (the first of
    /// equals).
    pub fn worst_trial(&self) -> usize {
        let mut worst = 0;
        for (i, &e) in self.delta1.iter().enumerate() {
            if e > self.delta1[worst] {
                worst = i;
            }
        }
        worst
    }

    /// Whether the expectations hold.
    pub fn passed(&self) -> bool {
        self.verdict.meets_accuracy(self.settings.expect)
            && self
                .settings
                .stability
                .is_none_or(|s| self.verdict.meets_stability(s))
    }

    /// `Ok` when the expectations hold, otherwise the failure message.
    pub fn check(&self) -> Result<(), String> {
        if self.passed() {
            Ok(())
        } else {
            Err(crate::report::terminal::failure(self, None))
        }
    }

    /// Panics with the failure message unless the expectations hold.
    #[track_caller]
    pub fn assert(&self) {
        if let Err(message) = self.check() {
            panic!("{message}");
        }
    }

    /// The compact terminal table.
    pub fn table(&self) -> String {
        crate::report::terminal::table(self, None)
    }
}
