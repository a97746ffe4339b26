//! Anytime-valid sequential testing: stop as soon as the verdict is known.
//!
//! Trials arrive in rounds, in trial order. After each round the caller
//! hands the new errors to [`Sequential::observe`] and asks
//! [`Sequential::crossed`] whether to stop. Five e-processes (test
//! supermartingales, Ville 1939) watch all the trials so far:
//!
//! * **worse**: signed-rank evidence that the candidate is less accurate,
//!   on `D_i = Δ1_i − (1 + δ) Δ2_i` (`δ` is the fixed-N test's margin, 0
//!   unless [`Sequential::with_fixed_margin`] sets it);
//! * **better**: signed-rank evidence that it is more accurate, on
//!   `Δ2_i − Δ1_i`;
//! * **not worse beyond the margin**: sign evidence that
//!   `P(Δ1 > (1 + m) Δ2) < P(Δ1 < (1 + m) Δ2)`;
//! * **not better beyond the margin**: the same with Δ1 and Δ2 swapped
//!   (at margin 0 under `expect = better`, which asks for more accuracy at
//!   all, as the claim at the cap does: "not more accurate");
//! * **typically worse**: sign evidence that `Δ1 > (1 + m) Δ2` on more than
//!   half of all inputs, an input with identical outputs
//!   ([`Sequential::observe_tie`]) counting against it: the typical input
//!   is worse beyond the margin.
//!
//! Each expectation reads one of them (or two combined) as its fail side and
//! one as its pass side:
//!
//! | expect       | fails when                    | passes when                          |
//! |--------------|-------------------------------|--------------------------------------|
//! | `no_worse`   | the smaller of worse and typically worse | not worse beyond the margin |
//! | `equivalent` | mean of worse and better      | both margin processes (the smaller)  |
//! | `better`     | not better (at margin 0)      | better                               |
//! | `worse`      | not worse beyond the margin   | the smaller of worse and typically worse |
//!
//! A side decides once its e-value reaches `1/α_side` ([`alpha_split`]);
//! the decision is the first trial at which a side does, checked trial by
//! trial, so it does not depend on how trials are grouped into rounds. If
//! both sides cross on the same trial the expectation fails. The decision
//! is final: later trials extend the trace but do not change it.
//!
//! # The guarantees
//!
//! Ville's inequality: a nonnegative supermartingale `E_t` with `E_0 = 1`
//! satisfies `P(sup_t E_t ≥ 1/α) ≤ α`. Stopping at any data-dependent time,
//! after any number of looks, therefore keeps the error rate of each side
//! at its level.
//!
//! * **Signed-rank side** (worse, better). Null hypothesis: the trials are
//!   independent and each difference `D_i` is symmetric about zero (the
//!   null of the Wilcoxon signed-rank test; two implementations with the
//!   same error distribution on a trial give it). Then, given the earlier
//!   trials and `|D_i|`, the sign of `D_i` is a fair coin, and the capital
//!   `Π (1 + λ s_i w_i)` with `s_i = sign D_i` and `w_i` the rank of `|D_i|`
//!   among the non-zero `|D_1|, …, |D_i|` divided by their number (a
//!   function of the magnitudes only, hence allowed) is a test martingale
//!   for every `λ ∈ [0, 1)`; so is a mixture over a grid of `λ`. This is a
//!   sign-flip (group-invariance) e-statistic in the sense of Pérez-Ortiz,
//!   Lardy, de Heide and Grünwald, "E-statistics, group invariance and
//!   anytime-valid testing" (Ann. Statist. 2024), with ranks as the
//!   Wilcoxon-type weights. It stays a supermartingale when, given `|D_i|`,
//!   a positive sign is *at most* as likely as a negative one.
//! * **Sign side** (the margin processes). Null hypothesis (composite): the
//!   trials are independent and on each
//!   `P(Δ1 > (1 + m) Δ2) ≥ P(Δ1 < (1 + m) Δ2)`. A bet of `λ` on "below"
//!   has conditional mean `1 − λ (P(above) − P(below)) ≤ 1`: a martingale
//!   on the boundary, a supermartingale inside, so Ville's bound holds over
//!   the whole null. This is the betting martingale of Waudby-Smith and
//!   Ramdas, "Estimating means of bounded random variables by betting"
//!   (J. R. Stat. Soc. B 2024), on the sign of each trial, with a fixed
//!   mixture over `λ` instead of a plug-in. Ties (`Δ1 = (1 + m) Δ2`, two
//!   infinities included) leave the capital unchanged, which is the same as
//!   scoring a tie as half a success; the null is stated with strict
//!   inequalities, so ties need no further assumption.
//! * **Typically worse.** Null hypothesis: on each input, given the past,
//!   `P(Δ1 > (1 + m) Δ2) ≤ ½` (a tie, or an equal pair, counts as not
//!   above). The bet pays `+1` above and `−1` otherwise, so its conditional
//!   mean is at most 0: the same betting martingale, with no tie left out.
//!   Two exchangeable errors satisfy it, since `P(Δ1 > (1 + m) Δ2) ≤
//!   P(Δ1 > Δ2) ≤ ½`. The fail side of `no_worse` takes the smaller of this
//!   and the signed-rank process at margin 0: each is valid on its own, so
//!   their minimum is too.
//! * **`equivalent`** fails on the mean of the two signed-rank processes
//!   (a mean of test martingales is one, so both directions share α/2), and
//!   passes when *both* margin processes reach `1/α`: under any point of
//!   the null "one side is beyond the margin" one of them is a valid
//!   e-process, so this intersection-union rule keeps false passes ≤ α.
//!
//! The null of the fail side of `no_worse` (no difference) and the null of
//! its pass side (worse beyond the margin) do not cover everything: a
//! candidate slightly worse, but within the margin, may be passed or
//! failed, whichever evidence comes first; both statements are then true.
//! Set [`Sequential::with_fixed_margin`] to the margin `m` to make the two
//! sides test the same comparison.
//!
//! # Combining with the fixed-N test
//!
//! At the cap with [`Crossed::Neither`], run the fixed-N verdict on all
//! trials at [`AlphaSplit::fallback`]; [`alpha_split`] documents why the
//! total error rate stays ≤ α.
//!
//! # Errors that are not finite
//!
//! `+inf` (an implementation returned a non-finite output) is larger than
//! every finite error; `inf` against `inf` is a tie (no evidence either
//! way). `NaN` is rejected.
//!
//! # Determinism
//!
//! Everything is a pure function of the errors in trial order: the same
//! data gives the same trace and the same stopping trial, whatever the
//! number of threads or the size of the rounds.

