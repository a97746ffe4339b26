//! The screen after an early pass, and one claim whatever the cost setting:
//! kernels with rare NaN, panics or garbage fail under the defaults; equal
//! or better kernels still pass; early stopping on or off gives the same
//! verdict on small and large differences; false failures on a noisy null
//! stay below α with the screen on. Seeded simulations, each with its
//! stated binomial bound. Run with `--nocapture` for the tables.

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::screen::Mode;
use dual_delta_runtime::{decision::DecidedBy, error::RunError, generate::trial_seed};

use crate::common::{binomial_bound, kahan, naive, oracle, reversed, short_input as input};

/// How a run of one of the five faulty kernels ended.
enum Ended {
    Passed,
    Failed(String),
    Error(String),
}

fn ended(run: Result<Outcome, RunError>) -> Ended {
    match run {
        Ok(o) if o.passed() => Ended::Passed,
        Ok(o) => Ended::Failed(o.result().unwrap_err()),
        Err(e) => Ended::Error(e.to_string()),
    }
}

#[test]
fn five_faulty_kernels_fail_under_the_defaults() {
    const RUNS: u64 = 100;
    type Kernel = (&'static str, fn(u64) -> Result<Outcome, RunError>);
    // Each candidate is Kahan's summation, against a Kahan baseline,
    // except on a few inputs.
    let kernels: [Kernel; 5] = [
        ("NaN on 1% of inputs", |seed| {
            let c = |x: &Vec<f32>| if x[0] > 0.99 { f32::NAN } else { kahan(x) };
            DualDelta::new(c, kahan, oracle, input).seed(seed).run()
        }),
        ("NaN on three trials", |seed| {
            let marked = [17, 400, 901].map(|i| trial_seed(seed, i));
            let input = move |rng: &mut TrialRng| {
                let mut x = input(rng);
                if marked.contains(&rng.seed()) {
                    x[0] = -1.0;
                }
                x
            };
            let c = |x: &Vec<f32>| if x[0] < 0.0 { f32::NAN } else { kahan(x) };
            DualDelta::new(c, kahan, oracle, input).seed(seed).run()
        }),
        ("+inf on trial 417 of 1000", |seed| {
            let marked = trial_seed(seed, 417);
            let input = move |rng: &mut TrialRng| {
                let mut x = input(rng);
                if rng.seed() == marked {
                    x[0] = -1.0;
                }
                x
            };
            let c = |x: &Vec<f32>| {
                if x[0] < 0.0 { f32::INFINITY } else { kahan(x) }
            };
            DualDelta::new(c, kahan, oracle, input).seed(seed).run()
        }),
        ("panic on 1% of inputs", |seed| {
            let c = |x: &Vec<f32>| {
                assert!(x[0] >= 0.01, "kernel fault on {}", x[0]);
                kahan(x)
            };
            DualDelta::new(c, kahan, oracle, input).seed(seed).run()
        }),
        ("result × 1.5 on 2% of inputs", |seed| {
            let c = |x: &Vec<f32>| {
                let s = kahan(x);
                if (0.5..0.52).contains(&x[0]) {
                    1.5 * s
                } else {
                    s
                }
            };
            DualDelta::new(c, kahan, oracle, input).seed(seed).run()
        }),
    ];
    println!("faulty kernels under the defaults, {RUNS} seeds each:");
    for (name, run) in kernels {
        let mut failed = 0;
        let mut early = 0;
        for seed in 0..RUNS {
            match ended(run(seed)) {
                Ended::Passed => {}
                Ended::Failed(message) => {
                    failed += 1;
                    // The cause, the trial, its seed and the replay command.
                    assert!(
                        message.contains("trial")
                            && message.contains("trial seed 0x")
                            && message.contains("DUAL_DELTA_SEED=")
                            && message.contains("cargo test"),
                        "{name}: {message}"
                    );
                    assert!(
                        message.contains("non-finite") || message.contains("gross error"),
                        "{name}: {message}"
                    );
                    early += usize::from(message.contains("The screen found"));
                }
                Ended::Error(message) => {
                    failed += 1;
                    assert!(
                        message.contains("the candidate panicked in trial")
                            && message.contains("trial seed 0x")
                            && message.contains("DUAL_DELTA_SEED="),
                        "{name}: {message}"
                    );
                    early += usize::from(message.contains("found by the screen"));
                }
            }
        }
        println!("  {name:<32} failed {failed:>3} of {RUNS} (found by the screen: {early})");
        // At least 99 % of the seeded runs.
        assert!(failed * 100 >= 99 * RUNS as usize, "{name}: {failed}");
    }
}

#[test]
fn the_report_says_what_the_screen_found() {
    let seed = 3;
    let marked = trial_seed(seed, 417);
    let input = move |rng: &mut TrialRng| {
        let mut x = input(rng);
        if rng.seed() == marked {
            x[0] = -1.0;
        }
        x
    };
    let c = |x: &Vec<f32>| if x[0] < 0.0 { f32::NAN } else { kahan(x) };
    let o = DualDelta::new(c, kahan, oracle, input)
        .seed(seed)
        .run()
        .unwrap();
    assert!(!o.passed());
    assert_eq!(
        o.judgement().decided_by(),
        DecidedBy::NonFinite {
            trial: 417,
            seed: marked
        }
    );
    // The run stops at the end of the round holding trial 417.
    assert!(o.inputs_checked() > 417 && o.inputs_checked() < 1000);
    let sentence = o.verdict_sentence();
    assert!(
        sentence.contains("returned a non-finite value"),
        "{sentence}"
    );
    assert!(!sentence.contains("identical on every"), "{sentence}");

    // A clean kernel: every input screened, nothing found.
    let o = DualDelta::new(kahan, kahan, oracle, self::input)
        .seed(seed)
        .run()
        .unwrap();
    assert!(o.passed());
    assert_eq!(o.inputs_checked(), 1000);
    // Kahan against Kahan: every input a tie, the oracle on the sample only.
    assert_eq!(o.screen().ties, 1000);
    assert!(o.trials_run() < 200, "{}", o.trials_run());

    // The old, unscreened early pass: only on request, and said so.
    let o = DualDelta::new(c, kahan, oracle, input)
        .seed(seed)
        .screen(false)
        .run()
        .unwrap();
    assert!(o.passed() && o.unscreened());
    let after = o.trials_run();
    assert!(after < 100, "{after}");
    let sentence = o.verdict_sentence();
    assert!(
        sentence.contains(&format!(
            "quick mode: passed after {after} of 1000 inputs, the mean and the typical input \
             judged by the claim on those {after} alone; a share of inputs with a non-finite \
             output, a panic or a gross error below"
        )),
        "{sentence}"
    );
    assert!(sentence.contains(&format!(
        "Quick mode: rare non-finite outputs, panics and gross errors on the other {} inputs \
         were not checked.",
        1000 - after
    )));
}

#[test]
fn equal_or_better_kernels_still_pass() {
    for seed in 0..10 {
        for (name, o) in [
            (
                "kahan vs kahan",
                DualDelta::new(kahan, kahan, oracle, input).seed(seed).run(),
            ),
            (
                "kahan vs naive",
                DualDelta::new(kahan, naive, oracle, input).seed(seed).run(),
            ),
            (
                "naive vs reversed",
                DualDelta::new(naive, reversed, oracle, input)
                    .seed(seed)
                    .run(),
            ),
        ] {
            let o = o.unwrap();
            assert!(
                o.passed(),
                "{name}, seed {seed}: {}",
                o.result().unwrap_err()
            );
            assert!(o.gross().is_empty(), "{name}: {:?}", o.gross());
        }
    }
}

/// A candidate whose error is `factor` × the baseline's on every input:
/// its output is the oracle's plus `factor` × the baseline's deviation.
fn scaled(factor: f64) -> impl Fn(&Vec<f32>) -> f64 + Sync {
    move |x| {
        let o = oracle(x);
        o + factor * (f64::from(naive(x)) - o)
    }
}

#[test]
fn both_modes_give_the_same_verdict_on_small_and_large_differences() {
    println!("Δ1 = k Δ2 on every input, margin 5%, 10 seeds; early / fixed N:");
    for seed in 0..10 {
        for (factor, pass) in [(1.01, true), (1.10, false)] {
            let run = |stop_early| {
                DualDelta::new(scaled(factor), naive, oracle, input)
                    .seed(seed)
                    .stop_early(stop_early)
                    .run()
                    .unwrap()
            };
            let (early, fixed) = (run(true), run(false));
            println!(
                "  seed {seed} k = {factor}: {} after {} trials / {} after 1000\n    {}\n    {}",
                early.passed(),
                early.trials_run(),
                fixed.passed(),
                early.verdict_sentence(),
                fixed.verdict_sentence()
            );
            assert_eq!(early.passed(), pass, "{}", early.verdict_sentence());
            assert_eq!(fixed.passed(), pass, "{}", fixed.verdict_sentence());
            if pass {
                for o in [&early, &fixed] {
                    let w = o.judgement().within_margin().expect("a stated difference");
                    assert!((w.percent - 1.0).abs() < 0.05, "{}", w.percent);
                    assert!(
                        o.verdict_sentence()
                            .contains("is less accurate than naive by 1.0% (p "),
                        "{}",
                        o.verdict_sentence()
                    );
                    assert!(o.verdict_sentence().contains("within the 5% margin"));
                }
                // A pass runs every input.
                assert_eq!(early.inputs_checked(), 1000);
            }
        }
    }
}

#[test]
fn pass_noisy_null_at_full_cap() {
    // Two summation orders of equal accuracy, n = 1000, the defaults.
    let o = DualDelta::new(naive, reversed, oracle, input)
        .seed(11)
        .n(1000)
        .run()
        .unwrap();
    assert!(o.passed(), "{}", o.result().unwrap_err());
    assert_eq!(o.inputs_checked(), 1000);
}

#[test]
fn false_failures_on_a_noisy_null_stay_below_alpha_with_the_screen_on() {
    // Two nulls, each run under the defaults (early stopping, the screen,
    // both gates): forward against reversed summation (the same error
    // distribution), and the edge of the 5 % margin: a candidate whose
    // error is 1.05 × that of the reversed sum against the forward sum
    // (the rule's lower bound on the ratio of means holds it at α).
    const RUNS: u64 = 600;
    let alpha = 0.01;
    let boundary = |x: &Vec<f32>| {
        let o = oracle(x);
        o + 1.05 * (f64::from(reversed(x)) - o)
    };
    let bound = binomial_bound(RUNS as usize, alpha);
    println!("noisy nulls, {RUNS} runs each at α = {alpha} (bound {bound}):");
    for (name, null) in [
        ("forward vs reversed", 0),
        ("1.05 × reversed vs forward", 1),
    ] {
        let (mut failed, mut gross, mut screened) = (0, 0, 0);
        for seed in 0..RUNS {
            let o = match null {
                0 => DualDelta::new(naive, reversed, oracle, input),
                _ => DualDelta::new(boundary, naive, oracle, input),
            }
            .seed(1000 + seed)
            .run()
            .unwrap();
            failed += usize::from(!o.passed());
            gross += usize::from(!o.gross().is_empty());
            screened +=
                usize::from(o.screen().mode == Mode::Screened && o.inputs_checked() == 1000);
        }
        println!(
            "  {name:<28} {failed:>3} failed, {gross} with a gross error, {screened} with all 1000 \
             inputs checked"
        );
        assert!(failed <= bound, "{name}: {failed} > {bound}");
        assert_eq!(gross, 0, "{name}");
    }
}

/// The naive sum with its error `k` times as large on the inputs whose
/// first element is in `[0.5, below)`.
fn naive_times_on(below: f32, k: f64) -> impl Fn(&Vec<f32>) -> f64 + Sync + Copy {
    move |x| {
        let o = oracle(x);
        let k = if (0.5..below).contains(&x[0]) { k } else { 1.0 };
        o + k * (f64::from(naive(x)) - o)
    }
}

#[test]
fn a_custom_threshold_or_no_gate() {
    // A candidate 3 × worse on 2% of inputs: no gross error at G = 100,
    // one at G = 2.
    let c = naive_times_on(0.52, 3.0);
    let o = DualDelta::new(c, naive, oracle, input)
        .seed(5)
        .run()
        .unwrap();
    assert!(o.gross().is_empty() && o.passed());
    // At G = 2 some are gross; the gate fails the run only where they are
    // too many to be chance (p = 2^-k below the level of the tests over
    // every input, 0.005: 8 of them), and reports them otherwise.
    let o = DualDelta::new(c, naive, oracle, input)
        .seed(5)
        .gross_factor(2.0)
        .run()
        .unwrap();
    assert!(!o.gross().is_empty());
    assert_eq!(
        o.gross_error_gate(),
        o.gross().len() >= 8,
        "{}",
        o.gross().len()
    );
    assert!(o.verdict_sentence().contains("made a gross error on"));
    // 30 × worse on 5% of the inputs: many gross errors, the gate fails it.
    let many = naive_times_on(0.55, 30.0);
    let o = DualDelta::new(many, naive, oracle, input)
        .seed(5)
        .stop_early(false)
        .gross_factor(2.0)
        .run()
        .unwrap();
    assert!(!o.passed() && o.gross_error_gate(), "{}", o.gross().len());
    assert_eq!(
        o.judgement().p_value(),
        Some(0.5f64.powi(o.gross().len() as i32))
    );
}
