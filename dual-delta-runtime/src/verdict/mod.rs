//! Verdicts: the paper's three propositions (accuracy, equivalence,
//! stability) at significance α, as the tests found them. Whether they
//! meet what a test expects is decided in [`crate::decide`]. The
//! accuracy verdict is the claim's ([`crate::decision::claim`]) or, under `rule =
//! paper`, the one-sided paired test's; equivalence is Kolmogorov-Smirnov's
//! and stability the paired spread test's (Pitman-Morgan is reported as
//! normal-theory and descriptive).

use core::fmt;

use crate::stats::{self, Alternative, StatsError, TestResult, ZeroMethod};

/// The one-sided paired test of accuracy at margin 0: one of the two tests
/// of the claim's typical-input criterion, and the whole decision under
/// `rule = paper`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AccuracyTest {
    /// One-sided Wilcoxon signed-rank test on the paired differences (the
    /// paper's recommendation; the default).
    #[default]
    Wilcoxon,
    /// Exact sign test on the paired differences.
    Sign,
    /// One-sided paired t-test, used only when Shapiro-Wilk does not reject
    /// normality of the differences at α and the differences are not all
    /// equal (Shapiro-Wilk gives `p = 1` for a constant sample, where the
    /// t-test is undefined); otherwise the run falls back to Wilcoxon and
    /// says so.
    PairedT,
}

impl AccuracyTest {
    /// The test's name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            AccuracyTest::Wilcoxon => "Wilcoxon signed-rank",
            AccuracyTest::Sign => "sign test",
            AccuracyTest::PairedT => "paired t-test",
        }
    }

    /// The test as written in the attribute (`wilcoxon`, `sign`, `t`).
    pub const fn key(self) -> &'static str {
        match self {
            AccuracyTest::Wilcoxon => "wilcoxon",
            AccuracyTest::Sign => "sign",
            AccuracyTest::PairedT => "t",
        }
    }

    /// The smallest number of trials at which the test can reject at
    /// `alpha` ([`dual_delta_settings::levels::min_trials`]).
    pub fn min_trials(self, alpha: f64) -> usize {
        dual_delta_settings::levels::min_trials(self.key(), alpha)
    }
}

impl fmt::Display for AccuracyTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Proposition 2 (numerical accuracy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accuracy {
    /// Δ1 is significantly smaller than Δ2.
    MoreAccurate,
    /// Δ1 is significantly larger than Δ2 (beyond the margin, if any).
    LessAccurate,
    /// Neither one-sided test is significant.
    NoSignificantDifference,
}

/// Proposition 1 (equivalence), by the two-sample Kolmogorov-Smirnov test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Equivalence {
    /// KS does not reject that Δ1 and Δ2 come from one distribution.
    Indistinguishable,
    /// KS rejects it.
    Distinguishable,
}

/// Proposition 3 (numerical stability), by the paired spread test
/// ([`stats::paired_spread`]): whether the candidate's errors vary more
/// from one input to another than the baseline's do on the same inputs, a
/// test that holds its level whatever the errors' shape. (The paper reads
/// it as a test of the variances, Pitman-Morgan, which holds its level only
/// for normal errors; the reports keep it, labelled as normal-theory.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stability {
    /// Δ1 is significantly less spread than Δ2.
    MoreStable,
    /// Δ1 is significantly more spread than Δ2.
    LessStable,
    /// Neither one-sided test is significant.
    NoSignificantDifference,
    /// The spreads cannot be compared (non-finite errors, or fewer than two
    /// inputs); the reason is in the analysis.
    Undetermined,
}

/// A test's result, or why it could not be computed.
pub type TestOutcome = Result<TestResult, StatsError>;

