//! A run against a saved baseline: the candidate's errors now and then,
//! paired by trial seed.

use super::Baseline;
use crate::config::Settings;
use crate::error::{RunError, TrialId};
use crate::expect::Expect;
use crate::rng::seed_hex;
use crate::stats::sequential::{Decision, Sequential, alpha_split};
use crate::stats::{Alternative, ZeroMethod, wilcoxon};
use crate::verdict::AccuracyTest;

/// How the comparison with a baseline was decided.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum RegressionDecision {
    /// The anytime-valid sequential test (signed-rank evidence that the
    /// candidate is worse than at the baseline beyond the margin) reached
    /// its threshold after `after` pairs.
    Sequential {
        /// The pairs it took.
        after: usize,
    },
    /// The one-sided Wilcoxon test over every pair, at `alpha` (the share
    /// of α left to it).
    FixedN {
        /// The level.
        alpha: f64,
    },
    /// Too few pairs for the test to ever reject at α.
    TooFewTrials {
        /// The pairs the test needs.
        needed: usize,
    },
}

/// The candidate now against the candidate at a baseline.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Regression {
    /// The baseline's name.
    pub baseline: String,
    /// The commit it was saved at, when known.
    pub commit: Option<String>,
    /// The trials the baseline holds.
    pub baseline_trials: usize,
    /// The trials both runs have (paired by seed).
    pub pairs: usize,
    /// The candidate's mean error now, over the pairs.
    pub mean_now: f64,
    /// Its mean error at the baseline, over the pairs.
    pub mean_then: f64,
    /// The one-sided Wilcoxon p-value of "less accurate now", on
    /// `now − (1 + margin) · then`, when it could be computed.
    pub p_value: Option<f64>,
    /// The margin.
    pub margin: f64,
    /// What decided.
    pub decision: RegressionDecision,
    /// Whether the candidate is significantly less accurate than at the
    /// baseline: the test fails.
    pub regressed: bool,
    /// The candidate's errors now, on the paired trials (in trial order).
    #[serde(skip)]
    pub now: Vec<f64>,
    /// Its errors at the baseline, on the same trials.
    #[serde(skip)]
    pub then: Vec<f64>,
}

impl Regression {
    /// The comparison in words: `Regression: less accurate than at baseline
    /// `main` (commit 1a2b3c4): mean error 1.310× the baseline's over 1000
    /// paired trials, p = 3.2e-12.`
    pub fn sentence(&self) -> String {
        let at = format!(
            "baseline `{}`{}",
            self.baseline,
            self.commit
                .as_deref()
                .map(|c| format!(" (commit {})", &c[..c.len().min(12)]))
                .unwrap_or_default()
        );
        let ratio = self.mean_now / self.mean_then;
        let p = self
            .p_value
            .map_or_else(|| "p not computed".to_owned(), |p| format!("p = {p:.2e}"));
        match self.decision {
            RegressionDecision::TooFewTrials { needed } => format!(
                "Regression not checked against {at}: only {} trials in common (the baseline holds {}), and the \
                 test needs at least {needed}.",
                self.pairs, self.baseline_trials
            ),
            _ if self.regressed => format!(
                "Regression: less accurate than at {at}: mean error {ratio:.3}× the baseline's over {} paired \
                 trials, {p}{}.",
                self.pairs,
                match self.decision {
                    RegressionDecision::Sequential { after } => {
                        format!(" (anytime-valid sequential test, decided after {after} pairs)")
                    }
                    _ => String::new(),
                }
            ),
            _ => format!(
                "No regression: not less accurate than at {at} beyond the {}% margin: mean error {ratio:.3}× the \
                 baseline's over {} paired trials, {p}.",
                100.0 * self.margin,
                self.pairs
            ),
        }
    }
}

/// Compares the candidate's errors now (`delta1`, trial `i` with seed
/// `trial_seed(settings.seed, i)`, oracle fingerprints `fingerprints`) with
/// `baseline`, at the run's α and margin.
///
/// # Errors
///
/// [`RunError::BaselineMismatch`] when a paired trial's fingerprint
/// differs: the input generator or the oracle changed.
pub(crate) fn compare(
    baseline: &Baseline,
    settings: &Settings,
    delta1: &[f64],
    fingerprints: &[u64],
) -> Result<Regression, RunError> {
    compare_errors(
        baseline,
        settings.seed,
        settings.alpha,
        settings.margin,
        delta1,
        fingerprints,
    )
}

/// The comparison a run makes with a baseline, from a stored run's
/// numbers: its base seed, α, margin, the candidate's error on each trial
/// and each trial's oracle fingerprint (as
/// `deltas.csv` holds them).
///
/// # Errors
///
/// [`RunError::BaselineMismatch`] when a paired trial's fingerprint
/// differs; [`RunError::Stats`] for an invalid α or margin.
pub fn compare_errors(
    baseline: &Baseline,
    seed: u64,
    alpha: f64,
    margin: f64,
    delta1: &[f64],
    fingerprints: &[u64],
) -> Result<Regression, RunError> {
    let then: std::collections::HashMap<&str, &super::BaselineTrial> = baseline
        .trials
        .iter()
        .map(|t| (t.seed_hex.as_str(), t))
        .collect();
    let mut now_errors = Vec::new();
    let mut then_errors = Vec::new();
    for (i, (&d, &f)) in delta1.iter().zip(fingerprints).enumerate() {
        let trial = TrialId::of(seed, i);
        let Some(t) = then.get(seed_hex(trial.seed).as_str()) else {
            continue;
        };
        if t.fingerprint != format!("{f:016x}") {
            return Err(RunError::BaselineMismatch {
                baseline: baseline.name.clone(),
                trial,
                now: format!("{f:016x}"),
                then: t.fingerprint.clone(),
            });
        }
        now_errors.push(d);
        then_errors.push(t.delta1);
    }
    let pairs = now_errors.len();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let needed = AccuracyTest::Wilcoxon.min_trials(alpha);
    let mut result = Regression {
        baseline: baseline.name.clone(),
        commit: baseline.commit.clone(),
        baseline_trials: baseline.trials.len(),
        pairs,
        mean_now: mean(&now_errors),
        mean_then: mean(&then_errors),
        p_value: None,
        margin,
        decision: RegressionDecision::TooFewTrials { needed },
        regressed: false,
        now: Vec::new(),
        then: Vec::new(),
    };
    if pairs < needed {
        return Ok(result);
    }
    let scaled: Vec<f64> = then_errors.iter().map(|e| (1.0 + margin) * e).collect();
    result.p_value = wilcoxon(
        &now_errors,
        &scaled,
        Alternative::Greater,
        ZeroMethod::Wilcox,
        false,
    )
    .ok()
    .map(|t| t.p_value);
    let split = alpha_split(Expect::NoWorse, alpha);
    let mut sequential = Sequential::new(Expect::NoWorse, alpha, margin)
        .and_then(|s| s.with_fixed_margin(margin))
        .map_err(RunError::Stats)?;
    sequential
        .observe(&now_errors, &then_errors)
        .map_err(RunError::Stats)?;
    result.now = now_errors;
    result.then = then_errors;
    (result.decision, result.regressed) = match sequential.decision() {
        Decision::Fail { after, .. } => (RegressionDecision::Sequential { after }, true),
        _ => (
            RegressionDecision::FixedN {
                alpha: split.fallback,
            },
            result.p_value.is_some_and(|p| p < split.fallback),
        ),
    };
    Ok(result)
}
