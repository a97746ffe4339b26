//! # dual-delta
//!
//! Dual-Delta Testing for low-precision numeric code: a custom implementation
//! f1 (the *candidate*) and a reference f2 (the *baseline*) are both measured
//! against a high-precision oracle fΩ on N generated inputs, giving two error
//! samples paired by input, Δ1 and Δ2. Their distributions are described and
//! tested, and the candidate is judged more accurate, less accurate or
//! equivalent, and more or less stable.
//!
//! Use it through the attribute (re-exported here):
//!
//! ```ignore
//! use dual_delta_runtime::prelude::*;
//!
//! #[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, n = 1000)]
//! fn sum_naive(x: &Vec<f32>) -> f32 { x.iter().sum() }
//! ```
//!
//! or through [`DualDelta`] from any test, benchmark or program.
//!
//! **Start with the [`guide`]**: writing tests, the claim a test makes and
//! what a pass guarantees, regressions and suites, configuration, speed;
//! its GPU chapters are in `dual-delta-gpu`'s.
//!
//! # Configuration
//!
//! Settings are read when a test runs, in one place, highest first: the
//! environment, then the attribute or builder ([`Overrides`]), then the
//! defaults; an invalid value is an error naming it ([`ConfigError`]).
//! Every setting is one row of [`SETTINGS`]; the guide's
//! [configuration chapter](guide::configuration) is that table with every
//! variable the runtime reads.
//!
//! # Modules
//!
//! The types of a run are at the crate's root: the builder [`DualDelta`],
//! its [`Settings`], the [`Outcome`] with its [`Verdict`] and [`Analysis`].
//! [`generate`] makes inputs, [`oracle`] has high-precision references,
//! [`stats`] the tests (SciPy-exact), [`report`] writes reports, and [`screen`]
//! checks every input before an early pass. The 8-bit formats [`E4m3`] and
//! [`E5m2`] are outputs and inputs like
//! `half`'s `f16` and `bf16`.
//!
//! # Features
//!
//! - `html` (default): the report's HTML pages and SVG plots (askama,
//!   plotters). Without it a run writes `summary.json`, `deltas.csv`, the
//!   terminal table and the step summary's row.
//! - `cli`: the `cargo dual-delta` command (`cargo-dual-delta`, clap).
//! - `num-complex`: `num_complex::Complex<E>` as an [`Output`], two
//!   elements each, the real part then the imaginary part.
//! - `ndarray`: ndarray's arrays and views of any dimension as outputs,
//!   in logical (row-major) order.
//! - `nalgebra`: nalgebra's matrices and vectors of any storage as outputs,
//!   in nalgebra's column-major order; turns `num-complex` on.
//!
//! The last three are off by default, and a build without them compiles
//! none of those crates; [`Output`] says how each type is read.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod advice;
mod annotated;
pub mod baseline;
mod clock;
mod config;
mod decide;
pub mod device;
mod dirname;
mod ended;
mod environment;
mod error;
mod evidence;
mod expect;
mod fp8;
pub mod generate;
mod guard;
pub mod guide;
mod harness;
mod json_number;
mod metric;
mod numerics;
pub mod oracle;
mod outcome;
mod output;
mod progress;
mod regions;
mod replay;
pub mod report;
mod rng;
mod rule;
mod run;
mod schedule;
pub mod screen;
pub mod stats;
pub mod suite;
mod trial;
mod verdict;
pub mod worst;

pub use crate::advice::MetricAdvice;
pub use crate::config::{
    Baselines, ConfigError, Kind, Overrides, Process, SETTINGS, SeedSource, Setting, Settings,
    parse_seed,
};
pub use crate::decide::claim;
pub use crate::decide::{DecidedBy, Ending, GrossError, Judgement, OverBound};
pub use crate::ended::{Ended, Skipped, Stopped};
pub use crate::environment::{environment, record_environment};
pub use crate::error::{
    BaselineError, BaselineFault, DeltasError, DeltasFault, Fault, NothingCompared, Role, RunError,
    Skip, TooFewTrials, TrialFault, TrialId, skip,
};
pub use crate::evidence::{NonFinite, NonFiniteTrial, SequentialEvidence, Summaries};
pub use crate::expect::Expect;
pub use crate::fp8::{E4m3, E5m2};
pub use crate::harness::{DEFAULT_BATCH_SIZE, DualDelta};
pub use crate::metric::{Metric, MetricFn};
pub use crate::outcome::{Names, Outcome};
pub use crate::output::{Element, NumberFormat, Output, Scalar};
pub use crate::regions::{Coordinate, Coordinates, Cut, Localization, Side, Sink};
pub use crate::rng::{TrialRng, seed_from_name, trial_seed};
pub use crate::rule::Rule;
pub use crate::verdict::{
    Accuracy, AccuracyTest, Analysis, Equivalence, Stability, TestOutcome, TestRow, Verdict,
};

#[doc(inline)]
pub use dual_delta_macros::{Coordinates, case, dual_delta_test, matrix};

/// The `rand` that [`TrialRng`] implements (0.10), re-exported so that input
/// generators never have to match its version: write
/// `dual_delta_runtime::rand::...` (or use the [`prelude`], which brings
/// `RngExt` into scope) whatever `rand` your crate depends on.
pub use rand;

/// The `half` crate whose `f16` and `bf16` the runtime reads as outputs
/// (the FP8 formats, [`E4m3`] and [`E5m2`], are the runtime's own).
pub use half;

/// Everything a test file needs: the attribute (with its `case` and
/// `matrix`, so that a misplaced one is explained), the builder, the
/// outcome and its verdicts, the settings' types, and `rand`'s `RngExt`
/// (for `rng.random_range(..)` on a [`TrialRng`]) in scope.
pub mod prelude {
    pub use crate::fp8::{E4m3, E5m2};
    pub use crate::{
        Accuracy, AccuracyTest, Coordinates, DualDelta, Equivalence, Expect, Metric, Names,
        NonFinite, NonFiniteTrial, NumberFormat, Outcome, Output, Rule, RunError, Settings,
        Stability, TrialRng, Verdict, case, dual_delta_test, matrix,
    };
    pub use half::{bf16, f16};
    pub use rand::RngExt as _;
}

/// Support for the code `#[dual_delta_test]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::config::Overrides;
    pub use crate::expect::Expect;
    pub use crate::metric::{Metric, MetricFn};
    pub use crate::rule::Rule;
    pub use crate::verdict::AccuracyTest;
    pub use core::clone::Clone;
    pub use core::default::Default;
    pub use core::option::Option::{None, Some};
    /// The built-in `#[test]`, named by path so that another `test`
    /// attribute in scope (`use tokio::test;`) cannot replace it.
    pub use core::prelude::v1::test;
    pub use core::{file, line, module_path};

    pub use crate::__cargo_target as cargo_target;
    pub use crate::annotated::{
        TestIdentity, baseline_of, input_of, no_check, oracle_of, run_test,
    };
    pub use crate::harness::DualDelta;
    pub use crate::regions::coordinates::{Coordinates, Sink};
    pub use crate::regions::coordinates::{
        Of as CoordinatesOf, WithCoordinates, WithoutCoordinates,
    };
    pub use crate::replay::CargoTarget;
    pub use crate::worst::{
        Cut as InputCut, Describe, Fields, ViaDebug, ViaFields, ViaSummary, WithoutDebug,
        describe_field,
    };
    pub use std::string::String;
    pub use std::vec::Vec;
}
