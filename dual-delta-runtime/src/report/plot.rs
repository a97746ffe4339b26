//! The report's plots, as SVG text: overlapping histograms, box plots, a
//! Q-Q plot and a scatter plot of Δ1 against Δ2.
//!
//! The plots are drawn with `plotters`' SVG backend and no font library:
//! text is written as SVG `<text>` for the browser to render, so nothing here
//! needs system fonts or C libraries.
//!
//! Every function takes the two error samples and never panics: empty,
//! constant, all-infinite or NaN-holding samples give a plot that says so.
//!
//! # Axes
//!
//! An error axis is logarithmic when the sample's positive finite values
//! span more than two decades (largest / smallest > 100) and none is
//! negative; otherwise it is linear. Q-Q and scatter plots use one axis for
//! both samples, so that the diagonal `y = x` means "equal errors".
//!
//! # Values that cannot be drawn
//!
//! Non-finite values (and zeros or negatives on a logarithmic axis) are not
//! placed among the others: they are counted in a legend entry (such as
//! `non-finite (not drawn): Δ1 3, Δ2 0`) and drawn as triangle markers at the
//! edge of the plot (the top or right edge for `+inf` and NaN, the bottom or
//! left edge for zeros on a logarithmic axis).

use std::error::Error;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::stats::percentile;

/// The names and unit shown on the plots.
#[derive(Clone, Copy, Debug)]
pub struct Labels<'a> {
    /// The candidate f1 (its errors are Δ1).
    pub candidate: &'a str,
    /// The baseline f2 (its errors are Δ2).
    pub baseline: &'a str,
    /// The error metric's name, the unit of every error axis.
    pub metric: &'a str,
}

/// Colour of the candidate's series (Δ1), as written in the SVG.
pub const CANDIDATE_COLOR: &str = "#D55E00";
/// Colour of the baseline's series (Δ2), as written in the SVG.
pub const BASELINE_COLOR: &str = "#0072B2";
/// Colour of paired points (Q-Q and scatter), as written in the SVG.
pub const POINT_COLOR: &str = "#332288";
/// Colour of the markers for values that cannot be placed on the axes.
pub const EDGE_COLOR: &str = "#CC0066";

const CANDIDATE: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
const BASELINE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
const POINTS: RGBColor = RGBColor(0x33, 0x22, 0x88);
const EDGE: RGBColor = RGBColor(0xCC, 0x00, 0x66);
const GREY: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// At most this many paired points are drawn on a scatter plot; beyond it,
/// every k-th trial is drawn and the legend says so.
pub const MAX_POINTS: usize = 10_000;
/// At most this many quantile pairs are drawn on a Q-Q plot.
pub const MAX_QUANTILES: usize = 2_000;
/// At most this many outliers are drawn per box.
const MAX_OUTLIERS: usize = 2_000;

