//! Wilcoxon signed-rank test. (placeholder: being written)
use super::{Alternative, StatsError, TestResult, ZeroMethod};
/// Wilcoxon signed-rank test on `d1 - d2`.
pub fn wilcoxon(
    _d1: &[f64],
    _d2: &[f64],
    _alternative: Alternative,
    _zero_method: ZeroMethod,
    _correction: bool,
) -> Result<TestResult, StatsError> {
    todo!()
}
