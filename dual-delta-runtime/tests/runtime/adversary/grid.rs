//! The grid's machinery: how a cell draws its errors, builds its candidate
//! and baseline, runs on many seeds and is checked against its promise.
//!
//! Errors are known exactly: the oracle returns `x`, the baseline `x + e`
//! with `e` drawn per input from the cell's law (times its scale), and the
//! candidate `x ± k·e` with `k` chosen by the cell and the input (worse on
//! a share of inputs, better elsewhere, identical on ties, NaN where the
//! cell puts it).

use dual_delta_runtime::error::RunError;
use dual_delta_runtime::prelude::*;
use rand_distr::{Distribution, Gamma};

use crate::common::binomial_bound;

/// How the baseline's error is drawn, before its scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Law {
    /// Lognormal of median 1 and shape σ.
    Lognormal(f64),
    /// Pareto of minimum 1 and tail index α.
    Pareto(f64),
    /// Gamma of shape `k` and scale 1.
    Gamma(f64),
    /// Exponential of mean 1.
    Exponential,
    /// Two modes a hundredfold apart: lognormal(0.3) errors, ×100 on one
    /// input in ten.
    Bimodal,
    /// Lognormal(1), and 5000× on 1% of inputs, shared by the candidate.
    SharedSpike,
}

impl Law {
    /// One draw.
    pub(crate) fn draw(self, rng: &mut TrialRng) -> f64 {
        let u: f64 = rng.random_range(f64::EPSILON..1.0);
        let normal = |rng: &mut TrialRng| {
            let v: f64 = rng.random();
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        match self {
            Law::Lognormal(sigma) => (sigma * normal(rng)).exp(),
            Law::SharedSpike => normal(rng).exp(),
            Law::Pareto(alpha) => u.powf(-1.0 / alpha),
            Law::Gamma(shape) => Gamma::new(shape, 1.0).unwrap().sample(rng),
            Law::Exponential => -u.ln(),
            Law::Bimodal => {
                let mode = if rng.random::<f64>() < 0.1 {
                    100.0
                } else {
                    1.0
                };
                mode * (0.3 * normal(rng)).exp()
            }
        }
    }

    /// The `q`-quantile of the law and the share of its mean below it, from
    /// two million seeded draws.
    pub(crate) fn quantile_and_mass(self, q: f64) -> (f64, f64) {
        let mut rng = TrialRng::from_trial_seed(0x5eed);
        let mut v: Vec<f64> = (0..1 << 21).map(|_| self.draw(&mut rng)).collect();
        v.sort_by(f64::total_cmp);
        let t = v[(q * v.len() as f64) as usize];
        let total: f64 = v.iter().sum();
        (t, v.iter().filter(|&&e| e < t).sum::<f64>() / total)
    }
}

/// One input: the oracle's value, the baseline's error, an independent
/// draw of the same law, and two uniforms choosing the input's part.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Draw {
    pub(crate) x: f64,
    pub(crate) e: f64,
    pub(crate) independent: f64,
    pub(crate) u: f64,
    pub(crate) v: f64,
}

/// What the candidate returns on the inputs outside its loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Others {
    /// `x + k·e`, `k` the cell's factor elsewhere (ties where the cell
    /// says so).
    Factor,
    /// The baseline's error of the other sign: equal errors, other bits.
    Mirrored,
    /// The baseline's output with its last bit flipped.
    LastBit,
}

/// What the claim promises of a cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Promise {
    /// Fails (or ends in the error that names the `n` needed) on at least
    /// 19 of 20 seeds.
    Fails,
    /// Passes on at least 19 of 20 seeds.
    Passes,
    /// Within the margin: failures (errors included) within the binomial
    /// bound at α.
    Null,
}

/// A cell of the grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell {
    pub(crate) name: &'static str,
    /// The share of inputs on which the candidate is `worse` × the baseline.
    pub(crate) share: f64,
    pub(crate) worse: f64,
    /// Its factor on the other inputs.
    pub(crate) elsewhere: f64,
    pub(crate) law: Law,
    /// The baseline's errors: the law's draws times this.
    pub(crate) scale: f64,
    /// The oracle returns 0 (each output is its error) rather than a value
    /// in `[1, 2)`: errors of any magnitude, none absorbed.
    pub(crate) at_zero: bool,
    /// The candidate's error an independent draw of the baseline's law
    /// (times the factors) rather than the baseline's own.
    pub(crate) independent: bool,
    /// Log-uniform noise on the factor: `k · exp(±noise)`.
    pub(crate) noise: f64,
    /// The share of ties (identical outputs).
    pub(crate) ties: f64,
    /// The loss on the low-error inputs: the candidate worse on the inputs
    /// whose error is below this quantile of the law, by the factor that
    /// makes its mean error `low_ratio` × the baseline's; ties elsewhere.
    pub(crate) low_quantile: Option<f64>,
    pub(crate) low_ratio: f64,
    /// The inputs that differ draw their errors at the scale that makes
    /// the mean ratio `differing_ratio` (the ties keep the law's).
    pub(crate) differing_ratio: Option<f64>,
    /// What the candidate returns outside its loss.
    pub(crate) others: Others,
    /// The share of inputs where both return NaN.
    pub(crate) shared_nan: f64,
    /// The share of inputs where the candidate alone returns NaN, then
    /// infinity (with `allow_non_finite`).
    pub(crate) candidate_nan: f64,
    pub(crate) candidate_inf: f64,
    pub(crate) n: usize,
    /// Also run in batches of 32.
    pub(crate) batched: bool,
    pub(crate) promise: Promise,
}