mod betting;
mod decision;

pub use self::decision::{AlphaSplit, Crossed, Reason, TracePoint, alpha_split};

use self::betting::{SignProcess, SignedRankProcess, sign};
use super::{StatsError, check_no_nan, check_paired};
use crate::expect::Expect;

/// The default margin `m` of the margin processes: 5 %.
///
/// In words: `no_worse` passes early once it is clear that the candidate's
/// error exceeds 1.05 × the baseline's on fewer than half the inputs (ties
/// aside).
///
/// Measured at α = 0.01 (`tests/runtime/sequential.rs`, 200 seeds each): when the
/// candidate's error is the baseline's times `1 + ε u`, `u` uniform in
/// `[-1, 1]`, it passes after 10 trials (within the second round of 8) for
/// ε = 0.1 %, 1 % and 5 %; after a median of 37 trials for ε = 10 % and
/// 173 for ε = 20 % (its error exceeds 1.05 × the baseline's on 25 % and
/// 37.5 % of the inputs). A candidate whose error is 1.05 × the baseline's
/// in distribution passed early in 15 of 2000 runs at α = 0.01 (bound 31).
/// So 5 % lets implementations that differ by rounding pass at once, while
/// a candidate must match the baseline within 5 % on most inputs to pass
/// before the cap.
pub const DEFAULT_MARGIN: f64 = 0.05;

const LN_10: f64 = core::f64::consts::LN_10;

/// An anytime-valid sequential test of an accuracy expectation.
///
/// ```
/// use dual_delta_runtime::Expect;
/// use dual_delta_runtime::stats::sequential::{DEFAULT_MARGIN, Crossed, Sequential};
///
/// let mut test = Sequential::new(Expect::NoWorse, 0.01, DEFAULT_MARGIN).unwrap();
/// let baseline: Vec<f64> = (1..=64).map(|i| 1e-7 * f64::from(i % 7 + 1)).collect();
/// let candidate: Vec<f64> = baseline.iter().map(|e| 65.0 * e).collect();
/// for (c, b) in candidate.chunks(8).zip(baseline.chunks(8)) {
///     test.observe(c, b).unwrap();
///     if test.crossed().is_final() {
///         break;
///     }
/// }
/// assert!(matches!(test.crossed(), Crossed::Fail { .. }));
/// ```
#[derive(Clone, Debug)]
pub struct Sequential {
    expect: Expect,
    alpha: f64,
    margin: f64,
    fixed_margin: f64,
    worse: SignedRankProcess,
    better: SignedRankProcess,
    not_worse: SignProcess,
    not_better: SignProcess,
    above: SignProcess,
    trace: Vec<TracePoint>,
    crossed: Crossed,
    fail_only: bool,
}