/// All tests run on a pair of error samples.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Analysis {
    /// The paired test that decided accuracy (after any fallback).
    pub accuracy_test: AccuracyTest,
    /// Why the requested test was replaced, if it was.
    pub fallback: Option<String>,
    /// The accuracy test with alternative "candidate worse", on `Δ1 - Δ2`
    /// (margin 0: the margin is a condition on the ratio of means, see
    /// [`crate::decision::Judgement`]).
    pub worse: TestOutcome,
    /// The accuracy test with alternative "candidate better", on `Δ1 - Δ2`.
    pub better: TestOutcome,
    /// One-sided Wilcoxon, candidate worse (always reported).
    pub wilcoxon_greater: TestOutcome,
    /// One-sided Wilcoxon, candidate better (always reported).
    pub wilcoxon_less: TestOutcome,
    /// Sign test, candidate worse.
    pub sign_greater: TestOutcome,
    /// Sign test, candidate better.
    pub sign_less: TestOutcome,
    /// Paired t-test, candidate worse.
    pub t_greater: TestOutcome,
    /// Paired t-test, candidate better.
    pub t_less: TestOutcome,
    /// Shapiro-Wilk on the differences.
    pub shapiro_differences: TestOutcome,
    /// Two-sided two-sample Kolmogorov-Smirnov.
    pub ks: TestOutcome,
    /// The paired spread test, candidate less stable: the test of the
    /// stability verdict ([`stats::paired_spread`]).
    pub spread_greater: TestOutcome,
    /// The paired spread test, candidate more stable.
    pub spread_less: TestOutcome,
    /// Pitman-Morgan, Var Δ1 > Var Δ2 (normal theory; descriptive).
    pub variance_greater: TestOutcome,
    /// Pitman-Morgan, Var Δ1 < Var Δ2 (normal theory; descriptive).
    pub variance_less: TestOutcome,
    /// Brown-Forsythe (Levene with medians), two-sided.
    pub brown_forsythe: TestOutcome,
    /// Hodges-Lehmann estimate of the shift `Δ1 - Δ2`.
    pub hodges_lehmann: Result<f64, StatsError>,
}

/// One test of an [`Analysis`], as the reports list it (the rows of the
/// page's table of tests, the entries of `summary.json`'s `tests`).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct TestRow<'a> {
    /// The test's key in `summary.json`'s `tests`: the name of the field of
    /// [`Analysis`] holding it (`worse`, `wilcoxon_greater`, ...).
    pub key: &'static str,
    /// The test's name (`Wilcoxon signed-rank`, ...).
    pub name: &'static str,
    /// The alternative hypothesis's direction, of Δ1 against Δ2.
    pub alternative: Alternative,
    /// The alternative hypothesis in words (`candidate less accurate`).
    pub h1: &'static str,
    /// The result, or why it could not be computed.
    pub outcome: &'a TestOutcome,
}

