use super::*;

fn feed(expect: Expect, d1: &[f64], d2: &[f64], round: usize) -> Sequential {
    let mut s = Sequential::new(expect, 0.01, DEFAULT_MARGIN).unwrap();
    for (a, b) in d1.chunks(round).zip(d2.chunks(round)) {
        s.observe(a, b).unwrap();
    }
    s
}

/// A deterministic, irregular sequence of positive errors.
fn errors(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 1e-6 * (1.0 + ((i * 7919) % 97) as f64 / 13.0))
        .collect()
}

#[test]
fn parameters_are_checked() {
    assert!(Sequential::new(Expect::NoWorse, 0.0, 0.05).is_err());
    assert!(Sequential::new(Expect::NoWorse, 1.0, 0.05).is_err());
    assert!(Sequential::new(Expect::NoWorse, f64::NAN, 0.05).is_err());
    assert!(Sequential::new(Expect::NoWorse, 0.01, -0.1).is_err());
    assert!(Sequential::new(Expect::NoWorse, 0.01, f64::INFINITY).is_err());
    let s = Sequential::new(Expect::NoWorse, 0.01, 0.05).unwrap();
    assert!(s.clone().with_fixed_margin(-1.0).is_err());
    let mut s = s.with_fixed_margin(0.1).unwrap();
    s.observe(&[1.0], &[1.0]).unwrap();
    assert!(s.with_fixed_margin(0.1).is_err());
}

#[test]
fn bad_rounds_are_rejected_whole() {
    let mut s = Sequential::new(Expect::NoWorse, 0.01, 0.05).unwrap();
    assert!(matches!(
        s.observe(&[1.0, 2.0], &[1.0]),
        Err(StatsError::LengthMismatch { .. })
    ));
    assert!(matches!(
        s.observe(&[1.0, f64::NAN], &[1.0, 1.0]),
        Err(StatsError::InvalidValue { index: 1, .. })
    ));
    assert_eq!(s.trials(), 0);
}

#[test]
fn much_worse_fails_and_worse_passes() {
    let b = errors(64);
    let a: Vec<f64> = b.iter().map(|e| 65.0 * e).collect();
    let fail = feed(Expect::NoWorse, &a, &b, 8).crossed();
    assert!(
        matches!(fail, Crossed::Fail { reason: Reason::Worse, after, .. } if after <= 32),
        "{fail:?}"
    );
    // (expectation, candidate, baseline) → (passed, reason).
    for (expect, x, y, passed, reason) in [
        (Expect::Worse, &a, &b, true, Reason::Worse),
        (Expect::Better, &a, &b, false, Reason::NotBetter),
        (Expect::Equivalent, &a, &b, false, Reason::Worse),
        (Expect::Better, &b, &a, true, Reason::Better),
    ] {
        let d = feed(expect, x, y, 8).crossed();
        let got = match d {
            Crossed::Pass { reason, .. } => Some((true, reason)),
            Crossed::Fail { reason, .. } => Some((false, reason)),
            Crossed::Neither => None,
        };
        assert_eq!(got, Some((passed, reason)), "{expect}: {d:?}");
    }
}

#[test]
fn agreeing_errors_pass() {
    let b = errors(64);
    let a: Vec<f64> = b
        .iter()
        .enumerate()
        .map(|(i, e)| e * (1.0 + 1e-3 * if i % 2 == 0 { 1.0 } else { -1.0 }))
        .collect();
    for expect in [Expect::NoWorse, Expect::Equivalent] {
        let d = feed(expect, &a, &b, 8).crossed();
        assert!(
            matches!(d, Crossed::Pass { after, .. } if after <= 16),
            "{expect}: {d:?}"
        );
    }
    let d = feed(Expect::Worse, &a, &b, 8).crossed();
    assert!(matches!(
        d,
        Crossed::Fail {
            reason: Reason::NotWorseBeyondMargin,
            ..
        }
    ));
}

#[test]
fn the_decision_does_not_depend_on_rounds() {
    let b = errors(200);
    let a: Vec<f64> = b.iter().rev().map(|e| 1.3 * e).collect();
    for expect in [
        Expect::NoWorse,
        Expect::Equivalent,
        Expect::Better,
        Expect::Worse,
    ] {
        let one = feed(expect, &a, &b, 1);
        for round in [3, 8, 32, 200] {
            let other = feed(expect, &a, &b, round);
            assert_eq!(one.crossed(), other.crossed(), "{expect}, round {round}");
            assert_eq!(one.trace(), other.trace());
        }
        assert_eq!(one.crossed(), one.crossed_at(0.01));
    }
}

#[test]
fn infinite_errors() {
    let inf = f64::INFINITY;
    // The candidate fails on every trial where the baseline is finite.
    let b = errors(40);
    let a = vec![inf; 40];
    let d = feed(Expect::NoWorse, &a, &b, 8).crossed();
    assert!(
        matches!(
            d,
            Crossed::Fail {
                reason: Reason::Worse,
                ..
            }
        ),
        "{d:?}"
    );
    // Both fail everywhere: every trial is a tie, no evidence of a loss
    // (a tie's ratio of 1 counts against "worse on the typical input").
    let s = feed(Expect::NoWorse, &a, &a, 8);
    assert_eq!(s.crossed(), Crossed::Neither);
    assert!(
        s.trace()
            .iter()
            .all(|p| p.log10_fail < 0.0 && p.log10_worse == 0.0 && p.log10_pass == 0.0)
    );
}