impl Sequential {
    /// A test of `expect` at level `alpha` (split as [`alpha_split`] says)
    /// with margin `margin` ([`DEFAULT_MARGIN`] unless the test sets one).
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidParameter`] unless `0 < alpha < 1` and `margin`
    /// is finite and `≥ 0`.
    pub fn new(expect: Expect, alpha: f64, margin: f64) -> Result<Self, StatsError> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(StatsError::InvalidParameter {
                name: "alpha",
                reason: format!("must lie in (0, 1), got {alpha}"),
            });
        }
        check_margin("margin", margin)?;
        Ok(Self {
            expect,
            alpha,
            margin,
            fixed_margin: 0.0,
            worse: SignedRankProcess::new(),
            better: SignedRankProcess::new(),
            not_worse: SignProcess::new(),
            not_better: SignProcess::new(),
            above: SignProcess::new(),
            trace: Vec::new(),
            crossed: Crossed::Neither,
            fail_only: false,
        })
    }

    /// Sets the margin `δ` of the fixed-N test (`Settings::margin`), so that
    /// the *worse* process tests `Δ1 − (1 + δ) Δ2` as the fixed-N test
    /// does. Call it before observing any trial.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidParameter`] unless `δ` is finite and `≥ 0`, or if
    /// trials were already observed.
    pub fn with_fixed_margin(mut self, delta: f64) -> Result<Self, StatsError> {
        check_margin("fixed margin", delta)?;
        if !self.trace.is_empty() {
            return Err(StatsError::InvalidParameter {
                name: "fixed margin",
                reason: "must be set before the first trial".into(),
            });
        }
        self.fixed_margin = delta;
        Ok(self)
    }

    /// With `fail_only`, only the fail side decides: the pass side's
    /// evidence is traced but never ends the test (a run that must check
    /// every input before it passes).
    pub fn fail_only(mut self, fail_only: bool) -> Self {
        self.fail_only = fail_only;
        self
    }

    /// Appends a round of trials: the candidate's errors `delta1` and the
    /// baseline's `delta2`, paired by index, in trial order.
    ///
    /// # Errors
    ///
    /// [`StatsError::LengthMismatch`] or [`StatsError::InvalidValue`]
    /// (`NaN`); nothing is observed then.
    pub fn observe(&mut self, delta1: &[f64], delta2: &[f64]) -> Result<(), StatsError> {
        const TEST: &str = "sequential test";
        check_paired(delta1, delta2)?;
        check_no_nan(TEST, delta1)?;
        check_no_nan(TEST, delta2)?;
        for (&a, &b) in delta1.iter().zip(delta2) {
            self.observe_one(a, b);
        }
        Ok(())
    }

    /// Appends one input whose two outputs were identical: no evidence
    /// for the signed-rank and margin processes, and a ratio of 1, not
    /// above `1 + m`, for the typical-input process.
    pub fn observe_tie(&mut self) {
        self.above.observe(-1.0);
        self.push_point();
    }

    fn observe_one(&mut self, a: f64, b: f64) {
        let shifted = b * (1.0 + self.fixed_margin);
        self.worse.observe(sign(a, shifted), magnitude(a, shifted));
        self.better.observe(sign(b, a), magnitude(a, b));
        let k = 1.0 + self.margin;
        self.not_worse.observe(sign(k * b, a));
        // `expect = better` asks for more accuracy at all, as the claim at
        // the cap does: its fail side bets on "not more accurate" at
        // margin 0. `equivalent` reads it at the margin.
        let k_better = if self.expect == Expect::Better {
            1.0
        } else {
            k
        };
        self.not_better.observe(sign(k_better * a, b));
        self.above.observe(if a > k * b { 1.0 } else { -1.0 });
        self.push_point();
    }

    fn push_point(&mut self) {
        let worse = self.worse.ln_value();
        let better = self.better.ln_value();
        let not_worse = self.not_worse.ln_value();
        let not_better = self.not_better.ln_value();
        let above = self.above.ln_value();
        // Less accurate on the typical input: the signed-rank evidence
        // and the typical-input evidence together (each valid on its own,
        // so their minimum is too).
        let typically_worse = worse.min(above);
        let (ln_fail, ln_pass) = match self.expect {
            Expect::NoWorse => (typically_worse, not_worse),
            Expect::Equivalent => (ln_mean(worse, better), not_worse.min(not_better)),
            Expect::Better => (not_better, better),
            Expect::Worse => (not_worse, typically_worse),
        };
        let point = TracePoint {
            trial: self.trace.len() + 1,
            log10_fail: ln_fail / LN_10,
            log10_pass: ln_pass / LN_10,
            log10_worse: worse / LN_10,
            log10_better: better / LN_10,
            log10_not_worse_beyond_margin: not_worse / LN_10,
            log10_not_better_beyond_margin: not_better / LN_10,
            log10_typically_worse: above / LN_10,
        };
        self.trace.push(point);
        if !self.crossed.is_final() {
            let decision = judge(self.expect, &alpha_split(self.expect, self.alpha), &point);
            if !(self.fail_only && matches!(decision, Crossed::Pass { .. })) {
                self.crossed = decision;
            }
        }
    }

    /// The decision: [`Crossed::Neither`] until a side's evidence reaches
    /// its threshold, then the first such crossing, for good.
    pub fn crossed(&self) -> Crossed {
        self.crossed
    }

    /// The decision this trace would give at another level `alpha` (for
    /// reports and for calibrating several levels on one run).
    pub fn crossed_at(&self, alpha: f64) -> Crossed {
        let split = alpha_split(self.expect, alpha);
        self.trace
            .iter()
            .map(|p| judge(self.expect, &split, p))
            .find(Crossed::is_final)
            .unwrap_or(Crossed::Neither)
    }

    /// The evidence after each trial observed so far.
    pub fn trace(&self) -> &[TracePoint] {
        &self.trace
    }

    /// The number of trials observed.
    pub fn trials(&self) -> usize {
        self.trace.len()
    }

    /// The split of α between the two sides and the fixed-N fallback.
    pub fn alpha_split(&self) -> AlphaSplit {
        alpha_split(self.expect, self.alpha)
    }

    /// `log10` of the thresholds `(fail, pass)` the trace is compared with,
    /// for the `1/α` lines of a plot.
    pub fn thresholds_log10(&self) -> (f64, f64) {
        let split = self.alpha_split();
        (-split.fail.log10(), -split.pass.log10())
    }

    /// The expectation tested.
    pub fn expect(&self) -> Expect {
        self.expect
    }

    /// The level α of the whole test.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The margin `m` of the margin processes.
    pub fn margin(&self) -> f64 {
        self.margin
    }
}

