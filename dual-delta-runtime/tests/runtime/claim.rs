//! One claim over all `n` inputs that a loss on part of them cannot slip
//! through, the same under the defaults and with `stop_early = false`:
//! seeded simulations of kernels that are worse on part of their inputs,
//! of equally accurate kernels (false failures within the stated binomial
//! bound), and of small differences the margin forgives. Run with
//! `--nocapture` for the table; `CLAIM_SEEDS=100` runs every row on 100
//! seeds and adds the rates at `n = 1000` (as the closing figures were
//! measured: `CLAIM_SEEDS=100 cargo test --release -p dual-delta-runtime
//! --test runtime -- claim:: --nocapture`).

#![allow(clippy::ptr_arg)]

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{decision::DecidedBy, error::RunError, error::TooFewTrials};

use crate::common::{binomial_bound, kahan, naive, oracle, reversed, short_input};

/// Whether input `x` (64 numbers uniform in [0, 1)) is among the share
/// `percent` of inputs a faulty kernel gets wrong: chosen by the input's
/// last element, so the candidate cannot tell the trial.
fn marked(x: &[f32], per_mille: u32) -> bool {
    ((x[63] * 1000.0) as u32) < per_mille
}

/// `k` × the naive sum's error, as an f64 output.
fn scaled_error(x: &Vec<f32>, k: f64) -> f64 {
    let o = oracle(x);
    o + k * (f64::from(naive(x)) - o)
}

/// 64 standard normal numbers (sums that nearly cancel: relative errors
/// are heavy-tailed).
fn normals(rng: &mut TrialRng) -> Vec<f32> {
    (0..64)
        .map(|_| {
            // Box-Muller from two uniforms.
            let (u, v): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
            ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
        })
        .collect()
}

/// A kernel of the table: its name, `n`, and a run under the given
/// `stop_early` and seed.
struct Row {
    name: &'static str,
    run: fn(bool, u64) -> Result<Outcome, RunError>,
}

