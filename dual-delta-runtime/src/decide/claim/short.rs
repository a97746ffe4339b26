//! A loss in mean that this `n` could not show: (M) points beyond the
//! margin, its test does not reject, and the excess rests on too few
//! inputs for the test ever to reject, however large the loss on them,
//! yet on more than chance would give where the two are equally accurate.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::errors::Errors;
use crate::stats::{Alternative, PowerOfTwo, binom_test_half};

/// How far beyond the margin the mean's estimate must be, in margins, for
/// a loss to be called short: a candidate at the margin's edge whose few
/// worse inputs raise its sample's ratio by chance stays below it (the
/// grid's margin-edge cells meet the error on at most α of seeds with it,
/// `adversary::edges::equal_accuracy_rarely_claims_it_could_not_decide`).
const CLEARLY_TIMES_MARGIN: f64 = 2.0;

/// …and at least this far (10%), for small margins.
const CLEARLY_AT_LEAST: f64 = 0.1;

/// The share of the excess whose inputs mark the least ratio of a carrier:
/// the inputs that hold most (90%) of the loss, not its every last bit.
const HELD_SHARE: f64 = 0.9;

/// Equal ratios computed at other magnitudes differ in their last bits:
/// a carrier's ratio is compared with this relative tolerance.
const RATIO_TOLERANCE: f64 = 1e-9;

/// A handful is at most this many times the effective count the test of
/// the mean needs: more carriers are a tail the test weighs, not a handful
/// (equal accuracy with lognormal errors, a loss of 3× on a tenth of the
/// inputs, are not called short; the adversary grid).
const HANDFUL_TIMES_NEEDED: f64 = 2.0;

/// A loss the run sees in its mean error and cannot establish at its `n`:
/// the run ends in an error naming the `n` that could, not in a pass.
///
/// It ends so only where the mean's point estimate is clearly beyond the
/// margin, by more than twice the margin again (and at least 10%): a
/// candidate at the margin's edge, whose estimate wanders either side of
/// it, is not called short. Then either too few inputs differ for the
/// typical-input test to ever reject; or the candidate alone returned
/// non-finite outputs (allowed) on too few inputs for their sign test to
/// reject; or the excess of (M), `D = Δ1 − (1 + δ)·Δ2` where positive,
/// rests on a handful of inputs: its effective count `(ΣD⁺)² / Σ(D⁺)²` is
/// below what the test of the mean needs however large the loss on them,
/// and the inputs at least as much worse as those that hold 90% of it (by
/// the ratio `Δ1 / Δ2`) are at most twice that many. A heavy-tailed excess
/// spread over many inputs (equal accuracy with lognormal errors, a loss
/// of 3× on a tenth of the inputs) is a tail the test weighs, not a
/// handful of inputs: it does not end here. Nor does a handful that
/// chance could give: the carriers must outnumber the inputs where the
/// baseline is as much worse by the exact sign test at the criterion's
/// level (at least 9 against none at 0.0025), since where the two are
/// equally accurate each input is as likely either way round; a rare
/// spike both implementations draw, that the baseline happened not to
/// draw in this run, is no loss.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Short {
    /// The inputs the loss rests on.
    pub carriers: usize,
    /// Their effective count, as the test of the mean weighs them.
    #[serde(with = "crate::json_number")]
    pub effective: f64,
    /// The inputs of (M)'s mean.
    pub inputs: usize,
    /// The effective count the test needs at least to reject at its level.
    #[serde(with = "crate::json_number")]
    pub needed: f64,
    /// The `n` at which as large a share of inputs carrying it reaches
    /// that count.
    pub n_needed: usize,
    /// (M)'s ratio of mean errors.
    #[serde(with = "crate::json_number")]
    pub ratio: f64,
    /// The criterion's level.
    #[serde(with = "crate::json_number")]
    pub level: f64,
}

