//! A documented error bound as one key: the first input over it fails the
//! run, named with its outputs and seed, whatever `expect` says; within
//! it, a bounded approximation passes without the gross-error gate's
//! contortions.

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::{Metric, decision::DecidedBy};

/// Taylor's sine to x⁵: within 4.7e-3 of sin on [-π/2, π/2].
fn taylor_sin(x: &f32) -> f32 {
    let x2 = x * x;
    x * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0))
}
fn sin32(x: &f32) -> f32 {
    x.sin()
}
fn sin64(x: &f32) -> f64 {
    f64::from(*x).sin()
}
fn angle(rng: &mut TrialRng) -> f32 {
    rng.random_range(-std::f32::consts::FRAC_PI_2..std::f32::consts::FRAC_PI_2)
}

fn test(bound: f64) -> DualDelta<'static, f32> {
    DualDelta::new(taylor_sin, sin32, sin64, angle)
        .metric(Metric::MaxAbsolute)
        .expect(Expect::Worse)
        .bound(bound)
        .n(300)
        .seed(7)
}

#[test]
fn an_approximation_within_its_documented_bound_passes_with_every_input_checked() {
    let o = test(5e-3).run().unwrap();
    assert!(o.passed(), "{:?} {}", o.judgement(), o.verdict_sentence());
    // Every input measured, no gross error reported against the far more
    // accurate baseline, and the verdict says the bound held.
    assert_eq!(o.trials_run(), 300);
    assert!(o.gross().is_empty());
    let max = o.delta1().iter().copied().fold(0.0, f64::max);
    assert!(max > 1e-3 && max <= 5e-3, "{max}");
    assert!(
        o.verdict_sentence()
            .contains("Every one of the 300 inputs checked within the documented bound 5.000e-3"),
        "{}",
        o.verdict_sentence()
    );
}

#[test]
fn the_first_input_over_the_bound_fails_the_run_there_naming_it() {
    let bound = 1e-3;
    let o = test(bound).run().unwrap();
    assert!(!o.passed());
    // The first trial whose input is far enough from 0 for the truncated
    // series to miss by more than the bound, found independently.
    let first = (0..300)
        .find(|&i| {
            let x = angle(&mut TrialRng::for_trial(o.settings().seed(), i));
            (f64::from(taylor_sin(&x)) - sin64(&x)).abs() > bound
        })
        .unwrap();
    let b = o.judgement().over_bound().expect("the bound decided");
    assert_eq!(
        o.judgement().decided_by(),
        DecidedBy::Bound {
            trial: first,
            seed: b.at.seed
        }
    );
    let b = b.at;
    assert_eq!(b.trial, first);
    assert_eq!(b.seed, o.trial_seed(first));
    let x = angle(&mut TrialRng::from_trial_seed(b.seed));
    assert_eq!(b.candidate, f64::from(taylor_sin(&x)));
    assert_eq!(b.oracle, sin64(&x));
    assert!(b.delta1 > bound);
    // It stopped at that input, and says so first.
    assert_eq!(o.trials_run(), first + 1);
    let failure = o.failure_sentence().unwrap();
    assert!(
        failure.starts_with(&format!(
            "taylor_sin's error exceeded the documented bound 1.000e-3 on trial {first}"
        )),
        "{failure}"
    );
    assert_eq!(
        o.judgement().p_value(),
        None,
        "a p-value only under no_worse"
    );
}

#[test]
fn a_bound_holds_whatever_the_expectation() {
    // The candidate is the baseline: no_worse holds, the bound does not.
    let o = DualDelta::new(sin32, sin32, sin64, angle)
        .metric(Metric::MaxAbsolute)
        .bound(1e-9)
        .n(50)
        .run()
        .unwrap();
    assert!(!o.passed());
    assert!(matches!(
        o.judgement().decided_by(),
        DecidedBy::Bound { .. }
    ));
    assert_eq!(o.judgement().p_value(), Some(0.0));
}

#[test]
fn a_negative_bound_is_refused_with_the_tables_message() {
    let e = test(-1.0).run().unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid bound=\"-1\": expected a finite number >= 0, in the metric's unit"
    );
}

