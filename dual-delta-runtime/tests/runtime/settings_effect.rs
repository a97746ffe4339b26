//! Each setting that decides, at a value that should change a constructed
//! run, changes the run as its row of the settings table says: `test`,
//! `margin`, `rule`, `expect`, `stop_early`, `screen` and `bound`.
//!
//! Errors are modelled exactly: the oracle is 0, so under `max_absolute`
//! an output is its error. Each input is one uniform draw `u` in `[0, 1)`
//! and a small noise that both implementations share, so that the
//! candidate's errors are a known function of the baseline's.

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{decision::DecidedBy, decision::Ending};

/// An input: where it falls (`u`), a noise factor near 1 both share, and
/// a draw `v` in `[-1, 1)` of the candidate's own.
#[derive(Clone, Copy, Debug)]
struct Draw {
    u: f64,
    noise: f64,
    v: f64,
}

fn draw(rng: &mut TrialRng) -> Draw {
    Draw {
        u: rng.random_range(0.0..1.0),
        noise: rng.random_range(0.9..1.1),
        v: rng.random_range(-1.0..1.0),
    }
}

fn oracle(_: &Draw) -> f64 {
    0.0
}

/// The baseline's error: near 1, larger on the top 30% of `u`.
fn baseline(d: &Draw) -> f64 {
    if d.u >= 0.7 { 100.0 * d.noise } else { d.noise }
}

/// A run of `candidate` against [`baseline`] under the defaults, with
/// `max_absolute` errors, 400 inputs and seed 7, which `settings` changes.
fn run(
    name: &str,
    candidate: fn(&Draw) -> f64,
    settings: impl FnOnce(DualDelta<'static, Draw>) -> DualDelta<'static, Draw>,
) -> Outcome {
    let d = DualDelta::new(candidate, baseline, oracle, draw)
        .test_name(format!("settings_effect::{name}"))
        .metric(Metric::MaxAbsolute)
        .n(400)
        .seed(7);
    settings(d).run().unwrap()
}

/// 2× worse on 70% of the inputs, 100× more accurate on the 30% where the
/// baseline's errors are largest: the sign test says "less accurate", the
/// Wilcoxon test does not, the mean is far lower.
fn worse_on_most(d: &Draw) -> f64 {
    if d.u >= 0.7 {
        baseline(d) / 100.0
    } else {
        2.0 * baseline(d)
    }
}

/// 2% worse on every input: a consistent loss inside the 5% margin.
fn two_percent_worse(d: &Draw) -> f64 {
    1.02 * baseline(d)
}

/// 3× worse on every input: a clear loss.
fn three_times_worse(d: &Draw) -> f64 {
    3.0 * baseline(d)
}

/// 50× worse on the 20% of inputs with `u` below 0.2, 10% more accurate
/// elsewhere.
fn mixture(d: &Draw) -> f64 {
    if d.u < 0.2 {
        50.0 * baseline(d)
    } else {
        0.9 * baseline(d)
    }
}

/// Identical to the baseline, but NaN on the 1% of inputs with `u` above
/// 0.99.
fn nan_where_rare(d: &Draw) -> f64 {
    if d.u > 0.99 { f64::NAN } else { baseline(d) }
}

#[test]
fn test_decides_the_typical_input_beside_the_sign_test() {
    // The row: "with the sign test at the margin it decides the typical
    // input (T)".
    let wilcoxon = run("test_wilcoxon", worse_on_most, |d| d);
    assert!(wilcoxon.passed(), "{}", wilcoxon.verdict_sentence());
    let t = wilcoxon.claim().typical_tests;
    assert!(
        t.sign_margin.unwrap() < 1e-6 && t.paired_worse.unwrap() > 0.5,
        "{t:?}"
    );
    let sign = run("test_sign", worse_on_most, |d| d.test(AccuracyTest::Sign));
    assert!(!sign.passed());
    assert_eq!(
        sign.claim().failed_by(),
        Some(dual_delta_runtime::decision::claim::Which::Typical)
    );
}

#[test]
fn margin_forgives_a_loss_inside_it_and_zero_forgives_none() {
    let default = run("margin_default", two_percent_worse, |d| d.stop_early(false));
    assert!(default.passed(), "{}", default.verdict_sentence());
    assert!(default.verdict_sentence().contains("within the 5% margin"));
    let zero = run("margin_zero", two_percent_worse, |d| {
        d.stop_early(false).margin(0.0)
    });
    assert!(!zero.passed(), "{}", zero.verdict_sentence());
    assert!(matches!(
        zero.judgement().decided_by(),
        DecidedBy::FixedN { .. }
    ));
}

#[test]
fn rule_paper_fails_exactly_where_the_one_sided_test_rejects() {
    let claim = run("rule_claim", two_percent_worse, |d| d);
    assert!(claim.passed(), "{}", claim.verdict_sentence());
    let paper = run("rule_paper", two_percent_worse, |d| d.rule(Rule::Paper));
    assert!(!paper.passed());
    assert!(matches!(
        paper.judgement().decided_by(),
        DecidedBy::Paper { alpha } if alpha == 0.01
    ));
    // Every input, no margin, and the decision is the test's at α.
    assert_eq!(paper.judgement().ending(), Ending::AllTrials);
    assert_eq!(
        (paper.settings().margin(), paper.screen().checked),
        (0.0, 400)
    );
    assert!(paper.p_worse().unwrap() < 0.01);
    assert!(paper.verdict_sentence().contains("by the paper's test"));
    // The paper passes a candidate the claim fails in mean: 50× worse on
    // 20% of the inputs and 10% better elsewhere, which the signed-rank
    // test cannot see (the losses outrank nothing: the gains are many).
    let claim = run("rule_claim_mean", mixture, |d| d.stop_early(false));
    assert_eq!(
        claim.claim().failed_by(),
        Some(dual_delta_runtime::decision::claim::Which::Mean),
        "{}",
        claim.verdict_sentence()
    );
    let paper = run("rule_paper_mean", mixture, |d| d.rule(Rule::Paper));
    assert!(paper.passed(), "{}", paper.verdict_sentence());
    assert!(paper.p_worse().unwrap() > 0.5);
    // A margin given with it is an error, not ignored.
    let err = DualDelta::new(two_percent_worse, baseline, oracle, draw)
        .test_name("settings_effect::rule_with_margin")
        .rule(Rule::Paper)
        .margin(0.1)
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("under `rule = paper`"), "{err}");
}

