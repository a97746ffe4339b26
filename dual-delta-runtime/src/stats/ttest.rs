//! Paired t-test. (placeholder: being written)
use super::{Alternative, StatsError, TestResult};
/// Paired t-test on `d1 - d2`.
pub fn paired_t(
    _d1: &[f64],
    _d2: &[f64],
    _alternative: Alternative,
) -> Result<TestResult, StatsError> {
    todo!()
}
