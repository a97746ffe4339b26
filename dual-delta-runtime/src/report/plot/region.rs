//! The cut that carries a loss, drawn: each input's `Δ1 / Δ2` against the
//! cut's feature, the cut marked, and the ratio of mean errors on each side.

use plotters::prelude::*;

use super::axis::{Axis, Place};
use super::figure::{Entry, Glyph, figure_with, no_decoration};
use super::{CANDIDATE, EDGE, GREY, Labels, MAX_POINTS, POINTS};
use crate::regions::{Cut, Side};
use crate::report::numbers::times;
use crate::report::words::side_of;

/// `points` (each input's value of the cut's feature and its `Δ1 / Δ2`,
/// 1 for a tie) against the cut: the feature on the x axis (logarithmic
/// where it spans more than two decades), the ratio on a log axis, a
/// vertical line at the cut and a horizontal one at each side's ratio of
/// mean errors.
pub fn region(points: &[(f64, f64)], cut: &Cut, labels: &Labels<'_>) -> String {
    let x = Axis::fit(points.iter().map(|p| &p.0), false);
    let ratios: Vec<f64> = points
        .iter()
        .map(|p| p.1)
        .chain([cut.ratio, cut.ratio_elsewhere])
        .filter(|r| *r > 0.0)
        .collect();
    let (lo, hi) = ratios
        .iter()
        .filter(|r| r.is_finite())
        .fold((1.0f64, 1.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    let y = Axis {
        lo: lo.log10().floor().min(-1.0),
        hi: hi.log10().ceil().max(1.0),
        log: true,
        scale: 1.0,
    };
    let stride = points.len().div_ceil(MAX_POINTS).max(1);
    let shown: Vec<(f64, f64)> = points
        .iter()
        .step_by(stride)
        .filter_map(|&(a, r)| match (x.place(a), y.place(r)) {
            (Place::In(px), Place::In(py)) => Some((px, py)),
            _ => None,
        })
        .collect();
    let at = match &cut.side {
        Side::Below { bound, .. } | Side::Above { bound, .. } => x.place(*bound),
        Side::Is { .. } => Place::Low,
    };
    let (inside, outside) = (side_of(&cut.side, true), side_of(&cut.side, false));
    let legend = vec![
        Entry::new(
            Glyph::Dot(POINTS),
            format!(
                "{} inputs: x = {}, y = Δ1 / Δ2 ({} against {})",
                shown.len(),
                cut.feature,
                labels.candidate,
                labels.baseline
            ),
        ),
        Entry::new(
            Glyph::Line(EDGE),
            format!("the cut: {} {inside}", cut.feature),
        ),
        Entry::new(
            Glyph::Line(CANDIDATE),
            format!(
                "mean Δ1 / mean Δ2: {} where {} {inside} ({:.0}% of inputs), {} where {outside}",
                times(cut.ratio),
                cut.feature,
                100.0 * cut.share,
                times(cut.ratio_elsewhere)
            ),
        ),
    ];
    let title = format!("Where the loss is: {} {inside}", cut.feature);
    let y_at = |r: f64| match y.place(r) {
        Place::In(t) => Some(t),
        _ => None,
    };
    figure_with(
        &title,
        &legend,
        x,
        y,
        &cut.feature,
        "Δ1 / Δ2",
        |chart| {
            chart.draw_series(
                shown
                    .iter()
                    .map(|&p| Circle::new(p, 2, POINTS.mix(0.5).filled())),
            )?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x.lo, 0.0), (x.hi, 0.0)],
                GREY.stroke_width(1),
            )))?;
            if let Place::In(c) = at {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(c, y.lo), (c, y.hi)],
                    EDGE.stroke_width(2),
                )))?;
                let (left, right) = match cut.side {
                    Side::Above { .. } => (cut.ratio_elsewhere, cut.ratio),
                    _ => (cut.ratio, cut.ratio_elsewhere),
                };
                for (r, from, to) in [(left, x.lo, c), (right, c, x.hi)] {
                    if let Some(t) = y_at(r) {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(from, t), (to, t)],
                            CANDIDATE.stroke_width(2),
                        )))?;
                    }
                }
            }
            Ok(())
        },
        no_decoration,
    )
}
