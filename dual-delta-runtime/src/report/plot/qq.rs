//! The Q-Q plot of Δ1 against Δ2.

use plotters::prelude::*;

use super::axis::{Axis, place_pairs};
use super::figure::{Entry, Glyph, Paired};
use super::{EDGE, GREY, Labels, MAX_QUANTILES, POINTS};
use crate::stats::percentile;

/// Quantiles of Δ1 against the same quantiles of Δ2, with the diagonal
/// `y = x` where the two distributions are equal. With unequal numbers of
/// finite values, quantiles are interpolated (NumPy's default, "linear",
/// by [`percentile`]).
pub fn qq(d1: &[f64], d2: &[f64], labels: &Labels<'_>) -> String {
    let axis = Axis::fit(d1.iter().chain(d2), false);
    let mut s1: Vec<f64> = d1.iter().copied().filter(|v| v.is_finite()).collect();
    let mut s2: Vec<f64> = d2.iter().copied().filter(|v| v.is_finite()).collect();
    s1.sort_by(f64::total_cmp);
    s2.sort_by(f64::total_cmp);
    let m = s1.len().min(s2.len()).min(MAX_QUANTILES);
    let levels: Vec<f64> = match m {
        0 => Vec::new(),
        1 => vec![0.5],
        _ => (0..m).map(|k| k as f64 / (m - 1) as f64).collect(),
    };
    let pairs: Vec<(f64, f64)> = levels
        .iter()
        .map(|&p| (percentile(&s1, 100.0 * p), percentile(&s2, 100.0 * p)))
        .collect();
    let placed = place_pairs(&axis, &pairs);
    let (nf1, nf2) = (d1.len() - s1.len(), d2.len() - s2.len());

    let mut legend = vec![
        Entry::new(
            Glyph::Dot(POINTS),
            format!(
                "{} quantile pairs: x = Δ1 {} (candidate), y = Δ2 {} (baseline)",
                placed.inside.len(),
                labels.candidate,
                labels.baseline
            ),
        ),
        Entry::new(
            Glyph::Line(GREY),
            "y = x: both errors distributed alike; above it the baseline's are larger".to_owned(),
        ),
    ];
    if nf1 + nf2 > 0 {
        legend.push(Entry::new(
            Glyph::Triangle,
            format!("non-finite (excluded from the quantiles, ▲ top right): Δ1 {nf1}, Δ2 {nf2}"),
        ));
    }
    if !placed.edge.is_empty() {
        legend.push(Entry::new(
            Glyph::Triangle,
            format!(
                "{} quantile pairs at zero, off the logarithmic axis: drawn on its edge",
                placed.edge.len()
            ),
        ));
    }
    if m == 0 {
        legend.push(Entry::new(
            Glyph::None,
            "no quantiles: a sample has no finite value".to_owned(),
        ));
    }
    let title = format!("Q-Q plot: {} vs {}", labels.candidate, labels.baseline);
    Paired {
        title: &title,
        what: "quantile",
        labels,
        legend: &legend,
        axis,
        dots: &placed.inside,
        radius: 3,
        opacity: 0.75,
    }
    .draw(|chart| {
        chart.draw_series(
            placed
                .edge
                .iter()
                .map(|&(x, y)| TriangleMarker::new((x, y), 6, EDGE.filled())),
        )?;
        if nf1 + nf2 > 0 {
            let span = axis.hi - axis.lo;
            chart.draw_series([TriangleMarker::new(
                (axis.hi - span * 0.02, axis.hi - span * 0.02),
                7,
                EDGE.filled(),
            )])?;
        }
        Ok(())
    })
}
