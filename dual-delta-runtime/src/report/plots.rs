//! The plots of a run, each a [`Reporter`] of its own SVG file: what the
//! page shows beside its tables (the `html` feature).

use super::reporter::{Context, Destination, Reporter};
use super::{EVIDENCE_FILE, PLOT_FILES, REGION_FILE, REGRESSION_FILE, plot};
use crate::decide::Ending;
use crate::ended::Ended;
use crate::outcome::Outcome;

/// One plot of a run's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Plot {
    /// Overlapping histograms of Δ1 and Δ2.
    Histogram,
    /// Box plots of Δ1 and Δ2 side by side.
    Boxplot,
    /// Quantiles of Δ1 against quantiles of Δ2.
    Qq,
    /// Δ1 against Δ2, input by input.
    Scatter,
    /// The sequential test's evidence against the inputs run.
    Evidence,
    /// The candidate's errors now against its errors at the baseline it
    /// was compared with (only with a baseline).
    Regression,
    /// Each input's `Δ1 / Δ2` against the feature whose cut carries the
    /// loss (only where one does).
    Region,
}

impl Reporter for Plot {
    fn destination(&self, _: &Ended) -> Destination {
        Destination::File(match self {
            Plot::Histogram => PLOT_FILES[0],
            Plot::Boxplot => PLOT_FILES[1],
            Plot::Qq => PLOT_FILES[2],
            Plot::Scatter => PLOT_FILES[3],
            Plot::Evidence => EVIDENCE_FILE,
            Plot::Regression => REGRESSION_FILE,
            Plot::Region => REGION_FILE,
        })
    }

    fn render(&self, ended: &Ended, _: &Context<'_>) -> Option<String> {
        let o = ended.outcome()?;
        let labels = plot::Labels {
            candidate: &o.names.candidate,
            baseline: &o.names.baseline,
            metric: o.settings.metric.name(),
        };
        let (d1, d2) = (&o.delta1, &o.delta2);
        Some(match self {
            Plot::Histogram => plot::histogram(d1, d2, &labels),
            Plot::Boxplot => plot::boxplot(d1, d2, &labels),
            Plot::Qq => plot::qq(d1, d2, &labels),
            Plot::Scatter => plot::scatter(d1, d2, &labels),
            Plot::Evidence => evidence(o),
            // Only where a cut carries the loss.
            Plot::Region => {
                let l = o.regions.as_ref().filter(|l| l.carries)?;
                plot::region(&l.points, l.cut.as_ref()?, &labels)
            }
            // Only where the run was compared with a baseline.
            Plot::Regression => {
                o.regression.as_ref().filter(|r| !r.now.is_empty())?;
                regression(o)
            }
        })
    }
}

/// The sequential test's evidence against the trials run.
fn evidence(o: &Outcome) -> String {
    let q = &o.sequential;
    let (fail, pass): (Vec<f64>, Vec<f64>) =
        q.trace.iter().map(|t| (t.log10_fail, t.log10_pass)).unzip();
    plot::evidence(&plot::Evidence {
        fail: &fail,
        pass: &pass,
        // Where the run would stop: the run's levels, which the monitor
        // held it to and the terminal and the page say.
        fail_threshold: o.levels.stop_evidence_log10,
        pass_threshold: o.levels.pass_evidence_log10(),
        stopped_after: match o.judgement.ending {
            Ending::Decided { after } => Some(after),
            _ => None,
        },
        cap: o.settings.n,
    })
}

/// The baseline as a third sample: the candidate's errors now against its
/// errors at the baseline, on the paired trials (empty without one).
fn regression(o: &Outcome) -> String {
    let Some(r) = o.regression.as_ref() else {
        return String::new();
    };
    let then = format!("{} at baseline `{}`", o.names.candidate, r.baseline);
    let now = format!("{} now", o.names.candidate);
    let labels = plot::Labels {
        candidate: &now,
        baseline: &then,
        metric: o.settings.metric.name(),
    };
    plot::boxplot(&r.now, &r.then, &labels)
}