#[test]
fn expect_reads_the_same_evidence_the_other_way() {
    let no_worse = run("expect_no_worse", three_times_worse, |d| d);
    assert!(!no_worse.passed());
    let worse = run("expect_worse", three_times_worse, |d| {
        d.expect(Expect::Worse)
    });
    assert!(worse.passed(), "{}", worse.verdict_sentence());
    let better = run("expect_better", three_times_worse, |d| {
        d.expect(Expect::Better)
    });
    assert!(!better.passed());
}

#[test]
fn stop_early_ends_a_clear_loss_early_and_false_runs_every_input() {
    let early = run("stop_early_on", three_times_worse, |d| d);
    assert!(matches!(
        early.judgement().decided_by(),
        DecidedBy::Sequential { .. }
    ));
    assert!(early.screen().checked < 100, "{}", early.screen().checked);
    let all = run("stop_early_off", three_times_worse, |d| d.stop_early(false));
    assert!(!all.passed());
    assert_eq!(all.judgement().ending(), Ending::AllTrials);
    assert_eq!(all.screen().checked, 400);
}

#[test]
fn screen_false_passes_early_leaving_rare_events_unchecked() {
    let screened = run("screen_on", nan_where_rare, |d| d);
    assert!(
        matches!(
            screened.judgement().decided_by(),
            DecidedBy::NonFinite { .. }
        ),
        "{:?}",
        screened.judgement().decided_by()
    );
    let quick = run("screen_off", nan_where_rare, |d| d.screen(false));
    assert!(quick.passed(), "{}", quick.verdict_sentence());
    assert!(quick.screen().checked < 50, "{}", quick.screen().checked);
}

