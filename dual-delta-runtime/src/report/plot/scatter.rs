//! The scatter plot of each trial's Δ1 against its Δ2.

use plotters::prelude::*;

use super::axis::{Axis, place_pairs};
use super::figure::{Entry, Glyph, Paired};
use super::{EDGE, GREY, Labels, MAX_OUTLIERS, MAX_POINTS, POINTS};

/// Each trial's Δ1 against its Δ2, with the diagonal `y = x` (equal
/// errors): points below it are trials where the candidate did worse.
pub fn scatter(d1: &[f64], d2: &[f64], labels: &Labels<'_>) -> String {
    let axis = Axis::fit(d1.iter().chain(d2), false);
    let pairs: Vec<(f64, f64)> = d1.iter().copied().zip(d2.iter().copied()).collect();
    let stride = pairs.len().div_ceil(MAX_POINTS).max(1);
    let all = place_pairs(&axis, &pairs);
    let shown: Vec<(f64, f64)> = all.inside.iter().copied().step_by(stride).collect();
    let (mut worse, mut better, mut equal) = (0usize, 0usize, 0usize);
    for &(a, b) in &pairs {
        match a.partial_cmp(&b) {
            Some(std::cmp::Ordering::Greater) => worse += 1,
            Some(std::cmp::Ordering::Less) => better += 1,
            Some(std::cmp::Ordering::Equal) => equal += 1,
            None => {}
        }
    }

    let mut legend = vec![Entry::new(
        Glyph::Dot(POINTS),
        if stride > 1 {
            format!(
                "{} points (one trial in {stride} of {}): x = Δ1 {} (candidate), y = Δ2 {} (baseline)",
                shown.len(),
                all.inside.len(),
                labels.candidate,
                labels.baseline
            )
        } else {
            format!(
                "{} points, one per trial: x = Δ1 {} (candidate), y = Δ2 {} (baseline)",
                shown.len(),
                labels.candidate,
                labels.baseline
            )
        },
    )];
    legend.push(Entry::new(
        Glyph::Line(GREY),
        format!(
            "y = x: equal errors. Below it Δ1 > Δ2 ({worse} trials), above it Δ1 < Δ2 ({better}), on it {equal}"
        ),
    ));
    if !all.edge.is_empty() {
        let nf = pairs
            .iter()
            .filter(|(a, b)| !a.is_finite() || !b.is_finite())
            .count();
        legend.push(Entry::new(
            Glyph::Triangle,
            format!(
                "{} trials on the edge: {nf} with a non-finite error (top/right), {} with a zero, off the log axis (bottom/left)",
                all.edge.len(),
                all.edge.len() - nf
            ),
        ));
    }
    let title = format!(
        "Paired errors per trial: {} vs {}",
        labels.candidate, labels.baseline
    );
    Paired {
        title: &title,
        what: "error",
        labels,
        legend: &legend,
        axis,
        dots: &shown,
        radius: 2,
        opacity: 0.6,
    }
    .draw(|chart| {
        let edge_stride = all.edge.len().div_ceil(MAX_OUTLIERS).max(1);
        chart.draw_series(
            all.edge
                .iter()
                .step_by(edge_stride)
                .map(|&(x, y)| TriangleMarker::new((x, y), 6, EDGE.filled())),
        )?;
        Ok(())
    })
}
