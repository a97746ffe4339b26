//! The builder has one setter per row of the table that names one.

use std::collections::BTreeSet;

use super::*;
use crate::config::SETTINGS;

type Setter = fn(DualDelta<'static, f64>) -> DualDelta<'static, f64>;

fn test() -> DualDelta<'static, f64> {
    DualDelta::batched(|x: &[f64]| x.to_vec(), |x: &f64| *x, |x: &f64| *x, |_| 1.0)
}

/// What a test's settings are, in words (`Overrides` holds functions,
/// so it has no `PartialEq`).
fn settings(d: &DualDelta<'static, f64>) -> String {
    let batch = match &d.functions.candidate {
        Candidate::Batched { size, .. } => *size,
        Candidate::One(_) => 1,
    };
    format!("{:?} {batch}", d.overrides)
}

#[test]
fn each_builder_method_of_the_table_sets_its_setting() {
    let setters: [(&str, Setter); 18] = [
        ("n", |d| d.n(7)),
        ("seed", |d| d.seed(7)),
        ("alpha", |d| d.alpha(0.5)),
        ("metric", |d| d.metric(Metric::MaxUlp)),
        ("expect", |d| d.expect(Expect::Worse)),
        ("test", |d| d.test(AccuracyTest::Sign)),
        ("rule", |d| d.rule(crate::rule::Rule::Paper)),
        ("margin", |d| d.margin(0.5)),
        ("stability", |d| d.stability(Expect::Better)),
        ("threads", |d| d.threads(7)),
        ("allow_non_finite", |d| d.allow_non_finite(true)),
        ("stop_early", |d| d.stop_early(false)),
        ("screen", |d| d.screen(false)),
        ("gross_factor", |d| d.gross_factor(f64::INFINITY)),
        ("bound", |d| d.bound(0.1)),
        ("batch_size", |d| d.batch_size(7)),
        ("trial_timeout", |d| {
            d.trial_timeout(std::time::Duration::ZERO)
        }),
        ("baselines", |d| {
            d.baselines(crate::config::Baselines {
                any_device: true,
                ..crate::config::Baselines::default()
            })
        }),
    ];
    let methods: BTreeSet<&str> = setters.iter().map(|(name, _)| *name).collect();
    let table: BTreeSet<&str> = SETTINGS.iter().filter_map(|s| s.builder).collect();
    assert_eq!(methods, table);
    let default = settings(&test());
    for (name, set) in setters {
        assert_ne!(
            settings(&set(test())),
            default,
            "`.{name}(..)` sets nothing"
        );
    }
}
