//! Shapiro-Wilk. (placeholder: being written)
use super::{StatsError, TestResult};
/// Shapiro-Wilk normality test.
pub fn shapiro_wilk(_x: &[f64]) -> Result<TestResult, StatsError> {
    todo!()
}
