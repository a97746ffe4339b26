//! What a trial records of its outputs besides their errors: where the
//! candidate's error is largest, the first non-finite element, and the
//! oracle's fingerprint.

use crate::metric::Metric;
use crate::output::NumberFormat;

/// The element of `y` whose error against `oracle` is largest: the first
/// non-finite one, else the largest by the metric on each element (the
/// hybrid error `|y − o| / (1 + |o|)` for a custom metric, which sees only
/// whole outputs).
pub(super) fn worst_element(
    metric: &Metric,
    y: &[f64],
    oracle: &[f64],
    format: NumberFormat,
) -> usize {
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return i;
    }
    let error = |i: usize| match metric {
        Metric::Custom { .. } => (y[i] - oracle[i]).abs() / (1.0 + oracle[i].abs()),
        m => m.error(&y[i..=i], &oracle[i..=i], format),
    };
    (0..y.len())
        .max_by(|&a, &b| error(a).total_cmp(&error(b)))
        .unwrap_or(0)
}

/// FNV-1a over the bits of `values`.
pub(super) fn fingerprint(values: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for byte in v.to_bits().to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The position and value of the first NaN or infinity in `values`.
pub(super) fn first_non_finite(values: &[f64]) -> Option<(usize, f64)> {
    values
        .iter()
        .position(|v| !v.is_finite())
        .map(|i| (i, values[i]))
}
