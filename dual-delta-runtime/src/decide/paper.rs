//! The paper's rule (`rule = paper`): accuracy decided by the one-sided
//! paired test alone, over every input's paired errors, at α. No margin,
//! no mean criterion, no early stop; the gates still decide first
//! ([`super::judge`]).

use crate::verdict::{Accuracy, Analysis};

/// The paper's Proposition 2 at `alpha`: less accurate where the one-sided
/// `test` of "candidate less accurate" rejects, more accurate where that
/// of "candidate more accurate" does, neither otherwise.
pub(crate) fn paper_accuracy(analysis: &Analysis, alpha: f64) -> Accuracy {
    let rejects = |t: &crate::verdict::TestOutcome| t.as_ref().is_ok_and(|t| t.p_value < alpha);
    if rejects(&analysis.worse) {
        Accuracy::LessAccurate
    } else if rejects(&analysis.better) {
        Accuracy::MoreAccurate
    } else {
        Accuracy::NoSignificantDifference
    }
}
