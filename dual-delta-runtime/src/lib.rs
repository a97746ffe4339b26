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

#![warn(missing_docs)]

mod annotated;
pub mod config;
mod environment;
mod error;
pub mod generate;
mod guard;
mod harness;
pub mod metric;
mod numerics;
pub mod oracle;
mod outcome;
mod output;
pub mod progress;
pub mod report;
mod rng;
mod schedule;
pub mod stats;
mod trial;
pub mod verdict;

pub use crate::config::{Overrides, Settings};
pub use crate::environment::{environment, record_environment};
pub use crate::error::{Role, RunError, TrialId, skip};
pub use crate::harness::{DEFAULT_BATCH_SIZE, DualDelta};
pub use crate::metric::Metric;
pub use crate::outcome::{Names, NonFinite, NonFiniteTrial, Outcome, Summaries};
pub use crate::output::{Element, NumberFormat, Output};
pub use crate::rng::{TrialRng, seed_from_name, trial_seed};
pub use crate::verdict::{Accuracy, AccuracyTest, Equivalence, Expect, Stability, Verdict};

#[doc(inline)]
pub use dual_delta_macros::dual_delta_test;

/// The `rand` that [`TrialRng`] implements (0.10), re-exported so that input
/// generators never have to match its version: write
/// `dual_delta_runtime::rand::...` (or use the [`prelude`], which brings
/// `RngExt` into scope) whatever `rand` your crate depends on.
pub use rand;

/// The `half` crate whose `f16` and `bf16` the runtime reads as outputs.
pub use half;

/// Everything a test file needs: the attribute, the builder, the outcome and
/// its verdicts, the settings' types, and `rand`'s `RngExt` (for
/// `rng.random_range(..)` on a [`TrialRng`]) in scope.
pub mod prelude {
    pub use crate::{
        Accuracy, AccuracyTest, DualDelta, Equivalence, Expect, Metric, Names, NonFinite,
        NonFiniteTrial, NumberFormat, Outcome, Output, RunError, Settings, Stability, TrialRng,
        Verdict, dual_delta_test,
    };
    pub use half::{bf16, f16};
    pub use rand::RngExt as _;
}

/// Support for the code `#[dual_delta_test]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::config::Overrides;
    pub use crate::metric::Metric;
    pub use crate::verdict::{AccuracyTest, Expect};
    pub use core::default::Default;
    pub use core::option::Option::{None, Some};
    /// The built-in `#[test]`, named by path so that another `test`
    /// attribute in scope (`use tokio::test;`) cannot replace it.
    pub use core::prelude::v1::test;
    pub use core::{file, line, module_path};

    pub use crate::annotated::{
        TestIdentity, input_of, no_check, reference_of, run_batched_test, run_test,
    };
}
