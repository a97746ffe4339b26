//! Every level a run's tests are held to, computed once from its settings.
//!
//! α is shared between the anytime-valid sequential test, which may stop a
//! run early, and the tests over every input at the cap
//! ([`crate::stats::sequential::alpha_split`] gives the shares). The
//! claim's two criteria share the level of the tests at the cap in halves
//! ([`crate::decide::claim`]), and an early failure must also carry
//! [`crate::decide::claim::STOP_EVIDENCE`]. The shares and the fewest
//! inputs a run can fail with are computed by the settings crate
//! (`dual_delta_settings::levels`), which the attribute calls at compile
//! time too.

use crate::config::Settings;
use crate::decide::claim::STOP_EVIDENCE;
use crate::evidence::SequentialEvidence;
use crate::stats::sequential::{AlphaSplit, alpha_split};
use dual_delta_settings::levels::Deciding;

/// The levels of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Levels {
    /// The test's α.
    pub(crate) alpha: f64,
    /// Its split between the sequential sides and the tests at the cap.
    pub(crate) split: AlphaSplit,
    /// Whether the run may stop at the sequential decision.
    stop_early: bool,
    /// The fewest inputs at which the run can fail its accuracy claim.
    pub(crate) min_n: usize,
    /// The level the deciding paired test is held to at the cap.
    pub(crate) test_level: f64,
    /// `log10` of the e-value an early failure needs: `1 / α_fail`, and at
    /// least [`STOP_EVIDENCE`].
    pub(crate) stop_evidence_log10: f64,
}

impl Levels {
    /// The levels of a run with `settings`.
    pub(crate) fn of(settings: &Settings) -> Levels {
        let split = alpha_split(settings.expect, settings.alpha);
        let deciding = Deciding::new(
            settings.alpha,
            settings.expect.name(),
            settings.test.key(),
            settings.rule.name(),
            settings.stop_early,
        );
        Levels {
            alpha: settings.alpha,
            split,
            stop_early: settings.stop_early,
            min_n: deciding.min_n(),
            test_level: deciding.test_level(),
            stop_evidence_log10: STOP_EVIDENCE.max(1.0 / split.fail).log10(),
        }
    }

    /// The level of the tests over every input: the share left to them
    /// where the run could stop early and did not (`stopped` false), the
    /// whole α otherwise (with early stopping off, or descriptive after an
    /// early decision).
    pub(crate) fn fixed(&self, stopped: bool) -> f64 {
        if self.stop_early && !stopped {
            self.split.fallback
        } else {
            self.alpha
        }
    }

    /// The level of the tests over every input of a run whose sequential
    /// test ended as `sequential` says (`quick`: in the quick mode): the
    /// whole α after an early decision, where they are descriptive, except
    /// after a quick pass, which the claim over the inputs run checks at
    /// the share left to them.
    pub(crate) fn fixed_after(&self, sequential: &SequentialEvidence, quick: bool) -> f64 {
        self.fixed(sequential.stopped && !sequential.quick_pass(quick))
    }

    /// The suite p-value of an early failure whose fail side reached
    /// `10^log10_e`: `α / (α_fail · E)`, valid by Ville's inequality.
    pub(crate) fn early_p_value(&self, log10_e: f64) -> f64 {
        self.alpha / (self.split.fail * 10f64.powf(log10_e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;

    #[test]
    fn the_defaults_split_alpha_once() {
        let s = Settings::resolve_with("levels", &Overrides::default(), |_| None).unwrap();
        let l = Levels::of(&s);
        assert_eq!(
            (l.fixed(false), l.fixed(true), l.test_level),
            (0.005, 0.01, 0.0025)
        );
        assert_eq!(l.min_n, 9);
        assert_eq!(l.stop_evidence_log10, 4.0);
        assert!((l.early_p_value(4.0) - 2e-4).abs() < 1e-18);
        let all = Overrides {
            stop_early: Some(false),
            ..Overrides::default()
        };
        let l = Levels::of(&Settings::resolve_with("levels", &all, |_| None).unwrap());
        assert_eq!((l.fixed(false), l.test_level), (0.01, 0.005));
        assert_eq!(l.min_n, 8);
        let paper = Overrides {
            rule: Some(crate::rule::Rule::Paper),
            ..Overrides::default()
        };
        let l = Levels::of(&Settings::resolve_with("levels", &paper, |_| None).unwrap());
        assert_eq!((l.fixed(false), l.min_n), (0.01, 7));
    }
}
