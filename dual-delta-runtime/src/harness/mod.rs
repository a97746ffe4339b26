//! The harness: the paper's Algorithm 1 as a builder.

use std::marker::PhantomData;

use std::time::Duration;

use crate::config::{Baselines, Overrides};
use crate::ended::Ended;
use crate::error::RunError;
use crate::expect::Expect;
use crate::metric::Metric;
use crate::outcome::{Names, Outcome};
use crate::output::Output;
use crate::regions::coordinates::CoordinatesFn;
use crate::regions::{Coordinates, Sink};
use crate::rng::TrialRng;
use crate::rule::Rule;
use crate::run::FeatureFn;
use crate::trial::{Candidate, Functions, Widened, implementation};
use crate::verdict::AccuracyTest;
use crate::worst::{Describer, ReplayedTrial};

/// A Dual-Delta Test over a candidate f1, a baseline f2, an oracle fΩ and an
/// input generator (the paper's Algorithm 1).
///
/// ```
/// use dual_delta_runtime::decision::Accuracy;
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
/// assert_eq!(outcome.judgement().accuracy(), Accuracy::LessAccurate);
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
    functions: Functions<'a, I>,
    names: Names,
    overrides: Overrides,
    /// How the worst inputs are shown, if they can be.
    describe: Option<DescribeFn<'a, I>>,
    /// The features of an input a failing run's loss is cut by: its
    /// coordinates, and the test's own.
    features: Vec<FeatureFn<'a, I>>,
    _input: PhantomData<fn() -> I>,
}

/// How a test describes an input, cut as [`crate::worst::Cut`] says.
type DescribeFn<'a, I> = Box<dyn Fn(&I, &crate::worst::Cut) -> String + Sync + 'a>;

/// The trials a batched candidate receives per call unless
/// [`DualDelta::batch_size`] says otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 32;

impl<'a, I: Send + Sync> DualDelta<'a, I> {
    /// A test of `candidate` (f1) against `baseline` (f2), both measured
    /// against `oracle` (fΩ) on inputs from `input`: the paper's order.
    pub fn new<C, B, O, G, O1, O2, OO>(candidate: C, baseline: B, oracle: O, input: G) -> Self
    where
        G: Fn(&mut TrialRng) -> I + Sync + 'a,
        C: Fn(&I) -> O1 + Sync + 'a,
        O1: Output,
        B: Fn(&I) -> O2 + Sync + 'a,
        O2: Output,
        O: Fn(&I) -> OO + Sync + 'a,
        OO: Output,
    {
        let candidate = Candidate::One(implementation(candidate));
        let names = Names::of::<C, B, O, G>();
        Self::of(names, candidate, baseline, oracle, input)
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
    /// assert_eq!(batched.delta1(), one_by_one.delta1());
    /// ```
    pub fn batched<C, B, O, G, O1, O2, OO>(candidate: C, baseline: B, oracle: O, input: G) -> Self
    where
        G: Fn(&mut TrialRng) -> I + Sync + 'a,
        C: Fn(&[I]) -> Vec<O1> + Sync + 'a,
        O1: Output,
        B: Fn(&I) -> O2 + Sync + 'a,
        O2: Output,
        O: Fn(&I) -> OO + Sync + 'a,
        OO: Output,
    {
        let candidate = Candidate::Batched {
            f: Box::new(move |xs| candidate(xs).iter().map(Widened::of).collect()),
            size: DEFAULT_BATCH_SIZE,
        };
        let names = Names::of::<C, B, O, G>();
        Self::of(names, candidate, baseline, oracle, input)
    }

    /// The test of `candidate`, erased, against `baseline` and `oracle` on
    /// inputs from `input`, with the default settings: what
    /// [`DualDelta::new`] and [`DualDelta::batched`] make.
    fn of<O2: Output, OO: Output>(
        names: Names,
        candidate: Candidate<'a, I>,
        baseline: impl Fn(&I) -> O2 + Sync + 'a,
        oracle: impl Fn(&I) -> OO + Sync + 'a,
        input: impl Fn(&mut TrialRng) -> I + Sync + 'a,
    ) -> Self {
        DualDelta {
            names,
            functions: Functions {
                candidate,
                baseline: implementation(baseline),
                oracle: implementation(oracle),
                input: Box::new(input),
            },
            overrides: Overrides::default(),
            describe: None,
            features: Vec::new(),
            _input: PhantomData,
        }
    }

    /// Shows the inputs of the worst trials ([`crate::worst`]) with their
    /// `Debug`, cut at [`crate::worst::MAX_CHARS`] characters
    /// (`#[dual_delta_test]` does this for every input type with `Debug`).
    pub fn show_inputs(mut self) -> Self
    where
        I: std::fmt::Debug + 'a,
    {
        self.describe = Some(Box::new(|x, cut| crate::worst::debug_cut(x, cut.max)));
        self
    }

    /// Shows the inputs of the worst trials as `describe` writes them: a
    /// matrix by its shape and range, say.
    pub fn describe_inputs(mut self, describe: impl Fn(&I) -> String + Sync + 'a) -> Self {
        self.describe = Some(Box::new(move |x, _: &crate::worst::Cut| describe(x)));
        self
    }

    /// [`DualDelta::show_inputs`] where the input type has `Debug`, for
    /// `#[dual_delta_test]`.
    #[doc(hidden)]
    pub fn describe_inputs_with(mut self, describe: Option<Describer<I>>) -> Self
    where
        I: 'a,
    {
        if let Some(f) = describe {
            self.describe = Some(Box::new(f));
        }
        self
    }

    /// Adds the feature `name` of an input, `feature(x)`, to those a
    /// failing run's loss is cut by ([`crate::regions::Localization`]): a kernel's
    /// tile count, a matrix's condition number. The sentence names it
    /// where it carries the loss.
    pub fn feature(mut self, name: &'static str, feature: impl Fn(&I) -> f64 + Sync + 'a) -> Self {
        self.features.push(Box::new(move |x, sink: &mut Sink<'_>| {
            sink.push(name, feature(x))
        }));
        self
    }

