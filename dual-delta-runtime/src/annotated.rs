//! Running an annotated test: what the code `#[dual_delta_test]` generates
//! calls, through `__private`. It resolves the settings, runs the trials,
//! prints the table, writes the report and the CI summary row, and panics
//! with the failure message unless the expectations hold.

use crate::config::Overrides;
use crate::harness::DualDelta;
use crate::outcome::{Names, Outcome};
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
    let outcome = match run.run() {
        Ok(o) => o,
        Err(crate::error::RunError::Skipped { role, reason }) => {
            eprintln!("dual-delta test `{test}` skipped by the {role}: {reason}");
            // Counted, never hidden: the suite summary lists it.
            let written = crate::config::report_root()
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
                .and_then(|root| {
                    crate::report::write_skipped(&root, &test, &role.to_string(), &reason)
                });
            if let Err(e) = written {
                warn(&format!(
                    "warning: dual-delta test `{test}`: skip not recorded: {e}"
                ));
            }
            return;
        }
        Err(e) => {
            // A failure of the test, recorded as one: the suite, `list`
            // and the index count it.
            // The seed the run used: from the trial the error names, else
            // from the settings (resolved again only here, on the way out).
            let seed = e
                .trial()
                .map(|t| t.base_seed)
                .or_else(|| run.settings().ok().map(|s| s.seed))
                .unwrap_or_else(|| crate::rng::seed_from_name(&test));
            let replay = crate::replay::command(&test, seed);
            let record = record_stopped(&test, &e.to_string(), &replay)
                .map_or_else(String::new, |p| format!("\n  record: {}", p.display()));
            panic!(
                "dual-delta test `{test}` ({}:{}) could not run: {e}\n  replay: {replay}{record}",
                id.file, id.line
            )
        }
    };
    // The check is part of the verdict: decided before any report.
    let verdict = check(&outcome);
    let outcome = outcome.with_check(verdict);
    let report = crate::report::write(&outcome);
    let report_path = report.as_ref().ok().map(|p| p.as_path());
    let why = report.as_ref().err().map(ToString::to_string);
    let mut unwritten = String::new();
    if let Some(why) = &why {
        // A report that cannot be written never fails the test (the
        // verdict stands), but is never silent: a warning goes straight to
        // the terminal, past the test harness's capture, and a line to the
        // step summary.
        unwritten = format!("  (report not written: {why})\n");
        warn(&format!(
            "warning: dual-delta test `{}`: report not written: {why}",
            outcome.names.test
        ));
    }
    let at = match (&report_path, &why) {
        (Some(p), _) => Ok(*p),
        (None, why) => Err(why.as_deref().unwrap_or("unknown error")),
    };
    if let Err(e) = crate::report::step_summary::append_from_env(&outcome, at) {
        let line = format!(
            "  (row not added to {}: {e})\n",
            crate::config::ENV_STEP_SUMMARY
        );
        warn(&format!(
            "warning: dual-delta test `{}`:{line}",
            outcome.names.test
        ));
        unwritten.push_str(&line);
    }
    if !outcome.passed() {
        let message = crate::report::terminal::failure(&outcome, report_path);
        panic!("{message}{unwritten}");
    }
    println!("{}", crate::report::terminal::table(&outcome, report_path));
}

/// Records under the report root that `test` could not finish; a record
/// that cannot be written is a warning, never silent.
fn record_stopped(test: &str, reason: &str, replay: &str) -> Option<std::path::PathBuf> {
    let written = crate::config::report_root()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        .and_then(|root| crate::report::write_stopped(&root, test, reason, replay));
    match written {
        Ok(path) => Some(path),
        Err(e) => {
            warn(&format!(
                "warning: dual-delta test `{test}`: its stop not recorded: {e}"
            ));
            None
        }
    }
}

/// Writes `line` to the process's standard error directly: past the test
/// harness's output capture, so that a passing test's warning is seen.
fn warn(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
