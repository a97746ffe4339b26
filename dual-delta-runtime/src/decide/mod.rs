//! The decision of a run, in one place: the claim's rule over every input
//! ([`claim`]) or the paper's test alone (`rule = paper`), the gates, the
//! levels every test of a run is held to ([`Levels`], computed once, and
//! the level of the tests over every input that it gives, `FixedLevel`),
//! the rules that hold a verdict against what the test expects
//! (`expectation`), the monitor that may stop a run
//! early, and the judgement that reads them all and decides: an ordered
//! list of gates, the first that decides winning ([`judge`]; the test's
//! own check applied to its judgement by [`check_failed`]). Reports read
//! the judgement; nothing else decides.
//!
//! Three public types name the decision: [`Judgement`] (passed or failed,
//! and the accuracy verdict that decided), [`DecidedBy`] (which gate or
//! test decided it) and [`Ending`] (how the run's trials ended). What the
//! gates and tests found is evidence, kept where it is measured: the
//! sequential evidence in [`crate::evidence`], each gross error and the
//! first input over a bound, with their outputs, in the gates
//! ([`GrossError`], [`OverBound`]), a difference the margin forgave in
//! [`claim`].

pub mod claim;
mod expectation;
mod fixed;
mod gates;
mod judge;
mod judgement;
mod levels;
mod monitor;
mod paper;

#[cfg(test)]
pub(crate) use self::fixed::FixedLevel;
pub use self::gates::{GrossError, OverBound};
pub(crate) use self::gates::{
    exceeds, fails_non_finite, gross_errors, gross_p_value, gross_shown, over_bound,
    reference_scale,
};
pub(crate) use self::judge::{Evidence, check_failed, judge};
pub use self::judgement::{DecidedBy, Ending, Judgement};
pub(crate) use self::levels::Levels;
pub(crate) use self::monitor::Monitor;
pub(crate) use self::paper::paper_accuracy;
