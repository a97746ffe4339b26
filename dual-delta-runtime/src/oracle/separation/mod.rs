//! The precision separation check: is the oracle's error far below the
//! implementations'?

use core::fmt;

use rayon::prelude::*;

use crate::device::Record;
use crate::error::{Role, RunError, TrialId};
use crate::guard::guarded;
use crate::metric::Metric;
use crate::output::{NumberFormat, Output};
use crate::rng::{TrialRng, seed_from_name};
use crate::trial::{Implementation, InputFn, call, draw, implementation as evaluate};

/// A check of the paper's precision separation property on a sample of
/// trials: the oracle fΩ, the implementations and a reference of higher
/// precision than the oracle all run on the same inputs; the oracle and
/// each implementation are measured against the reference with the same
/// metric, and
///
/// ```text
/// separation = min over implementations of median(implementation's errors)
///              ─────────────────────────────────────────────────────────────
///                          max(oracle's errors)
/// ```
///
/// must reach the threshold (100× by default). The oracle's *largest*
/// error is used, as one bad oracle output spoils a trial's Δ1 and Δ2; the
/// implementations' *typical* (median) error, as that is what the oracle
/// must resolve. An oracle exact on the whole sample has an infinite
/// separation.
///
/// Trial `i` draws its input from [`TrialRng::for_trial`]`(seed, i)`, so with
/// the seed of a run ([`Separation::name`] derives the same default seed as
/// [`DualDelta::test_name`](crate::DualDelta::test_name)) the sample is the
/// run's first trials. Trials run in parallel, each through the same steps
/// as a run's trial (the input drawn, each function called under the same
/// guard): a panic becomes [`SeparationError::Run`], naming the trial.
///
/// See the [module](crate::oracle) for an example.
pub struct Separation<'a, I> {
    oracle: Implementation<'a, I>,
    reference: Implementation<'a, I>,
    input: InputFn<'a, I>,
    implementations: Vec<(String, Implementation<'a, I>)>,
    metric: Metric,
    sample: usize,
    seed: Option<u64>,
    name: String,
    threshold: f64,
}

impl<'a, I> Separation<'a, I> {
    /// The default number of trials checked.
    pub const DEFAULT_SAMPLE: usize = 8;
    /// The separation required by default: 100×.
    pub const DEFAULT_THRESHOLD: f64 = 100.0;

    /// A check of `oracle` against `reference`, a more precise oracle, on
    /// inputs from `input`. Add the implementations with
    /// [`Separation::implementation`].
    pub fn new<O, R, G, OO, RO>(oracle: O, reference: R, input: G) -> Self
    where
        O: Fn(&I) -> OO + Sync + 'a,
        R: Fn(&I) -> RO + Sync + 'a,
        G: Fn(&mut TrialRng) -> I + Sync + 'a,
        OO: Output,
        RO: Output,
    {
        Separation {
            oracle: evaluate(oracle),
            reference: evaluate(reference),
            input: Box::new(input),
            implementations: Vec::new(),
            metric: Metric::default(),
            sample: Self::DEFAULT_SAMPLE,
            seed: None,
            name: "dual_delta".to_owned(),
            threshold: Self::DEFAULT_THRESHOLD,
        }
    }

