//! The frame every chart is drawn in: title, axes, legend, and the
//! shared marks (the diagonal, the legend entries for values off the axes).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{Axis, Placed, axis_desc};
use super::{CHART_HEIGHT, Chart, Drawn, EDGE, FONT, GREY, LEGEND_LINE, Root, WIDTH};

/// No decoration beyond the chart: the last argument of [`figure_with`]
/// for most plots.
pub(super) fn no_decoration(_: &Chart<'_, '_>, _: &Root<'_>) -> Drawn {
    Ok(())
}

/// A chart with a title, axes, and a legend band under it; `decorate`
/// draws on the whole figure once the chart is drawn.
#[allow(clippy::too_many_arguments)]
pub(super) fn figure_with(
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
        crate::report::html::escape(title),
        crate::report::html::escape(why)
    )
}

/// A glyph in the legend.
#[derive(Clone, Copy, Debug)]
pub(super) enum Glyph {
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
pub(super) struct Entry {
    glyph: Glyph,
    text: String,
}

impl Entry {
    pub(super) fn new(glyph: Glyph, text: String) -> Self {
        Entry { glyph, text }
    }
}

/// The axis descriptions of a plot of Δ1 (x) against Δ2 (y): `what` (the
/// quantity plotted, `quantile` or `error`) of each sample.
pub(super) fn paired_descs(
    labels: &super::Labels<'_>,
    what: &str,
    axis: &Axis,
) -> (String, String) {
    let desc = |delta: &str, name: &str| {
        axis_desc(
            labels.metric,
            &format!("{what}, {delta} {}", shorten(name, 30)),
            axis,
        )
    };
    (desc("Δ1", labels.candidate), desc("Δ2", labels.baseline))
}

pub(super) fn draw_diagonal(chart: &mut Chart<'_, '_>, axis: &Axis) -> Drawn {
    chart.draw_series([PathElement::new(
        vec![(axis.lo, axis.lo), (axis.hi, axis.hi)],
        GREY.stroke_width(2),
    )])?;
    Ok(())
}

/// A plot of pairs (x from Δ1, y from Δ2) on one axis for both: the
/// diagonal `y = x`, the `dots` of `radius` and `opacity`, then whatever
/// `more` draws; `what` names the values on the axes (`quantile`,
/// `error`).
pub(super) struct Paired<'a> {
    pub(super) title: &'a str,
    pub(super) what: &'a str,
    pub(super) labels: &'a super::Labels<'a>,
    pub(super) legend: &'a [Entry],
    pub(super) axis: Axis,
    pub(super) dots: &'a [(f64, f64)],
    pub(super) radius: i32,
    pub(super) opacity: f64,
}

impl Paired<'_> {
    /// The figure's SVG.
    pub(super) fn draw(self, more: impl FnOnce(&mut Chart<'_, '_>) -> Drawn) -> String {
        let (x_desc, y_desc) = paired_descs(self.labels, self.what, &self.axis);
        let axis = self.axis;
        figure_with(
            self.title,
            self.legend,
            axis,
            axis,
            &x_desc,
            &y_desc,
            |chart| {
                draw_diagonal(chart, &axis)?;
                chart.draw_series(self.dots.iter().map(|&(x, y)| {
                    Circle::new(
                        (x, y),
                        self.radius,
                        super::POINTS.mix(self.opacity).filled(),
                    )
                }))?;
                more(chart)
            },
            no_decoration,
        )
    }
}

/// Legend entries for the values that could not be placed on an axis.
pub(super) fn edge_entries(
    p1: &Placed,
    p2: &Placed,
    axis: &Axis,
    high: &str,
    low: &str,
) -> Vec<Entry> {
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

/// Shortens `s` to at most `max` characters, ending in `…` when cut.
pub(super) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
