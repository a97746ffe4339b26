//! The monitor: looks at each input as the rounds deliver it, feeds the
//! anytime-valid sequential test, and says where a run may stop.
//!
//! A run stops before `n` only where an early stop keeps the claim's
//! guarantees ([`crate::decide::claim`]):
//!
//! * at a non-finite output (the gate fails the run whatever follows);
//! * at a failure of the sequential test's fail side, once its e-value also
//!   reaches [`crate::decide::claim::STOP_EVIDENCE`]: for `no_worse` the fail side
//!   is the typical-input criterion (T), as the minimum of two e-processes
//!   that are each valid under its null (the signed-rank process at margin
//!   0 and the sign process of "above `1 + δ` on more than half of all
//!   inputs", ties counting against), so Ville's inequality bounds its false
//!   failures however often it looks; no fixed-sample test is repeated;
//! * at a pass, in the quick mode and for `expect = worse` only;
//! * at the first input over a documented `bound`, in every mode where
//!   `stop_early` is on (nothing after it can change the verdict).
//!
//! (M), the mean, has no anytime-valid test under every tail: it is
//! decided over all `n` inputs. Runs that save or compare a baseline stop
//! only at an input over a bound; runs with `stop_early = false` never
//! stop.
//!
//! The stopping input is the first input at which the rule holds, fed one
//! by one, so it is the same on any rounds and any number of threads.

use super::{Levels, exceeds, fails_non_finite};
use crate::config::Settings;
use crate::expect::Expect;
use crate::schedule::Look;
use crate::screen::Mode;
use crate::stats::StatsError;
use crate::stats::sequential::{Crossed, Sequential};
use crate::trial::Checked;

/// The state of a run's look at its inputs.
pub(crate) struct Monitor<'s> {
    settings: &'s Settings,
    mode: Mode,
    sequential: Sequential,
    /// The inputs fed so far.
    seen: usize,
    /// `log10` of the e-value an early failure needs.
    stop_evidence: f64,
    /// An error of the sequential test (a NaN error): the run ends with it.
    error: Option<StatsError>,
}

impl<'s> Monitor<'s> {
    /// The monitor of a run with `settings` and their `levels` in `mode`.
    pub(crate) fn new(
        settings: &'s Settings,
        levels: &Levels,
        mode: Mode,
    ) -> Result<Self, StatsError> {
        let sequential = Sequential::new(settings.expect, settings.alpha, settings.margin)?
            // A run ends early only at a failure, except in the quick mode
            // and for `expect = worse`, whose pass (the candidate shown
            // less accurate) more inputs could only confirm.
            .fail_only(mode != Mode::Quick && settings.expect != Expect::Worse);
        Ok(Monitor {
            settings,
            mode,
            sequential,
            seen: 0,
            stop_evidence: levels.stop_evidence_log10,
            error: None,
        })
    }

    /// Whether the run may stop before `n` at all.
    fn may_stop(&self) -> bool {
        self.settings.stop_early && self.mode != Mode::AllTrials
    }

    /// Feeds the inputs of `checked` not seen yet, in order, and says
    /// whether to stop (keeping the inputs up to the one that decided).
    pub(crate) fn observe(&mut self, checked: &[Checked]) -> Look {
        while self.seen < checked.len() {
            let c = &checked[self.seen];
            self.seen += 1;
            let fed = match c.full() {
                // In the quick mode ties are evidence of no loss beyond
                // the margin; elsewhere an identical output is neutral.
                Some(t) if self.mode == Mode::Quick || !t.identical_outputs => {
                    self.sequential.observe(&[t.candidate], &[t.baseline])
                }
                _ => {
                    self.sequential.observe_tie();
                    Ok(())
                }
            };
            if let Err(e) = fed {
                self.error = Some(e);
                return Look::Stop {
                    trials: checked.len(),
                };
            }
            if self.may_stop() && self.stops_at(c) {
                return Look::Stop { trials: self.seen };
            }
            // The first input over a documented bound fails the run in
            // every mode: nothing after it can change that.
            if self.settings.stop_early && c.full().is_some_and(|t| exceeds(t, self.settings)) {
                return Look::Stop { trials: self.seen };
            }
        }
        Look::Continue
    }

    /// Whether the run stops at input `c`, just fed.
    fn stops_at(&self, c: &Checked) -> bool {
        let gate = c.full().is_some_and(|t| fails_non_finite(t, self.settings));
        let evidence = self.sequential.trace().last().map_or(0.0, |p| p.log10_fail);
        gate || match self.sequential.crossed() {
            Crossed::Fail { .. } => evidence >= self.stop_evidence,
            Crossed::Pass { .. } => true,
            Crossed::Neither => false,
        }
    }

    /// The sequential test over the inputs fed, or the error that ended
    /// the run.
    pub(crate) fn finish(self) -> Result<Sequential, StatsError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.sequential),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, Settings};
    use crate::trial::TrialErrors;

    fn full(candidate: f64, baseline: f64, identical: bool) -> Checked {
        Checked::Full(TrialErrors::for_test(candidate, baseline, identical))
    }

    fn settings(stop_early: bool) -> Settings {
        let o = Overrides {
            stop_early: Some(stop_early),
            ..Overrides::default()
        };
        Settings::resolve_with("monitor", &o, |_| None).unwrap()
    }

    #[test]
    fn a_clear_loss_stops_at_the_same_input_on_any_rounds() {
        let s = settings(true);
        let inputs: Vec<Checked> = (0..200)
            .map(|i| full(3.0 + f64::from(i % 3), 1.0, false))
            .collect();
        let stop = |round: usize| {
            let mut m = Monitor::new(&s, &Levels::of(&s), Mode::Screened).unwrap();
            for end in (round..=inputs.len()).step_by(round) {
                if let Look::Stop { trials } = m.observe(&inputs[..end]) {
                    return trials;
                }
            }
            0
        };
        let at = stop(1);
        assert!(at > 0 && at < 40, "{at}");
        assert_eq!(stop(8), at);
        assert_eq!(stop(50), at);
    }

    #[test]
    fn ties_hold_back_the_typical_criterion_and_nothing_stops_without_stop_early() {
        let s = settings(true);
        // Worse on every third input, identical on the rest: the typical
        // input is a tie, so the fail side never stops the run.
        let inputs: Vec<Checked> = (0..300)
            .map(|i| {
                if i % 3 == 0 {
                    full(50.0, 1.0, false)
                } else {
                    Checked::Tie
                }
            })
            .collect();
        let mut m = Monitor::new(&s, &Levels::of(&s), Mode::Screened).unwrap();
        assert_eq!(m.observe(&inputs), Look::Continue);
        assert_eq!(m.finish().unwrap().trials(), 300);
        // A clear loss, with stop_early = false: every input is fed.
        let s = settings(false);
        let worse: Vec<Checked> = (0..100).map(|_| full(9.0, 1.0, false)).collect();
        let mut m = Monitor::new(&s, &Levels::of(&s), Mode::AllTrials).unwrap();
        assert_eq!(m.observe(&worse), Look::Continue);
        assert!(m.finish().unwrap().crossed().is_final());
    }
}
