//! A run against a saved baseline: the candidate's errors now and then,
//! paired by trial seed, compared at the level the run's
//! [`Levels`] give a comparison.

use std::collections::BTreeMap;

use super::Baseline;
use crate::config::Settings;
use crate::decide::Levels;
use crate::error::{BaselineError, RunError, TrialId};
use crate::rng::seed_hex;

/// How the comparison with a baseline was decided.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RegressionDecision {
    /// The claim's rule over every pair, at `alpha`.
    FixedN {
        /// The level.
        alpha: f64,
    },
    /// Too few pairs for the test to ever reject at α.
    TooFewTrials {
        /// The pairs the test needs.
        needed: usize,
    },
    /// The mean error now points beyond the margin on too few pairs for
    /// any test at this `n` to establish it
    /// ([`crate::decide::claim::Short`], in the claim): the comparison
    /// fails the run, naming the `n` that could.
    ShortOfInputs {
        /// The `n` at which it could.
        n_needed: usize,
    },
}

/// The candidate now against the candidate at a baseline.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
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
    #[serde(with = "crate::json_number")]
    pub mean_now: f64,
    /// Its mean error at the baseline, over the pairs.
    #[serde(with = "crate::json_number")]
    pub mean_then: f64,
    /// The p-value of "less accurate now beyond the margin" of the claim's
    /// criterion that decided (the one that failed, else the smaller),
    /// when it could be computed.
    pub p_value: Option<f64>,
    /// The claim over the pairs (now as the candidate, then as the
    /// baseline), where the comparison ran.
    #[serde(default)]
    pub claim: Option<crate::decide::claim::Claim>,
    /// The margin.
    #[serde(with = "crate::json_number")]
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
    /// Whether the comparison fails the run: a regression, or a loss it
    /// could not decide at this `n`.
    pub fn fails(&self) -> bool {
        self.regressed || matches!(self.decision, RegressionDecision::ShortOfInputs { .. })
    }
}

/// The comparison a run makes with a baseline: its settings (the run's
/// own, or a stored run's read back from `summary.json`), and the index,
/// the candidate's error and the oracle fingerprint of each full trial (as
/// `deltas.csv` holds them).
///
/// The rule is the claim's ([`crate::decide::claim`]) at α, with the candidate's
/// errors then in the baseline's place: a regression is less accurate now
/// beyond the margin, in mean error or on the typical input (equal errors
/// are ties).
///
/// # Errors
///
/// [`BaselineError::Mismatch`] when a paired trial's fingerprint
/// differs; [`BaselineError::Settings`] when the metric, the seed, `n`,
/// α, the margin or the expectation differ from the baseline's.
pub fn compare_errors(
    baseline: &Baseline,
    now: &Settings,
    trials: &[(usize, f64, u64)],
) -> Result<Regression, RunError> {
    // Outside a run (`cargo dual-delta`), the levels of the settings it is
    // compared under.
    compare_at(baseline, now, &Levels::of(now), trials)
}

