//! Sign test. (placeholder: being written)
use super::{Alternative, StatsError, TestResult};
/// Exact sign test on `d1 - d2`.
pub fn sign_test(
    _d1: &[f64],
    _d2: &[f64],
    _alternative: Alternative,
) -> Result<TestResult, StatsError> {
    todo!()
}