const WIDTH: u32 = 820;
const CHART_HEIGHT: u32 = 470;
const LEGEND_LINE: u32 = 21;
const FONT: &str = "sans-serif";

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
type Root<'b> = DrawingArea<SVGBackend<'b>, Shift>;
type Drawn = Result<(), Box<dyn Error>>;

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

    let mut legend = vec![
        Entry::new(
            Glyph::Bar(CANDIDATE),
            format!(
                "Δ1 {} (candidate): {} of {} trials binned",
                labels.candidate,
                p1.inside.len(),
                d1.len()
            ),
        ),
        Entry::new(
            Glyph::Bar(BASELINE),
            format!(
                "Δ2 {} (baseline): {} of {} trials binned",
                labels.baseline,
                p2.inside.len(),
                d2.len()
            ),
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
    figure(&title, &legend, x, y, &x_desc, "trials per bin", |chart| {
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
    })
}

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
    let x_desc = axis_desc(
        labels.metric,
        &format!("quantile, Δ1 {}", shorten(labels.candidate, 30)),
        &axis,
    );
    let y_desc = axis_desc(
        labels.metric,
        &format!("quantile, Δ2 {}", shorten(labels.baseline, 30)),
        &axis,
    );
    figure(&title, &legend, axis, axis, &x_desc, &y_desc, |chart| {
        draw_diagonal(chart, &axis)?;
        chart.draw_series(
            placed
                .inside
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 3, POINTS.mix(0.75).filled())),
        )?;
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
    let x_desc = axis_desc(
        labels.metric,
        &format!("error, Δ1 {}", shorten(labels.candidate, 30)),
        &axis,
    );
    let y_desc = axis_desc(
        labels.metric,
        &format!("error, Δ2 {}", shorten(labels.baseline, 30)),
        &axis,
    );
    figure(&title, &legend, axis, axis, &x_desc, &y_desc, |chart| {
        draw_diagonal(chart, &axis)?;
        chart.draw_series(
            shown
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 2, POINTS.mix(0.6).filled())),
        )?;
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

fn draw_diagonal(chart: &mut Chart<'_, '_>, axis: &Axis) -> Drawn {
    chart.draw_series([PathElement::new(
        vec![(axis.lo, axis.lo), (axis.hi, axis.hi)],
        GREY.stroke_width(2),
    )])?;
    Ok(())
}

/// `metric error (log scale)`-style axis descriptions.
fn axis_desc(metric: &str, what: &str, axis: &Axis) -> String {
    format!(
        "{metric} {what}{}",
        if axis.log { " (log scale)" } else { "" }
    )
}

/// Legend entries for the values that could not be placed on an axis.
fn edge_entries(p1: &Placed, p2: &Placed, axis: &Axis, high: &str, low: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    if p1.high + p2.high > 0 {
        out.push(Entry::new(
            Glyph::Triangle,
            format!(
                "non-finite (not drawn; ▲ at the {high} edge): Δ1 {}, Δ2 {}",
                p1.high, p2.high
            ),
        ));
    }
    if p1.low + p2.low > 0 {
        out.push(Entry::new(
            Glyph::Triangle,
            format!(
                "{} (not on the {} axis; ▲ at the {low} edge): Δ1 {}, Δ2 {}",
                if axis.log { "zero or negative" } else { "-inf" },
                if axis.log { "logarithmic" } else { "value" },
                p1.low,
                p2.low
            ),
        ));
    }
    out
}

/// The smallest and largest of two lists of placed values.
fn data_extent(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let mut it = a.iter().chain(b).copied();
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
}

/// Shortens `s` to at most `max` characters, ending in `…` when cut.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Where a value goes on an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// On the axis, at this (possibly log-transformed) coordinate.
    In(f64),
    /// Below the axis: `-inf`, or zero or negative on a logarithmic axis.
    Low,
    /// Above the axis: `+inf` or NaN.
    High,
}

/// A sample placed on an axis.
struct Placed {
    inside: Vec<f64>,
    low: usize,
    high: usize,
}

/// Pairs placed on a shared axis: the ones inside, and the ones with a
/// coordinate off the axis, moved to its edge.
struct PlacedPairs {
    inside: Vec<(f64, f64)>,
    edge: Vec<(f64, f64)>,
}

fn place_pairs(axis: &Axis, pairs: &[(f64, f64)]) -> PlacedPairs {
    let span = axis.hi - axis.lo;
    let clamp = |p: Place| match p {
        Place::In(t) => t,
        Place::Low => axis.lo + span * 0.015,
        Place::High => axis.hi - span * 0.015,
    };
    let mut inside = Vec::new();
    let mut edge = Vec::new();
    for &(a, b) in pairs {
        match (axis.place(a), axis.place(b)) {
            (Place::In(x), Place::In(y)) => inside.push((x, y)),
            (pa, pb) => edge.push((clamp(pa), clamp(pb))),
        }
    }
    PlacedPairs { inside, edge }
}

/// A linear or base-10 logarithmic axis; `lo`, `hi` are in plot
/// coordinates (`log10` of the value on a logarithmic axis).
#[derive(Clone, Copy, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    /// On a linear axis, plot coordinates are values divided by this.
    scale: f64,
}

