//! What [`Sequential`](super::Sequential) reports: the decision, the
//! evidence after each trial, and the split of α with the fixed-N test.

use crate::expect::Expect;

/// Which claim the evidence established.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// The candidate is less accurate: the differences `Δ1 − (1 + δ) Δ2`
    /// lean positive (signed-rank e-process; `δ` is the fixed-N margin,
    /// 0 by default).
    Worse,
    /// The candidate is more accurate: the differences `Δ1 − Δ2` lean
    /// negative (signed-rank e-process).
    Better,
    /// The candidate is not worse beyond the margin `m`: its error exceeds
    /// `(1 + m)` × the baseline's on fewer trials than it falls below it
    /// (sign e-process).
    NotWorseBeyondMargin,
    /// The candidate is not better beyond the margin `m`: the baseline's
    /// error exceeds `(1 + m)` × the candidate's on fewer trials than it
    /// falls below it (sign e-process).
    NotBetterBeyondMargin,
    /// The candidate is not more accurate at all: its error falls below
    /// the baseline's on fewer trials than it exceeds it (sign e-process at
    /// margin 0): the fail side of `expect = better`, which asks for more
    /// accuracy at all, as the claim at the cap does.
    NotBetter,
    /// Both [`Reason::NotWorseBeyondMargin`] and
    /// [`Reason::NotBetterBeyondMargin`]: the two agree within the margin.
    WithinMargin,
}

/// Which threshold the evidence has crossed so far: the e-process's own
/// state, which the judgement ([`crate::decision::Judgement`]) reads.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Crossed {
    /// No e-process has reached its threshold: run more trials (or, at the
    /// cap, fall back to the fixed-N test at [`AlphaSplit::fallback`]).
    #[serde(rename = "continue")]
    Neither,
    /// The expectation fails.
    Fail {
        /// The number of trials after which the evidence reached `1/α`
        /// of its side. A run stops early only once the evidence also
        /// reaches [`crate::decision::claim::STOP_EVIDENCE`], which may take more:
        /// where it stopped is the judgement's
        /// ([`crate::decision::DecidedBy::Sequential`]'s `after`).
        after: usize,
        /// The e-value then (at least the threshold).
        #[serde(with = "crate::json_number")]
        evidence: f64,
        /// What it showed.
        reason: Reason,
    },
    /// The expectation holds.
    Pass {
        /// The number of trials after which the evidence reached `1/α`.
        after: usize,
        /// The e-value then (at least the threshold).
        #[serde(with = "crate::json_number")]
        evidence: f64,
        /// What it showed.
        reason: Reason,
    },
}

impl Crossed {
    /// Whether the run can stop.
    pub fn is_final(&self) -> bool {
        !matches!(self, Crossed::Neither)
    }
}

/// The evidence after one trial, as `log10` of e-values (0: no evidence;
/// `log10(1/α)`: the threshold).
///
/// `fail` and `pass` are the two e-processes that decide the expectation;
/// the five others are the processes they are made of, kept for reports.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct TracePoint {
    /// Trials observed so far (1-based).
    pub trial: usize,
    /// The e-process whose crossing fails the expectation.
    #[serde(with = "crate::json_number")]
    pub log10_fail: f64,
    /// The e-process whose crossing passes the expectation.
    #[serde(with = "crate::json_number")]
    pub log10_pass: f64,
    /// Signed-rank evidence that the candidate is less accurate.
    #[serde(with = "crate::json_number")]
    pub log10_worse: f64,
    /// Signed-rank evidence that the candidate is more accurate.
    #[serde(with = "crate::json_number")]
    pub log10_better: f64,
    /// Sign evidence that the candidate is not worse beyond the margin.
    #[serde(with = "crate::json_number")]
    pub log10_not_worse_beyond_margin: f64,
    /// Sign evidence that the candidate is not better beyond the margin.
    #[serde(with = "crate::json_number")]
    pub log10_not_better_beyond_margin: f64,
    /// Sign evidence that the candidate's error exceeds `(1 + m)` × the
    /// baseline's on more than half of all inputs, an identical output
    /// counting against it: the typical input is worse beyond the margin.
    #[serde(with = "crate::json_number", default)]
    pub log10_typically_worse: f64,
}

/// How the level α of a test is shared between the sequential e-processes
/// and the fixed-N test run at the cap when they decide nothing.
///
/// An error of one kind (a false failure, or a false pass) can come from
/// the sequential side or from the fallback only where both can produce
/// that outcome by rejecting a hypothesis; there the level is split in
/// halves and the union bound keeps the total at α. Where the fixed-N test
/// produces that outcome only by *not* rejecting (a `no_worse` pass, a
/// `better` failure), it has no error rate to share, and the sequential
/// side gets all of α.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct AlphaSplit {
    /// The level of the fail side: it fails when its e-value reaches
    /// `1 / fail`.
    #[serde(with = "crate::json_number")]
    pub fail: f64,
    /// The level of the pass side: it passes when its e-value reaches
    /// `1 / pass`.
    #[serde(with = "crate::json_number")]
    pub pass: f64,
    /// The level at which to run the fixed-N test (`verdict::analyse`) at
    /// the cap.
    #[serde(with = "crate::json_number")]
    pub fallback: f64,
}

/// The split of α for an expectation.
///
/// | expect       | fail  | pass  | fallback |
/// |--------------|-------|-------|----------|
/// | `no_worse`   | α / 2 | α     | α / 2    |
/// | `equivalent` | α / 2 | α     | α / 6    |
/// | `better`     | α     | α / 2 | α / 2    |
/// | `worse`      | α     | α / 2 | α / 2    |
///
/// * `no_worse`: a false failure is either the fail e-process crossing
///   `2/α` (probability ≤ α/2 by Ville's inequality) or, at the cap, the
///   claim's two criteria over every input, (M) and (T) at α/4 each: ≤ α
///   in all. A false pass can only be an early one (≤ α).
/// * `equivalent`: the fixed-N verdict fails when the claim shows a
///   difference either way or the Kolmogorov-Smirnov test rejects, three
///   tests at the level it is given, so it gets α/6 for a total ≤ α/2;
///   with the sequential α/2, false failures stay ≤ α.
/// * `better` and `worse`: a false pass is the pass e-process crossing
///   `2/α` or the claim's criteria over every input showing it at α/2; a
///   false failure can only be an early one (≤ α).
///
/// The table is `dual_delta_settings::levels::alpha_split`'s, which the
/// attribute reads too.
///
/// The split covers the accuracy verdict; the stability tests the fixed-N
/// verdict also runs are not part of it.
pub fn alpha_split(expect: Expect, alpha: f64) -> AlphaSplit {
    let split = dual_delta_settings::levels::alpha_split(expect.name(), alpha);
    AlphaSplit {
        fail: split.fail,
        pass: split.pass,
        fallback: split.fallback,
    }
}
