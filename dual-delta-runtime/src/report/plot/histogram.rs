//! Overlapping histograms of Δ1 and Δ2.

use plotters::prelude::*;

use super::axis::{Axis, axis_desc, data_extent};
use super::figure::{Entry, Glyph, edge_entries, figure_with, no_decoration};
use super::{BASELINE, CANDIDATE, EDGE, Labels};

/// Overlapping histograms of Δ1 and Δ2 over shared bins (logarithmic bins
/// when the errors span decades).
pub fn histogram(d1: &[f64], d2: &[f64], labels: &Labels<'_>) -> String {
    let x = Axis::fit(d1.iter().chain(d2), true);
    let (p1, p2) = (x.place_all(d1), x.place_all(d2));
    let (lo, hi) = data_extent(&p1.inside, &p2.inside).unwrap_or((x.lo, x.hi));
    let m = p1.inside.len().max(p2.inside.len());
    let bins = if hi > lo {
        ((2.0 * (m as f64).cbrt()).ceil() as usize).clamp(5, 60)
    } else {
        1
    };
    // Interpolated edges and halved spans stay finite for any finite data.
    let edges: Vec<f64> = if hi > lo {
        (0..=bins)
            .map(|i| {
                let f = i as f64 / bins as f64;
                lo * (1.0 - f) + hi * f
            })
            .collect()
    } else {
        let w = (x.hi / 2.0 - x.lo / 2.0) / 20.0;
        vec![lo - w, lo + w]
    };
    let count = |inside: &[f64]| {
        let mut c = vec![0usize; bins];
        for &t in inside {
            let b = if hi > lo {
                ((t / 2.0 - lo / 2.0) / (hi / 2.0 - lo / 2.0) * bins as f64).floor() as usize
            } else {
                0
            };
            c[b.min(bins - 1)] += 1;
        }
        c
    };
    let (c1, c2) = (count(&p1.inside), count(&p2.inside));
    let top = c1
        .iter()
        .chain(&c2)
        .copied()
        .chain([p1.high, p2.high, p1.low, p2.low])
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let y = Axis::linear(0.0, top * 1.08);

    let binned = |color, delta: &str, name: &str, role: &str, inside: usize, all: usize| {
        Entry::new(
            Glyph::Bar(color),
            format!(
                "{delta} {name} ({role}): {inside} of the {all} inputs the oracle ran on binned"
            ),
        )
    };
    let mut legend = vec![
        binned(
            CANDIDATE,
            "Δ1",
            labels.candidate,
            "candidate",
            p1.inside.len(),
            d1.len(),
        ),
        binned(
            BASELINE,
            "Δ2",
            labels.baseline,
            "baseline",
            p2.inside.len(),
            d2.len(),
        ),
    ];
    legend.extend(edge_entries(&p1, &p2, &x, "right", "left"));
    if !d1.is_empty() && d1.iter().zip(d2).all(|(a, b)| a.to_bits() == b.to_bits()) {
        legend.push(Entry::new(
            Glyph::None,
            "Δ1 and Δ2 are identical on every trial: the two series coincide".to_owned(),
        ));
    }
    legend.push(Entry::new(
        Glyph::None,
        format!(
            "{} shared {} bins; the overlap of the two series shows as the mixed colour",
            bins,
            if x.log { "logarithmic" } else { "linear" }
        ),
    ));

    let title = format!(
        "Error distribution: {} vs {}",
        labels.candidate, labels.baseline
    );
    let x_desc = axis_desc(labels.metric, "error", &x);
    figure_with(
        &title,
        &legend,
        x,
        y,
        &x_desc,
        "inputs per bin",
        |chart| {
            for (counts, color) in [(&c1, CANDIDATE), (&c2, BASELINE)] {
                chart.draw_series(counts.iter().enumerate().filter(|(_, c)| **c > 0).map(
                    |(b, &c)| {
                        Rectangle::new(
                            [(edges[b], 0.0), (edges[b + 1], c as f64)],
                            color.mix(0.45).filled(),
                        )
                    },
                ))?;
            }
            // Each series' outline, so that it stays visible under the other.
            for (counts, color) in [(&c1, CANDIDATE), (&c2, BASELINE)] {
                if counts.iter().all(|&c| c == 0) {
                    continue;
                }
                let mut outline = vec![(edges[0], 0.0)];
                for (b, &c) in counts.iter().enumerate() {
                    outline.push((edges[b], c as f64));
                    outline.push((edges[b + 1], c as f64));
                }
                outline.push((edges[bins], 0.0));
                chart.draw_series([PathElement::new(outline, color.stroke_width(2))])?;
            }
            // Counts that could not be binned, as stems ending in a marker at
            // the edge of the axis.
            let span = x.hi - x.lo;
            let right = x.hi - span * 0.012;
            let left = x.lo + span * 0.012;
            for (k, pos, shift, color) in [
                (p1.high, right, -1.0, CANDIDATE),
                (p2.high, right, 0.0, BASELINE),
                (p1.low, left, 0.0, CANDIDATE),
                (p2.low, left, 1.0, BASELINE),
            ] {
                if k > 0 {
                    let at = pos + shift * span * 0.012;
                    let k = k as f64;
                    chart.draw_series([PathElement::new(
                        vec![(at, 0.0), (at, k)],
                        color.stroke_width(3),
                    )])?;
                    chart.draw_series([TriangleMarker::new((at, k), 7, EDGE.filled())])?;
                }
            }
            Ok(())
        },
        no_decoration,
    )
}