impl Axis {
    /// An axis for these values (see the module's documentation). With
    /// `from_zero`, a linear axis over non-negative values starts at zero.
    fn fit<'a>(values: impl Iterator<Item = &'a f64>, from_zero: bool) -> Axis {
        let finite: Vec<f64> = values.copied().filter(|v| v.is_finite()).collect();
        let Some((lo, hi)) = data_extent(&finite, &[]) else {
            return Axis::linear(0.0, 1.0);
        };
        let positive = finite.iter().copied().filter(|&v| v > 0.0);
        let min_pos = positive.clone().fold(f64::INFINITY, f64::min);
        let max_pos = positive.fold(0.0, f64::max);
        if lo >= 0.0 && min_pos.is_finite() && max_pos / min_pos > 100.0 {
            let (tlo, thi) = (min_pos.log10(), max_pos.log10());
            let pad = (thi - tlo) * 0.02;
            return Axis {
                lo: (tlo - pad).floor(),
                hi: (thi + pad).ceil(),
                log: true,
                scale: 1.0,
            };
        }
        // Plot in units of a power of ten near the largest magnitude, so
        // that tiny errors (1e-17) and huge ones (1e308) both give spans that
        // plotters can place ticks on.
        let magnitude = lo.abs().max(hi.abs());
        let scale = if magnitude > 0.0 {
            10f64.powi(magnitude.log10().floor() as i32)
        } else {
            1.0
        };
        let scale = if scale.is_normal() { scale } else { 1.0 };
        let (lo, hi) = (lo / scale, hi / scale);
        let (mut lo, mut hi) = if hi > lo {
            let pad = (hi - lo) * 0.08;
            (lo - pad, hi + pad)
        } else {
            let w = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
            (lo - w, hi + w)
        };
        if hi - lo <= 1e-9 * lo.abs().max(hi.abs()) {
            // Constant data at the resolution of doubles.
            (lo, hi) = (lo - 1.0, hi + 1.0);
        }
        if from_zero && lo < 0.0 && finite.iter().all(|&v| v >= 0.0) {
            lo = 0.0;
        }
        Axis {
            lo,
            hi,
            log: false,
            scale,
        }
    }

    fn linear(lo: f64, hi: f64) -> Axis {
        Axis {
            lo,
            hi,
            log: false,
            scale: 1.0,
        }
    }

    fn place(&self, v: f64) -> Place {
        if v.is_nan() || v == f64::INFINITY {
            Place::High
        } else if v == f64::NEG_INFINITY || (self.log && v <= 0.0) {
            Place::Low
        } else if self.log {
            Place::In(v.log10())
        } else {
            Place::In(v / self.scale)
        }
    }

    fn place_all(&self, values: &[f64]) -> Placed {
        let mut p = Placed {
            inside: Vec::with_capacity(values.len()),
            low: 0,
            high: 0,
        };
        for &v in values {
            match self.place(v) {
                Place::In(t) => p.inside.push(t),
                Place::Low => p.low += 1,
                Place::High => p.high += 1,
            }
        }
        p
    }

    /// How many tick labels to ask for.
    fn ticks(&self) -> usize {
        if self.log {
            ((self.hi - self.lo).round() as usize + 1).clamp(2, 12)
        } else {
            8
        }
    }

    /// A tick label for plot coordinate `t`.
    fn tick_label(&self, t: f64) -> String {
        if self.log {
            let k = t.round();
            if (t - k).abs() < 1e-6 {
                if k == 0.0 {
                    "1".to_owned()
                } else {
                    format!("1e{}", k as i64)
                }
            } else {
                short_number(10f64.powf(t))
            }
        } else {
            short_number(t * self.scale)
        }
    }

    /// A plot coordinate as a value, for the legend.
    fn value_label(&self, t: f64) -> String {
        short_number(if self.log {
            10f64.powf(t)
        } else {
            t * self.scale
        })
    }
}

/// A number in at most about 4 significant digits, `1.25e-5` style for
/// very small or large magnitudes.
fn short_number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_owned()
    } else if !v.is_finite() {
        super::csv::float(v)
    } else if (1e-3..1e5).contains(&a) {
        let s = format!("{v:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        // Keep at most 4 significant digits after the leading ones.
        match s.parse::<f64>() {
            Ok(x) if a >= 1.0 => format!("{}", (x * 1e3).round() / 1e3),
            _ => s.to_owned(),
        }
    } else {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((mantissa, exp)) => {
                let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
                format!("{mantissa}e{exp}")
            }
            None => s,
        }
    }
}

/// A glyph in the legend.
#[derive(Clone, Copy, Debug)]
enum Glyph {
    Bar(RGBColor),
    Box(RGBColor),
    Dot(RGBColor),
    Ring(RGBColor),
    Line(RGBColor),
    Triangle,
    Cross,
    None,
}

/// One legend line.
struct Entry {
    glyph: Glyph,
    text: String,
}

