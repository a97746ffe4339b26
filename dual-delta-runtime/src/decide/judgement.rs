//! The decision's three public names: [`Judgement`] (passed or failed,
//! and the accuracy verdict that decided), [`DecidedBy`] (the gate, check
//! or test that decided it) and [`Ending`] (how the run's trials ended).
//! One function makes a judgement (`judge`, in the `judge` module, and
//! `check_failed` for the test's own check); reports read it.

use super::gates::OverBound;
use crate::decide::claim::WithinMargin;
use crate::stats::sequential::Reason;
use crate::verdict::Accuracy;

/// What decided a run: the gate, test or check that passed or failed it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecidedBy {
    /// The test's own check (`check = ...`) failed: the run fails, its
    /// reason in [`crate::outcome::Outcome::check`].
    Check,
    /// The candidate returned a NaN or an infinity where the baseline and
    /// the oracle were finite (the first such trial).
    NonFinite {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The candidate's error exceeded the test's documented bound (the
    /// first such trial; [`Judgement::over_bound`] says where).
    Bound {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The candidate made more gross errors than chance could give at the
    /// level of the tests over every input (the first such trial; see
    /// [`crate::screen`]).
    GrossError {
        /// The trial.
        trial: usize,
        /// Its seed.
        #[serde(with = "crate::rng::hex")]
        seed: u64,
    },
    /// The anytime-valid sequential test, at which the run stopped.
    Sequential {
        /// The trials it took.
        after: usize,
        /// What the evidence showed.
        reason: Reason,
    },
    /// The paper's test alone (`rule = paper`): the one-sided `test` over
    /// every input, at level `alpha`.
    Paper {
        /// The level: α.
        #[serde(with = "crate::json_number")]
        alpha: f64,
    },
    /// The claim's two criteria over every trial run, at level `alpha`.
    FixedN {
        /// The level (α, or its share left to the fallback at the cap or
        /// after a quick pass).
        #[serde(with = "crate::json_number")]
        alpha: f64,
    },
    /// The claim could not decide at this `n`: its mean points beyond the
    /// margin on too few inputs for any test to establish it
    /// ([`crate::decision::claim::Short`], in [`crate::decision::claim::Claim::short`]). The
    /// run fails, naming the `n` that could, rather than pass.
    ShortOfInputs,
}

/// How the trials of a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Ending {
    /// At the sequential decision, after `after` trials: the fixed-N tests
    /// over them are descriptive.
    Decided {
        /// The trials taken.
        after: usize,
    },
    /// At the cap `n`, undecided by the sequential test: the fixed-N tests
    /// decide at the share of α left to them.
    Cap,
    /// After all `n` trials, early stopping off: the fixed-N tests decide
    /// at α.
    AllTrials,
}

/// The decision of a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Judgement {
    /// Whether every expectation holds.
    pub(crate) passed: bool,
    /// Whether the accuracy expectation holds.
    pub(crate) accuracy_met: bool,
    /// The accuracy verdict that decided.
    pub(crate) accuracy: Accuracy,
    /// What decided it.
    pub(crate) decided_by: DecidedBy,
    /// How the trials ended.
    pub(crate) ending: Ending,
    /// The level at which the fixed-N tests ran: α, or the share of α left
    /// to them at the cap or after a quick pass.
    #[serde(with = "crate::json_number")]
    pub(crate) fixed_alpha: f64,
    /// A significant difference inside the margin, if there is one.
    pub(crate) within_margin: Option<WithinMargin>,
    /// The comparison with the baseline it was compared with
    /// (`DUAL_DELTA_BASELINE`) fails the run: the candidate is
    /// significantly less accurate than it was, or the comparison could
    /// not decide at this `n` ([`crate::baseline::Regression::fails`]).
    pub(crate) regressed: bool,
    /// The first input whose candidate error exceeded the test's
    /// documented bound, if one did.
    #[serde(default)]
    pub(crate) over_bound: Option<OverBound>,
    /// The run's p-value for a suite ([`crate::suite`]), that of the
    /// criterion that failed it: the run fails its accuracy claim at α only
    /// if this is below α. A gate failure gives 0; an early failure
    /// `α / (α_fail · E)` (`E` the fail side's e-value where the run
    /// stopped, valid by Ville's inequality); otherwise the claim's p-value
    /// ([`crate::decide::claim::Claim::p_value`]) scaled by `α / fixed_alpha`. The
    /// two paths share α as the run does. A run that met its accuracy
    /// claim and failed on stability gives the stability test's p-value,
    /// scaled the same way (0 where stability could not be compared).
    /// `None` for expectations other than `no_worse`.
    pub(crate) p_value: Option<f64>,
}

impl Judgement {
    /// Whether every expectation holds.
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// Whether the accuracy expectation holds.
    pub fn accuracy_met(&self) -> bool {
        self.accuracy_met
    }

    /// The accuracy verdict that decided.
    pub fn accuracy(&self) -> Accuracy {
        self.accuracy
    }

    /// What decided it.
    pub fn decided_by(&self) -> DecidedBy {
        self.decided_by
    }

    /// How the trials ended.
    pub fn ending(&self) -> Ending {
        self.ending
    }

    /// The level at which the fixed-N tests ran: α, or the share of α left
    /// to them at the cap or after a quick pass.
    pub fn fixed_alpha(&self) -> f64 {
        self.fixed_alpha
    }

    /// A significant difference inside the margin, if there is one.
    pub fn within_margin(&self) -> Option<WithinMargin> {
        self.within_margin
    }

    /// The comparison with the baseline it was compared with
    /// (`DUAL_DELTA_BASELINE`) fails the run: the candidate is
    /// significantly less accurate than it was, or the comparison could
    /// not decide at this `n` ([`crate::baseline::Regression::fails`]).
    pub fn regressed(&self) -> bool {
        self.regressed
    }

    /// The first input whose candidate error exceeded the test's
    /// documented bound, if one did.
    pub fn over_bound(&self) -> Option<OverBound> {
        self.over_bound
    }

    /// The run's p-value for a suite ([`crate::suite`]), that of the
    /// criterion that failed it: the run fails its accuracy claim at α only
    /// if this is below α. A gate failure gives 0; an early failure
    /// `α / (α_fail · E)` (`E` the fail side's e-value where the run
    /// stopped, valid by Ville's inequality); otherwise the claim's p-value
    /// ([`crate::decide::claim::Claim::p_value`]) scaled by `α / fixed_alpha`. The
    /// two paths share α as the run does. A run that met its accuracy
    /// claim and failed on stability gives the stability test's p-value,
    /// scaled the same way (0 where stability could not be compared).
    /// `None` for expectations other than `no_worse`.
    pub fn p_value(&self) -> Option<f64> {
        self.p_value
    }

    /// Whether a fixed-N test's p-value is significant at the level the
    /// fixed-N tests ran at ([`Judgement::fixed_alpha`]): the one place
    /// reports learn it.
    pub fn significant(&self, p_value: f64) -> bool {
        p_value < self.fixed_alpha
    }
}
