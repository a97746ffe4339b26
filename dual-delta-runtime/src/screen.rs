//! The screen: every one of the `n` inputs checked, and the two gates.
//!
//! # Every input counts
//!
//! A pass is a statement about all `n` inputs drawn. Under the defaults
//! each input runs the candidate and the baseline; where their outputs are
//! bitwise equal (same length, same bits), their errors are equal under
//! every metric, so the input is an exact *tie*: it needs no oracle and is
//! neutral in the test (a zero difference, dropped by the signed-rank
//! test as SciPy's `zero_method = "wilcox"` drops it). Everywhere else the
//! oracle runs and the input is a full trial. The oracle also runs on a
//! seeded sample of the ties (one in eight, chosen
//! by the trial's seed, and every tie among the first 32 inputs): the
//! ratio of mean errors and the descriptive figures need the errors on
//! ties, and take them from this sample (the report says so).
//!
//! A run stops before `n` only at a failure: the anytime-valid sequential
//! test of the fail side (see [`crate::stats::sequential`] and the
//! monitor), a non-finite output, the first input over a documented
//! `bound`, or an error; and at a pass only in the quick mode and under
//! `expect = worse`. With `stop_early = false` every input is a full
//! trial. With `screen = false` (the quick mode) an early pass is final
//! after `k` trials, unless the claim over those `k` inputs shows the
//! candidate less accurate, and the report states the share of inputs with
//! a non-finite output, a panic or a gross error that
//! `k` trials cannot rule out.
//!
//! # The gates
//!
//! Both apply to every full trial, in every mode (where the test documents
//! a `bound`, the bound takes the gross-error gate's place):
//!
//! * **non-finite**: the candidate returned a NaN or an infinity where the
//!   baseline and the oracle were finite (unless
//!   [`Settings::allow_non_finite`](crate::settings::Settings::allow_non_finite));
//! * **gross error**: the candidate's error exceeds `G` × the larger of
//!   the largest finite error the baseline made on any full trial of the
//!   run and `u`, the error one unit in the last place of the output's
//!   format makes under the metric on that input. `G` is
//!   [`Settings::gross_factor`](crate::settings::Settings::gross_factor), 100 by
//!   default: two orders of magnitude beyond anything the baseline shows.
//!   The floor `u` does not come from the candidate: a kernel that is wrong
//!   where the baseline is exact is caught, and rounding-level differences
//!   are not. A finite output whose error is infinite where the
//!   baseline's is finite (under `max_relative`, a non-zero output where
//!   the oracle is zero) is a gross error at any `G`.
//!
//! A non-finite output fails the run whatever the statistics say. Gross
//! errors fail it where there are too many to be chance: `k` of them, the
//! baseline's errors never gross against the candidate's, have a p-value
//! of `2^-k` when the two are equally accurate (each input's two errors as
//! likely either way round), and the gate fails the run where that is
//! below the level of the tests over every input: at least 8 under the
//! defaults, 7 with `stop_early = false`, at α = 0.01. So a rare spike
//! that both implementations draw, and the baseline happened not to draw
//! over the run, fails no equal kernel. Fewer gross errors are reported and
//! weighed by the claim's mean; a kernel that must never make one documents
//! a `bound`. (With `expect = worse` a gate counts as the candidate being
//! worse.)
//!
//! # The guarantee
//!
//! A pass means: on **every one** of the `n` inputs drawn, the candidate
//! returned a finite output wherever the baseline did, raised no panic or
//! error, made fewer gross errors than the gate fails on, and neither of the
//! claim's criteria over all `n` inputs (its mean error, its error on the
//! typical input; see [`crate::decide::claim`]) showed it less accurate
//! beyond the margin. For the input distribution it rules out, at
//! confidence `1 − β`, any rate of non-finite outputs above `ln(1/β) / n`
//! (inputs i.i.d. from the generator): above 0.46 % for `n = 1000` at 99 %.
//!
//! The price: the candidate and the baseline on every input, and the
//! oracle wherever their outputs differ (and on one tie in eight).

use crate::trial::Checked;

/// How the inputs of a run were run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Mode {
    /// Every input a full trial (`stop_early = false`, or a run that saves
    /// or compares a baseline).
    AllTrials,
    /// Every input checked; the oracle skipped on ties outside the sample.
    Screened,
    /// The quick mode (`screen = false`): full trials, and an early pass
    /// is final.
    Quick,
}

/// What the screen covered in a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Screen {
    /// How the inputs were run.
    pub mode: Mode,
    /// The inputs the candidate ran on.
    pub checked: usize,
    /// The inputs whose two outputs were bitwise equal (ties), measured or
    /// not.
    pub ties: usize,
    /// The ties the oracle ran on.
    pub ties_measured: usize,
    /// The inputs never run: after an early failure, or after a quick
    /// pass.
    pub unchecked: usize,
}

impl Screen {
    /// What `checked` (the inputs run so far, in order) covered of `n`.
    pub(crate) fn of(mode: Mode, checked: &[Checked], n: usize) -> Screen {
        let mut ties = 0;
        let mut ties_measured = 0;
        for c in checked {
            match c {
                Checked::Tie => ties += 1,
                Checked::Full(t) if t.identical_outputs => {
                    ties += 1;
                    ties_measured += 1;
                }
                Checked::Full(_) => {}
            }
        }
        Screen {
            mode,
            checked: checked.len(),
            ties,
            ties_measured,
            unchecked: n - checked.len(),
        }
    }

    /// The ties the oracle did not run on.
    pub fn ties_unmeasured(&self) -> usize {
        self.ties - self.ties_measured
    }

    /// Whether a quick pass left inputs unchecked.
    pub fn quick_pass(&self) -> bool {
        self.mode == Mode::Quick && self.unchecked > 0
    }
}
