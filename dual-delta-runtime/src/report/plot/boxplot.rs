//! Box plots of Δ1 and Δ2 side by side.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{Axis, Place, axis_desc};
use super::figure::{Entry, Glyph, edge_entries, figure_with, shorten};
use super::{BASELINE, CANDIDATE, EDGE, FONT, GREY, Labels, MAX_OUTLIERS};
use crate::stats::percentile;

/// Box plots of Δ1 and Δ2 side by side: quartiles, whiskers to the furthest
/// value within 1.5 × IQR of the box, outliers, and the mean.
pub fn boxplot(d1: &[f64], d2: &[f64], labels: &Labels<'_>) -> String {
    let y = Axis::fit(d1.iter().chain(d2), false);
    let p = [y.place_all(d1), y.place_all(d2)];
    let boxes: Vec<Option<BoxStats>> = p.iter().map(|p| BoxStats::new(&p.inside)).collect();
    let means: Vec<Option<f64>> = [d1, d2]
        .iter()
        .map(|d| {
            let f: Vec<f64> = d.iter().copied().filter(|v| v.is_finite()).collect();
            (!f.is_empty()).then(|| f.iter().sum::<f64>() / f.len() as f64)
        })
        .collect();
    let x = Axis::linear(-0.5, 1.5);

    let mut legend = Vec::new();
    for (i, (name, role, color)) in [
        (labels.candidate, "Δ1", CANDIDATE),
        (labels.baseline, "Δ2", BASELINE),
    ]
    .into_iter()
    .enumerate()
    {
        let text = match &boxes[i] {
            Some(b) => format!(
                "{role} {name}: median {}, IQR {} .. {}, {} of {} trials drawn",
                y.value_label(b.median),
                y.value_label(b.q1),
                y.value_label(b.q3),
                p[i].inside.len(),
                [d1, d2][i].len()
            ),
            None => format!("{role} {name}: no value to draw"),
        };
        legend.push(Entry::new(Glyph::Box(color), text));
    }
    legend.push(Entry::new(
        Glyph::Ring(GREY),
        "outliers: beyond 1.5 × IQR from the box (whiskers reach the furthest value within)"
            .to_owned(),
    ));
    legend.push(Entry::new(
        Glyph::Cross,
        "mean of the finite errors".to_owned(),
    ));
    legend.extend(edge_entries(&p[0], &p[1], &y, "top", "bottom"));

    let title = format!(
        "Error box plots: {} vs {}",
        labels.candidate, labels.baseline
    );
    let y_desc = axis_desc(labels.metric, "error", &y);
    let names = [labels.candidate, labels.baseline];
    figure_with(
        &title,
        &legend,
        x,
        y,
        "",
        &y_desc,
        |chart| {
            let span = y.hi - y.lo;
            for (i, color) in [CANDIDATE, BASELINE].into_iter().enumerate() {
                let c = i as f64;
                if let Some(b) = &boxes[i] {
                    let w = 0.22;
                    chart.draw_series([
                        Rectangle::new([(c - w, b.q1), (c + w, b.q3)], color.mix(0.3).filled()),
                        Rectangle::new([(c - w, b.q1), (c + w, b.q3)], color.stroke_width(2)),
                    ])?;
                    chart.draw_series([
                        PathElement::new(vec![(c, b.q3), (c, b.high)], color.stroke_width(2)),
                        PathElement::new(vec![(c, b.q1), (c, b.low)], color.stroke_width(2)),
                        PathElement::new(
                            vec![(c - w / 2.0, b.high), (c + w / 2.0, b.high)],
                            color.stroke_width(2),
                        ),
                        PathElement::new(
                            vec![(c - w / 2.0, b.low), (c + w / 2.0, b.low)],
                            color.stroke_width(2),
                        ),
                        PathElement::new(
                            vec![(c - w, b.median), (c + w, b.median)],
                            BLACK.stroke_width(3),
                        ),
                    ])?;
                    let stride = b.outliers.len().div_ceil(MAX_OUTLIERS).max(1);
                    chart.draw_series(
                        b.outliers
                            .iter()
                            .step_by(stride)
                            .map(|&t| Circle::new((c, t), 3, color.stroke_width(1))),
                    )?;
                } else {
                    chart.draw_series([Text::new(
                        "no value to draw",
                        (c, y.lo + span / 2.0),
                        TextStyle::from((FONT, 16))
                            .color(&GREY)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    )])?;
                }
                if let Some(Place::In(t)) = means[i].map(|m| y.place(m)) {
                    chart.draw_series([Cross::new((c, t), 6, BLACK.stroke_width(2))])?;
                }
                let (high, low) = (p[i].high, p[i].low);
                if high > 0 {
                    chart.draw_series([TriangleMarker::new(
                        (c, y.hi - span * 0.02),
                        7,
                        EDGE.filled(),
                    )])?;
                }
                if low > 0 {
                    chart.draw_series([TriangleMarker::new(
                        (c, y.lo + span * 0.02),
                        7,
                        EDGE.filled(),
                    )])?;
                }
            }
            Ok(())
        },
        |chart, root| {
            // The implementations' names under their boxes.
            for (i, name) in names.iter().enumerate() {
                let (px, py) = chart.backend_coord(&(i as f64, y.lo));
                let role = if i == 0 { "Δ1" } else { "Δ2" };
                root.draw(&Text::new(
                    format!("{role} {}", shorten(name, 44)),
                    (px, py + 10),
                    TextStyle::from((FONT, 17)).pos(Pos::new(HPos::Center, VPos::Top)),
                ))?;
            }
            Ok(())
        },
    )
}

/// Quartiles, whiskers and outliers of a sorted-or-not sample in plot
/// coordinates.
struct BoxStats {
    q1: f64,
    median: f64,
    q3: f64,
    low: f64,
    high: f64,
    outliers: Vec<f64>,
}

impl BoxStats {
    fn new(values: &[f64]) -> Option<BoxStats> {
        if values.is_empty() {
            return None;
        }
        let mut s = values.to_vec();
        s.sort_by(f64::total_cmp);
        let (q1, median, q3) = (
            percentile(&s, 25.0),
            percentile(&s, 50.0),
            percentile(&s, 75.0),
        );
        let iqr = q3 - q1;
        let (lo_fence, hi_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
        let low = s.iter().copied().find(|&v| v >= lo_fence).unwrap_or(q1);
        let high = s
            .iter()
            .rev()
            .copied()
            .find(|&v| v <= hi_fence)
            .unwrap_or(q3);
        let outliers = s
            .iter()
            .copied()
            .filter(|&v| v < lo_fence || v > hi_fence)
            .collect();
        Some(BoxStats {
            q1,
            median,
            q3,
            low: low.min(q1),
            high: high.max(q3),
            outliers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        // The Q-Q levels p in [0, 1] are percentiles 100 p.
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 100.0 * 0.0), 1.0);
        assert_eq!(percentile(&s, 100.0 * 1.0), 4.0);
        assert_eq!(percentile(&s, 100.0 * 0.5), 2.5);
        assert_eq!(percentile(&[7.0], 100.0 * 0.3), 7.0);
    }
    #[test]
    fn box_statistics() {
        let mut v: Vec<f64> = (1..=9).map(f64::from).collect();
        v.push(100.0);
        let b = BoxStats::new(&v).unwrap();
        assert_eq!(b.median, 5.5);
        assert_eq!(b.outliers, vec![100.0]);
        assert_eq!(b.high, 9.0);
        assert_eq!(b.low, 1.0);
    }
}
