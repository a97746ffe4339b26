//! Every level a run's tests are held to, computed once from its settings
//! in the run's plan stage and passed to whatever reads a level: the
//! monitor, the tests over every input, the claim, the comparison with a
//! saved baseline and the judgement. Nothing else derives a level, save
//! the sequential test, which splits α between its two sides by the same
//! rule ([`crate::stats::sequential::alpha_split`]).
//!
//! α is shared between the anytime-valid sequential test, which may stop a
//! run early, and the tests over every input at the cap
//! ([`crate::stats::sequential::alpha_split`] gives the shares). The
//! level of the tests over every input ([`Levels::fixed_after`], or
//! [`Levels::comparison`] for a saved baseline's) is a [`FixedLevel`],
//! which gives the levels derived from it: the claim's two criteria share
//! it in halves ([`crate::decide::claim`]). An early failure must also
//! carry [`crate::decide::claim::STOP_EVIDENCE`]. The shares and the
//! fewest inputs a run can fail with are computed by the settings crate
//! (`dual_delta_settings::levels`), which the attribute calls at compile
//! time too.

use crate::config::Settings;
use crate::decide::claim::STOP_EVIDENCE;
use crate::decide::fixed::FixedLevel;
use crate::stats::sequential::{AlphaSplit, Crossed, alpha_split};
use dual_delta_settings::levels::Deciding;

/// The levels of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Levels {
    /// The test's α: every test of the run together fails a run whose
    /// candidate meets its claim at most this often.
    pub(crate) alpha: f64,
    /// Its split between the sequential sides and the tests at the cap:
    /// a run that may stop early tests twice, so the two share α.
    pub(crate) split: AlphaSplit,
    /// Whether the run may stop at the sequential decision: where it may,
    /// the tests at the cap get only the share left to them.
    stop_early: bool,
    /// The fewest inputs at which the run can fail its accuracy claim:
    /// those at which the deciding paired test can reject at
    /// [`Levels::test_level`]; a run asked for fewer is an error.
    pub(crate) min_n: usize,
    /// The level the deciding paired test is held to at the cap: a
    /// criterion's (half the tests' level at the cap) under the claim,
    /// whose (T) it is one of two tests of; the whole level under `rule =
    /// paper`, where it decides alone.
    pub(crate) test_level: f64,
    /// `log10` of the e-value an early failure needs: `1 / α_fail`, where
    /// the fail side rejects at its share, and at least [`STOP_EVIDENCE`],
    /// so that a suite's correction keeps a lone early failure.
    pub(crate) stop_evidence_log10: f64,
}

impl Levels {
    /// `log10` of the e-value an early pass needs (the quick mode, `expect
    /// = worse`): `1 / α_pass`, the pass side's share of α.
    #[cfg(feature = "html")]
    pub(crate) fn pass_evidence_log10(&self) -> f64 {
        -self.split.pass.log10()
    }

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
    /// where the run could stop early and did not (`stopped` false), since
    /// the sequential test spent the rest; the whole α otherwise (with
    /// early stopping off nothing else spends it, and after an early
    /// decision they are descriptive).
    fn fixed(&self, stopped: bool) -> FixedLevel {
        let level = if self.stop_early && !stopped {
            self.split.fallback
        } else {
            self.alpha
        };
        FixedLevel::new(self.alpha, level)
    }

    /// The level of the tests over every input of a run whose sequential
    /// test `crossed` as it did, the run having `stopped` at it or not
    /// (`quick`: in the quick mode): the whole α after an early decision,
    /// where they are descriptive, except after a quick pass, which the
    /// claim over the inputs run checks at the share left to them.
    pub(crate) fn fixed_after(&self, stopped: bool, crossed: &Crossed, quick: bool) -> FixedLevel {
        let quick_pass = quick && matches!(crossed, Crossed::Pass { .. });
        self.fixed(stopped && !quick_pass)
    }

    /// The level of the comparison with a saved baseline: the whole α. It
    /// is decided over every input (a run that compares never stops
    /// early), and no sequential test shares its α.
    pub(crate) fn comparison(&self) -> FixedLevel {
        FixedLevel::new(self.alpha, self.alpha)
    }

    /// The suite p-value of an early failure whose fail side reached
    /// `10^log10_e`: `α / (α_fail · E)`, valid by Ville's inequality (the
    /// fail side rejects at `α_fail` where `E ≥ 1 / α_fail`).
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
            (l.fixed(false).level(), l.fixed(true).level(), l.test_level),
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
        assert_eq!((l.fixed(false).level(), l.test_level), (0.01, 0.005));
        assert_eq!(l.min_n, 8);
        let paper = Overrides {
            rule: Some(crate::rule::Rule::Paper),
            ..Overrides::default()
        };
        let l = Levels::of(&Settings::resolve_with("levels", &paper, |_| None).unwrap());
        assert_eq!((l.fixed(false).level(), l.min_n), (0.01, 7));
    }

    #[test]
    fn the_levels_derived_from_the_fixed_level_are_its_shares() {
        let s = Settings::resolve_with("levels", &Overrides::default(), |_| None).unwrap();
        let l = Levels::of(&s);
        // At the cap, undecided: the share left to the tests over every
        // input, in halves for the claim's criteria.
        let cap = l.fixed_after(false, &Crossed::Neither, false);
        assert_eq!((cap.level(), cap.criterion()), (0.005, 0.0025));
        assert_eq!(
            (cap.mean_part(false), cap.mean_part(true)),
            (0.0025, 0.00125)
        );
        assert_eq!(cap.min_inputs(crate::verdict::AccuracyTest::Sign), 9);
        assert!((cap.to_alpha(0.001) - 0.002).abs() < 1e-18);
        // A comparison with a saved baseline: the whole α.
        let compared = l.comparison();
        assert_eq!((compared.level(), compared.criterion()), (0.01, 0.005));
        assert_eq!(compared.to_alpha(0.001), 0.001);
    }
}
