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
//! environment, then the attribute or the builder's setters, then the
//! defaults; an invalid value is an error naming it
//! ([`settings::ConfigError`]). Every setting is one row of
//! [`settings::SETTINGS`]; the guide's
//! [configuration chapter](guide::configuration) is that table with every
//! variable the runtime reads.
//!
//! # Modules
//!
//! The crate's root holds what a test writer needs: the builder
//! [`DualDelta`], the values a test sets ([`Metric`], [`Expect`], [`Rule`],
//! [`AccuracyTest`]), [`TrialRng`] for input generators, the 8-bit formats
//! [`E4m3`] and [`E5m2`] (outputs and inputs like `half`'s `f16` and
//! `bf16`) and the attribute; the [`prelude`] brings them into scope with
//! the [`outcome::Outcome`] and [`error::RunError`]. Every other item is in
//! one named module: [`outcome`] (what a run found), [`decision`] (the
//! judgement, the verdicts and the claim), [`settings`], [`error`],
//! [`ended`] (how a test ended), [`output`] (what an implementation may
//! return), [`regions`] (where the loss is), [`device`] (the device a
//! run's functions used), [`generate`] (inputs),
//! [`oracle`] (high-precision references), [`stats`] (the tests,
//! SciPy-exact), [`screen`] (every input checked before an early pass),
//! [`worst`], [`baseline`], [`suite`] and [`report`].
//!
//! # Features
//!
//! - `html` (default): the report's HTML pages and SVG plots (askama,
//!   plotters). Without it a run writes `summary.json`, `deltas.csv`, the
//!   terminal table and the step summary's row.
//! - `cli`: the `cargo dual-delta` command (`cargo-dual-delta`, clap).
//! - `num-complex`: `num_complex::Complex<E>` as an [`output::Output`], two
//!   elements each, the real part then the imaginary part.
//! - `ndarray`: ndarray's arrays and views of any dimension as outputs,
//!   in logical (row-major) order.
//! - `nalgebra`: nalgebra's matrices and vectors of any storage as outputs,
//!   in nalgebra's column-major order; turns `num-complex` on.
//!
//! The last three are off by default, and a build without them compiles
//! none of those crates; [`output::Output`] says how each type is read.

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
pub mod ended;
mod environment;
pub mod error;
mod evidence;
mod expect;
mod fp8;
pub mod generate;
mod guard;
pub mod guide;
mod harness;
mod json_number;
mod lock;
mod metric;
mod numerics;
pub mod oracle;
pub mod outcome;
pub mod output;
mod progress;
pub mod regions;
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

pub use crate::environment::{environment, record_environment};
pub use crate::expect::Expect;
pub use crate::fp8::{E4m3, E5m2};
pub use crate::harness::DualDelta;
pub use crate::metric::Metric;
pub use crate::rng::TrialRng;
pub use crate::rule::Rule;
pub use crate::verdict::AccuracyTest;

pub mod decision {
    //! The decision of a run and the tests behind it: the [`Judgement`]
    //! (passed or failed, and why: [`DecidedBy`], [`Ending`]), the gates'
    //! findings, the paper's [`Verdict`] with every test in its [`Analysis`],
    //! and the claim's two criteria ([`claim`]).
    pub use crate::advice::MetricAdvice;
    pub use crate::decide::claim;
    pub use crate::decide::{DecidedBy, Ending, GrossError, Judgement, OverBound};
    pub use crate::verdict::{
        Accuracy, Analysis, Equivalence, Stability, TestOutcome, TestRow, Verdict,
    };
}

pub mod settings {
    //! The settings of a run, resolved in one place from the environment, the
    //! attribute or builder, and the defaults: [`Settings`], the one table
    //! they are declared in ([`SETTINGS`]), the process's variables
    //! ([`Process`]) and the error an invalid value gives ([`ConfigError`]).
    //! The values a test writer passes ([`crate::Metric`], [`crate::Expect`],
    //! [`crate::Rule`], [`crate::AccuracyTest`]) are at the crate's root.
    pub use crate::config::{
        Baselines, ConfigError, Kind, Process, SETTINGS, SeedSource, Setting, Settings, parse_seed,
    };
    pub use crate::harness::DEFAULT_BATCH_SIZE;
    pub use crate::metric::MetricFn;
}

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
/// `matrix`, so that a misplaced one is explained, and the `Coordinates`
/// derive and trait), the builder, the values a test sets, [`TrialRng`],
/// the 8-bit formats with `half`'s `f16` and `bf16`, the outcome, the
/// run's error and `skip`, and `rand`'s `RngExt` (for
/// `rng.random_range(..)` on a [`TrialRng`]) in scope.
pub mod prelude {
    pub use crate::error::{RunError, skip};
    pub use crate::outcome::Outcome;
    pub use crate::regions::Coordinates;
    pub use crate::{
        AccuracyTest, Coordinates, DualDelta, E4m3, E5m2, Expect, Metric, Rule, TrialRng, case,
        dual_delta_test, matrix,
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
