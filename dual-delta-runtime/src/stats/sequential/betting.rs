//! The two e-processes behind [`Sequential`](super::Sequential): a betting
//! martingale on signs, and its signed-rank form with the bets weighted by
//! the rank of `|D|`.

/// The betting fractions of the mixture: one gambler per fraction, each
/// starting with `1 / LAMBDAS.len()` of the capital.
///
/// Small fractions win when the effect is weak and the run long, large ones
/// when the effect is strong (a candidate worse on every trial gains a
/// factor close to `1 + 0.9 w` a trial). Every fraction is below 1, so no
/// single trial can take a gambler's capital to zero.
pub(crate) const LAMBDAS: [f64; 8] = [0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9];

/// A uniform mixture of constant-fraction betting martingales on a stream of
/// payoffs `x ∈ [-1, 1]`:
///
/// `E_t = (1/K) Σ_k Π_{i ≤ t} (1 + λ_k x_i)`.
///
/// If, given the past, every `x_i` has conditional mean `≤ 0`, each product
/// is a nonnegative supermartingale (a martingale when the mean is exactly
/// 0), and so is their average: a mixture of betting strategies is itself a
/// betting strategy (the "hedged" and mixture constructions of Waudby-Smith
/// and Ramdas, J. R. Stat. Soc. B 2024).
#[derive(Clone, Debug)]
pub(crate) struct Mixture {
    /// `ln Π (1 + λ_k x_i)` for each fraction.
    ln_wealth: [f64; LAMBDAS.len()],
}

impl Mixture {
    pub(crate) fn new() -> Self {
        Self {
            ln_wealth: [0.0; LAMBDAS.len()],
        }
    }

    /// Plays one round with payoff `x ∈ [-1, 1]` (0: no bet).
    pub(crate) fn bet(&mut self, x: f64) {
        debug_assert!((-1.0..=1.0).contains(&x), "payoff {x} outside [-1, 1]");
        if x == 0.0 {
            return;
        }
        for (w, &lambda) in self.ln_wealth.iter_mut().zip(&LAMBDAS) {
            *w += (lambda * x).ln_1p();
        }
    }

    /// `ln E_t`, by log-sum-exp (finite: every factor is at least
    /// `1 - 0.9`).
    pub(crate) fn ln_value(&self) -> f64 {
        let max = self
            .ln_wealth
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = self.ln_wealth.iter().map(|&w| (w - max).exp()).sum();
        max + (sum / LAMBDAS.len() as f64).ln()
    }
}

/// The sign of `a - b` for errors, with `+inf` larger than every finite
/// value and two equal values (two infinities included) a tie: `+1`, `-1`
/// or `0`.
pub(crate) fn sign(a: f64, b: f64) -> f64 {
    if a > b {
        1.0
    } else if a < b {
        -1.0
    } else {
        0.0
    }
}

/// The sign e-process: bets on the sign of each trial's comparison.
///
/// Fed `s_i ∈ {-1, 0, +1}`, it is [`Mixture`] on `x_i = s_i`. It is a test
/// supermartingale whenever, given the past, `P(s_i = +1) ≤ P(s_i = -1)`
/// for every trial; ties (`s_i = 0`) leave it unchanged, which is the same
/// as scoring a tie as half a success.
#[derive(Clone, Debug)]
pub(crate) struct SignProcess {
    mixture: Mixture,
    /// `ln(1 + λ_k)` and `ln(1 − λ_k)`, the only two factors a sign can pay.
    ln_win: [f64; LAMBDAS.len()],
    ln_loss: [f64; LAMBDAS.len()],
}

impl SignProcess {
    pub(crate) fn new() -> Self {
        Self {
            mixture: Mixture::new(),
            ln_win: LAMBDAS.map(f64::ln_1p),
            ln_loss: LAMBDAS.map(|l| (-l).ln_1p()),
        }
    }

    pub(crate) fn observe(&mut self, s: f64) {
        let table = if s > 0.0 {
            &self.ln_win
        } else if s < 0.0 {
            &self.ln_loss
        } else {
            return;
        };
        for (w, t) in self.mixture.ln_wealth.iter_mut().zip(table) {
            *w += t;
        }
    }

    pub(crate) fn ln_value(&self) -> f64 {
        self.mixture.ln_value()
    }
}

