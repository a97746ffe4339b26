//! Where a failing run's loss is: every input checked drawn again, its
//! features read, and the breakdown searched ([`crate::regions`]).

use std::time::Instant;

use crate::config::Settings;
use crate::error::TrialId;
use crate::regions::{self, Coordinate, Localization, Point, Sink, Values};
use crate::rng::trial_seed;
use crate::screen::Screen;
use crate::trial::Trial;

/// How a test names an input's features: its coordinates, or the test's
/// own ([`crate::DualDelta::feature`]).
pub(crate) type FeatureFn<'a, I> = Box<dyn Fn(&I, &mut Sink<'_>) + Sync + 'a>;

/// What a run measured, as the breakdown reads it.
pub(super) struct Measured<'a> {
    pub(super) settings: &'a Settings,
    /// The claim's level.
    pub(super) level: f64,
    /// The inputs checked, and the ties among them.
    pub(super) screen: &'a Screen,
    /// Each full trial's index among the inputs checked, and its errors.
    pub(super) indices: &'a [usize],
    pub(super) delta1: &'a [f64],
    pub(super) delta2: &'a [f64],
    /// Each full trial's oracle value at its worst element, that element
    /// with the output's length, and whether its outputs were identical.
    pub(super) worst: &'a [WorstElement],
}

/// The breakdown of the loss by the features of every input checked: each
/// input drawn again from its seed, its features named, and the one cut
/// that best separates the loss searched ([`regions`]).
pub(super) fn locate<I: Send + Sync>(
    trial: &Trial<'_, I>,
    c: &Measured<'_>,
    features: &[FeatureFn<'_, I>],
) -> Localization {
    let start = Instant::now();
    let s = c.settings;
    let n = c.screen.checked;
    let mut full: Vec<Option<usize>> = vec![None; n];
    for (p, &i) in c.indices.iter().enumerate() {
        if let Some(slot) = full.get_mut(i) {
            *slot = Some(p);
        }
    }
    // A measured tie stands for the ties the oracle skipped.
    let tie_weight = c.screen.ties as f64 / c.screen.ties_measured.max(1) as f64;
    let points: Vec<Point> = full
        .iter()
        .map(|f| match *f {
            Some(p) => Point {
                errors: Some((c.delta1[p], c.delta2[p])),
                tie: c.worst[p].tie,
                weight: if c.worst[p].tie { tie_weight } else { 1.0 },
            },
            None => Point {
                errors: None,
                tie: true,
                weight: 0.0,
            },
        })
        .collect();
    let serial = s.threads == Some(1);
    let rows: Vec<(Vec<Coordinate>, String)> = crate::trial::batch::map_range(serial, 0..n, |i| {
        let mut out = Vec::new();
        let Ok((x, kind)) = trial.draw(TrialId::of(s.seed, i)) else {
            return (out, String::new());
        };
        let worst = full[i].map(|p| c.worst[p].element);
        let mut sink = Sink::new(&mut out, worst);
        for f in features {
            f(&x, &mut sink);
        }
        (out, kind)
    });
    let mut names: Vec<String> = Vec::new();
    for (coordinates, _) in &rows {
        for co in coordinates {
            if !names.contains(&co.name) {
                names.push(co.name.clone());
            }
        }
    }
    let mut table: Vec<(String, Values)> = names
        .iter()
        .map(|name| {
            let values = rows
                .iter()
                .map(|(cs, _)| {
                    cs.iter()
                        .find(|co| &co.name == name)
                        .map_or(f64::NAN, |co| co.value)
                })
                .collect();
            (name.clone(), Values::Numbers(values))
        })
        .collect();
    // What the output shows of each measured input.
    let at_worst = |f: &dyn Fn(usize) -> f64| -> Vec<f64> {
        full.iter().map(|p| p.map_or(f64::NAN, f)).collect()
    };
    table.push((
        "the oracle at the worst element".into(),
        Values::Numbers(at_worst(&|p| c.worst[p].oracle)),
    ));
    table.push((
        "|the oracle at the worst element|".into(),
        Values::Numbers(at_worst(&|p| c.worst[p].oracle.abs())),
    ));
    if c.worst.iter().any(|w| w.element.1 > 1) {
        table.push((
            "the worst element's position".into(),
            Values::Numbers(at_worst(&|p| c.worst[p].element.0 as f64)),
        ));
    }
    let kinds: Vec<String> = rows.into_iter().map(|(_, k)| k).collect();
    let mut distinct = kinds.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() > 1 {
        table.push(("kind".into(), Values::Labels(kinds)));
    }
    let mut l = regions::localize(
        &points,
        table,
        (s.alpha, c.level, s.margin),
        trial_seed(s.seed, usize::MAX - 2),
    );
    l.seconds = start.elapsed().as_secs_f64();
    l
}

/// A full trial's element where the candidate's error is largest.
#[derive(Clone, Copy, Debug)]
pub(super) struct WorstElement {
    /// The oracle's value there.
    pub(super) oracle: f64,
    /// The element, and the output's length.
    pub(super) element: (usize, usize),
    /// The trial's two outputs were bitwise equal.
    pub(super) tie: bool,
}
