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

mod candidate;
pub mod config;
mod environment;
mod error;
pub mod generate;
mod guard;
mod harness;
pub mod metric;
pub mod oracle;
mod outcome;
mod output;
pub mod report;
mod rng;
pub mod stats;
pub mod verdict;

pub use crate::candidate::{Batched, Candidate};
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

    use crate::candidate::Candidate;
    use crate::harness::DualDelta;
    use crate::outcome::{Names, Outcome};
    use crate::output::Output;
    use crate::rng::TrialRng;

    /// The input generator of a test whose candidate takes `&I`: returns it
    /// unchanged, so that a generator of another type is reported at the
    /// generator (`input = ...`).
    ///
    /// It returns an opaque type, so that a mistake is reported here once
    /// and not again where the run is called.
    pub fn input_of<I, G>(input: G) -> impl Fn(&mut TrialRng) -> I + Sync
    where
        G: Fn(&mut TrialRng) -> I + Sync,
    {
        input
    }

    /// The baseline or the oracle of a test whose candidate takes `&I`:
    /// returns it unchanged, so that one taking another input type is
    /// reported at its expression.
    pub fn reference_of<I, F, O>(reference: F) -> impl Fn(&I) -> O + Sync
    where
        F: Fn(&I) -> O + Sync,
    {
        reference
    }

    /// The check of a test without `check = ...`: always passes.
    pub fn no_check(_: &Outcome) -> Result<(), String> {
        Ok(())
    }

    /// Where an annotated test is and what it calls.
    #[derive(Debug)]
    pub struct TestIdentity {
        /// `module_path!()` at the test.
        pub module_path: &'static str,
        /// The annotated function's name.
        pub function: &'static str,
        /// The baseline expression as written.
        pub baseline: &'static str,
        /// The oracle expression as written.
        pub oracle: &'static str,
        /// The input expression as written.
        pub input: &'static str,
        /// `file!()`.
        pub file: &'static str,
        /// `line!()`.
        pub line: u32,
    }

    /// Runs an annotated test: resolves the settings (env over attribute
    /// over defaults), runs the trials, prints the table, writes the report,
    /// and panics with the failure message unless the expectations hold.
    #[track_caller]
    #[allow(clippy::too_many_arguments)] // each is one expression of the attribute
    pub fn run_test<I, C, B, O, G, O1, O2, OO, K>(
        id: TestIdentity,
        overrides: Overrides,
        candidate: C,
        baseline: B,
        oracle: O,
        input: G,
        check: K,
    ) where
        K: FnOnce(&Outcome) -> Result<(), String>,
        C: Fn(&I) -> O1 + Sync,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        let run = DualDelta::new(candidate, baseline, oracle, input);
        finish_test(id, overrides, run, check);
    }

    /// [`run_test`] for a candidate with `batch = size`: it takes up to
    /// `size` consecutive trials' inputs per call.
    #[track_caller]
    #[allow(clippy::too_many_arguments)] // each is one expression of the attribute
    pub fn run_batched_test<I, C, B, O, G, O1, O2, OO, K>(
        id: TestIdentity,
        overrides: Overrides,
        size: usize,
        candidate: C,
        baseline: B,
        oracle: O,
        input: G,
        check: K,
    ) where
        K: FnOnce(&Outcome) -> Result<(), String>,
        C: Fn(&[I]) -> Vec<O1> + Sync,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        I: Send + Sync,
        O1: Output + Send + Sync,
        O2: Output,
        OO: Output,
    {
        let run = DualDelta::batched(candidate, baseline, oracle, input).batch_size(size);
        finish_test(id, overrides, run, check);
    }

    #[track_caller]
    fn finish_test<I, C, B, O, G, O1, O2, OO, K>(
        id: TestIdentity,
        overrides: Overrides,
        run: DualDelta<I, C, B, O, G>,
        check: K,
    ) where
        K: FnOnce(&Outcome) -> Result<(), String>,
        C: Candidate<I, O1>,
        B: Fn(&I) -> O2 + Sync,
        O: Fn(&I) -> OO + Sync,
        G: Fn(&mut TrialRng) -> I + Sync,
        O1: Output,
        O2: Output,
        OO: Output,
    {
        let test = format!("{}::{}", id.module_path, id.function);
        let names = Names {
            test,
            candidate: id.function.to_owned(),
            baseline: id.baseline.to_owned(),
            oracle: id.oracle.to_owned(),
            input: id.input.to_owned(),
        };
        let run = run.names(names).overrides(overrides);
        let outcome = match run.run() {
            Ok(o) => o,
            Err(crate::error::RunError::Skipped { role, reason }) => {
                eprintln!(
                    "dual-delta test `{}::{}` skipped by the {role}: {reason}",
                    id.module_path, id.function
                );
                return;
            }
            Err(e) => panic!(
                "dual-delta test `{}::{}` ({}:{}) could not run: {e}",
                id.module_path, id.function, id.file, id.line
            ),
        };
        let report = crate::report::write(&outcome);
        let report_path = report.as_ref().ok().map(|p| p.as_path());
        let mut unwritten = match &report {
            Err(e) => format!("  (report not written: {e})\n"),
            Ok(_) => String::new(),
        };
        if let Err(e) = crate::report::step_summary::append_from_env(&outcome, report_path) {
            unwritten.push_str(&format!(
                "  (row not added to {}: {e})\n",
                crate::report::step_summary::ENV_STEP_SUMMARY
            ));
        }
        if !outcome.passed() {
            let message = crate::report::terminal::failure(&outcome, report_path);
            panic!("{message}{unwritten}");
        }
        let table = crate::report::terminal::table(&outcome, report_path);
        if let Err(reason) = check(&outcome) {
            panic!(
                "dual-delta test `{}` failed its check: {reason}\n{table}{unwritten}",
                outcome.names.test
            );
        }
        println!("{table}");
    }
}