impl Analysis {
    /// Every test, in the order of the reports: the deciding test in both
    /// directions (`worse`, `better`), each paired test in both directions,
    /// Shapiro-Wilk on the differences, Kolmogorov-Smirnov, the paired
    /// spread test in both directions, Pitman-Morgan in both directions
    /// (normal theory), and Brown-Forsythe.
    pub fn rows(&self) -> Vec<TestRow<'_>> {
        use Alternative::{Greater, Less, TwoSided};
        const WORSE: &str = "candidate less accurate";
        const BETTER: &str = "candidate more accurate";
        const WILCOXON: &str = "Wilcoxon signed-rank";
        const SHAPIRO: &str = "Shapiro-Wilk on Δ1 − Δ2";
        const KS: &str = "Kolmogorov-Smirnov two-sample";
        const SPREAD: &str = "paired spread (signed-rank)";
        const PITMAN: &str = "Pitman-Morgan (normal theory)";
        let d = self.accuracy_test.name();
        // key, name, alternative, H1 in words, outcome.
        #[rustfmt::skip]
        let rows: [(_, _, _, _, &TestOutcome); 15] = [
            ("worse", d, Greater, WORSE, &self.worse),
            ("better", d, Less, BETTER, &self.better),
            ("wilcoxon_greater", WILCOXON, Greater, WORSE, &self.wilcoxon_greater),
            ("wilcoxon_less", WILCOXON, Less, BETTER, &self.wilcoxon_less),
            ("sign_greater", "sign test", Greater, WORSE, &self.sign_greater),
            ("sign_less", "sign test", Less, BETTER, &self.sign_less),
            ("t_greater", "paired t-test", Greater, WORSE, &self.t_greater),
            ("t_less", "paired t-test", Less, BETTER, &self.t_less),
            ("shapiro_differences", SHAPIRO, TwoSided, "the differences are not normal",
                &self.shapiro_differences),
            ("ks", KS, TwoSided, "the error distributions differ", &self.ks),
            ("spread_greater", SPREAD, Greater, "candidate less stable", &self.spread_greater),
            ("spread_less", SPREAD, Less, "candidate more stable", &self.spread_less),
            ("variance_greater", PITMAN, Greater, "larger variance", &self.variance_greater),
            ("variance_less", PITMAN, Less, "smaller variance", &self.variance_less),
            ("brown_forsythe", "Brown-Forsythe", TwoSided, "the spreads differ",
                &self.brown_forsythe),
        ];
        rows.into_iter()
            .map(|(key, name, alternative, h1, outcome)| TestRow {
                key,
                name,
                alternative,
                h1,
                outcome,
            })
            .collect()
    }
}

impl Analysis {
    /// [`Analysis::rows`] without the rows that repeat the deciding test
    /// (`worse` and `better`) under the test's own name: the table a page
    /// shows.
    pub fn distinct_rows(&self) -> Vec<TestRow<'_>> {
        let own = match self.accuracy_test {
            AccuracyTest::Wilcoxon => "wilcoxon_",
            AccuracyTest::Sign => "sign_",
            AccuracyTest::PairedT => "t_",
        };
        self.rows()
            .into_iter()
            .filter(|r| !r.key.starts_with(own))
            .collect()
    }
}

/// The verdicts on the three propositions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Verdict {
    /// Proposition 2 at fixed N, over the trials run: one step of the
    /// decision, not the decision. The run's accuracy verdict is
    /// [`crate::decision::Judgement::accuracy`] (`outcome.judgement().accuracy()`).
    #[serde(rename = "fixed_n_accuracy")]
    pub(crate) accuracy: Accuracy,
    /// Proposition 1.
    pub equivalence: Equivalence,
    /// Proposition 3.
    pub stability: Stability,
    /// The candidate's and the baseline's outputs were the same numbers on
    /// every trial (so Δ1 = Δ2 too).
    pub identical: bool,
    /// Δ1 and Δ2 are equal on every trial (whether or not the outputs
    /// were): no test can tell the two apart.
    pub equal_errors: bool,
}

/// What the verdicts are decided on.
pub(crate) struct Sample<'a> {
    /// Δ1 over the full trials.
    pub(crate) delta1: &'a [f64],
    /// Δ2 over the full trials.
    pub(crate) delta2: &'a [f64],
    /// The ties the oracle did not run on: zero differences for the paired
    /// tests (which drop them, except the t-test), absent from the tests
    /// of distributions and spreads.
    pub(crate) unmeasured_ties: usize,
    /// The two outputs were bitwise equal on every input.
    pub(crate) identical_outputs: bool,
}

