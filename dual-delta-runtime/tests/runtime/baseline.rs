//! Baselines: a run saved under a name, and later runs compared with it
//! trial by trial, paired by seed.

#![allow(clippy::ptr_arg)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use dual_delta_runtime::baseline::{Baseline, baseline_file};
use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{error::BaselineError, error::RunError, settings::Baselines};

use crate::common::{binomial_bound, naive, oracle, short_input as input};

fn shifted_input(rng: &mut TrialRng) -> Vec<f32> {
    (0..64).map(|_| rng.random_range(0.0f32..2.0)).collect()
}

/// A candidate whose error is `k` × the naive sum's on every input.
fn scaled(k: f64) -> impl Fn(&Vec<f32>) -> f64 + Sync {
    move |x| {
        let o = oracle(x);
        o + k * (f64::from(naive(x)) - o)
    }
}

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("baselines")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn save(dir: &PathBuf) -> Baselines {
    Baselines {
        save: Some("main".into()),
        dir: Some(dir.clone()),
        ..Baselines::default()
    }
}

fn compare(dir: &PathBuf) -> Baselines {
    Baselines {
        compare: Some("main".into()),
        dir: Some(dir.clone()),
        ..Baselines::default()
    }
}

#[test]
fn a_worse_version_regresses_an_unchanged_one_passes() {
    let d = dir("worse");
    // At `main` the candidate's error is half the reference's.
    let saved = DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::sum")
        .baselines(save(&d))
        .run()
        .unwrap();
    assert!(saved.passed());
    let file = baseline_file(&d, "main", "kernels::sum");
    let b = Baseline::read(&file).unwrap();
    assert_eq!(b.trials.len(), saved.trials_run());
    assert_eq!(b.trials[3].delta1, saved.delta1()[3]);
    assert_eq!(b.test, "kernels::sum");
    // Listed by its test's path, as every command writes it.
    assert_eq!(
        dual_delta_runtime::baseline::list(&d).unwrap(),
        [("main".to_owned(), "kernels::sum".to_owned())]
    );

    // The change makes it 30% less accurate than at `main`, still better
    // than the reference: the main comparison passes, the regression fails.
    let o = DualDelta::new(scaled(0.65), naive, oracle, input)
        .test_name("kernels::sum")
        .baselines(compare(&d))
        .run()
        .unwrap();
    let r = o.regression().expect("compared");
    assert!(o.judgement().accuracy_met(), "{}", o.verdict_sentence());
    assert!(r.regressed && o.judgement().regressed() && !o.passed());
    assert_eq!(r.pairs, b.trials.len());
    assert!((r.mean_now / r.mean_then - 1.3).abs() < 1e-9);
    let sentence = o.verdict_sentence();
    println!("{}", r.sentence());
    assert!(
        sentence.contains("Regression: less accurate than at baseline `main`")
            && sentence.contains("mean error 1.300× the baseline's"),
        "{sentence}"
    );
    assert!(r.p_value.unwrap() < 0.01, "{:?}", r.p_value);
    let failure = o.result().unwrap_err();
    assert!(
        failure.contains("failed: Regression: less accurate than at baseline `main`"),
        "{failure}"
    );

    // Unchanged: no regression.
    let o = DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::sum")
        .baselines(compare(&d))
        .run()
        .unwrap();
    let r = o.regression().unwrap();
    assert!(!r.regressed && o.passed(), "{}", o.verdict_sentence());
    assert!(
        o.verdict_sentence()
            .contains("No regression: not less accurate than at baseline `main`")
    );
}