/// The seeds per row: `CLAIM_SEEDS`, else `default`.
fn seeds(default: u64) -> u64 {
    std::env::var("CLAIM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn fails(row: &Row, stop_early: bool, seeds: u64) -> (usize, String) {
    let mut failed = 0;
    let mut message = String::new();
    for seed in 0..seeds {
        let o = (row.run)(stop_early, seed).unwrap_or_else(|e| panic!("{}: {e}", row.name));
        if !o.passed() {
            failed += 1;
            message = o.verdict_sentence();
        }
    }
    (failed, message)
}

/// 10% more accurate than the naive sum on 65% of inputs, 3× less on 35%.
fn mixture(n: usize, stop_early: bool, seed: u64) -> Result<Outcome, RunError> {
    let c = |x: &Vec<f32>| scaled_error(x, if marked(x, 350) { 3.0 } else { 0.9 });
    DualDelta::new(c, naive, oracle, short_input)
        .n(n)
        .seed(seed)
        .stop_early(stop_early)
        .run()
}

/// 10× less accurate than the naive sum on 2% of inputs, identical to it
/// elsewhere.
fn two_percent(n: usize, stop_early: bool, seed: u64) -> Result<Outcome, RunError> {
    let c = |x: &Vec<f32>| {
        if marked(x, 20) {
            scaled_error(x, 10.0) as f32
        } else {
            naive(x)
        }
    };
    DualDelta::new(c, naive, oracle, short_input)
        .n(n)
        .seed(seed)
        .stop_early(stop_early)
        .run()
}

/// The less accurate kernels of the table: the mixture and the 10× loss
/// on 2% at `n = 3000`, the others at the default `n = 1000`.
fn worse_rows() -> Vec<Row> {
    let mut rows = vec![
        Row {
            name: "low three bits cleared on 25% of inputs",
            run: |stop, seed| {
                let exact = |x: &Vec<f32>| oracle(x) as f32;
                let c = |x: &Vec<f32>| {
                    let y = oracle(x) as f32;
                    if marked(x, 250) {
                        f32::from_bits(y.to_bits() & !7)
                    } else {
                        y
                    }
                };
                DualDelta::new(c, exact, oracle, short_input)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
        Row {
            name: "10% better on 65%, 3x worse on 35%",
            run: |stop, seed| mixture(3000, stop, seed),
        },
        Row {
            name: "10x on 2%, identical elsewhere",
            run: |stop, seed| two_percent(3000, stop, seed),
        },
        Row {
            name: "ReLU mask leaking on 0.5%, max_relative",
            run: |stop, seed| {
                let relu = |x: &Vec<f32>| -> Vec<f32> {
                    x.iter().map(|&v| if v > 0.5 { v } else { 0.0 }).collect()
                };
                let leaky = |x: &Vec<f32>| -> Vec<f32> {
                    let leak = marked(x, 5);
                    x.iter()
                        .map(|&v| if v > 0.5 || leak { v } else { 0.0 })
                        .collect()
                };
                let exact = |x: &Vec<f32>| -> Vec<f64> {
                    x.iter()
                        .map(|&v| if v > 0.5 { f64::from(v) } else { 0.0 })
                        .collect()
                };
                DualDelta::new(leaky, relu, exact, short_input)
                    .metric(Metric::MaxRelative)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
        Row {
            name: "integer sum dropping one element on 0.7%",
            run: |stop, seed| {
                let ints = |rng: &mut TrialRng| -> Vec<f32> {
                    (0..64).map(|_| rng.random_range(0..100) as f32).collect()
                };
                let exact = |x: &Vec<f32>| x.iter().map(|&v| f64::from(v)).sum::<f64>();
                let dropping = move |x: &Vec<f32>| {
                    let skip = usize::from((x[0] * 10.0 + x[1]) as u32 % 1000 < 7);
                    x[skip..].iter().map(|&v| f64::from(v)).sum::<f64>()
                };
                DualDelta::new(dropping, exact, exact, ints)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
    ];
    if std::env::var("CLAIM_SEEDS").is_ok() {
        rows.extend([
            Row {
                name: "10% better on 65%, 3x worse on 35%, n = 1000",
                run: |stop, seed| mixture(1000, stop, seed),
            },
            Row {
                name: "10x on 2%, identical elsewhere, n = 1000",
                run: |stop, seed| two_percent(1000, stop, seed),
            },
        ]);
    }
    rows
}

#[test]
fn kernels_worse_on_part_of_their_inputs_fail_in_both_modes() {
    let seeds = seeds(10);
    for row in worse_rows() {
        for stop in [true, false] {
            let (failed, message) = fails(&row, stop, seeds);
            println!(
                "{:<50} stop_early = {stop:<5}: failed {failed}/{seeds}",
                row.name
            );
            assert!(
                !message.contains("identical on every"),
                "{}: {message}",
                row.name
            );
            if row.name.ends_with("n = 1000") {
                // Reported, not asserted: power at n = 1000 is finite.
                continue;
            }
            // At least 99 in 100.
            assert!(
                100 * failed >= 99 * seeds as usize,
                "{}: {message}",
                row.name
            );
        }
    }
}

#[test]
fn equally_accurate_kernels_pass_within_the_binomial_bound() {
    let seeds = seeds(40);
    let rows = [
        Row {
            name: "forward against reversed",
            run: |stop, seed| {
                DualDelta::new(naive, reversed, oracle, short_input)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
        Row {
            name: "reversed on a quarter of the inputs",
            run: |stop, seed| {
                let c = |x: &Vec<f32>| {
                    if marked(x, 250) {
                        reversed(x)
                    } else {
                        naive(x)
                    }
                };
                DualDelta::new(c, naive, oracle, short_input)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
        Row {
            name: "equal orders, max_relative, nearly cancelling",
            run: |stop, seed| {
                DualDelta::new(naive, reversed, oracle, normals)
                    .metric(Metric::MaxRelative)
                    .n(4000)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
            },
        },
    ];
    let bound = binomial_bound(seeds as usize, 0.01);
    for row in &rows {
        for stop in [true, false] {
            let (failed, message) = fails(row, stop, seeds);
            println!(
                "{:<50} stop_early = {stop:<5}: failed {failed}/{seeds} (bound {bound})",
                row.name
            );
            assert!(failed <= bound, "{}: {message}", row.name);
        }
    }
}

#[test]
fn a_small_loss_passes_and_is_stated_a_larger_one_fails() {
    let seeds = seeds(3);
    for stop in [true, false] {
        let (mut small_passed, mut large_failed) = (0, 0);
        for seed in 0..seeds {
            let run = |k: f64| {
                let c = move |x: &Vec<f32>| scaled_error(x, k);
                DualDelta::new(c, naive, oracle, short_input)
                    .seed(seed)
                    .stop_early(stop)
                    .run()
                    .unwrap()
            };
            let small = run(1.01);
            assert!(small.passed(), "{}", small.verdict_sentence());
            assert!(
                small
                    .verdict_sentence()
                    .contains("less accurate than naive by 1.0%"),
                "{}",
                small.verdict_sentence()
            );
            small_passed += 1;
            let large = run(1.10);
            assert!(!large.passed(), "{}", large.verdict_sentence());
            large_failed += 1;
        }
        println!(
            "1% worse everywhere, stop_early = {stop}: passed {small_passed}/{seeds}; 10% worse: \
             failed {large_failed}/{seeds}"
        );
    }
}

#[test]
fn a_version_nine_times_worse_on_half_its_inputs_regresses_against_one_saved_under_the_defaults() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("claim-baselines");
    let _ = std::fs::remove_dir_all(&dir);
    let baselines =
        |save: Option<&str>, compare: Option<&str>| dual_delta_runtime::settings::Baselines {
            save: save.map(str::to_owned),
            compare: compare.map(str::to_owned),
            dir: Some(dir.clone()),
            any_device: false,
        };
    let v1 = |x: &Vec<f32>| scaled_error(x, 1.0);
    let v2 = |x: &Vec<f32>| scaled_error(x, if marked(x, 500) { 9.0 } else { 1.0 });
    let saved = DualDelta::new(v1, naive, oracle, short_input)
        .test_name("claim::versions")
        .baselines(baselines(Some("main"), None))
        .run()
        .unwrap();
    assert!(saved.passed());
    // Saved under the defaults, every input measured.
    assert_eq!(saved.trials_run(), 1000);
    let now = DualDelta::new(v2, naive, oracle, short_input)
        .test_name("claim::versions")
        .baselines(baselines(None, Some("main")))
        .run()
        .unwrap();
    let r = now.regression().unwrap();
    println!("{}", r.sentence());
    assert!(r.regressed && !now.passed(), "{}", r.sentence());
    // A run that compares with a baseline runs every input: the
    // comparison covers all of them.
    assert_eq!((r.pairs, now.trials_run()), (1000, 1000));
    assert!(
        r.sentence()
            .starts_with("Regression: less accurate than at baseline `main`")
    );
    // Another metric is a clear error.
    let e = DualDelta::new(v1, naive, oracle, short_input)
        .test_name("claim::versions")
        .metric(Metric::MaxRelative)
        .baselines(baselines(None, Some("main")))
        .run()
        .unwrap_err();
    assert!(
        e.to_string().contains("saved with metric = max_hybrid"),
        "{e}"
    );
}

#[test]
fn a_clear_failure_stops_within_32_trials() {
    let o = DualDelta::new(naive, kahan, oracle, crate::common::input)
        .seed(1)
        .run()
        .unwrap();
    assert!(!o.passed());
    assert!(
        matches!(o.judgement().decided_by(), DecidedBy::Sequential { after, .. } if after <= 32),
        "{:?}",
        o.judgement().decided_by()
    );
    // The early failure cites the e-value it stopped at, not a fixed-N
    // p-value it did not decide by.
    let sentence = o.verdict_sentence();
    assert!(
        sentence.contains("anytime-valid sequential test, e-value 10^"),
        "{sentence}"
    );
}

#[test]
fn a_run_that_cannot_fail_is_an_error_naming_the_smallest_n() {
    let worse = |x: &Vec<f32>| scaled_error(x, 50.0);
    let e = DualDelta::new(worse, naive, oracle, short_input)
        .n(7)
        .run()
        .unwrap_err();
    assert!(
        matches!(e, RunError::TooFewTrials(TooFewTrials { min: 9, .. })),
        "{e}"
    );
    assert!(e.to_string().contains("n >= 9"), "{e}");
    // At fixed N the whole α is the claim's, α/2 each criterion's: 8
    // trials can fail there.
    let o = DualDelta::new(worse, naive, oracle, short_input)
        .n(8)
        .stop_early(false)
        .run()
        .unwrap();
    assert!(!o.passed());
}

#[test]
fn a_late_nan_after_identical_outputs_does_not_claim_identical_outputs() {
    let c = |x: &Vec<f32>| if marked(x, 2) { f32::NAN } else { naive(x) };
    let o = DualDelta::new(c, naive, oracle, short_input)
        .seed(2)
        .run()
        .unwrap();
    assert!(!o.passed());
    let s = o.verdict_sentence();
    assert!(!s.contains("identical on every"), "{s}");
}

/// Run by [`a_hung_candidate_ends_the_run_naming_the_trial_and_the_replay`]
/// in a process of its own: a candidate that never returns on one input.
#[test]
#[ignore = "run in a child process"]
fn hung_candidate_child() {
    let c = |x: &Vec<f32>| {
        if marked(x, 30) {
            loop {
                std::thread::park();
            }
        }
        naive(x)
    };
    let _ = DualDelta::new(c, naive, oracle, short_input)
        .test_name("claim::hung")
        .seed(9)
        .trial_timeout(std::time::Duration::from_millis(500))
        .run();
}

#[test]
fn a_hung_candidate_ends_the_run_naming_the_trial_and_the_replay() {
    // Without `--nocapture`: the message goes past libtest's capture, which
    // is never printed once the process ends.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "claim::hung_candidate_child"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(
        stderr.contains("claim::hung: the candidate has run for")
            && stderr.contains("(trial seed 0x")
            // A builder run is selected by the name libtest gave its
            // thread, which is the test's.
            && stderr.contains(
                "Replay it with DUAL_DELTA_SEED=0x9 cargo test -- claim::hung_candidate_child --exact\n"
            ),
        "{stderr}"
    );
}
