//! The harness: the paper's Algorithm 1 as a builder.

use std::marker::PhantomData;

use crate::config::Overrides;
use crate::error::RunError;
use crate::expect::Expect;
use crate::metric::Metric;
use crate::outcome::{Names, Outcome};
use crate::output::Output;
use crate::rng::TrialRng;
use crate::trial::{Candidate, Trial, Widened, implementation};
use crate::verdict::AccuracyTest;

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
/// assert_eq!(outcome.judgement.accuracy, Accuracy::LessAccurate);
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
    /// [`crate::Settings::trial_timeout`]).
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
    pub fn baselines(mut self, baselines: crate::config::Baselines) -> Self {
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
    /// [`crate::decide::claim`] and [`crate::screen`]). Writes no report
    /// ([`Outcome::write_report`] does); saves the run as a baseline when
    /// [`crate::Settings::baselines`] asks for it.
    pub fn run(&self) -> Result<Outcome, RunError> {
        crate::run::run(&self.trial, &self.names, &self.overrides)
    }
}

#[cfg(test)]
mod tests;