#[test]
fn fail_wins_a_tie_and_is_final() {
    let split = alpha_split(Expect::NoWorse, 0.01);
    let p = TracePoint {
        trial: 5,
        log10_fail: 3.0,
        log10_pass: 3.0,
        log10_worse: 3.0,
        log10_better: 0.0,
        log10_not_worse_beyond_margin: 3.0,
        log10_not_better_beyond_margin: 0.0,
        log10_typically_worse: 0.0,
    };
    assert!(matches!(
        judge(Expect::NoWorse, &split, &p),
        Crossed::Fail { after: 5, .. }
    ));
    // Once decided, more trials leave the decision alone.
    let b = errors(64);
    let a: Vec<f64> = b.iter().map(|e| 65.0 * e).collect();
    let mut s = feed(Expect::NoWorse, &a, &b, 8);
    let before = s.crossed();
    s.observe(&b, &a).unwrap();
    assert_eq!(s.crossed(), before);
    assert_eq!(s.trials(), 128);
}

#[test]
fn the_split_sums_to_alpha() {
    for expect in [
        Expect::NoWorse,
        Expect::Equivalent,
        Expect::Better,
        Expect::Worse,
    ] {
        let s = alpha_split(expect, 0.01);
        let fallback_tests = if expect == Expect::Equivalent {
            3.0
        } else {
            1.0
        };
        let false_fail = match expect {
            Expect::NoWorse | Expect::Equivalent => s.fail + fallback_tests * s.fallback,
            _ => s.fail,
        };
        let false_pass = match expect {
            Expect::Better | Expect::Worse => s.pass + s.fallback,
            _ => s.pass,
        };
        assert!(
            false_fail <= 0.01 + 1e-15 && false_pass <= 0.01 + 1e-15,
            "{expect}"
        );
    }
}

#[test]
fn decisions_and_traces_serialize() {
    let b = errors(16);
    let a: Vec<f64> = b.iter().map(|e| 65.0 * e).collect();
    let s = feed(Expect::NoWorse, &a, &b, 8);
    let json = serde_json::to_string(&s.crossed()).unwrap();
    assert!(json.starts_with(r#"{"decision":"fail","after":"#), "{json}");
    assert!(json.contains(r#""reason":"worse""#), "{json}");
    let trace = serde_json::to_string(s.trace()).unwrap();
    assert!(trace.contains(r#""log10_fail":"#));
    let split = serde_json::to_string(&s.alpha_split()).unwrap();
    assert_eq!(split, r#"{"fail":0.005,"pass":0.01,"fallback":0.005}"#);
    assert_eq!(
        serde_json::to_string(&Crossed::Neither).unwrap(),
        r#"{"decision":"continue"}"#
    );
}

#[test]
fn the_docs_count_the_processes_a_trace_point_records() {
    // Every e-process of the module's list is a `log10_` field of a trace
    // point, beside the two that decide (`fail`, `pass`).
    let point = serde_json::to_value(TracePoint {
        trial: 1,
        log10_fail: 0.0,
        log10_pass: 0.0,
        log10_worse: 0.0,
        log10_better: 0.0,
        log10_not_worse_beyond_margin: 0.0,
        log10_not_better_beyond_margin: 0.0,
        log10_typically_worse: 0.0,
    })
    .unwrap();
    let processes = point
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("log10_") && !matches!(k.as_str(), "log10_fail" | "log10_pass"))
        .count();
    let words = ["none", "one", "two", "three", "four", "five", "six"];
    let module = include_str!("mod.rs");
    assert!(
        module.contains(&format!(
            "{} e-processes (test",
            capitalised(words[processes])
        )),
        "{processes} processes"
    );
    let list = module
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .filter(|l| l.starts_with("//! * **"))
        .take_while(|l| !l.contains("Signed-rank side"))
        .count();
    assert_eq!(list, processes);
    assert!(include_str!("decision.rs").contains(&format!("the {} others are", words[processes])));
}

fn capitalised(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[test]
fn better_fails_early_only_where_the_candidate_is_not_more_accurate_at_all() {
    // 0.99× the baseline on every trial: more accurate, though not beyond
    // the margin. `expect = better` asks for more accuracy at all, so its
    // fail side never crosses; a candidate 1.01× fails it.
    let b = errors(400);
    let slightly_better: Vec<f64> = b.iter().map(|e| 0.99 * e).collect();
    let d = feed(Expect::Better, &slightly_better, &b, 8);
    assert!(
        !matches!(d.crossed(), Crossed::Fail { .. }),
        "{:?}",
        d.crossed()
    );
    let slightly_worse: Vec<f64> = b.iter().map(|e| 1.01 * e).collect();
    let d = feed(Expect::Better, &slightly_worse, &b, 8);
    assert!(
        matches!(
            d.crossed(),
            Crossed::Fail {
                reason: Reason::NotBetter,
                ..
            }
        ),
        "{:?}",
        d.crossed()
    );
}
