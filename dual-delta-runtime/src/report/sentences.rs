//! The outcome in words: the sentences the reports print (the accuracy
//! verdict, the screen, the whole verdict, the device). They read the
//! outcome and its judgement; none of them decides.

use crate::decide::DecidedBy;
use crate::outcome::Outcome;
use crate::stats::sequential::Reason;
use crate::verdict::Accuracy;

/// `×3.00`, `×0.95`, `∞`.
fn ratio_words(r: f64) -> String {
    if r.is_finite() {
        format!("×{r:.2}")
    } else {
        "×∞".to_owned()
    }
}

/// The outcome in words.
impl Outcome {
    /// The accuracy verdict in one sentence: the claim's rule with its
    /// p-value and ratio of means, and how the run ended.
    pub fn accuracy_sentence(&self) -> String {
        let n = &self.names;
        let v = &self.verdict;
        let (c, b) = (&n.candidate, &n.baseline);
        let margin = self.settings.margin;
        let p = self
            .p_worse()
            .map_or_else(|| "p not computed".to_owned(), |p| format!("p = {p:.2e}"));
        let test = self.analysis.accuracy_test.name();
        let effect = {
            // One unit for the estimate and its bounds, chosen by the
            // estimate: `+12% (99% bounds +8%–+15%)`, `×4.50 (99% bounds ×2.10–×9.00)`.
            let m = &self.claim.mean;
            let times = !(m.effect.is_finite() && m.effect < 3.0);
            format!(
                "mean error {} the baseline's ({}% bounds {}–{})",
                signed_percent(m.effect, times),
                100.0 * (1.0 - self.claim.level),
                signed_percent(m.lower, times),
                signed_percent(m.upper, times)
            )
        };
        let margin_words = if margin > 0.0 {
            format!(", beyond the {}% margin", 100.0 * margin)
        } else {
            String::new()
        };
        let typical = &self.claim.typical;
        let typical_words = format!(
            "its error is {} the baseline's on the median input ({}% lower bound {})",
            ratio_words(typical.effect),
            100.0 * (1.0 - self.claim.level),
            ratio_words(typical.lower)
        );
        let claim = match (self.judgement.decided_by, v.accuracy) {
            (_, _) if (v.identical || v.equal_errors) && self.claim.not_judged == 0 => {
                return self.ended(v.accuracy_sentence(c, b).trim_end_matches('.'));
            }
            (DecidedBy::Sequential { reason, .. }, _) if reason != Reason::Worse => {
                early_claim(reason, c, b, margin)
            }
            (DecidedBy::Sequential { .. }, _) => format!(
                "{c} is significantly less accurate than {b} (one-sided {test} at margin 0, {p}), \
                 {effect}; worse on the typical input{margin_words}"
            ),
            (_, Accuracy::LessAccurate)
                if self.claim.failed_by() == Some(crate::decide::claim::Which::Mean) =>
            {
                format!(
                    "{c} is significantly less accurate than {b} in mean error (test of the \
                     ratio of means at the margin, p = {:.2e}), {effect}{margin_words}",
                    self.claim.mean.p_margin.unwrap_or(f64::NAN)
                )
            }
            (_, Accuracy::LessAccurate) => format!(
                "{c} is significantly less accurate than {b} (one-sided {test} at margin 0, {p}) \
                 on the typical input: {typical_words}{margin_words}; {effect}"
            ),
            (_, Accuracy::MoreAccurate) => format!(
                "{c} is significantly more accurate than {b} ({test}, p = {:.2e}), {effect}",
                self.p_better().unwrap_or(f64::NAN)
            ),
            // Not significant at all: say so, whatever the ratio (infinite
            // where the candidate's errors are; not comparable where both
            // are). "Within the margin" is only for a significant loss the
            // margin forgives.
            (_, Accuracy::NoSignificantDifference) if self.judgement.within_margin.is_none() => {
                format!(
                    "No significant accuracy difference between {c} and {b} (one-sided {test}, {p}), {effect}"
                )
            }
            (_, Accuracy::NoSignificantDifference) => format!(
                "{c} is not less accurate than {b} beyond the {}% margin ({effect})",
                100.0 * margin
            ),
        };
        self.ended(&claim)
    }

