//! The compact terminal table and the failure message.

use std::fmt::Write as _;
use std::path::Path;

use crate::decide::{DecidedBy, Ending, Judgement};
use crate::evidence::NonFiniteTrial;
use crate::outcome::Outcome;
use crate::stats::sequential::Crossed;
use crate::stats::{Summary, TestResult};
use crate::verdict::{AccuracyTest, TestOutcome};

use super::words::numbers::{num, p_is};

fn summary_row(out: &mut String, label: &str, s: &Summary) {
    let _ = writeln!(
        out,
        "  {label:<26} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}{}",
        num(s.mean),
        num(s.median),
        num(s.std),
        num(s.min),
        num(s.p90),
        num(s.p95),
        num(s.p99),
        num(s.max),
        if s.non_finite > 0 {
            format!("  ({} non-finite)", s.non_finite)
        } else {
            String::new()
        }
    );
}

fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(width - 1).collect();
        t.push('…');
        t
    }
}

fn test_line(r: &TestOutcome, j: &Judgement) -> String {
    let alpha = j.fixed_alpha;
    match r {
        Ok(TestResult {
            statistic,
            p_value,
            method,
        }) => format!(
            "statistic {}, {} ({} {alpha}; {method})",
            num(*statistic),
            p_is(*p_value),
            if j.significant(*p_value) { "<" } else { ">=" }
        ),
        Err(e) => format!("not computed: {e}"),
    }
}

/// The compact table: both distributions, the deciding test, the verdicts,
/// the seeds and (if written) the report's path.
pub(crate) fn table(o: &Outcome, report: Option<&Path>) -> String {
    let s = &o.settings;
    let n = &o.names;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "dual-delta {}: {} (candidate) vs {} (baseline), oracle {}, metric {}, n = {}, α = {}, \
         margin {}%",
        n.test,
        n.candidate,
        n.baseline,
        n.oracle,
        s.metric,
        s.n,
        s.alpha,
        100.0 * s.margin
    );
    if let Some(adapter) = o.environment.get("gpu.adapter") {
        let semantics = o
            .environment
            .get("gpu.semantics")
            .map(|s| format!("; {s}"))
            .unwrap_or_default();
        let _ = writeln!(out, "  adapter: {adapter}{semantics}");
    }
    for line in o.claim_lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(
        out,
        "  {:<26} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "error", "mean", "median", "std", "min", "P90", "P95", "P99", "max"
    );
    let shown = o.shown_summaries();
    summary_row(
        &mut out,
        &format!("Δ1 {}", truncate(&n.candidate, 23)),
        &shown.candidate,
    );
    summary_row(
        &mut out,
        &format!("Δ2 {}", truncate(&n.baseline, 23)),
        &shown.baseline,
    );
    summary_row(&mut out, "Δ1 - Δ2", &shown.differences);
    let _ = writeln!(out, "  (each error: {})", s.metric.formula());
    if let Some(note) = o.means_note() {
        let _ = writeln!(out, "  ({note})");
    }
    let c = &o.claim;
    if c.in_mean < c.inputs {
        let _ = writeln!(
            out,
            "  (M)'s mean over the {} of {} inputs whose errors are finite",
            c.in_mean, c.inputs
        );
    }
    non_finite_lines(&mut out, o);
    tie_line(&mut out, o);
    sequential_line(&mut out, o);

    let a = &o.analysis;
    let test = a.accuracy_test;
    if let Some(why) = &a.fallback {
        let _ = writeln!(out, "  note: {why}");
    }
    let _ = writeln!(
        out,
        "  the paper's tests (descriptive; read at {}, the share of α = {} left to the tests over \
         every input):",
        o.judgement.fixed_alpha, s.alpha
    );
    let _ = writeln!(
        out,
        "    {} H1 candidate worse: {}",
        test_label(test),
        test_line(&a.worse, &o.judgement)
    );
    let _ = writeln!(
        out,
        "    {} H1 candidate better: {}",
        test_label(test),
        test_line(&a.better, &o.judgement)
    );
    let _ = writeln!(
        out,
        "    KS two-sample (equivalence): {}",
        test_line(&a.ks, &o.judgement)
    );
    let _ = writeln!(
        out,
        "    paired spread (signed-rank), H1 candidate less stable: {}",
        test_line(&a.spread_greater, &o.judgement)
    );
    let _ = writeln!(out, "  verdict: {}", o.verdict_sentence());
    if let Some(w) = o.where_sentence() {
        let _ = writeln!(out, "  where: {w}");
    }
    let worst = o.worst_trial();
    let _ = writeln!(
        out,
        "  worst candidate trial: #{} (error {}, trial seed {:#018x})",
        o.trials.get(worst).copied().unwrap_or(0),
        num(o.delta1.get(worst).copied().unwrap_or(0.0)),
        o.trial_seed(o.trials.get(worst).copied().unwrap_or(0))
    );
    let _ = writeln!(
        out,
        "  replay: DUAL_DELTA_SEED={:#x} (base seed {})",
        s.seed,
        s.seed_source.describe()
    );
    if let Some(p) = report {
        let _ = writeln!(out, "  report: {}", p.display());
    }
    out
}

fn test_label(t: AccuracyTest) -> String {
    format!("one-sided {}", t.name())
}