impl Entry {
    fn new(glyph: Glyph, text: String) -> Self {
        Entry { glyph, text }
    }
}

/// A chart with a title, axes, and a legend band under it.
fn figure(
    title: &str,
    legend: &[Entry],
    x: Axis,
    y: Axis,
    x_desc: &str,
    y_desc: &str,
    draw: impl FnOnce(&mut Chart<'_, '_>) -> Drawn,
) -> String {
    figure_with(title, legend, x, y, x_desc, y_desc, draw, |_, _| Ok(()))
}

#[allow(clippy::too_many_arguments)]
fn figure_with(
    title: &str,
    legend: &[Entry],
    x: Axis,
    y: Axis,
    x_desc: &str,
    y_desc: &str,
    draw: impl FnOnce(&mut Chart<'_, '_>) -> Drawn,
    decorate: impl FnOnce(&Chart<'_, '_>, &Root<'_>) -> Drawn,
) -> String {
    let height = CHART_HEIGHT + 14 + LEGEND_LINE * legend.len() as u32;
    let mut svg = String::new();
    let result = (|| -> Drawn {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(CHART_HEIGHT);
        let mut chart = ChartBuilder::on(&top)
            .caption(shorten(title, 80), (FONT, 22).into_font())
            .margin(14)
            .margin_right(26)
            .x_label_area_size(if x_desc.is_empty() { 40 } else { 52 })
            .y_label_area_size(78)
            .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)?;
        let x_fmt = |t: &f64| x.tick_label(*t);
        let y_fmt = |t: &f64| {
            if y.log || y.lo != 0.0 || y.hi < 10.0 {
                y.tick_label(*t)
            } else {
                format!("{}", t.round())
            }
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .y_labels(y.ticks())
            .x_desc(x_desc)
            .y_desc(y_desc)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .light_line_style(RGBColor(0xEE, 0xEE, 0xEE))
            .bold_line_style(RGBColor(0xDD, 0xDD, 0xDD));
        if x_desc.is_empty() {
            mesh.disable_x_mesh().x_labels(0);
        } else {
            mesh.x_labels(x.ticks());
        }
        mesh.draw()?;
        draw(&mut chart)?;
        decorate(&chart, &root)?;
        draw_legend(&bottom, legend)?;
        root.present()?;
        Ok(())
    })();
    match result {
        Ok(()) => svg,
        Err(e) => fallback(title, &e.to_string()),
    }
}

fn draw_legend(area: &Root<'_>, legend: &[Entry]) -> Drawn {
    let x0 = 24;
    for (i, entry) in legend.iter().enumerate() {
        let cy = 6 + (LEGEND_LINE * i as u32 + LEGEND_LINE / 2) as i32;
        match entry.glyph {
            Glyph::Bar(c) => area.draw(&Rectangle::new(
                [(x0, cy - 6), (x0 + 18, cy + 6)],
                c.mix(0.45).filled(),
            ))?,
            Glyph::Box(c) => {
                area.draw(&Rectangle::new(
                    [(x0, cy - 6), (x0 + 18, cy + 6)],
                    c.mix(0.3).filled(),
                ))?;
                area.draw(&Rectangle::new(
                    [(x0, cy - 6), (x0 + 18, cy + 6)],
                    c.stroke_width(2),
                ))?;
            }
            Glyph::Dot(c) => area.draw(&Circle::new((x0 + 9, cy), 4, c.filled()))?,
            Glyph::Ring(c) => area.draw(&Circle::new((x0 + 9, cy), 4, c.stroke_width(1)))?,
            Glyph::Line(c) => area.draw(&PathElement::new(
                vec![(x0, cy), (x0 + 18, cy)],
                c.stroke_width(2),
            ))?,
            Glyph::Triangle => area.draw(&TriangleMarker::new((x0 + 9, cy), 6, EDGE.filled()))?,
            Glyph::Cross => area.draw(&Cross::new((x0 + 9, cy), 5, BLACK.stroke_width(2)))?,
            Glyph::None => {}
        }
        area.draw(&Text::new(
            shorten(&entry.text, 110),
            (x0 + 28, cy),
            TextStyle::from((FONT, 16)).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// A minimal SVG stating why the plot could not be drawn.
fn fallback(title: &str, why: &str) -> String {
    format!(
        "<svg width=\"{WIDTH}\" height=\"80\" viewBox=\"0 0 {WIDTH} 80\" \
         xmlns=\"http://www.w3.org/2000/svg\">\n<text x=\"10\" y=\"30\" \
         font-family=\"{FONT}\" font-size=\"16\">{}</text>\n<text x=\"10\" y=\"60\" \
         font-family=\"{FONT}\" font-size=\"14\">plot not drawn: {}</text>\n</svg>\n",
        super::html::escape(title),
        super::html::escape(why)
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

    const L: Labels<'static> = Labels {
        candidate: "cand",
        baseline: "base",
        metric: "max_hybrid",
    };

    fn all_plots(d1: &[f64], d2: &[f64]) -> [String; 4] {
        [
            histogram(d1, d2, &L),
            boxplot(d1, d2, &L),
            qq(d1, d2, &L),
            scatter(d1, d2, &L),
        ]
    }

    #[test]
    fn degenerate_samples_never_panic() {
        let inf = f64::INFINITY;
        let cases: Vec<(Vec<f64>, Vec<f64>)> = vec![
            (vec![], vec![]),
            (vec![inf; 5], vec![inf; 5]),
            (vec![f64::NAN, inf], vec![0.0, f64::NEG_INFINITY]),
            (vec![1.0; 7], vec![1.0; 7]),
            (vec![0.0; 7], vec![0.0; 7]),
            (vec![3.0], vec![4.0]),
            (vec![f64::MAX, -f64::MAX], vec![f64::MIN_POSITIVE, 5e-324]),
            (vec![1e-300, 1e300, 0.0], vec![1e-10, inf, 0.0]),
            (vec![-1.0, 2.0, 1e6], vec![0.5, 0.25, -3.0]),
        ];
        for (d1, d2) in cases {
            for svg in all_plots(&d1, &d2) {
                assert!(svg.starts_with("<svg"), "{d1:?} {d2:?}: {svg}");
                assert!(!svg.contains("plot not drawn"), "{d1:?} {d2:?}: {svg}");
                assert!(!svg.contains("NaN"), "{d1:?} {d2:?}");
            }
        }
    }

    #[test]
    fn log_axis_when_errors_span_decades() {
        let a = Axis::fit([1e-8, 1e-7, 1e-5].iter(), true);
        assert!(a.log);
        assert_eq!((a.lo, a.hi), (-9.0, -4.0));
        let a = Axis::fit([1e-8, 5e-7, 0.0].iter(), true);
        assert!(!a.log);
        assert_eq!(a.lo, 0.0);
        assert!(!Axis::fit([-1.0, 1e-8, 1.0].iter(), true).log);
        assert_eq!(a.place(f64::INFINITY), Place::High);
        assert_eq!(a.place(f64::NAN), Place::High);
        let l = Axis::fit([1e-8, 1e-5].iter(), false);
        assert_eq!(l.place(0.0), Place::Low);
        assert_eq!(l.place(1e-6), Place::In(-6.0));
        // Tiny errors on a linear axis are plotted in units of their scale.
        let t = Axis::fit([1e-17, 5e-17].iter(), true);
        assert!(!t.log && t.scale == 1e-17, "{t:?}");
        assert_eq!(t.tick_label(2.0), "2e-17");
    }

    #[test]
    fn tick_labels() {
        let l = Axis {
            lo: -9.0,
            hi: -4.0,
            log: true,
            scale: 1.0,
        };
        assert_eq!(l.tick_label(-7.0), "1e-7");
        assert_eq!(l.tick_label(0.0), "1");
        assert_eq!(short_number(1.25e-5), "1.25e-5");
        assert_eq!(short_number(1e-5), "1e-5");
        assert_eq!(short_number(0.00125), "0.00125");
        assert_eq!(short_number(0.30000000000000004), "0.3");
        assert_eq!(short_number(12345.678), "12345.678");
        assert_eq!(short_number(2.5e7), "2.5e7");
    }

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

    #[test]
    fn names_are_escaped_in_svg() {
        let l = Labels {
            candidate: "<a & b>",
            baseline: "\"q\"",
            metric: "m",
        };
        let svg = scatter(&[1.0, 2.0], &[2.0, 1.0], &l);
        assert!(svg.contains("&lt;a &amp; b&gt;"), "{svg}");
        assert!(!svg.contains("<a & b>"));
    }
}