/// [`compare_errors`] with the run's `levels`, computed once from `now`:
/// the comparison is decided at [`Levels::comparison`].
fn compare_at(
    baseline: &Baseline,
    now: &Settings,
    levels: &Levels,
    trials: &[(usize, f64, u64)],
) -> Result<Regression, RunError> {
    let b = &baseline.settings;
    let settings = [
        ("metric", b.metric.clone(), now.metric.name().to_owned()),
        ("seed", b.seed_hex.clone(), seed_hex(now.seed)),
        ("n", b.n.to_string(), now.n.to_string()),
        ("alpha", b.alpha.to_string(), now.alpha.to_string()),
        ("margin", b.margin.to_string(), now.margin.to_string()),
        (
            "expect",
            format!("{:?}", b.expect),
            format!("{:?}", now.expect),
        ),
    ];
    if let Some((setting, then, now)) = settings.into_iter().find(|(_, then, now)| then != now) {
        return Err(BaselineError::Settings {
            baseline: baseline.name.clone(),
            setting,
            now,
            then,
        }
        .into());
    }
    let then: std::collections::HashMap<&str, &super::BaselineTrial> = baseline
        .trials
        .iter()
        .map(|t| (t.seed_hex.as_str(), t))
        .collect();
    let mut now_errors = Vec::new();
    let mut then_errors = Vec::new();
    for &(i, d, f) in trials {
        let trial = TrialId::of(now.seed, i);
        let Some(t) = then.get(seed_hex(trial.seed).as_str()) else {
            continue;
        };
        if t.fingerprint != format!("{f:016x}") {
            return Err(BaselineError::Mismatch {
                baseline: baseline.name.clone(),
                trial,
                now: format!("{f:016x}"),
                then: t.fingerprint.clone(),
            }
            .into());
        }
        now_errors.push(d);
        then_errors.push(t.delta1);
    }
    let (fixed, margin) = (levels.comparison(), now.margin);
    let pairs = now_errors.len();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    // The claim's rule at α, each criterion at α/2: its typical-input
    // criterion needs both the sign test and the run's paired test.
    let needed = fixed.min_inputs(now.test);
    let mut result = Regression {
        baseline: baseline.name.clone(),
        commit: baseline.commit.clone(),
        baseline_trials: baseline.trials.len(),
        pairs,
        mean_now: mean(&now_errors),
        mean_then: mean(&then_errors),
        p_value: None,
        claim: None,
        margin,
        decision: RegressionDecision::TooFewTrials { needed },
        regressed: false,
        now: Vec::new(),
        then: Vec::new(),
    };
    if pairs < needed {
        return Ok(result);
    }
    let mut errors = crate::decide::claim::Errors::default();
    for (&a, &b) in now_errors.iter().zip(&then_errors) {
        errors.push(a, b, a == b);
    }
    let paired = crate::verdict::PairedTest::of(&now_errors, &then_errors, now.test, fixed.level());
    let claim = crate::decide::claim::assess(&errors, fixed, margin, &paired);
    result.regressed = claim.less_accurate();
    let decision = match claim.short {
        Some(short) if !result.regressed => RegressionDecision::ShortOfInputs {
            n_needed: short.n_needed,
        },
        _ => RegressionDecision::FixedN {
            alpha: fixed.level(),
        },
    };
    result.p_value = match claim.failed_by() {
        Some(crate::decide::claim::Which::Typical) => claim.typical.p_margin,
        Some(crate::decide::claim::Which::Mean) => claim.mean.p_margin,
        None => [claim.mean.p_margin, claim.typical.p_margin]
            .into_iter()
            .flatten()
            .reduce(f64::min),
    };
    result.claim = Some(claim);
    result.now = now_errors;
    result.then = then_errors;
    result.decision = decision;
    Ok(result)
}

/// The run's errors `delta1` (fingerprints `fingerprints`, facts
/// `environment`) against `baseline`, at the run's `levels`.
///
/// # Errors
///
/// [`BaselineError::Device`] when the baseline was saved on another GPU
/// and `DUAL_DELTA_BASELINE_ANY_DEVICE` is off;
/// [`BaselineError::Mismatch`] when a paired trial's fingerprint
/// differs.
pub(crate) fn against(
    baseline: &Baseline,
    settings: &Settings,
    levels: &Levels,
    trials: &[(usize, f64, u64)],
    environment: &BTreeMap<String, String>,
) -> Result<Regression, RunError> {
    let now = environment.get("gpu.adapter");
    if let (Some(now), Some(then)) = (now, baseline.adapter())
        && now != then
        && !settings.baselines.any_device
    {
        return Err(BaselineError::Device {
            baseline: baseline.name.clone(),
            now: now.clone(),
            then: then.to_owned(),
        }
        .into());
    }
    compare_at(baseline, settings, levels, trials)
}