    /// Adds an implementation (the candidate, the baseline, ...). Errors are
    /// measured in the format of the first implementation added, for all of
    /// them and for the oracle, as the harness measures both error samples in
    /// the candidate's format.
    pub fn implementation<F, T>(mut self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(&I) -> T + Sync + 'a,
        T: Output,
    {
        self.implementations.push((name.into(), evaluate(f)));
        self
    }

    /// The error metric (default [`Metric::MaxHybrid`], the harness's).
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// The number of trials checked (default
    /// [`Separation::DEFAULT_SAMPLE`]).
    pub fn sample(mut self, trials: usize) -> Self {
        self.sample = trials;
        self
    }

    /// The base seed (default: derived from the name, as a run's).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The name of the test checked: the default seed's source and the key
    /// the result is recorded under ([`SeparationReport::record`]).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The separation required (default [`Separation::DEFAULT_THRESHOLD`]).
    ///
    /// # Panics
    ///
    /// Panics unless `ratio` is positive.
    #[track_caller]
    pub fn threshold(mut self, ratio: f64) -> Self {
        assert!(
            ratio > 0.0,
            "a separation threshold must be positive, got {ratio}"
        );
        self.threshold = ratio;
        self
    }

    /// Runs the sample and measures the separation.
    pub fn check(&self) -> Result<SeparationReport, SeparationError> {
        if self.implementations.is_empty() {
            return Err(SeparationError::NoImplementations);
        }
        if self.sample == 0 {
            return Err(SeparationError::EmptySample);
        }
        let seed = self.seed.unwrap_or_else(|| seed_from_name(&self.name));
        let trials: Vec<Result<SampledErrors, SeparationError>> = (0..self.sample)
            .into_par_iter()
            .map(|index| self.trial(seed, index))
            .collect();
        let trials = trials.into_iter().collect::<Result<Vec<_>, _>>()?;

        let oracle = ErrorSummary::of(trials.iter().map(|t| t.oracle).collect());
        let implementations: Vec<ImplementationErrors> = self
            .implementations
            .iter()
            .enumerate()
            .map(|(i, (name, _))| ImplementationErrors {
                name: name.clone(),
                errors: ErrorSummary::of(trials.iter().map(|t| t.implementations[i]).collect()),
            })
            .collect();
        let best = implementations
            .iter()
            .map(|i| i.errors.median)
            .fold(f64::INFINITY, f64::min);
        let ratio = if oracle.max == 0.0 {
            f64::INFINITY
        } else {
            best / oracle.max
        };
        Ok(SeparationReport {
            name: self.name.clone(),
            metric: self.metric.name().to_owned(),
            seed,
            threshold: self.threshold,
            input_kinds: trials.into_iter().map(|t| t.input_kind).collect(),
            oracle,
            implementations,
            ratio,
            passed: ratio >= self.threshold,
        })
    }

    fn trial(&self, seed: u64, index: usize) -> Result<SampledErrors, SeparationError> {
        let trial = TrialId::of(seed, index);
        // A device the functions use is named in no report: this is no run.
        let device = &Record::default();
        let (x, input_kind) = draw(&self.input, device, trial)?;
        // The reference is the oracle of this check.
        let reference = call(&self.reference, device, Role::Oracle, trial, &x)?.values;
        if let Some(position) = reference.iter().position(|v| !v.is_finite()) {
            return Err(SeparationError::ReferenceNotFinite {
                trial,
                position,
                value: reference[position],
            });
        }
        let outputs = self
            .implementations
            .iter()
            .map(|(name, f)| Ok((name.as_str(), call(f, device, Role::Candidate, trial, &x)?)))
            .collect::<Result<Vec<_>, RunError>>()?;
        let format = outputs.first().map_or(NumberFormat::F64, |(_, y)| y.format);
        let oracle = call(&self.oracle, device, Role::Oracle, trial, &x)?.values;
        let measure = |what: &str, y: &[f64]| {
            if y.len() != reference.len() {
                return Err(SeparationError::LengthMismatch {
                    what: what.to_owned(),
                    trial,
                    len: y.len(),
                    reference_len: reference.len(),
                });
            }
            Ok(guarded(device, Role::Metric, trial, || {
                self.metric.error(y, &reference, format)
            })?)
        };
        let oracle = measure("oracle", &oracle)?;
        let implementations = outputs
            .iter()
            .map(|(name, y)| measure(name, &y.values))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SampledErrors {
            oracle,
            implementations,
            input_kind,
        })
    }
}

impl<I> fmt::Debug for Separation<'_, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Separation")
            .field(
                "implementations",
                &self
                    .implementations
                    .iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>(),
            )
            .field("metric", &self.metric)
            .field("sample", &self.sample)
            .field("seed", &self.seed)
            .field("name", &self.name)
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

/// One sampled trial's errors against the reference.
struct SampledErrors {
    oracle: f64,
    implementations: Vec<f64>,
    input_kind: String,
}

/// Errors measured against the reference on the sampled trials.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct ErrorSummary {
    /// The error on each sampled trial, in trial order.
    pub errors: Vec<f64>,
    /// Their median.
    pub median: f64,
    /// Their mean.
    pub mean: f64,
    /// The largest.
    pub max: f64,
}

impl ErrorSummary {
    fn of(errors: Vec<f64>) -> Self {
        let mut sorted = errors.clone();
        sorted.sort_by(f64::total_cmp);
        let len = sorted.len();
        let median = match len {
            0 => f64::NAN,
            _ if len % 2 == 1 => sorted[len / 2],
            _ => 0.5 * (sorted[len / 2 - 1] + sorted[len / 2]),
        };
        let mean = sorted.iter().sum::<f64>() / len as f64;
        let max = sorted.last().copied().unwrap_or(f64::NAN);
        ErrorSummary {
            errors,
            median,
            mean,
            max,
        }
    }
}

/// One implementation's errors against the reference.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct ImplementationErrors {
    /// The implementation's name.
    pub name: String,
    /// Its errors.
    pub errors: ErrorSummary,
}