/// The signed-rank e-process on differences `D_i`: bets `λ s_i w_i` with
/// `s_i = sign(D_i)` and `w_i = r_i / m_i`, where `r_i` is the mid-rank of
/// `|D_i|` among the non-zero `|D_1|, …, |D_i|` and `m_i` their number.
///
/// `w_i ∈ (0, 1]` is a function of the magnitudes `|D_1|, …, |D_i|` only.
/// If the `D_i` are independent and each is symmetric about zero, then
/// given `D_1, …, D_{i-1}` and `|D_i|` the sign `s_i` is a fair coin (when
/// `D_i ≠ 0`), so every factor `1 + λ s_i w_i` has conditional mean 1 and
/// the product is a test martingale. A large difference that agrees with
/// the alternative moves the capital more than a small one, as a large rank
/// moves Wilcoxon's `T+` more.
#[derive(Clone, Debug)]
pub(crate) struct SignedRankProcess {
    mixture: Mixture,
    /// The non-zero `|D_j|` seen so far, sorted (`+inf` last).
    sorted: Vec<f64>,
}

impl SignedRankProcess {
    pub(crate) fn new() -> Self {
        Self {
            mixture: Mixture::new(),
            sorted: Vec::new(),
        }
    }

    /// Observes one difference, given as its sign and magnitude (so that
    /// `inf - inf` can be a tie and `x - inf` a difference of magnitude
    /// `+inf`).
    pub(crate) fn observe(&mut self, s: f64, magnitude: f64) {
        if s == 0.0 {
            return;
        }
        let below = self.sorted.partition_point(|&v| v < magnitude);
        let not_above = self.sorted.partition_point(|&v| v <= magnitude);
        self.sorted.insert(below, magnitude);
        let equal = not_above - below + 1;
        let mid_rank = below as f64 + (equal as f64 + 1.0) / 2.0;
        let w = mid_rank / self.sorted.len() as f64;
        self.mixture.bet(s * w);
    }

    pub(crate) fn ln_value(&self) -> f64 {
        self.mixture.ln_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_mixture_is_worth_one() {
        assert_eq!(Mixture::new().ln_value(), 0.0);
        let mut m = Mixture::new();
        m.bet(0.0);
        assert_eq!(m.ln_value(), 0.0);
    }

    #[test]
    fn one_win_pays_the_mean_fraction() {
        let mut m = Mixture::new();
        m.bet(1.0);
        let mean = LAMBDAS.iter().sum::<f64>() / LAMBDAS.len() as f64;
        assert!((m.ln_value() - mean.ln_1p()).abs() < 1e-12);
    }

    #[test]
    fn signs_bet_as_the_mixture_does() {
        let mut p = SignProcess::new();
        let mut m = Mixture::new();
        for s in [1.0, -1.0, 0.0, 1.0, 1.0, -1.0] {
            p.observe(s);
            m.bet(s);
        }
        assert!((p.ln_value() - m.ln_value()).abs() < 1e-12);
    }

    #[test]
    fn ranks_weight_the_bets() {
        // |D| = 1, 3, 2: weights 1/1, 2/2, 2/3.
        let mut p = SignedRankProcess::new();
        p.observe(1.0, 1.0);
        p.observe(1.0, 3.0);
        p.observe(1.0, 2.0);
        let mut m = Mixture::new();
        m.bet(1.0);
        m.bet(1.0);
        m.bet(2.0 / 3.0);
        assert!((p.ln_value() - m.ln_value()).abs() < 1e-12);
    }

    #[test]
    fn ties_take_mid_ranks_and_zeros_are_skipped() {
        // |D| = 2, 2, 0, inf, inf: weights 1, 1.5/2, (skip), 3/3, 3.5/4.
        let mut p = SignedRankProcess::new();
        p.observe(1.0, 2.0);
        p.observe(-1.0, 2.0);
        p.observe(0.0, 0.0);
        p.observe(1.0, f64::INFINITY);
        p.observe(-1.0, f64::INFINITY);
        let mut m = Mixture::new();
        m.bet(1.0);
        m.bet(-0.75);
        m.bet(1.0);
        m.bet(-3.5 / 4.0);
        assert!((p.ln_value() - m.ln_value()).abs() < 1e-12);
    }

    #[test]
    fn signs_of_infinite_errors() {
        let inf = f64::INFINITY;
        assert_eq!(sign(inf, 1.0), 1.0);
        assert_eq!(sign(1.0, inf), -1.0);
        assert_eq!(sign(inf, inf), 0.0);
        assert_eq!(sign(2.0, 2.0), 0.0);
    }
}