    /// Adds every feature `features(x)` names (`features = my_features` in
    /// `#[dual_delta_test]`): see [`DualDelta::feature`].
    pub fn features(
        mut self,
        features: impl Fn(&I) -> Vec<(&'static str, f64)> + Sync + 'a,
    ) -> Self {
        self.features.push(Box::new(move |x, sink: &mut Sink<'_>| {
            for (name, value) in features(x) {
                sink.push(name, value);
            }
        }));
        self
    }

    /// Cuts a failing run's loss by the input's own coordinates too
    /// ([`crate::Coordinates`]: a number's value and magnitude, a tuple's
    /// components, a vector's length, extremes and counts). An annotated
    /// test does this for every input type that has them.
    pub fn input_coordinates(self) -> Self
    where
        I: Coordinates + 'a,
    {
        self.coordinates_with(Some(|x: &I, sink: &mut Sink<'_>| x.coordinates(sink)))
    }

    /// [`DualDelta::input_coordinates`] where the input type has them, for
    /// `#[dual_delta_test]`.
    #[doc(hidden)]
    pub fn coordinates_with(mut self, coordinates: Option<CoordinatesFn<I>>) -> Self
    where
        I: 'a,
    {
        if let Some(f) = coordinates {
            self.features.insert(0, Box::new(f));
        }
        self
    }

    /// The test's settings, resolved as a run resolves them.
    pub(crate) fn settings(&self) -> Result<crate::config::Settings, crate::config::ConfigError> {
        crate::config::Settings::resolve(&self.names.test, &self.overrides)
    }

    /// Runs the trial whose seed is `trial_seed` on its own (as
    /// `DUAL_DELTA_TRIAL=<seed>` does for an annotated test): its input
    /// and the three outputs in full, and both errors. No verdict.
    ///
    /// # Errors
    ///
    /// An invalid setting, or the trial's own error (a panic, an oracle
    /// that is not finite, ...).
    pub fn replay_trial(&self, trial_seed: u64) -> Result<ReplayedTrial, RunError> {
        crate::run::replay_trial(
            &self.functions,
            &self.names,
            &self.overrides,
            self.describe.as_deref(),
            trial_seed,
        )
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
        match &mut self.functions.candidate {
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

    /// Replaces every setting at once (used by `#[dual_delta_test]`).
    pub(crate) fn overrides(mut self, overrides: Overrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// Runs the test over its `n` inputs and decides it (see
    /// [`crate::decide::claim`] and [`crate::screen`]). Writes no report
    /// ([`Outcome::write_report`] does); saves the run as a baseline when
    /// [`crate::settings::Settings::baselines`] asks for it.
    pub fn run(&self) -> Result<Outcome, RunError> {
        crate::run::run(
            &self.functions,
            &self.names,
            &self.overrides,
            self.describe.as_deref(),
            &self.features,
        )
    }

    /// Runs the test and says how it ended ([`Ended`]): its outcome, a
    /// skip, or a run that could not finish, with the command that
    /// replays it. What an annotated test publishes.
    pub fn end(&self) -> Ended {
        Ended::of(
            &self.names.test,
            || self.settings().ok().map(|s| s.seed),
            self.run(),
        )
    }
}

/// One setter for each of a test's settings, expanded from the table:
/// `.n(1000)`, `.stop_early(false)`, …, each documented as its row.
macro_rules! setters {
    (
        run {$(
            $(#[doc = $doc:literal])*
            $name:ident: $shape:ident($given:ty) = ($($init:tt)*) { $($row:tt)* }
        )*}
        $($rest:tt)*
    ) => {
        impl<I: Send + Sync> DualDelta<'_, I> {$(
            $(#[doc = $doc])*
            pub fn $name(mut self, value: $given) -> Self {
                self.overrides.$name = Some(value);
                self
            }
        )*}
    };
}

dual_delta_settings::settings_table!(setters);

#[cfg(test)]
mod tests;
