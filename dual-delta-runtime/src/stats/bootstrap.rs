//! Bootstrap. (placeholder: being written)
use super::StatsError;
/// CI of a ratio of means.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RatioInterval {
    /// point
    pub ratio: f64,
    /// lo
    pub lower: f64,
    /// hi
    pub upper: f64,
    /// conf
    pub confidence: f64,
    /// resamples
    pub resamples: usize,
    /// seed
    pub seed: u64,
}
/// Paired bootstrap CI of mean(d1)/mean(d2).
pub fn ratio_of_means(
    _d1: &[f64],
    _d2: &[f64],
    _confidence: f64,
    _resamples: usize,
    _seed: u64,
) -> Result<RatioInterval, StatsError> {
    todo!()
}