    /// Where the loss is, where the candidate is significantly less
    /// accurate: the regions of the inputs that carry it
    /// ([`crate::Localization`]), or that it is spread over them.
    pub fn where_sentence(&self) -> Option<String> {
        let l = self.regions.as_ref()?;
        Some(match &l.sentence {
            Some(s) => format!(
                "{s} (each of {n} regions tested at α/{n}, over the {} inputs measured)",
                l.inputs,
                n = l.regions.len(),
            ),
            None => format!(
                "no region of the inputs carries the loss on its own at α/{} (the oracle's \
                 magnitude, the worst element's position, the input's kind): it is spread over \
                 the {} inputs measured",
                l.regions.len().max(1),
                l.inputs
            ),
        })
    }

    /// `claim`, with how the run ended: `(over 1000 of 1000 inputs; 88 ties
    /// (identical outputs))`, the early stop, or the quick pass; and the
    /// inputs the metric could not judge, if any.
    fn ended(&self, claim: &str) -> String {
        let ended = self.ended_plain(claim);
        let judged = &self.claim;
        if judged.not_judged == 0 && judged.baseline_non_finite == 0 {
            return ended;
        }
        format!(
            "{ended} The metric could not judge {} input(s) (undefined for both outputs), \
             counted as ties; on {} the baseline's error alone was not finite, counted for \
             the candidate{}.",
            judged.not_judged,
            judged.baseline_non_finite,
            if judged.undefined_elements > 0 {
                format!(
                    "; {} output element(s) undefined for both were left out of both errors",
                    judged.undefined_elements
                )
            } else {
                String::new()
            }
        )
    }

    fn ended_plain(&self, claim: &str) -> String {
        let s = &self.screen;
        let n = self.settings.n;
        let tie_words = match s.ties {
            1 => "1 tie (identical outputs)".to_owned(),
            t => format!("{t} ties (identical outputs)"),
        };
        let ties = if s.ties == 0 {
            String::new()
        } else if s.ties_unmeasured() > 0 {
            format!(
                "; {tie_words}, their errors estimated from a seeded sample of {}",
                s.ties_measured
            )
        } else {
            format!("; {tie_words}")
        };
        match self.judgement.decided_by {
            DecidedBy::Sequential { after, .. } if s.quick_pass() => {
                // (1 − p)^k ≤ α rules out a share p of bad inputs.
                let share = 1.0 - self.settings.alpha.powf(1.0 / after.max(1) as f64);
                format!(
                    "{claim} (quick mode: passed after {after} of {n} inputs; a share of bad \
                     inputs below {:.2}% cannot be ruled out at {}% confidence).",
                    100.0 * share,
                    100.0 * (1.0 - self.settings.alpha)
                )
            }
            DecidedBy::Sequential { after, .. } => format!(
                "{claim} (anytime-valid sequential test, stopped after {after} of {n} inputs{ties})."
            ),
            _ => format!("{claim} (over {} of {n} inputs{ties}).", s.checked),
        }
    }

    /// What the screen did, in one sentence (empty when every input ran as
    /// a full trial): the inputs checked and the ties, or what a quick
    /// pass left unchecked.
    pub fn screen_sentence(&self) -> String {
        let s = &self.screen;
        if s.quick_pass() {
            format!(
                "Quick mode: rare non-finite outputs, panics and gross errors on the other {} \
                 inputs were not checked.",
                s.unchecked
            )
        } else {
            String::new()
        }
    }

    /// The descriptive statistics as every report's table shows them: the
    /// run's [`Summaries`](crate::Summaries) over the inputs the oracle ran
    /// on, except where ties were sampled: then the means are the claim's,
    /// over every input with finite errors, each measured tie standing for
    /// the ties the oracle skipped, so that the table's means and the
    /// ratio of means tell one story ([`Outcome::means_note`] says so).
    pub fn shown_summaries(&self) -> crate::Summaries {
        let mut shown = self.summaries;
        if self.means_weighted() {
            let (m1, m2) = (self.claim.mean_delta1, self.claim.mean_delta2);
            shown.candidate.mean = m1;
            shown.baseline.mean = m2;
            shown.differences.mean = m1 - m2;
        }
        shown
    }

