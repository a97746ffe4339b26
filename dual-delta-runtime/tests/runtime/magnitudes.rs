//! Every float a run searches, prints or plots, at any magnitude: a
//! failing run whose inputs, oracle values or outputs are subnormal, huge,
//! zero, infinite or NaN ends, and its regions, worst inputs, words and
//! plots are written.
//!
//! Each run is watched by a thread with a generous time limit: the limit
//! only turns a hang into a failure, it asserts no timing.

// Inputs are `Vec`s: implementations take `&I` for the generator's `I`.
#![allow(clippy::ptr_arg)]

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use dual_delta_runtime::prelude::*;
use dual_delta_runtime::report;

/// Far beyond what any of these runs takes (well under a second in a
/// release build, a few seconds in a debug one on a loaded machine): a
/// run still going then is a hang.
const LIMIT: Duration = Duration::from_secs(60);

/// `f()` on a thread of its own, or a panic naming `what` where it has
/// not returned within [`LIMIT`]. A panic inside `f` is this test's panic.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let value = f();
        // The receiver is gone only after a timeout.
        let _ = send.send(());
        value
    });
    match receive.recv_timeout(LIMIT) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} had not ended after {LIMIT:?}: it hangs")
        }
    }
}

/// A pseudo-random number in [-1, 1) from an input's bits: the direction
/// of an implementation's error, unrelated to the input's magnitude.
fn noise(x: f64) -> f64 {
    let mut z = x.to_bits().wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    2.0 * ((z ^ (z >> 31)) as f64 / 2f64.powi(64)) - 1.0
}

/// How the inputs of a case are drawn and how its oracle scales them.
#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    /// The first element of an input, which the oracle reads.
    first: fn(&mut TrialRng) -> f64,
    /// Every other element.
    rest: fn(&mut TrialRng) -> f64,
    /// The oracle's value is the first element times this.
    scale: f64,
    /// The metric is `max_ulp` rather than the default.
    ulp: bool,
    /// The candidate returns NaN on about 5% of the inputs and infinity on
    /// as many (allowed, so that the run goes on).
    non_finite: bool,
}

/// `±10^u`, `u` uniform in `[lo, hi)`.
fn decades(rng: &mut TrialRng, lo: f64, hi: f64) -> f64 {
    let sign = if rng.random_range(0.0..1.0) < 0.5 {
        -1.0
    } else {
        1.0
    };
    sign * 10f64.powf(rng.random_range(lo..hi))
}

fn ordinary(rng: &mut TrialRng) -> f64 {
    rng.random_range(1.0..2.0)
}

fn subnormal(rng: &mut TrialRng) -> f64 {
    decades(rng, -323.0, -308.0)
}

fn huge(rng: &mut TrialRng) -> f64 {
    decades(rng, 300.0, 308.2)
}

/// Subnormal to huge, with zeros, the extremes of the doubles, infinities
/// and NaN among them.
fn mixed(rng: &mut TrialRng) -> f64 {
    match rng.random_range(0..16) {
        0 => 0.0,
        1 => -0.0,
        2 => f64::MIN_POSITIVE,
        3 => f64::from_bits(1),
        4 => f64::MAX,
        5 => f64::INFINITY,
        6 => f64::NEG_INFINITY,
        7 => f64::NAN,
        _ => decades(rng, -323.0, 308.2),
    }
}

/// [`mixed`], finite: what an oracle can read.
fn mixed_finite(rng: &mut TrialRng) -> f64 {
    let x = mixed(rng);
    if x.is_finite() { x } else { 1.0 }
}

