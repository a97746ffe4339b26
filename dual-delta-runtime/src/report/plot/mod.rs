//! The report's plots, as SVG text: overlapping histograms, box plots, a
//! Q-Q plot and a scatter plot of Δ1 against Δ2, and the evidence of the
//! sequential test against the trials run.
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

mod axis;
mod boxplot;
mod evidence;
mod figure;
mod histogram;
mod qq;
mod region;
mod scatter;

pub use self::boxplot::boxplot;
pub use self::evidence::{Evidence, evidence};
pub use self::histogram::histogram;
pub use self::qq::qq;
pub use self::region::region;

pub use self::scatter::scatter;

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