pub(crate) const BASE: Cell = Cell {
    name: "",
    share: 0.0,
    worse: 1.0,
    elsewhere: 1.0,
    law: Law::Lognormal(1.0),
    scale: 1e-6,
    at_zero: false,
    independent: false,
    noise: 0.0,
    ties: 0.0,
    low_quantile: None,
    low_ratio: 1.05,
    differing_ratio: None,
    others: Others::Factor,
    shared_nan: 0.0,
    candidate_nan: 0.0,
    candidate_inf: 0.0,
    n: 1000,
    batched: false,
    promise: Promise::Passes,
};

/// A cell with the numbers its construction derives: the low-error
/// threshold and factor, or the differing inputs' scale.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Built {
    pub(crate) cell: Cell,
    /// Below it, the candidate is `low_factor` × worse.
    threshold: f64,
    low_factor: f64,
    /// The scale of the differing inputs' errors.
    differing_scale: f64,
}

impl Cell {
    /// The cell with its derived numbers.
    pub(crate) fn build(self) -> Built {
        let (threshold, low_factor) = match self.low_quantile {
            Some(q) => {
                let (t, mass) = self.law.quantile_and_mass(q);
                (t, 1.0 + (self.low_ratio - 1.0) / mass)
            }
            None => (f64::NEG_INFINITY, 1.0),
        };
        // (k − 1)(1 − t)s / (t + (1 − t)s) = R − 1, for ties t and the
        // factor k on the differing inputs.
        let differing_scale = self.differing_ratio.map_or(1.0, |r| {
            let t = self.ties;
            (r - 1.0) * t / ((self.worse - 1.0) * (1.0 - t) - (r - 1.0) * (1.0 - t))
        });
        Built {
            cell: self,
            threshold,
            low_factor,
            differing_scale,
        }
    }
}

pub(crate) fn input(law: Law) -> impl Fn(&mut TrialRng) -> Draw + Sync {
    move |rng| Draw {
        x: rng.random_range(1.0..2.0),
        e: law.draw(rng),
        independent: law.draw(rng),
        u: rng.random(),
        v: rng.random(),
    }
}

impl Built {
    /// The oracle's value on `d`.
    pub(crate) fn oracle(&self, d: &Draw) -> f64 {
        if self.cell.at_zero { 0.0 } else { d.x }
    }

    /// Whether input `d` is in the shared spike (both 5000× off).
    fn spike(&self, d: &Draw) -> bool {
        self.cell.law == Law::SharedSpike && d.v < 0.01
    }

    /// Whether input `d` is a tie.
    fn tie(&self, d: &Draw) -> bool {
        let c = &self.cell;
        match c.low_quantile {
            Some(_) => d.e >= self.threshold,
            None => d.u - c.shared_nan < c.ties,
        }
    }

    /// The baseline's error on `d`, scaled.
    fn error(&self, d: &Draw, e: f64) -> f64 {
        let c = &self.cell;
        let differing = c.differing_ratio.is_some() && !self.tie(d);
        c.scale * e * if differing { self.differing_scale } else { 1.0 }
    }

    pub(crate) fn baseline(&self, d: &Draw) -> f64 {
        if d.u < self.cell.shared_nan {
            f64::NAN
        } else if self.spike(d) {
            self.oracle(d) + 5000.0 * self.error(d, d.e)
        } else {
            self.oracle(d) + self.error(d, d.e)
        }
    }