impl Case {
    /// A candidate three times as far from the oracle as the baseline,
    /// which is off by a millionth of the oracle's value: a run that fails.
    fn dual_delta(self) -> DualDelta<'static, Vec<f64>> {
        let input = move |rng: &mut TrialRng| -> Vec<f64> {
            let mut x = vec![(self.first)(rng)];
            x.extend((0..3).map(|_| (self.rest)(rng)));
            x
        };
        let oracle = move |x: &Vec<f64>| x[0] * self.scale;
        let off = move |k: f64| {
            move |x: &Vec<f64>| {
                let o = x[0] * self.scale;
                let u = noise(x[0]);
                match u {
                    _ if k == 1.0 || !self.non_finite => o + k * 1e-6 * o * u,
                    ..-0.9 => f64::NAN,
                    0.9.. => f64::INFINITY,
                    _ => o + k * 1e-6 * o * u,
                }
            }
        };
        DualDelta::new(off(3.0), off(1.0), oracle, input)
            .allow_non_finite(self.non_finite)
            .test_name(format!("magnitudes::{}", self.name))
            .metric(if self.ulp {
                Metric::MaxUlp
            } else {
                Metric::MaxHybrid
            })
            .input_coordinates()
    }
}

/// Runs `case` and writes every stage's output (the regions, the worst
/// inputs, the words, the report with its plots) under the limit; the
/// outcome and its report's folder.
fn run_whole(case: Case) -> (Outcome, PathBuf) {
    let home = std::env::temp_dir().join(format!(
        "dual-delta-magnitudes-{}-{}",
        case.name,
        std::process::id()
    ));
    let at = home.clone();
    let o = within(case.name, move || {
        let o = case.dual_delta().run().unwrap();
        let _ = o.table();
        let _ = o.where_sentence();
        report::write_under(&o, &at).unwrap();
        o
    });
    (o, home)
}

/// A run of `case` fails, names where the loss is, shows its worst input,
/// and writes a report with its plots.
fn fails_and_reports(case: Case) {
    let (o, home) = run_whole(case);
    assert!(!o.passed(), "{case:?}\n{}", o.table());
    let table = o.table();
    assert!(table.contains("worst candidate trial"), "{table}");
    // A cut of numbers is at a number between its two sides.
    let cut = o.regions().and_then(|l| l.cut.as_ref());
    if let Some(bound) = cut.and_then(|c| c.side.bound()) {
        assert!(bound.is_finite(), "{cut:?}");
    }
    let dir = home.join(report::test_dir_name(&o.names().test));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["judgement"]["passed"], false, "{summary:#}");
    #[cfg(feature = "html")]
    for plot in report::PLOT_FILES {
        let svg = std::fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.contains("<svg"), "{plot} in {}", dir.display());
    }
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_failing_run_with_subnormal_oracle_values_ends() {
    fails_and_reports(Case {
        name: "subnormal_oracle",
        first: ordinary,
        rest: ordinary,
        scale: 1e-310,
        ulp: false,
        non_finite: false,
    });
}

#[test]
fn a_failing_run_with_a_subnormal_input_element_ends() {
    fails_and_reports(Case {
        name: "subnormal_input",
        first: ordinary,
        rest: subnormal,
        scale: 1.0,
        ulp: false,
        non_finite: false,
    });
}

#[test]
fn a_failing_run_with_subnormal_outputs_under_max_ulp_ends() {
    fails_and_reports(Case {
        name: "subnormal_outputs_ulp",
        first: subnormal,
        rest: ordinary,
        scale: 1.0,
        ulp: true,
        non_finite: false,
    });
}

/// The four kinds of inputs and outputs beyond the ordinary, each case
/// under both metrics.
fn beyond_the_ordinary() -> Vec<Case> {
    let case = |name, first, rest, non_finite| Case {
        name,
        first,
        rest,
        scale: 1.0,
        ulp: false,
        non_finite,
    };
    let cases = [
        case("subnormal", subnormal, subnormal, false),
        case("huge", huge, huge, false),
        case("mixed", mixed_finite, mixed, false),
        case("non_finite", mixed_finite, mixed, true),
    ];
    cases
        .into_iter()
        .flat_map(|c| {
            [
                c,
                Case {
                    name: Box::leak(format!("{}_ulp", c.name).into_boxed_str()),
                    ulp: true,
                    ..c
                },
            ]
        })
        .collect()
}

#[test]
fn every_stage_ends_on_subnormal_huge_mixed_and_non_finite_values() {
    for case in beyond_the_ordinary() {
        fails_and_reports(case);
    }
}