#[test]
fn a_changed_generator_is_an_error_naming_the_first_trial() {
    let d = dir("generator");
    DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::gen")
        .baselines(save(&d))
        .run()
        .unwrap();
    let e = DualDelta::new(scaled(0.5), naive, oracle, shifted_input)
        .test_name("kernels::gen")
        .baselines(compare(&d))
        .run()
        .unwrap_err();
    match &e {
        RunError::Baseline(BaselineError::Mismatch {
            baseline, trial, ..
        }) => {
            assert_eq!(baseline, "main");
            assert_eq!(trial.index, 0);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string()
            .contains("the input generator or the oracle changed")
    );
    assert!(e.to_string().contains("trial 0 (trial seed 0x"));
}

#[test]
fn a_short_baseline_says_so_and_a_missing_one_is_no_comparison() {
    let d = dir("short");
    DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::short")
        .baselines(save(&d))
        .run()
        .unwrap();
    let file = baseline_file(&d, "main", "kernels::short");
    let mut b = Baseline::read(&file).unwrap();
    b.trials.truncate(3);
    b.write(&file).unwrap();
    let o = DualDelta::new(scaled(2.0), naive, oracle, input)
        .test_name("kernels::short")
        .baselines(compare(&d))
        .stop_early(false)
        .run()
        .unwrap();
    let r = o.regression().unwrap();
    assert!(!r.regressed && r.pairs == 3);
    // Each criterion at α/2 = 0.005: 2^-8 is the first tail below it.
    assert!(
        r.sentence().contains(
            "only 3 trials in common (the baseline holds 3), and the test needs at least 8"
        ),
        "{}",
        r.sentence()
    );
    // No file for this test under that name: nothing to compare.
    let o = DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::new_test")
        .baselines(compare(&d))
        .run()
        .unwrap();
    assert!(o.regression().is_none() && o.passed());
}

/// A kernel whose outputs are noisy from run to run (a nondeterministic
/// reduction, say): the noise comes from a process-wide counter, not the
/// trial's seed.
fn noisy(x: &Vec<f32>) -> f64 {
    static CALLS: AtomicU64 = AtomicU64::new(1);
    // SplitMix64 of the call's number.
    let mut h = CALLS
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    let o = oracle(x);
    o + (0.5 + u) * (f64::from(naive(x)) - o)
}

#[test]
fn false_regressions_of_an_unchanged_noisy_kernel_stay_below_alpha() {
    // Save, then compare, the same kernel whose errors vary from run to run
    // (uniformly between 0.5 and 1.5 × the naive sum's): RUNS pairs of runs
    // of 100 trials each, one thread so that the noise is reproducible. At
    // margin 0 the paired differences are symmetric about zero: the null's
    // boundary, where false regressions are most frequent.
    const RUNS: usize = 300;
    let alpha = 0.01;
    let d = dir("noisy");
    let mut regressed = 0;
    let mut below_5_percent = 0;
    for seed in 0..RUNS as u64 {
        let run = |b: Baselines| {
            DualDelta::new(noisy, naive, oracle, input)
                .test_name(format!("noisy::run_{seed}"))
                .seed(seed)
                .n(100)
                .stop_early(false)
                .margin(0.0)
                .threads(1)
                .baselines(b)
                .run()
                .unwrap()
        };
        run(save(&d));
        let o = run(compare(&d));
        let r = o.regression().unwrap();
        assert_eq!(r.pairs, 100);
        regressed += usize::from(r.regressed);
        below_5_percent += usize::from(r.p_value.unwrap() < 0.05);
    }
    // 8 for 300 runs at α = 0.01.
    let bound = binomial_bound(RUNS, alpha);
    println!(
        "unchanged noisy kernel: {regressed} of {RUNS} false regressions (bound {bound}); \
         {below_5_percent} runs with a Wilcoxon p below 0.05"
    );
    // The p-values are those of a null, not degenerate: about 5% below 0.05.
    assert!((3..=30).contains(&below_5_percent), "{below_5_percent}");
    assert!(regressed <= bound, "{regressed} > {bound}");
}

#[test]
fn a_comparison_refuses_another_n_or_alpha() {
    let d = dir("settings_n_alpha");
    DualDelta::new(scaled(0.5), naive, oracle, input)
        .test_name("kernels::n_alpha")
        .n(200)
        .baselines(save(&d))
        .run()
        .unwrap();
    for (n, alpha, setting) in [(100, 0.01, "n"), (200, 0.05, "alpha")] {
        let e = DualDelta::new(scaled(0.5), naive, oracle, input)
            .test_name("kernels::n_alpha")
            .n(n)
            .alpha(alpha)
            .baselines(compare(&d))
            .run()
            .unwrap_err();
        assert!(
            matches!(
                &e,
                RunError::Baseline(BaselineError::Settings { setting: s, .. }) if *s == setting
            ),
            "{e}"
        );
    }
}