/// The loss `errors` show in mean beyond `margin` (ratio `ratio`, not
/// rejected at `level`) that no test at this `n` could establish, if so;
/// `min_differing` is the fewest differing inputs the typical-input test
/// can reject with.
pub(super) fn short(
    errors: &Errors,
    ratio: f64,
    level: f64,
    margin: f64,
    min_differing: usize,
) -> Option<Short> {
    let clearly = 1.0 + margin + (CLEARLY_TIMES_MARGIN * margin).max(CLEARLY_AT_LEAST);
    if ratio.is_nan() || ratio <= clearly {
        return None;
    }
    let inputs = errors.in_mean();
    let n = inputs as f64;
    let critical = StudentsT::new(0.0, 1.0, (n - 1.0).max(1.0))
        .ok()?
        .inverse_cdf(1.0 - level);
    // The fewest inputs `k` of equal excess with `√(k (n − 1) / (n − k))`
    // at the critical value.
    let needed = critical * critical * n / (n - 1.0 + critical * critical);
    let of = |carriers: usize, effective: f64, needed: f64| Short {
        carriers,
        effective,
        inputs,
        needed,
        n_needed: ((n * needed / effective.max(f64::MIN_POSITIVE)).ceil() as usize).max(inputs + 1),
        ratio,
        level,
    };
    // Non-finite outputs of the candidate alone: their sign test needs
    // `2^-k` below half the level.
    let (k, b) = (errors.candidate_non_finite, errors.baseline_non_finite);
    let sign_needed = (2.0 / level).log2().ceil();
    if k > 0 && b == 0 && (k as f64) < sign_needed {
        return Some(of(k, k as f64, sign_needed));
    }
    let (x, y) = (&errors.delta1, &errors.delta2);
    if x.len() < min_differing {
        return Some(of(x.len(), x.len() as f64, min_differing as f64));
    }
    // Only differing inputs have a positive excess: a tie's is `−δ·Δ2`.
    let scale = PowerOfTwo::of(x.iter().chain(y));
    let excess = |i: usize| scale.down(x[i]) - (1.0 + margin) * scale.down(y[i]);
    let mut worse: Vec<usize> = (0..x.len()).filter(|&i| excess(i) > 0.0).collect();
    let (s1, s2) = worse.iter().fold((0.0, 0.0), |(s1, s2), &i| {
        (s1 + excess(i), s2 + excess(i) * excess(i))
    });
    if s2.is_nan() || s2 <= 0.0 {
        return None;
    }
    let effective = s1 * s1 / s2;
    if effective >= needed {
        return None;
    }
    // The inputs that hold 90% of the excess, and every input at least as
    // much worse than the baseline as the least of them.
    worse.sort_unstable_by(|&a, &b| excess(b).total_cmp(&excess(a)));
    let mut held = 0.0;
    let ratio_of = |i: usize| {
        if y[i] > 0.0 {
            x[i] / y[i]
        } else {
            f64::INFINITY
        }
    };
    let mut least = f64::INFINITY;
    for &i in &worse {
        least = least.min(ratio_of(i));
        held += excess(i);
        if held >= HELD_SHARE * s1 {
            break;
        }
    }
    // Equal ratios differ by their last bits at other magnitudes.
    let least = least * (1.0 - RATIO_TOLERANCE);
    let carriers = (0..x.len()).filter(|&i| ratio_of(i) >= least).count();
    // The inputs where the baseline is as much worse: where the two are
    // equally accurate each input is as likely either way round, so the
    // carriers outnumber them as far only by chance at most `level`
    // (the exact sign test). A rare spike that both draw independently,
    // and the baseline happened not to draw, is not called short.
    let counter = (0..x.len())
        .filter(|&i| x[i] > 0.0 && y[i] / x[i] >= least)
        .count();
    let chance = binom_test_half(
        carriers as u64,
        (carriers + counter) as u64,
        Alternative::Greater,
    );
    (carriers as f64 <= HANDFUL_TIMES_NEEDED * needed && chance < level)
        .then(|| of(carriers, effective, needed))
}
