//! The evidence of the sequential test against the inputs observed.

use plotters::prelude::*;

use super::axis::Axis;
use super::figure::{Entry, Glyph, figure_with, no_decoration};
use super::{BASELINE, CANDIDATE, GREY, POINTS};

/// The two e-processes that decide an expectation, as `log10` of their
/// e-values after each input (one point per input: `fail[i]`, `pass[i]`
/// after input `i + 1`), with the evidence at which each side stops the run
/// and the input at which the run stopped, if it did.
#[derive(Clone, Copy, Debug)]
pub struct Evidence<'a> {
    /// `log10` of the e-process whose crossing fails the expectation.
    pub fail: &'a [f64],
    /// `log10` of the e-process whose crossing passes it.
    pub pass: &'a [f64],
    /// `log10` of the e-value at which the fail side stops the run: the
    /// larger of `1/α_fail` and the claim's stop evidence.
    pub fail_threshold: f64,
    /// `log10(1/α_pass)`: the pass side's (where it may stop the run).
    pub pass_threshold: f64,
    /// The input after which the run stopped early, as the run's
    /// [`crate::decision::Ending`] says; `None` where it did not stop early.
    pub stopped_after: Option<usize>,
    /// The most trials the run could take (`n`).
    pub cap: usize,
}

/// The evidence for failing and for passing against the trials, on a
/// logarithmic scale (`log10` of the e-value: 0 is no evidence, the dashed
/// lines are the thresholds 1/α), with the deciding trial marked.
pub fn evidence(e: &Evidence<'_>) -> String {
    let trials = e.fail.len().max(e.pass.len()).max(1);
    let finite = e
        .fail
        .iter()
        .chain(e.pass)
        .copied()
        .filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let top = hi.max(e.fail_threshold).max(e.pass_threshold);
    let margin = 0.08 * (top - lo).max(1.0);
    let x = Axis::linear(0.0, trials as f64);
    let y = Axis::linear(lo - margin, top + margin);
    let series = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, &v)| ((i + 1) as f64, v))
            .collect()
    };
    let (fail, pass) = (series(e.fail), series(e.pass));
    let mut legend = vec![
        Entry::new(
            Glyph::Line(CANDIDATE),
            format!(
                "evidence for failing; an early failure at log10 e = {:.2} (dashed)",
                e.fail_threshold
            ),
        ),
        Entry::new(
            Glyph::Line(BASELINE),
            format!(
                "evidence for passing; an early pass at log10 e = {:.2} (dashed)",
                e.pass_threshold
            ),
        ),
    ];
    legend.push(Entry::new(
        Glyph::Line(POINTS),
        match e.stopped_after {
            Some(t) => format!("stopped after input {t} of at most {}", e.cap),
            None => format!(
                "no early stop: {trials} inputs observed (at most {})",
                e.cap
            ),
        },
    ));
    figure_with(
        "Evidence of the sequential test",
        &legend,
        x,
        y,
        "inputs observed",
        "log10 e-value",
        |chart| {
            for (threshold, colour) in [(e.fail_threshold, CANDIDATE), (e.pass_threshold, BASELINE)]
            {
                chart.draw_series(dashes(trials as f64).map(|(a, b)| {
                    PathElement::new(vec![(a, threshold), (b, threshold)], colour.stroke_width(1))
                }))?;
            }
            chart.draw_series([PathElement::new(
                vec![(0.0, 0.0), (trials as f64, 0.0)],
                GREY.stroke_width(1),
            )])?;
            chart.draw_series([PathElement::new(fail, CANDIDATE.stroke_width(2))])?;
            chart.draw_series([PathElement::new(pass, BASELINE.stroke_width(2))])?;
            if let Some(t) = e.stopped_after {
                chart.draw_series([PathElement::new(
                    vec![(t as f64, y.lo), (t as f64, y.hi)],
                    POINTS.stroke_width(2),
                )])?;
            }
            Ok(())
        },
        no_decoration,
    )
}

/// The segments of a dashed horizontal line from 0 to `end`: 60 dashes.
fn dashes(end: f64) -> impl Iterator<Item = (f64, f64)> {
    let step = end / 60.0;
    (0..60).map(move |i| (i as f64 * step, (i as f64 + 0.6) * step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_both_processes_their_thresholds_and_the_decision() {
        let fail: Vec<f64> = (1..=20).map(|i| 0.15 * f64::from(i)).collect();
        let pass: Vec<f64> = (1..=20).map(|i| -0.05 * f64::from(i)).collect();
        let svg = evidence(&Evidence {
            fail: &fail,
            pass: &pass,
            fail_threshold: 2.3,
            pass_threshold: 2.0,
            stopped_after: Some(16),
            cap: 1000,
        });
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("stopped after input 16 of at most 1000"));
        assert!(svg.contains("an early failure at log10 e = 2.30"));
        assert!(svg.contains("an early pass at log10 e = 2.00"));
        assert!(svg.contains("#D55E00") && svg.contains("#0072B2"));
        // Empty and non-finite traces still give a plot.
        let empty = evidence(&Evidence {
            fail: &[],
            pass: &[f64::NAN],
            fail_threshold: 2.0,
            pass_threshold: 2.0,
            stopped_after: None,
            cap: 10,
        });
        assert!(
            empty.contains("no early stop: 1 inputs observed"),
            "{empty}"
        );
    }
}