/// How many trials each implementation returned a NaN or an infinity on,
/// and where the two differ: nothing when both were always finite.
fn non_finite_lines(out: &mut String, o: &Outcome) {
    let nf = &o.non_finite;
    if nf.candidate.is_empty() && nf.baseline.is_empty() {
        return;
    }
    let n = o.delta1.len();
    let _ = writeln!(
        out,
        "  non-finite outputs: candidate on {} of {n} trials, baseline on {} of {n}",
        nf.candidate.len(),
        nf.baseline.len()
    );
    let baseline_only = nf.baseline_only();
    if let Some(first) = baseline_only.first() {
        let _ = writeln!(
            out,
            "  note: the baseline {} returned a non-finite value on {} trials where the candidate \
             was finite; first: {}",
            o.names.baseline,
            baseline_only.len(),
            where_(first)
        );
    }
}

/// How many trials gave both implementations an infinite error, which the
/// paired tests count as ties (see [`crate::stats::paired_differences`]):
/// nothing when there are none.
fn tie_line(out: &mut String, o: &Outcome) {
    let pairs = o.delta1.iter().zip(&o.delta2);
    let both = pairs.filter(|(a, b)| a.is_infinite() && a == b).count();
    if both > 0 {
        let _ = writeln!(
            out,
            "  note: both errors were infinite on {both} of {} trials; the paired tests count \
             each as a tie (a zero difference)",
            o.delta1.len()
        );
    }
}

/// When the sequential test decided (or would have), after how many trials,
/// and what the fixed-N tests below are.
fn sequential_line(out: &mut String, o: &Outcome) {
    let q = &o.sequential;
    let s = &o.settings;
    let outcome = |d: &Crossed| match d {
        Crossed::Pass { .. } => "pass",
        Crossed::Fail { .. } => "fail",
        Crossed::Neither => "undecided",
    };
    match (o.judgement.ending, q.decided_after()) {
        (Ending::Decided { after }, _) => {
            let _ = writeln!(
                out,
                "  stopped after {after} of {} inputs (anytime-valid sequential test: {}); the \
                 tests below are over the inputs run",
                s.n,
                outcome(&q.crossed)
            );
            let screen = o.screen_sentence();
            if !screen.is_empty() {
                let _ = writeln!(out, "  screen: {screen}");
            }
        }
        (Ending::AllTrials, Some(after)) => {
            let _ = writeln!(
                out,
                "  the sequential test would have decided after {after} trials ({}); early \
                 stopping is off",
                outcome(&q.crossed)
            );
        }
        (Ending::Cap, _) => {
            let _ = writeln!(
                out,
                "  undecided by the sequential test after {} trials: the fixed-N tests decide at \
                 α = {} (the share of α = {} left to them)",
                o.trials_run(),
                o.judgement.fixed_alpha,
                s.alpha
            );
        }
        (Ending::AllTrials, None) => {}
    }
}

/// `trial 17 (trial seed 0x…), element 3 is NaN`.
fn where_(t: &NonFiniteTrial) -> String {
    format!(
        "trial {} (trial seed {:#018x}), element {} is {}",
        t.trial,
        t.seed,
        t.position,
        num(t.value)
    )
}

/// The command that replays exactly this run: the test's package, target
/// and exact name (see [`crate::replay::command`]).
fn replay(o: &Outcome) -> String {
    crate::replay::command(&o.names.test, o.settings.seed)
}

/// The failure message: why it failed, in the one sentence every report
/// gives ([`Outcome::failure_sentence`]), what the gate found where one
/// decided, then the largest errors and the table.
pub(crate) fn failure(o: &Outcome, report: Option<&Path>) -> String {
    let mut out = String::new();
    match (&o.check, o.judgement.decided_by) {
        (Some(reason), DecidedBy::Check) => {
            let _ = writeln!(
                out,
                "dual-delta test `{}` failed its check: {reason}",
                o.names.test
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "dual-delta test `{}` failed: {}",
                o.names.test,
                o.failure_sentence().unwrap_or_default()
            );
        }
    }
    match o.judgement.decided_by {
        DecidedBy::NonFinite { .. } => {
            if let Some(first) = o.non_finite.candidate_only().first() {
                let _ = writeln!(out, "  first: {}", where_(first));
            }
            let _ = writeln!(out, "  replay: {}", replay(o));
            let _ = writeln!(
                out,
                "  (a kernel expected to overflow on edge-case inputs can accept it with \
                 `allow_non_finite = true`: it then counts as the worst possible error)"
            );
        }
        DecidedBy::GrossError { .. } | DecidedBy::Bound { .. } => {
            let _ = writeln!(out, "  replay: {}", replay(o));
        }
        _ => {}
    }
    if !o.worst_inputs.is_empty() {
        let _ = writeln!(out, "  largest errors of {}:", o.names.candidate);
        for w in &o.worst_inputs {
            let _ = writeln!(out, "    {}", w.line());
        }
    }
    out.push_str(&table(o, report));
    let _ = writeln!(out, "  to replay exactly this run: {}", replay(o));
    if let Some(trial) = o.trial_replay_sentence() {
        let _ = writeln!(out, "  {trial}");
    }
    out
}

/// The terminal's view of an outcome.
impl Outcome {
    /// `Ok` when the expectations hold, otherwise the failure message.
    pub fn result(&self) -> Result<(), String> {
        if self.passed() {
            Ok(())
        } else {
            Err(failure(self, None))
        }
    }

    /// Panics with the failure message unless the expectations hold.
    #[track_caller]
    pub fn assert(&self) {
        if let Err(message) = self.result() {
            panic!("{message}");
        }
    }

    /// The compact terminal table.
    pub fn table(&self) -> String {
        table(self, None)
    }
}
