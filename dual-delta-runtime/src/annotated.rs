//! Running an annotated test: what the code `#[dual_delta_test]` generates
//! calls, through `__private`. It resolves the settings, runs the trials,
//! prints the table, writes the report and the CI summary row, and panics
//! with the failure message unless the expectations hold.

use crate::config::Overrides;
use crate::ended::Ended;
use crate::harness::DualDelta;
use crate::outcome::{Names, Outcome};
use crate::report::publish;
use crate::rng::TrialRng;

/// The input generator of a test whose candidate takes `&I`: returns it
/// unchanged, so that a generator of another type is reported at the
/// generator (`input = ...`).
///
/// It returns an opaque type, so that a mistake is reported here once
/// and not again where the run is called.
pub fn input_of<I, G>(input: G) -> impl Fn(&mut TrialRng) -> I + Sync
where
    G: Fn(&mut TrialRng) -> I + Sync,
{
    input
}

/// The oracle of a test whose candidate takes `&I`: returns it unchanged,
/// so that an oracle taking another input, or other parameters, is
/// reported at its expression, "required by a bound in `oracle_of`".
pub fn oracle_of<I, F, O>(oracle: F) -> impl Fn(&I) -> O + Sync
where
    F: Fn(&I) -> O + Sync,
{
    oracle
}

/// The baseline of a test whose candidate takes `&I`: as [`oracle_of`],
/// "required by a bound in `baseline_of`".
pub fn baseline_of<I, F, O>(baseline: F) -> impl Fn(&I) -> O + Sync
where
    F: Fn(&I) -> O + Sync,
{
    baseline
}

/// The check of a test without `check = ...`: always passes.
pub fn no_check(_: &Outcome) -> Result<(), String> {
    Ok(())
}

/// Where an annotated test is and what it calls.
#[derive(Debug)]
pub struct TestIdentity {
    /// `module_path!()` at the test: for a case, inside the module named
    /// after the function.
    pub module_path: &'static str,
    /// The annotated function's name.
    pub function: &'static str,
    /// The case's name (`len_1024`), for one of a function's `#[case]`s.
    pub case: Option<&'static str>,
    /// The baseline expression as written.
    pub baseline: &'static str,
    /// The oracle expression as written.
    pub oracle: &'static str,
    /// The input expression as written.
    pub input: &'static str,
    /// `file!()`.
    pub file: &'static str,
    /// `line!()`.
    pub line: u32,
    /// The cargo target the test is compiled in.
    pub cargo: crate::replay::CargoTarget,
}

/// Runs an annotated test: resolves the settings (env over attribute
/// over defaults), runs the trials, prints the table, writes the report,
/// and panics with the failure message unless the expectations hold.
#[track_caller]
pub fn run_test<I: Send + Sync>(
    id: TestIdentity,
    overrides: Overrides,
    run: DualDelta<'_, I>,
    check: impl FnOnce(&Outcome) -> Result<(), String>,
) {
    // The test's path: `module::function`, or `module::function::case`.
    let test = format!("{}::{}", id.module_path, id.case.unwrap_or(id.function));
    crate::replay::register_annotated(&test, &id.cargo, id.file);
    // A call past its time limit ends the process: recorded first, so that
    // the suite counts the test.
    crate::guard::on_hang(record_stopped);
    // A report directory set but invalid (`DUAL_DELTA_HOME=""`) is an error
    // of the run, before any trial: never ignored.
    if let Err(e) = crate::config::report_root() {
        panic!(
            "dual-delta test `{test}` ({}:{}) could not run: {e}",
            id.file, id.line
        );
    }
    let names = Names {
        test: test.clone(),
        candidate: id.function.to_owned(),
        baseline: id.baseline.to_owned(),
        oracle: id.oracle.to_owned(),
        input: id.input.to_owned(),
    };
    let run = run.names(names).overrides(overrides);
    // One trial run again on its own, for a closer look: no verdict.
    match crate::config::Process::from_env() {
        Ok(crate::config::Process {
            trial: Some(seed), ..
        }) => match run.replay_trial(seed) {
            Ok(t) => panic!(
                "dual-delta test `{test}`: {}(DUAL_DELTA_TRIAL runs one trial and gives no \
                 verdict: unset it to run the test)",
                t.text()
            ),
            Err(e) => panic!("dual-delta test `{test}`: trial {seed:#018x} could not run: {e}"),
        },
        Ok(_) => {}
        Err(e) => panic!(
            "dual-delta test `{test}` ({}:{}) could not run: {e}",
            id.file, id.line
        ),
    }
    // How the run ended: an outcome, with the test's own check applied
    // to its judgement before any report; a skip (counted, never hidden); or a run
    // that could not finish (a failure of the test, recorded as one).
    let ended = match run.end() {
        Ended::Ran(outcome) => {
            let verdict = check(&outcome);
            Ended::Ran(Box::new(outcome.with_check(verdict)))
        }
        Ended::Stopped(mut stopped) => {
            stopped.place = Some(format!("{}:{}", id.file, id.line));
            Ended::Stopped(stopped)
        }
        skipped => skipped,
    };
    let published = publish(&ended);
    if !published.passed {
        panic!("{}", published.text);
    }
    if matches!(ended, Ended::Skipped(_)) {
        eprint!("{}", published.text);
    } else {
        println!("{}", published.text);
    }
}

/// Records under the report root that `test` could not finish (what the
/// watchdog calls before it ends the process); the record's path, where
/// one was written.
fn record_stopped(test: &str, reason: &str, replay: &str) -> Option<std::path::PathBuf> {
    publish(&Ended::stopped(test, reason, replay)).at.ok()
}