/// Runs every test on the error samples at `alpha` (the level the t-test's
/// normality check is held to).
///
/// The samples are paired, NaN-free, and of equal length `n ≥ 1`.
pub(crate) fn analyse(sample: &Sample<'_>, test: AccuracyTest, alpha: f64) -> Analysis {
    let (delta1, delta2) = (sample.delta1, sample.delta2);
    // Every input's pair, the unmeasured ties as zero differences.
    let padded = |d: &[f64]| -> Vec<f64> {
        let mut v = d.to_vec();
        v.resize(d.len() + sample.unmeasured_ties, 0.0);
        v
    };
    let (all1, all2) = (padded(delta1), padded(delta2));
    let (delta1, delta2) = (all1.as_slice(), all2.as_slice());

    let wilcoxon =
        |a: &[f64], b: &[f64], alt| stats::wilcoxon(a, b, alt, ZeroMethod::Wilcox, false);
    let differences = stats::paired_differences(delta1, delta2);
    let shapiro_differences = match &differences {
        Ok(d) => stats::shapiro_wilk(d),
        Err(e) => Err(e.clone()),
    };
    let (accuracy_test, fallback) = choose(test, &differences, &shapiro_differences, alpha);
    let run = |a: &[f64], b: &[f64], alt| run_test(accuracy_test, a, b, alt);

    Analysis {
        accuracy_test,
        fallback,
        worse: run(delta1, delta2, Alternative::Greater),
        better: run(delta1, delta2, Alternative::Less),
        wilcoxon_greater: wilcoxon(delta1, delta2, Alternative::Greater),
        wilcoxon_less: wilcoxon(delta1, delta2, Alternative::Less),
        sign_greater: stats::sign_test(delta1, delta2, Alternative::Greater),
        sign_less: stats::sign_test(delta1, delta2, Alternative::Less),
        t_greater: stats::paired_t(delta1, delta2, Alternative::Greater),
        t_less: stats::paired_t(delta1, delta2, Alternative::Less),
        shapiro_differences,
        ks: stats::ks_2samp(sample.delta1, sample.delta2, Alternative::TwoSided),
        spread_greater: stats::paired_spread(sample.delta1, sample.delta2, Alternative::Greater),
        spread_less: stats::paired_spread(sample.delta1, sample.delta2, Alternative::Less),
        variance_greater: stats::pitman_morgan(sample.delta1, sample.delta2, Alternative::Greater),
        variance_less: stats::pitman_morgan(sample.delta1, sample.delta2, Alternative::Less),
        brown_forsythe: stats::brown_forsythe(sample.delta1, sample.delta2),
        hodges_lehmann: stats::hodges_lehmann(delta1, delta2),
    }
}

/// The one-sided paired test `test` over paired errors, both ways: the
/// test of the claim's typical-input criterion at margin 0 and of the
/// paper's rule (`rule = paper`), as [`analyse`] runs it on a run's errors
/// and a comparison with a saved baseline on the errors now and then.
#[derive(Clone, Debug)]
pub(crate) struct PairedTest {
    /// The test run, after any fallback.
    pub(crate) test: AccuracyTest,
    /// "Candidate less accurate".
    pub(crate) worse: TestOutcome,
    /// "Candidate more accurate".
    pub(crate) better: TestOutcome,
}

impl PairedTest {
    /// `test` on `delta1` against `delta2` (paired, NaN-free), the paired
    /// t-test's normality checked at `alpha`.
    pub(crate) fn of(delta1: &[f64], delta2: &[f64], test: AccuracyTest, alpha: f64) -> PairedTest {
        // Only the paired t-test checks normality first.
        let test = match test {
            AccuracyTest::PairedT => {
                let differences = stats::paired_differences(delta1, delta2);
                let shapiro = match &differences {
                    Ok(d) => stats::shapiro_wilk(d),
                    Err(e) => Err(e.clone()),
                };
                choose(test, &differences, &shapiro, alpha).0
            }
            other => other,
        };
        PairedTest {
            test,
            worse: run_test(test, delta1, delta2, Alternative::Greater),
            better: run_test(test, delta1, delta2, Alternative::Less),
        }
    }

    /// The deciding test of an [`Analysis`].
    pub(crate) fn of_analysis(analysis: &Analysis) -> PairedTest {
        PairedTest {
            test: analysis.accuracy_test,
            worse: analysis.worse.clone(),
            better: analysis.better.clone(),
        }
    }
}

