//! Hodges-Lehmann. (placeholder: being written)
use super::StatsError;
/// Median of the Walsh averages of `d1 - d2`.
pub fn hodges_lehmann(_d1: &[f64], _d2: &[f64]) -> Result<f64, StatsError> {
    todo!()
}