fn check_margin(name: &'static str, margin: f64) -> Result<(), StatsError> {
    if margin.is_finite() && margin >= 0.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidParameter {
            name,
            reason: format!("must be finite and ≥ 0, got {margin}"),
        })
    }
}

/// `|a − b|`, `+inf` when exactly one is infinite (only its sign matters
/// when both are: equal infinities are a tie and are skipped).
fn magnitude(a: f64, b: f64) -> f64 {
    if a == b { 0.0 } else { (a - b).abs() }
}

/// `ln((e^x + e^y) / 2)` without overflow.
fn ln_mean(x: f64, y: f64) -> f64 {
    let m = x.max(y);
    m + (((x - m).exp() + (y - m).exp()) / 2.0).ln()
}

/// The decision on one trace point, fail first.
fn judge(expect: Expect, split: &AlphaSplit, p: &TracePoint) -> Crossed {
    let fail_at = -split.fail.log10();
    let pass_at = -split.pass.log10();
    if p.log10_fail >= fail_at {
        let reason = match expect {
            Expect::NoWorse => Reason::Worse,
            Expect::Equivalent if p.log10_worse >= p.log10_better => Reason::Worse,
            Expect::Equivalent => Reason::Better,
            Expect::Better => Reason::NotBetter,
            Expect::Worse => Reason::NotWorseBeyondMargin,
        };
        Crossed::Fail {
            after: p.trial,
            evidence: 10f64.powf(p.log10_fail),
            reason,
        }
    } else if p.log10_pass >= pass_at {
        let reason = match expect {
            Expect::NoWorse => Reason::NotWorseBeyondMargin,
            Expect::Equivalent => Reason::WithinMargin,
            Expect::Better => Reason::Better,
            Expect::Worse => Reason::Worse,
        };
        Crossed::Pass {
            after: p.trial,
            evidence: 10f64.powf(p.log10_pass),
            reason,
        }
    } else {
        Crossed::Neither
    }
}

#[cfg(test)]
mod tests;