#[test]
fn the_worst_inputs_are_shown_largest_first_drawn_again_from_their_seeds() {
    let o = test(5e-3).show_inputs().run().unwrap();
    let w = o.worst_inputs();
    assert_eq!(w.len(), dual_delta_runtime::worst::SHOWN);
    let mut sorted = o.delta1().to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    for (shown, largest) in w.iter().zip(&sorted) {
        let a = &shown.at;
        assert_eq!(a.delta1, *largest);
        assert_eq!(a.seed, o.trial_seed(a.trial));
        let x = angle(&mut TrialRng::from_trial_seed(a.seed));
        assert_eq!(shown.input.as_deref(), Some(format!("{x:?}").as_str()));
        assert_eq!(a.candidate, f64::from(taylor_sin(&x)));
        assert_eq!(a.oracle, sin64(&x));
        assert!(shown.line().contains(&format!("(seed {:#018x})", a.seed)));
        assert!(
            shown.line().contains(&format!("input {x:?}")),
            "{}",
            shown.line()
        );
    }
    // The worst inputs of a truncated series are the far ends of the range.
    assert!(w.iter().all(|s| s.at.oracle.abs() > 0.99), "{w:?}");
}

#[test]
fn an_input_without_debug_still_runs_and_says_why_it_is_not_shown() {
    #[derive(Clone)]
    struct Angle(f32);
    let o = DualDelta::new(
        |a: &Angle| taylor_sin(&a.0),
        |a: &Angle| sin32(&a.0),
        |a: &Angle| sin64(&a.0),
        |rng: &mut TrialRng| Angle(angle(rng)),
    )
    .metric(Metric::MaxAbsolute)
    .n(50)
    .run()
    .unwrap();
    let w = &o.worst_inputs()[0];
    assert_eq!(w.input, None);
    assert!(
        w.line().contains("input not shown (its type has no Debug"),
        "{}",
        w.line()
    );
}

#[test]
fn a_trial_replayed_on_its_own_gives_its_input_and_outputs_in_full() {
    let o = test(1e-3).run().unwrap();
    let b = o.judgement().over_bound().unwrap().at;
    let t = test(1e-3).show_inputs().replay_trial(b.seed).unwrap();
    let x = angle(&mut TrialRng::from_trial_seed(b.seed));
    assert_eq!(t.index, Some(b.trial));
    assert_eq!(t.input, Some(format!("{x:?}")));
    assert_eq!(t.candidate, [f64::from(taylor_sin(&x))]);
    assert_eq!(t.baseline, [f64::from(sin32(&x))]);
    assert_eq!(t.oracle, [sin64(&x)]);
    assert_eq!((t.delta1, t.delta2), (b.delta1, b.delta2));
    assert!(t.text().starts_with(&format!(
        "trial {} (trial seed {:#018x}) run again on its own:\n  input: {x:?}\n",
        b.trial, b.seed
    )));
    // A seed from elsewhere still runs, and says it is not this run's.
    let other = test(1e-3).replay_trial(1).unwrap();
    assert_eq!((other.index, other.input), (None, None));
}

#[test]
fn the_worst_inputs_and_the_bound_read_back_from_summary_json() {
    let o = test(1e-3).show_inputs().run().unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bound-report");
    let _ = std::fs::remove_dir_all(&dir);
    dual_delta_runtime::report::write_to(&o, &dir).unwrap();
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let back = dual_delta_runtime::report::summary::Summary::read(&text).unwrap();
    assert_eq!(back.worst_inputs.as_ref(), o.worst_inputs());
    assert_eq!(back.judgement.over_bound(), o.judgement().over_bound());
    let seed = format!("\"seed\": \"{:#018x}\"", o.worst_inputs()[0].at.seed);
    assert!(text.contains(&seed), "{text}");
}

/// Taylor's sine, but NaN where `x` is above 1.5: a hole in the domain.
fn taylor_sin_with_a_hole(x: &f32) -> f32 {
    if *x > 1.5 { f32::NAN } else { taylor_sin(x) }
}

#[test]
fn a_nan_output_is_over_the_bound_even_when_the_test_expects_worse() {
    // `expect = worse` alone would count a NaN as the loss it expects; a
    // documented bound does not: nothing shows a NaN within it.
    let o = DualDelta::new(taylor_sin_with_a_hole, sin32, sin64, angle)
        .metric(Metric::MaxAbsolute)
        .expect(Expect::Worse)
        .bound(5e-3)
        .n(300)
        .seed(7)
        .run()
        .unwrap();
    assert!(!o.passed());
    let first = (0..300)
        .find(|&i| angle(&mut TrialRng::for_trial(7, i)) > 1.5)
        .expect("an angle above 1.5");
    let over = o
        .judgement()
        .over_bound()
        .expect("the NaN input is over the bound");
    assert_eq!(over.at.trial, first);
    assert!(over.at.candidate.is_nan());
    assert!(matches!(o.judgement().decided_by(), DecidedBy::Bound { trial, .. } if trial == first));
}