/// The result of a [`Separation`] check.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct SeparationReport {
    /// The name of the test checked.
    pub name: String,
    /// The metric's name.
    pub metric: String,
    /// The base seed of the sample.
    pub seed: u64,
    /// The separation required.
    pub threshold: f64,
    /// The kind of input of each sampled trial.
    pub input_kinds: Vec<String>,
    /// The oracle's errors against the reference.
    pub oracle: ErrorSummary,
    /// Each implementation's errors against the reference.
    pub implementations: Vec<ImplementationErrors>,
    /// The smallest median implementation error over the oracle's largest
    /// error (`+inf` when the oracle was exact on every sampled trial).
    pub ratio: f64,
    /// Whether `ratio ≥ threshold`.
    pub passed: bool,
}

impl SeparationReport {
    /// The implementation with the smallest median error.
    pub fn best(&self) -> &ImplementationErrors {
        self.implementations
            .iter()
            .min_by(|a, b| a.errors.median.total_cmp(&b.errors.median))
            .expect("a report has at least one implementation")
    }

    /// One line: `ok: ...` when the separation holds, `WARNING: ...`
    /// otherwise.
    pub fn summary(&self) -> String {
        let best = self.best();
        let detail = format!(
            "{}: oracle's largest error {:.3e}, best implementation `{}` median {:.3e}; {} trials, seed {:#x}; at least {}× needed",
            self.metric,
            self.oracle.max,
            best.name,
            best.errors.median,
            self.oracle.errors.len(),
            self.seed,
            self.threshold,
        );
        if self.passed {
            format!(
                "ok: the oracle's error is {} below the implementations' ({detail})",
                ratio_text(self.ratio)
            )
        } else {
            format!(
                "WARNING: the oracle's error is only {} below the implementations' ({detail}): \
                 the errors measured partly measure the oracle; use a more precise oracle",
                ratio_text(self.ratio)
            )
        }
    }

    /// The key [`SeparationReport::record`] uses:
    /// `oracle.separation.<name>`.
    pub fn key(&self) -> String {
        format!("oracle.separation.{}", self.name)
    }

    /// Records [`SeparationReport::summary`] under
    /// [`SeparationReport::key`] with
    /// [`record_environment`](crate::record_environment), so that every
    /// report of the process written after this call includes it, and
    /// prints the warning to standard error when the separation fails.
    pub fn record(&self) {
        let summary = self.summary();
        if !self.passed {
            eprintln!("dual-delta: {}: {summary}", self.name);
        }
        crate::environment::record_environment(self.key(), summary);
    }
}

fn ratio_text(ratio: f64) -> String {
    if ratio.is_infinite() {
        "infinitely far (exact on the sample)".to_owned()
    } else {
        format!("{ratio:.3e}×")
    }
}

impl fmt::Display for SeparationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "oracle separation of `{}`: {}",
            self.name,
            self.summary()
        )?;
        let width = self
            .implementations
            .iter()
            .map(|i| i.name.chars().count())
            .max()
            .unwrap_or(0)
            .max("oracle".len());
        let line = |f: &mut fmt::Formatter<'_>, name: &str, e: &ErrorSummary| {
            writeln!(
                f,
                "  {name:<width$}  median {:.3e}  mean {:.3e}  max {:.3e}",
                e.median, e.mean, e.max
            )
        };
        line(f, "oracle", &self.oracle)?;
        for i in &self.implementations {
            line(f, &i.name, &i.errors)?;
        }
        Ok(())
    }
}

/// Why a separation check could not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SeparationError {
    /// No implementation was added.
    NoImplementations,
    /// The sample is empty.
    EmptySample,
    /// A function panicked (or skipped), or the input could not be drawn.
    Run(RunError),
    /// The reference returned a value that is not finite.
    ReferenceNotFinite {
        /// The trial.
        trial: TrialId,
        /// The position of the value.
        position: usize,
        /// The value.
        value: f64,
    },
    /// An output's length differs from the reference's.
    LengthMismatch {
        /// `oracle`, or the implementation's name.
        what: String,
        /// The trial.
        trial: TrialId,
        /// The output's length.
        len: usize,
        /// The reference's length.
        reference_len: usize,
    },
}

impl fmt::Display for SeparationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeparationError::NoImplementations => {
                f.write_str("a separation check needs at least one implementation")
            }
            SeparationError::EmptySample => {
                f.write_str("a separation check needs a sample of at least one trial")
            }
            SeparationError::Run(e) => write!(f, "{e}"),
            SeparationError::ReferenceNotFinite {
                trial,
                position,
                value,
            } => write!(
                f,
                "the reference returned {value} at position {position} on {trial}"
            ),
            SeparationError::LengthMismatch {
                what,
                trial,
                len,
                reference_len,
            } => write!(
                f,
                "`{what}` returned {} and the reference {reference_len} on {trial}",
                crate::error::values(*len)
            ),
        }
    }
}

impl std::error::Error for SeparationError {}

impl From<RunError> for SeparationError {
    fn from(e: RunError) -> Self {
        SeparationError::Run(e)
    }
}

#[cfg(test)]
mod tests;
