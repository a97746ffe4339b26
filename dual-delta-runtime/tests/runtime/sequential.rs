//! Calibration and power of the anytime-valid sequential test, by seeded
//! simulation. Run with `--nocapture` to see the tables.

use dual_delta_runtime::rand::RngExt;
use dual_delta_runtime::stats::sequential::{
    Crossed, DEFAULT_MARGIN, Sequential, TracePoint, alpha_split,
};
use dual_delta_runtime::stats::{Alternative, ZeroMethod, wilcoxon};
use dual_delta_runtime::{Expect, TrialRng};
use rand_distr::{Distribution, StandardNormal, StudentT};

/// The cap on trials.
const CAP: usize = 1000;
/// Trials per round.
const ROUND: usize = 8;
/// Simulated runs per calibration case.
const RUNS: usize = 2000;
const ALPHAS: [f64; 2] = [0.01, 0.05];

/// Errors of a candidate (`.0`) and a baseline (`.1`) over `CAP` trials.
type Errors = (Vec<f64>, Vec<f64>);

fn normal(rng: &mut TrialRng) -> f64 {
    StandardNormal.sample(rng)
}

fn lognormal(rng: &mut TrialRng, mu: f64) -> f64 {
    1e-7 * (mu + normal(rng)).exp()
}

/// The largest count `k` with `P(Binomial(runs, p) ≥ k) > 0.01`: a count
/// above it has probability ≤ 1 % when the true rate is `p`, so a rate ≤ `p`
/// passes `count ≤ k` with 99 % confidence.
fn binomial_bound(runs: usize, p: f64) -> usize {
    let mut pmf = (1.0 - p).powi(runs as i32);
    let mut below = 0.0; // P(X < k)
    let mut k = 0;
    while k < runs {
        // P(X ≥ k + 1) = 1 − P(X < k) − P(X = k)
        if 1.0 - below - pmf <= 0.01 {
            return k;
        }
        below += pmf;
        pmf *= (runs - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        k += 1;
    }
    runs
}

/// Runs `f` on `RUNS` seeds, on two threads; the results are in seed order,
/// so the tables do not depend on the threads.
fn simulate<T: Send>(seed: u64, runs: usize, f: impl Fn(&mut TrialRng) -> T + Sync) -> Vec<T> {
    let half = runs / 2;
    let run = |range: core::ops::Range<usize>| -> Vec<T> {
        range
            .map(|r| f(&mut TrialRng::for_trial(seed, r)))
            .collect()
    };
    std::thread::scope(|s| {
        let first = s.spawn(|| run(0..half));
        let mut rest = run(half..runs);
        let mut out = first.join().unwrap();
        out.append(&mut rest);
        out
    })
}

fn feed(expect: Expect, (d1, d2): &Errors) -> Sequential {
    let mut s = Sequential::new(expect, ALPHAS[0], DEFAULT_MARGIN).unwrap();
    for (a, b) in d1.chunks(ROUND).zip(d2.chunks(ROUND)) {
        s.observe(a, b).unwrap();
    }
    s
}

fn errors(rng: &mut TrialRng, mut trial: impl FnMut(&mut TrialRng) -> (f64, f64)) -> Errors {
    (0..CAP).map(|_| trial(rng)).unzip()
}

/// What one null run over all `CAP` trials shows, for each α.
#[derive(Clone, Copy, Default)]
struct NullRun {
    /// The fail side of `no_worse` (signed-rank, worse) crossed `2/α` at
    /// some trial, whatever the pass side did.
    no_worse_side: bool,
    /// The fail side of `equivalent` (the mean of the two signed-rank
    /// processes) crossed `2/α`.
    equivalent_side: bool,
    /// The pass side of `better` (signed-rank, better) crossed `2/α`.
    better_side: bool,
    /// The whole `no_worse` procedure failed: its first crossing was a
    /// failure, or nothing crossed and the fixed-N Wilcoxon test rejected
    /// at the fallback level.
    procedure: bool,
}

fn null_run(e: &Errors) -> [NullRun; 2] {
    let s = feed(Expect::NoWorse, e);
    let peak = |f: &dyn Fn(&TracePoint) -> f64| s.trace().iter().map(f).fold(0.0, f64::max);
    let no_worse = peak(&|p| p.log10_fail);
    let equivalent = peak(&|p| {
        let m = p.log10_worse.max(p.log10_better);
        m + ((10f64.powf(p.log10_worse - m) + 10f64.powf(p.log10_better - m)) / 2.0).log10()
    });
    let better = peak(&|p| p.log10_better);
    ALPHAS.map(|alpha| {
        let split = alpha_split(Expect::NoWorse, alpha);
        let threshold = -split.fail.log10();
        let procedure = match s.crossed_at(alpha) {
            Crossed::Fail { .. } => true,
            Crossed::Pass { .. } => false,
            Crossed::Neither => {
                let w =
                    wilcoxon(&e.0, &e.1, Alternative::Greater, ZeroMethod::Wilcox, false).unwrap();
                w.p_value < split.fallback
            }
        };
        NullRun {
            no_worse_side: no_worse >= threshold,
            equivalent_side: equivalent >= threshold,
            better_side: better >= threshold,
            procedure,
        }
    })
}

#[test]
fn false_failures_under_the_null_stay_below_alpha() {
    type Case = (&'static str, fn(&mut TrialRng) -> (f64, f64));
    let cases: [Case; 3] = [
        ("Δ1, Δ2 i.i.d. lognormal", |r| {
            (lognormal(r, 0.0), lognormal(r, 0.0))
        }),
        ("Δ1, Δ2 i.i.d. |t2|, 1% +inf", |r| {
            let t: StudentT<f64> = StudentT::new(2.0).unwrap();
            let draw = |r: &mut TrialRng| {
                if r.random::<f64>() < 0.01 {
                    f64::INFINITY
                } else {
                    1e-7 * t.sample(r).abs()
                }
            };
            (draw(r), draw(r))
        }),
        ("Δ1 = Δ2 + Cauchy (D symmetric)", |r| {
            let b = lognormal(r, 0.0);
            let c = 1e-8 * (core::f64::consts::PI * (r.random::<f64>() - 0.5)).tan();
            (b + c, b)
        }),
    ];
    println!(
        "null runs, {RUNS} per case, cap {CAP}, rounds of {ROUND}: runs where each e-process \
         crossed 2/α (no_worse and equivalent fail sides, better pass side; bound for α/2), \
         and false failures of the whole no_worse procedure with its fixed-N fallback (bound \
         for α)"
    );
    println!(
        "{:<32} {:>5} {:>9} {:>11} {:>7} {:>6} {:>10} {:>6}",
        "null", "α", "no_worse", "equivalent", "better", "bound", "procedure", "bound"
    );
    for (i, (name, trial)) in cases.iter().enumerate() {
        let results = simulate(100 + i as u64, RUNS, |r| null_run(&errors(r, trial)));
        for (j, &alpha) in ALPHAS.iter().enumerate() {
            let count = |f: fn(&NullRun) -> bool| results.iter().filter(|r| f(&r[j])).count();
            let sides = [
                count(|r| r.no_worse_side),
                count(|r| r.equivalent_side),
                count(|r| r.better_side),
            ];
            let procedure = count(|r| r.procedure);
            let (side_bound, bound) = (
                binomial_bound(RUNS, alpha / 2.0),
                binomial_bound(RUNS, alpha),
            );
            println!(
                "{name:<32} {alpha:>5} {:>9} {:>11} {:>7} {side_bound:>6} {procedure:>10} {bound:>6}",
                sides[0], sides[1], sides[2]
            );
            for side in sides {
                assert!(
                    side <= side_bound,
                    "{name}, α = {alpha}: {sides:?} > {side_bound}"
                );
            }
            assert!(
                procedure <= bound,
                "{name}, α = {alpha}: {procedure} > {bound}"
            );
        }
    }
}

#[test]
fn a_candidate_at_the_margin_rarely_passes_early() {
    // Δ1 = (1 + m) X, Δ2 = Y with X, Y i.i.d.: P(Δ1 > (1 + m) Δ2) = ½, the
    // boundary of the null of the pass side.
    let k = 1.0 + DEFAULT_MARGIN;
    let peaks = simulate(200, RUNS, |r| {
        let e = errors(r, |r| (k * lognormal(r, 0.0), lognormal(r, 0.0)));
        let s = feed(Expect::NoWorse, &e);
        s.trace().iter().map(|p| p.log10_pass).fold(0.0, f64::max)
    });
    println!("early passes of no_worse at the margin m = {DEFAULT_MARGIN}, {RUNS} runs:");
    println!("{:>5} {:>8} {:>6}", "α", "passes", "bound");
    for alpha in ALPHAS {
        let passes = peaks.iter().filter(|&&p| p >= -alpha.log10()).count();
        let bound = binomial_bound(RUNS, alpha);
        println!("{alpha:>5} {passes:>8} {bound:>6}");
        assert!(passes <= bound, "α = {alpha}: {passes} > {bound}");
    }
}

/// Trials to a decision over `runs` seeds: how many runs reached the
/// wanted outcome (a failure if `fail`, else a pass), and over those the
/// median and the max of the trial at which the evidence crossed, and that
/// max rounded up to the end of its round (where the caller stops).
fn trials_to_decision(
    seed: u64,
    runs: usize,
    expect: Expect,
    fail: bool,
    trial: impl Fn(&mut TrialRng) -> (f64, f64) + Sync,
) -> (usize, usize, usize, usize) {
    let mut after: Vec<usize> = simulate(seed, runs, |r| {
        let s = feed(expect, &errors(r, &trial));
        match s.crossed() {
            Crossed::Fail { after, .. } if fail => Some(after),
            Crossed::Pass { after, .. } if !fail => Some(after),
            _ => None,
        }
    })
    .into_iter()
    .flatten()
    .collect();
    after.sort_unstable();
    let wanted = after.len();
    let max = after.last().copied().unwrap_or(0);
    let median = after.get(wanted / 2).copied().unwrap_or(0);
    (wanted, median, max, max.div_ceil(ROUND) * ROUND)
}

#[test]
fn clear_cases_are_decided_within_64_trials() {
    let uniform = |r: &mut TrialRng| 2.0 * r.random::<f64>() - 1.0;
    println!(
        "trials to a decision at α = 0.01, 200 seeds (runs with the outcome, median, max, max at the end of its round of {ROUND}):"
    );
    let check = |name: &str,
                 expect: Expect,
                 fail: bool,
                 limit: usize,
                 t: &(dyn Fn(&mut TrialRng) -> (f64, f64) + Sync)| {
        let (wanted, median, max, stop) = trials_to_decision(7, 200, expect, fail, t);
        let outcome = if fail { "fail" } else { "pass" };
        println!("{name:<44} {expect:<10} {outcome} {wanted:>4} {median:>5} {max:>4} {stop:>4}");
        assert_eq!(wanted, 200, "{name}, {expect}");
        assert!(stop <= limit, "{name}: stopped after {stop} > {limit}");
    };
    check(
        "Δ1 = 65 Δ2 on every trial",
        Expect::NoWorse,
        true,
        64,
        &|r| {
            let b = lognormal(r, 0.0);
            (65.0 * b, b)
        },
    );
    check(
        "Δ1 = 65 Δ2 on every trial",
        Expect::Worse,
        false,
        64,
        &|r| {
            let b = lognormal(r, 0.0);
            (65.0 * b, b)
        },
    );
    check(
        "Δ1 ~ e^2 × Δ2 in distribution (independent)",
        Expect::NoWorse,
        true,
        128,
        &|r| (lognormal(r, 2.0), lognormal(r, 0.0)),
    );
    for expect in [Expect::NoWorse, Expect::Equivalent] {
        check("Δ1 = Δ2 (1 + 0.001 u)", expect, false, 64, &|r| {
            let b = lognormal(r, 0.0);
            (b * (1.0 + 1e-3 * uniform(r)), b)
        });
    }
    check(
        "Δ1 = Δ2 / 65 on every trial",
        Expect::Better,
        false,
        64,
        &|r| {
            let b = lognormal(r, 0.0);
            (b / 65.0, b)
        },
    );
}

#[test]
fn trials_to_pass_against_agreement() {
    // How the default margin treats candidates whose error differs from the
    // baseline's by a factor 1 + ε u, u uniform in [-1, 1] (measured, for
    // the documentation of the default).
    println!("no_worse, margin {DEFAULT_MARGIN}, α = 0.01, Δ1 = Δ2 (1 + ε u), 200 seeds:");
    println!("{:>6} {:>7} {:>7} {:>5}", "ε", "passed", "median", "max");
    for eps in [0.001, 0.01, 0.05, 0.1, 0.2] {
        let (passed, median, max, _) = trials_to_decision(11, 200, Expect::NoWorse, false, |r| {
            let b = lognormal(r, 0.0);
            (b * (1.0 + eps * (2.0 * r.random::<f64>() - 1.0)), b)
        });
        println!("{eps:>6} {passed:>7} {median:>7} {max:>5}");
        if eps <= DEFAULT_MARGIN {
            assert!(
                passed == 200 && max <= 16,
                "ε = {eps}: {passed} passed, max {max}"
            );
        }
    }
}