#[test]
fn bound_fails_the_first_input_over_it_whatever_else_holds() {
    // Equal accuracy: the claim passes; a bound below the baseline's own
    // largest error fails at the first input over it.
    let free = run("bound_none", baseline, |d| d);
    assert!(free.passed());
    let bounded = run("bound_50", baseline, |d| d.bound(50.0));
    assert!(!bounded.passed());
    let DecidedBy::Bound { trial, .. } = bounded.judgement().decided_by() else {
        panic!("{:?}", bounded.judgement().decided_by())
    };
    assert!(bounded.delta1()[bounded.trials().iter().position(|&t| t == trial).unwrap()] > 50.0);
}

#[test]
fn expect_better_is_one_rule_with_and_without_early_stopping() {
    // More accurate at all is what `expect = better` asks, in both modes:
    // 0.96× and 0.99× the baseline on every input, and a candidate whose
    // error is 1/1.05 the baseline's times a factor of mean 1 (±10%),
    // each passes on every seed, with early stopping and without.
    type Candidate = fn(&Draw) -> f64;
    let cases: [(&str, Candidate); 3] = [
        ("0.96", |d| 0.96 * baseline(d)),
        ("0.99", |d| 0.99 * baseline(d)),
        ("1/1.05 noisy", |d| baseline(d) / 1.05 * (1.0 + 0.1 * d.v)),
    ];
    for (name, candidate) in cases {
        for seed in 0..20 {
            let verdicts = [true, false].map(|stop_early| {
                let o = DualDelta::new(candidate, baseline, oracle, draw)
                    .test_name(format!("settings_effect::better_{name}"))
                    .metric(Metric::MaxAbsolute)
                    .n(400)
                    .seed(seed)
                    .expect(Expect::Better)
                    .stop_early(stop_early)
                    .run()
                    .unwrap();
                (o.passed(), o.verdict_sentence())
            });
            assert!(
                verdicts[0].0 && verdicts[1].0,
                "{name}, seed {seed}: {verdicts:?}"
            );
        }
    }
}

#[test]
fn quick_mode_fails_where_the_inputs_it_ran_show_the_loss() {
    // 50× worse on 40% of the inputs and identical elsewhere: the sign
    // e-process of the quick mode would pass it within a few inputs, but
    // those inputs already show the loss in mean, and the claim over them
    // fails it, on every seed.
    fn worse_on_two_fifths(d: &Draw) -> f64 {
        if d.u < 0.4 {
            50.0 * baseline(d)
        } else {
            baseline(d)
        }
    }
    for seed in 0..20 {
        let o = DualDelta::new(worse_on_two_fifths, baseline, oracle, draw)
            .test_name("settings_effect::quick_two_fifths")
            .metric(Metric::MaxAbsolute)
            .n(1000)
            .seed(seed)
            .screen(false)
            .run()
            .unwrap();
        assert!(!o.passed(), "seed {seed}: {}", o.verdict_sentence());
    }
    // A quick pass says what it rests on.
    let pass = run("quick_pass_words", baseline, |d| d.screen(false));
    assert!(pass.passed());
    assert!(
        pass.verdict_sentence()
            .contains("the mean and the typical input judged by the claim on those"),
        "{}",
        pass.verdict_sentence()
    );
}

#[test]
fn a_runs_p_value_is_the_smaller_criterions_scaled_as_the_guide_says() {
    // The claim chapter: the smaller p-value at the margin of the two
    // criteria, times 2 (Bonferroni) and times α over the level of the
    // tests over every input: 4× under the defaults, 2× with
    // `stop_early = false`.
    for (stop_early, times) in [(true, 4.0), (false, 2.0)] {
        // A pass at the cap: its p-value for a suite is read the same way.
        let o = run("p_value_scaling", two_percent_worse, |d| {
            d.stop_early(stop_early)
        });
        assert!(matches!(
            o.judgement().decided_by(),
            DecidedBy::FixedN { .. }
        ));
        let c = o.claim();
        let smaller = c.mean.p_margin.unwrap().min(c.typical.p_margin.unwrap());
        let p = o.judgement().p_value().unwrap();
        assert!(
            (p - (times * smaller).min(1.0)).abs() <= 1e-12 * p.max(1e-300),
            "stop_early = {stop_early}: {p} against {times} × {smaller}"
        );
    }
}
