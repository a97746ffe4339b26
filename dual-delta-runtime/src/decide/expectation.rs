//! What a test expects, held against what the paper's tests found: the
//! rules by which the judgement decides whether the accuracy and the
//! stability expectations hold. The verdicts themselves
//! ([`crate::verdict`]) only describe what the tests found.

use crate::expect::Expect;
use crate::verdict::{Accuracy, Equivalence, Stability, Verdict};

/// Whether `verdict` meets the accuracy expectation `expect`: `no_worse`
/// holds unless the candidate is less accurate, `equivalent` where neither
/// is more accurate and Kolmogorov-Smirnov cannot tell their errors apart,
/// `better` and `worse` where the candidate is shown more, or less,
/// accurate.
pub(crate) fn accuracy_met(verdict: &Verdict, expect: Expect) -> bool {
    match expect {
        Expect::NoWorse => verdict.accuracy != Accuracy::LessAccurate,
        Expect::Equivalent => {
            verdict.accuracy == Accuracy::NoSignificantDifference
                && verdict.equivalence == Equivalence::Indistinguishable
        }
        Expect::Better => verdict.accuracy == Accuracy::MoreAccurate,
        Expect::Worse => verdict.accuracy == Accuracy::LessAccurate,
    }
}

/// Whether `verdict` meets the stability expectation `expect`
/// (`stability = ...`): `no_worse` holds unless the candidate is less
/// stable or the spread test could not run, `equivalent` where neither is
/// more stable, `better` and `worse` where the candidate is shown more,
/// or less, stable.
pub(crate) fn stability_met(verdict: &Verdict, expect: Expect) -> bool {
    match expect {
        Expect::NoWorse => !matches!(
            verdict.stability,
            Stability::LessStable | Stability::Undetermined
        ),
        Expect::Equivalent => verdict.stability == Stability::NoSignificantDifference,
        Expect::Better => verdict.stability == Stability::MoreStable,
        Expect::Worse => verdict.stability == Stability::LessStable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_against_verdicts() {
        let v = |accuracy, equivalence| Verdict {
            accuracy,
            equivalence,
            stability: Stability::NoSignificantDifference,
            identical: false,
            equal_errors: false,
        };
        let met = |v: &Verdict, expect| accuracy_met(v, expect);
        let worse = v(Accuracy::LessAccurate, Equivalence::Distinguishable);
        assert!(!met(&worse, Expect::NoWorse));
        assert!(met(&worse, Expect::Worse));
        let same = v(
            Accuracy::NoSignificantDifference,
            Equivalence::Indistinguishable,
        );
        assert!(met(&same, Expect::NoWorse));
        assert!(met(&same, Expect::Equivalent));
        assert!(!met(&same, Expect::Better));
        let differ = v(
            Accuracy::NoSignificantDifference,
            Equivalence::Distinguishable,
        );
        assert!(!met(&differ, Expect::Equivalent));
        let better = v(Accuracy::MoreAccurate, Equivalence::Distinguishable);
        assert!(met(&better, Expect::Better) && met(&better, Expect::NoWorse));
        assert!(stability_met(&same, Expect::NoWorse) && stability_met(&same, Expect::Equivalent));
        let unknown = Verdict {
            stability: Stability::Undetermined,
            ..same
        };
        assert!(!stability_met(&unknown, Expect::NoWorse));
    }
}
