//! The level of the tests over every input, and every level the claim
//! derives from it: made only by [`crate::decide::Levels`], so that no
//! other module halves a level by hand.

use crate::verdict::AccuracyTest;

/// The level of the tests over every input of a run (the fixed-N tests),
/// as [`crate::decide::Levels`] gives it for how the run ended or for a
/// comparison with a saved baseline, and the levels derived from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FixedLevel {
    /// The run's α, which a suite's p-value is scaled to.
    alpha: f64,
    /// The level itself.
    level: f64,
}

impl FixedLevel {
    /// The level `level` of a run at `alpha`.
    pub(super) fn new(alpha: f64, level: f64) -> FixedLevel {
        FixedLevel { alpha, level }
    }

    /// The level `level` of a run at α = `level`, for unit tests outside
    /// [`crate::decide`].
    #[cfg(test)]
    pub(crate) fn for_test(level: f64) -> FixedLevel {
        FixedLevel::new(level, level)
    }

    /// The level of the fixed-N tests: the paper's tests and verdicts, the
    /// paper's rule and the gross-error gate are each held to it whole,
    /// each being the one test of its question.
    pub(crate) fn level(self) -> f64 {
        self.level
    }

    /// The level of each of the claim's two criteria, (M) and (T): half
    /// the level. The claim fails where either rejects, so Bonferroni
    /// over the two keeps its false failures within the level.
    pub(crate) fn criterion(self) -> f64 {
        self.level / 2.0
    }

    /// The level of each of (M)'s tests: where the candidate alone
    /// returned non-finite outputs on some inputs (`split`), (M) is the
    /// test of the finite inputs' means and the exact sign test of the
    /// non-finite ones, each at half the criterion's level (Bonferroni
    /// again); otherwise its one test, at the criterion's whole level.
    pub(crate) fn mean_part(self, split: bool) -> f64 {
        if split {
            self.criterion() / 2.0
        } else {
            self.criterion()
        }
    }

    /// The fewest inputs on which `test` can reject at a criterion's level
    /// ([`FixedLevel::criterion`]): below it, (T) can never show a loss.
    pub(crate) fn min_inputs(self, test: AccuracyTest) -> usize {
        test.min_trials(self.criterion())
    }

    /// A p-value at this level, scaled to the run's α (`p · α / level`):
    /// the run's p-value for a suite, which compares it with α, rejects
    /// exactly where `p` is below this level.
    pub(crate) fn to_alpha(self, p: f64) -> f64 {
        p * self.alpha / self.level
    }
}
