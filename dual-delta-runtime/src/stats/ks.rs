//! Two-sample KS. (placeholder: being written)
use super::{Alternative, StatsError, TestResult};
/// Two-sample Kolmogorov-Smirnov test.
pub fn ks_2samp(
    _d1: &[f64],
    _d2: &[f64],
    _alternative: Alternative,
) -> Result<TestResult, StatsError> {
    todo!()
}