    /// Over which inputs the table's statistics are, where ties were
    /// sampled for the oracle (`None` where the oracle ran on every tie):
    /// `means over all 1000 inputs with finite errors (the 450 ties the
    /// oracle skipped counted as the 100 it ran on); the other columns over
    /// the 550 inputs it ran on`.
    pub fn means_note(&self) -> Option<String> {
        let s = &self.screen;
        self.means_weighted().then(|| {
            format!(
                "means over all {} inputs with finite errors (the {} ties the oracle skipped \
                 counted as the {} it ran on); the other columns over the {} inputs it ran on",
                self.claim.in_mean,
                s.ties_unmeasured(),
                s.ties_measured,
                self.delta1.len()
            )
        })
    }

    /// Whether the table's means are the claim's, weighted for the ties
    /// the oracle skipped ([`Outcome::shown_summaries`]): where it skipped
    /// some, and the claim's means were recorded.
    fn means_weighted(&self) -> bool {
        self.screen.ties_unmeasured() > 0 && self.claim.mean_delta1.is_finite()
    }

    /// Why the run failed, in one sentence, the reason first (its check,
    /// a gate, a regression, then the expectation not met); `None` for a
    /// run that passed. What every one-line summary of a failure says.
    pub fn failure_sentence(&self) -> Option<String> {
        if self.passed() {
            return None;
        }
        let n = &self.names;
        Some(if let Some(reason) = &self.check {
            format!("Failed its check: {reason}.")
        } else if self.non_finite_gate() {
            format!(
                "{} returned a non-finite value on {} of {} inputs checked where {} and the \
                 oracle were finite.",
                n.candidate,
                self.non_finite.candidate_only().len(),
                self.inputs_checked(),
                n.baseline
            )
        } else if let Some(b) = &self.judgement.over_bound {
            self.bound_sentence(b)
        } else if let Some(r) = self
            .regression
            .as_ref()
            .filter(|_| self.judgement.regressed)
        {
            r.sentence()
        } else if self.gross_error_gate()
            && let Some(g) = self.gross.first()
        {
            format!(
                "{} made a gross error on {} of {} inputs checked (first on trial {}).",
                n.candidate,
                self.gross.len(),
                self.inputs_checked(),
                g.at.trial
            )
        } else if self.meets_accuracy() {
            format!(
                "Stability expectation `{}` not met: {}",
                self.settings.stability.map_or("none", |e| e.name()),
                self.verdict.stability_sentence(&n.candidate, &n.baseline)
            )
        } else {
            self.accuracy_sentence()
        })
    }

    /// The first input over the documented bound, in one sentence: the
    /// trial, its seed, both errors, and the three outputs where the
    /// candidate's error is largest.
    pub fn bound_sentence(&self, b: &crate::worst::OverBound) -> String {
        let (n, a) = (&self.names, &b.at);
        format!(
            "{}'s error exceeded the documented bound {} on trial {} (trial seed {:#018x}): \
             error {} ({}'s {}){}: candidate {}, baseline {}, oracle {}.",
            n.candidate,
            sci(b.bound),
            a.trial,
            a.seed,
            sci(a.delta1),
            n.baseline,
            sci(a.delta2),
            a.element_words(),
            a.candidate,
            a.baseline,
            a.oracle
        )
    }