/// The test that runs for `test`, and why it replaced it: the paired
/// t-test only where Shapiro-Wilk does not reject normality of the
/// differences at `alpha` and they are not all equal, Wilcoxon otherwise.
fn choose(
    test: AccuracyTest,
    differences: &Result<Vec<f64>, StatsError>,
    shapiro: &TestOutcome,
    alpha: f64,
) -> (AccuracyTest, Option<String>) {
    // Shapiro-Wilk gives W = 1, p = 1 for constant differences (as SciPy
    // does), where the t-test is undefined: that is no reason to keep it.
    let constant = matches!(differences, Ok(d) if d.iter().all(|&v| v == d[0]));
    match test {
        AccuracyTest::PairedT => match shapiro {
            Ok(_) if constant => (
                AccuracyTest::Wilcoxon,
                Some(
                    "paired t-test replaced by Wilcoxon: the differences are all equal, so the \
                     t-test is undefined (Shapiro-Wilk gives W = 1, p = 1 for a constant sample)"
                        .to_owned(),
                ),
            ),
            Ok(sw) if sw.p_value >= alpha => (AccuracyTest::PairedT, None),
            Ok(sw) => (
                AccuracyTest::Wilcoxon,
                Some(format!(
                    "paired t-test replaced by Wilcoxon: Shapiro-Wilk rejects normality of the \
                     differences (W = {:.4}, p = {:.3e} < α = {alpha})",
                    sw.statistic, sw.p_value
                )),
            ),
            Err(e) => (
                AccuracyTest::Wilcoxon,
                Some(format!(
                    "paired t-test replaced by Wilcoxon: normality of the differences cannot be \
                     checked ({e})"
                )),
            ),
        },
        other => (other, None),
    }
}

/// One one-sided paired test of `delta1` against `delta2`.
fn run_test(test: AccuracyTest, a: &[f64], b: &[f64], alt: Alternative) -> TestOutcome {
    match test {
        AccuracyTest::Wilcoxon => stats::wilcoxon(a, b, alt, ZeroMethod::Wilcox, false),
        AccuracyTest::Sign => stats::sign_test(a, b, alt),
        AccuracyTest::PairedT => stats::paired_t(a, b, alt),
    }
}

/// The paper's three verdicts at `alpha`: the accuracy the claim decided
/// ([`crate::decide::claim::Claim::accuracy`]), equivalence by Kolmogorov-Smirnov
/// and stability by the paired spread test, as `analysis` found them; no accuracy
/// difference where the errors are equal on every trial.
pub(crate) fn verdicts(
    analysis: &Analysis,
    sample: &Sample<'_>,
    accuracy: Accuracy,
    alpha: f64,
) -> Verdict {
    let identical_outputs = sample.identical_outputs;
    let equal_errors = sample.delta1.iter().zip(sample.delta2).all(|(a, b)| a == b);
    let significant = |r: &TestOutcome| matches!(r, Ok(t) if t.p_value < alpha);
    if equal_errors {
        Verdict {
            accuracy: Accuracy::NoSignificantDifference,
            equivalence: Equivalence::Indistinguishable,
            stability: Stability::NoSignificantDifference,
            identical: identical_outputs,
            equal_errors: true,
        }
    } else {
        let equivalence = if significant(&analysis.ks) {
            Equivalence::Distinguishable
        } else {
            Equivalence::Indistinguishable
        };
        let stability = match (&analysis.spread_greater, &analysis.spread_less) {
            (Ok(g), _) if g.p_value < alpha => Stability::LessStable,
            (_, Ok(l)) if l.p_value < alpha => Stability::MoreStable,
            (Ok(_), Ok(_)) => Stability::NoSignificantDifference,
            _ => Stability::Undetermined,
        };
        Verdict {
            accuracy,
            equivalence,
            stability,
            identical: false,
            equal_errors: false,
        }
    }
}

#[cfg(test)]
mod tests;
