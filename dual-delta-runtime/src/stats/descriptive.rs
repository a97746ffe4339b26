//! Descriptive statistics. (placeholder: being written)
use super::StatsError;
/// Summary of one sample.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// n
    pub n: usize,
    /// non-finite count
    pub non_finite: usize,
    /// mean
    pub mean: f64,
    /// median
    pub median: f64,
    /// std
    pub std: f64,
    /// min
    pub min: f64,
    /// p50
    pub p50: f64,
    /// p90
    pub p90: f64,
    /// p95
    pub p95: f64,
    /// p99
    pub p99: f64,
    /// max
    pub max: f64,
}
/// Summarises a sample.
pub fn describe(_x: &[f64]) -> Result<Summary, StatsError> {
    todo!()
}
