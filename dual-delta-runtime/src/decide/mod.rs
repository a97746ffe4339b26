//! The decision of a run, in one place: the claim's rule over every input
//! ([`claim`]), the two gates, the levels every test of a run is held to
//! ([`Levels`]), the monitor that may stop a run early, and the judgement
//! that reads them all and decides. Reports read the judgement; nothing
//! else decides.

pub mod claim;
mod gates;
mod judgement;
mod levels;
mod monitor;

pub use self::gates::{GrossError, OverBound};
pub(crate) use self::gates::{
    exceeds, fails_non_finite, gross_errors, over_bound, reference_scale,
};
pub use self::judgement::{DecidedBy, Ending, Judgement, WithinMargin};
pub(crate) use self::judgement::{Evidence, judge, percent};
pub(crate) use self::levels::Levels;
pub(crate) use self::monitor::Monitor;