    pub(crate) fn candidate(&self, d: &Draw) -> f64 {
        let c = &self.cell;
        if d.u < c.shared_nan {
            return f64::NAN;
        }
        if self.spike(d) {
            // The same error, of the other sign: equal, not identical.
            return self.oracle(d) - 5000.0 * self.error(d, d.e);
        }
        let u = d.u - c.shared_nan;
        if c.low_quantile.is_some() {
            return if self.tie(d) {
                self.baseline(d)
            } else {
                self.oracle(d) + self.low_factor * self.error(d, d.e)
            };
        }
        if u < c.ties {
            return self.baseline(d);
        }
        let u = u - c.ties;
        if u < c.candidate_nan {
            return f64::NAN;
        }
        if u - c.candidate_nan < c.candidate_inf {
            return f64::INFINITY;
        }
        let u = u - c.candidate_nan - c.candidate_inf;
        let loss = u < c.share;
        if !loss && c.others == Others::Mirrored {
            return self.oracle(d) - self.error(d, d.e);
        }
        if !loss && c.others == Others::LastBit {
            return f64::from_bits(self.baseline(d).to_bits() ^ 1);
        }
        let k = if loss { c.worse } else { c.elsewhere };
        let noise = (c.noise * (2.0 * d.v - 1.0)).exp();
        let e = if c.independent { d.independent } else { d.e };
        self.oracle(d) + k * noise * self.error(d, e)
    }

    pub(crate) fn run(
        &self,
        seed: u64,
        stop_early: bool,
        batch: bool,
    ) -> Result<Outcome, RunError> {
        let c = |d: &Draw| self.candidate(d);
        let b = |d: &Draw| self.baseline(d);
        let o = |d: &Draw| self.oracle(d);
        let builder = if batch {
            DualDelta::batched(
                move |ds: &[Draw]| ds.iter().map(|d| self.candidate(d)).collect::<Vec<f64>>(),
                b,
                o,
                input(self.cell.law),
            )
            .batch_size(32)
        } else {
            DualDelta::new(c, b, o, input(self.cell.law))
        };
        builder
            .test_name(format!("adversary::{}", self.cell.name))
            .metric(Metric::MaxAbsolute)
            .n(self.cell.n)
            .seed(seed)
            .stop_early(stop_early)
            .allow_non_finite(self.cell.candidate_nan + self.cell.candidate_inf > 0.0)
            .threads(1)
            .run()
    }
}

/// Seeds per cell: `ADVERSARY_SEEDS`, else `default`.
pub(crate) fn seeds(default: u64) -> u64 {
    std::env::var("ADVERSARY_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Failures of `cell` over `seeds` seeds in one mode (a run that names the
/// `n` it would need fails), and the last failure's sentence.
pub(crate) fn failures(cell: &Built, seeds: u64, stop_early: bool, batch: bool) -> (usize, String) {
    let mut failed = 0;
    let mut last = String::new();
    for seed in 0..seeds {
        match cell.run(seed, stop_early, batch) {
            Ok(o) if o.passed() => {}
            Ok(o) => {
                failed += 1;
                last = o.verdict_sentence();
            }
            Err(e) => panic!("{}: {e}", cell.cell.name),
        }
    }
    (failed, last)
}

/// Runs `cells` in every mode they name and checks each count: a must-fail
/// or must-pass cell on `power_seeds`, a null cell on `null_seeds` against
/// the binomial bound at α.
pub(crate) fn check(cells: &[Cell], power_seeds: u64, null_seeds: u64) {
    let mut wrong = Vec::new();
    println!(
        "{:<64} {:>7} {:>16} {:>16} {:>9}",
        "cell", "promise", "defaults (fail)", "stop_early=false", "batch=32"
    );
    for cell in cells {
        let built = cell.build();
        let seeds = if cell.promise == Promise::Null {
            null_seeds
        } else {
            power_seeds
        };
        let modes: Vec<(bool, bool)> = [(true, false), (false, false)]
            .into_iter()
            .chain(cell.batched.then_some((true, true)))
            .collect();
        let counts: Vec<usize> = modes
            .iter()
            .map(|&(stop, batch)| {
                let (failed, last) = failures(&built, seeds, stop, batch);
                let ok = match cell.promise {
                    Promise::Fails => failed as f64 >= 0.95 * seeds as f64,
                    Promise::Passes => failed as f64 <= 0.05 * seeds as f64,
                    Promise::Null => failed <= binomial_bound(seeds as usize, 0.01),
                };
                if !ok {
                    wrong.push(format!(
                        "{} (stop_early = {stop}, batch = {batch}): {failed} of {seeds} failed; \
                         last: {last}",
                        cell.name
                    ));
                }
                failed
            })
            .collect();
        let cols: Vec<String> = counts.iter().map(|c| format!("{c}/{seeds}")).collect();
        println!(
            "{:<64} {:>7} {:>16} {:>16} {:>9}",
            cell.name,
            format!("{:?}", cell.promise),
            cols[0],
            cols[1],
            cols.get(2).map_or("", String::as_str)
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
