//! Variance tests. (placeholder: being written)
use super::{Alternative, StatsError, TestResult};
/// Pitman-Morgan test.
pub fn pitman_morgan(
    _d1: &[f64],
    _d2: &[f64],
    _alternative: Alternative,
) -> Result<TestResult, StatsError> {
    todo!()
}
/// Brown-Forsythe test.
pub fn brown_forsythe(_d1: &[f64], _d2: &[f64]) -> Result<TestResult, StatsError> {
    todo!()
}