    /// The verdict in words: a failed check first, the gates where they
    /// decide the run,
    /// then accuracy, a difference inside the margin, the screen, then
    /// stability.
    pub fn verdict_sentence(&self) -> String {
        let n = &self.names;
        let mut out = String::new();
        if let Some(reason) = &self.check {
            out.push_str(&format!("Failed its check: {reason}. "));
        }
        let failing = self.non_finite.candidate_only();
        if !failing.is_empty() {
            out.push_str(&format!(
                "{} returned a non-finite value on {} of {} inputs checked where {} and the \
                 oracle were finite{}. ",
                n.candidate,
                failing.len(),
                self.inputs_checked(),
                n.baseline,
                if self.settings.allow_non_finite {
                    " (allowed by this test)"
                } else {
                    ""
                }
            ));
        }
        if let Some(b) = &self.judgement.over_bound {
            out.push_str(&format!("{} ", self.bound_sentence(b)));
        } else if let Some(bound) = self.settings.bound {
            let max = self.delta1.iter().copied().fold(0.0, f64::max);
            out.push_str(&format!(
                "Every one of the {} inputs checked within the documented bound {} (largest \
                 error {}). ",
                self.inputs_checked(),
                sci(bound),
                sci(max)
            ));
        }
        if let Some(g) = self.gross.first() {
            out.push_str(&format!(
                "{} made a gross error on {} of {} inputs checked: first on trial {} (trial seed \
                 {:#018x}), error {}, more than {} × the reference {}. ",
                n.candidate,
                self.gross.len(),
                self.inputs_checked(),
                g.at.trial,
                g.at.seed,
                sci(g.at.delta1),
                self.settings.gross_factor,
                sci(g.reference)
            ));
        }
        out.push_str(&self.accuracy_sentence());
        if let Some(w) = &self.judgement.within_margin {
            out.push_str(&format!(" {} is {}.", n.candidate, w.sentence()));
        }
        let screen = self.screen_sentence();
        if !screen.is_empty() {
            out.push(' ');
            out.push_str(&screen);
        }
        if let Some(r) = &self.regression {
            out.push(' ');
            out.push_str(&r.sentence());
        }
        if let Some(a) = &self.metric_advice {
            out.push(' ');
            out.push_str(&a.sentence());
        }
        let device = self.device_sentence();
        if !device.is_empty() {
            out.push(' ');
            out.push_str(&device);
        }
        out.push(' ');
        out.push_str(&self.verdict.stability_sentence(&n.candidate, &n.baseline));
        out
    }

    /// What the GPU this process used does to floating-point arithmetic,
    /// where it differs from lavapipe (`gpu.caveats`, recorded by the GPU
    /// backend's probe), in one sentence; empty where nothing was recorded.
    pub fn device_sentence(&self) -> String {
        match self.environment.get("gpu.caveats") {
            Some(c) if !c.is_empty() => {
                let adapter = self
                    .environment
                    .get("gpu.adapter")
                    .map(|a| format!(" ({})", a.split(" (").next().unwrap_or(a)))
                    .unwrap_or_default();
                format!("Device{adapter}: {c}.")
            }
            _ => String::new(),
        }
    }
}

/// `+12%`, `−3.0%`: a ratio of means as a change, or with `times`
/// `×4.50`, `×inf`.
fn signed_percent(ratio: f64, times: bool) -> String {
    if !ratio.is_finite() {
        return format!("×{ratio}");
    }
    if times {
        return format!("×{ratio:.2}");
    }
    let p = 100.0 * (ratio - 1.0);
    let sign = if p < 0.0 { "−" } else { "+" };
    format!("{sign}{}", crate::decide::claim::percent(p.abs()))
}

/// `1.234e-5`, `NaN`, `inf`: a value in a sentence.
fn sci(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3e}")
    } else {
        v.to_string()
    }
}

/// What an early decision established, in words.
fn early_claim(reason: Reason, candidate: &str, baseline: &str, margin: f64) -> String {
    let m = format!("{}%", 100.0 * margin);
    match reason {
        Reason::Worse if margin > 0.0 => format!(
            "{candidate} is significantly less accurate than {baseline} beyond the {m} margin"
        ),
        Reason::Worse => format!("{candidate} is significantly less accurate than {baseline}"),
        Reason::Better => format!("{candidate} is significantly more accurate than {baseline}"),
        Reason::NotWorseBeyondMargin => {
            format!("{candidate} is not less accurate than {baseline} beyond the {m} margin")
        }
        Reason::NotBetterBeyondMargin => {
            format!("{candidate} is not more accurate than {baseline} beyond the {m} margin")
        }
        Reason::WithinMargin => {
            format!("{candidate} and {baseline} agree in accuracy within the {m} margin")
        }
    }
}
