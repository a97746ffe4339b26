//! The one table: every setting, once, in the order the documentation
//! lists them; [`SETTINGS`] and its Markdown are expanded from it, and so
//! are the runtime's `Overrides`, `Settings`, `Process` and builder
//! setters.

use super::Setting;

/// `expect` and `stability`: the names and the runtime's `Expect` variants.
pub const EXPECTATIONS: &[(&str, &str)] = &[
    ("no_worse", "NoWorse"),
    ("equivalent", "Equivalent"),
    ("better", "Better"),
    ("worse", "Worse"),
];

/// `test`: the names and the runtime's `AccuracyTest` variants.
pub const TESTS: &[(&str, &str)] = &[("wilcoxon", "Wilcoxon"), ("sign", "Sign"), ("t", "PairedT")];

/// `rule`: the names and the runtime's `Rule` variants.
pub const RULES: &[(&str, &str)] = &[("claim", "Claim"), ("paper", "Paper")];

/// `metric`: the built-in metrics' names and the runtime's `Metric`
/// variants (the attribute and the builder also take a function).
pub const METRICS: &[(&str, &str)] = &[
    ("max_hybrid", "MaxHybrid"),
    ("mean_hybrid", "MeanHybrid"),
    ("norm_relative", "NormRelative"),
    ("max_absolute", "MaxAbsolute"),
    ("max_relative", "MaxRelative"),
    ("max_ulp", "MaxUlp"),
];

/// What `expect` and `stability` take, for error messages.
pub const EXPECTATION: &str = "one of `no_worse`, `equivalent`, `better`, `worse`";
/// What a `bool` setting takes, for error messages.
pub const BOOL: &str = "`true` or `1`, `false` or `0`";
/// What a baseline's name may be, for error messages.
pub const NAME: &str = "a baseline name of letters, digits, `.`, `_` and `-`, such as `main`";

/// Every setting, once: calls `$then!` with the table, in three groups.
///
/// - `run`: a test's own settings. The runtime's `Overrides` (what the
///   attribute or the builder gives), `Settings` (resolved) and the
///   builder's setters are expanded from these rows: one field each, of
///   the row's type, with the row's documentation.
/// - `candidate`: a property of the candidate (set on it, not resolved).
/// - `process`: the process's configuration, read from the environment
///   only (the runtime's `Process`).
///
/// A row reads `name: shape(Type) = (default) { … }`; its `key` is `true`
/// where the attribute takes the setting by its name, `false` where it does
/// not take it, or another name. The shape says how
/// the runtime resolves it: `value` (the default when nothing is given),
/// `optional` (resolved to an `Option`, `None` when nothing is given),
/// `seed` (with where it came from), `timeout` (`0` turns it off),
/// `baselines` (merged with the process's baseline variables), `env` (a
/// process setting). Types and defaults are the runtime's tokens, which
/// only the runtime resolves: this crate reads the rest.
#[macro_export]
#[doc(hidden)]
macro_rules! settings_table {
    ($then:path) => {
        $then! {
            run {
                /// The number of inputs: the most a run takes
                /// (`DUAL_DELTA_N` overrides).
                n: value(usize) = (1000) {
                    key: true, env: Some("DUAL_DELTA_N"), default: "`1000`",
                    kind: $crate::Kind::Count,
                    expected: "a whole number of trials, at least 1",
                    baseline: true, recorded: true,
                    doc: "number of inputs, the most a run takes; at least the fewest that can fail (9 under the defaults, 8 with `stop_early = false`, 7 under `rule = paper`, at α = 0.01), checked at compile time and when the test runs",
                }
                /// The base seed: trial `i` uses `trial_seed(seed, i)`
                /// (default: derived from the test's name;
                /// `DUAL_DELTA_SEED` overrides, `random` draws one).
                seed: seed(u64) = () {
                    key: true, env: Some("DUAL_DELTA_SEED"), default: "derived from the test's name",
                    kind: $crate::Kind::Seed,
                    expected: "an unsigned 64-bit integer (decimal or 0x-hex), or `random` in the environment",
                    baseline: true, recorded: true,
                    doc: "base seed, decimal or `0x` hex (the one a failure prints replays it); `DUAL_DELTA_SEED=random` draws a fresh one",
                }
                /// The significance level α (default 0.01;
                /// `DUAL_DELTA_ALPHA` overrides).
                alpha: value(f64) = (0.01) {
                    key: true, env: Some("DUAL_DELTA_ALPHA"), default: "`0.01`",
                    kind: $crate::Kind::Probability,
                    expected: "a number strictly between 0 and 1",
                    baseline: true, recorded: true, serde: (with = "crate::json_number"),
                    doc: "significance level α",
                }
                /// The error metric, also the unit of every error in the
                /// report (default [`Metric::MaxHybrid`]).
                metric: value(Metric) = (Metric::default()) {
                    key: true, env: None, default: "`max_hybrid`",
                    kind: $crate::Kind::Choice($crate::METRICS),
                    expected: "a built-in metric's name (`max_hybrid`, `mean_hybrid`, `norm_relative`, `max_absolute`, `max_relative`, `max_ulp`) or a function `Fn(&[f64], &[f64]) -> f64`",
                    baseline: true, recorded: true,
                    doc: "the error metric, also the unit of every error in the report",
                }
                /// The accuracy expectation that decides pass or fail
                /// (default [`Expect::NoWorse`]).
                expect: value(Expect) = (Expect::default()) {
                    key: true, env: None, default: "`no_worse`",
                    kind: $crate::Kind::Choice($crate::EXPECTATIONS),
                    expected: $crate::EXPECTATION,
                    baseline: true, recorded: true,
                    doc: "the accuracy expectation that decides pass or fail",
                }
                /// The one-sided paired test of accuracy at margin 0
                /// (default the Wilcoxon signed-rank test, the paper's):
                /// under the claim, (T) fails only where it and the sign
                /// test at the margin both reject; under `rule = paper`
                /// it alone decides. The paired t-test runs only where
                /// Shapiro-Wilk does not reject normality of the
                /// differences at the level of the tests over every input,
                /// else Wilcoxon in its place, and the report says so.
                test: value(AccuracyTest) = (AccuracyTest::default()) {
                    key: true, env: None, default: "`wilcoxon`",
                    kind: $crate::Kind::Choice($crate::TESTS),
                    expected: "one of `wilcoxon`, `sign`, `t`",
                    baseline: false, recorded: true,
                    doc: "the one-sided paired test at margin 0: with the sign test at the margin it decides the typical input (T); under `rule = paper` it alone decides (`t`: the paired t-test, replaced by Wilcoxon where Shapiro-Wilk rejects normality of the differences)",
                }
                /// The rule that decides accuracy (default
                /// [`Rule::Claim`]): the claim's two criteria at the
                /// margin, or (`paper`) the paper's test alone: the run
                /// fails exactly where the one-sided `test` rejects at α
                /// over every input's paired errors, with no margin, no
                /// mean criterion and no early stop (`margin` and
                /// `stop_early` may not be set to anything else, and
                /// `DUAL_DELTA_STOP_EARLY` does not apply); the gates
                /// still apply.
                rule: value(Rule) = (Rule::default()) {
                    key: true, env: None, default: "`claim`",
                    kind: $crate::Kind::Choice($crate::RULES),
                    expected: "one of `claim`, `paper`",
                    baseline: false, recorded: true,
                    doc: "`claim`: the claim's two criteria at the margin; `paper`: the paper's test alone, failing exactly where the one-sided `test` rejects at α over every input (no margin, no mean criterion, no early stop; the gates still apply)",
                }
                /// The non-inferiority margin δ ≥ 0 (default 5 %): the
                /// candidate counts as less accurate only when its errors
                /// are shown to exceed `(1 + δ)` × the baseline's. The same
                /// margin serves the early decision and the fixed-N test.
                /// `0` keeps the claim's two criteria with no margin: any
                /// significant loss in mean or on the typical input fails
                /// (the paper's test alone is `rule = paper`). A
                /// significant loss inside the margin passes and is stated
                /// in the verdict.
                margin: value(f64) = (DEFAULT_MARGIN) {
                    key: true, env: None, default: "`0.05`",
                    kind: $crate::Kind::NonNegative,
                    expected: "a finite number >= 0",
                    baseline: true, recorded: true, serde: (with = "crate::json_number"),
                    doc: "non-inferiority margin δ, for the early decision and the fixed-N test alike (`0`: the claim's two criteria with no margin; the paper's test alone is `rule = paper`)",
                }
                /// The stability expectation, if any (default: none).
                stability: optional(Expect) = () {
                    key: true, env: None, default: "not checked",
                    kind: $crate::Kind::Choice($crate::EXPECTATIONS),
                    expected: $crate::EXPECTATION,
                    baseline: false, recorded: true,
                    doc: "the stability expectation, if any",
                }
                /// The threads running trials (default: all cores;
                /// `DUAL_DELTA_THREADS` overrides); `1` for implementations
                /// that must not run concurrently. Results do not depend
                /// on it.
                threads: optional(usize) = () {
                    key: true, env: Some("DUAL_DELTA_THREADS"), default: "all cores",
                    kind: $crate::Kind::Count,
                    expected: "a whole number of threads, at least 1",
                    baseline: false, recorded: true,
                    doc: "threads running trials (`1`: serially; results are the same)",
                }
                /// Whether a candidate may return a NaN or an infinity
                /// where the baseline and the oracle are finite (default
                /// `false`: such a trial fails the run, whatever the
                /// expectation). On, such a trial only counts as the worst
                /// possible error: for kernels whose overflow on edge cases
                /// is tested separately.
                allow_non_finite: value(bool) = (false) {
                    key: true, env: None, default: "`false`: such a trial fails the test",
                    kind: $crate::Kind::Bool,
                    expected: $crate::BOOL,
                    baseline: false, recorded: true,
                    doc: "`true` accepts a candidate's NaN or infinity where the baseline and the oracle are finite",
                }
                /// Whether the run stops as soon as the anytime-valid
                /// sequential test decides (default `true`;
                /// `DUAL_DELTA_STOP_EARLY` overrides): `n` is then the most
                /// trials a run takes; it stops before `n` only at a
                /// failure (and at a pass in the quick mode, `screen =
                /// false`, or under `expect = worse`, and at the first
                /// input over a `bound`); outside the quick mode a pass
                /// covers every input (see [`crate::screen`]). `false` runs every
                /// input as a full trial and decides by the tests over
                /// every input at α. Both test the same claim at the same
                /// margin.
                stop_early: value(bool) = (true) {
                    key: true, env: Some("DUAL_DELTA_STOP_EARLY"), default: "`true`",
                    kind: $crate::Kind::Bool,
                    expected: $crate::BOOL,
                    baseline: false, recorded: true,
                    doc: "`false` runs every input as a full trial; `true` skips the oracle on ties (in the default screened mode) and stops at a failure once its e-value reaches max(10⁴, 1/α_fail), at the first input over a `bound`, and at a pass only in the quick mode or under `expect = worse`",
                }
                /// Whether an early pass waits for the screen (default
                /// `true`; `DUAL_DELTA_SCREEN` overrides): the candidate
                /// and the baseline run on every input the sequential test
                /// did not need, so that a rare NaN, panic or gross error
                /// fails the run as it would at fixed N (see
                /// [`crate::screen`]). Off, an early pass is final and the
                /// report says that rare events were not checked.
                screen: value(bool) = (true) {
                    key: true, env: Some("DUAL_DELTA_SCREEN"), default: "`true`: a pass covers every input",
                    kind: $crate::Kind::Bool,
                    expected: $crate::BOOL,
                    baseline: false, recorded: true,
                    doc: "`false`: the quick mode, an early pass after `k` trials is final (rare events on the other inputs unchecked, and said so)",
                }
                /// The gross-error gate's factor `G` (default 100, `> 1`;
                /// `f64::INFINITY` leaves only infinite errors from finite
                /// outputs): a trial on which the candidate's error exceeds
                /// `G` × the larger of the baseline's largest finite error
                /// over the run and the error one unit in the last place
                /// of the output's format makes on that input is a gross
                /// error, and gross errors too many to be chance fail the
                /// run (see [`crate::screen`]).
                gross_factor: value(f64) = (DEFAULT_GROSS_FACTOR) {
                    key: true, env: None, default: "`100`",
                    kind: $crate::Kind::AboveOne,
                    expected: "a number > 1, or inf to turn the gross-error gate off",
                    baseline: false, recorded: true, serde: (with = "crate::json_number"),
                    doc: "the gross-error gate's factor G: a candidate's error above G × the baseline's largest error over the run (or one ulp's error, if larger) is gross, and gross errors too many to be chance (p = 2^-k below the level of the tests over every input) fail the run (`inf`: only infinite errors from finite outputs)",
                }
                /// A documented error bound, in the metric's unit (ULPs
                /// under `max_ulp`; default: none): the run fails at the
                /// first input whose candidate error exceeds it, naming the
                /// input, its outputs and its seed, whatever `expect` says.
                /// Every input is then measured against the oracle, and the
                /// bound takes the gross-error gate's place (both bound the
                /// candidate's error; the bound absolutely).
                bound: optional(f64) = () {
                    key: true, env: None, default: "none",
                    kind: $crate::Kind::NonNegative,
                    expected: "a finite number >= 0, in the metric's unit",
                    baseline: false, recorded: true, serde: (default),
                    doc: "a documented error bound in the metric's unit: the first input whose candidate error exceeds it fails the run, whatever `expect` says; every input is measured, and it replaces the gross-error gate",
                }
                /// The per-trial time limit (default 300 s;
                /// `DUAL_DELTA_TRIAL_TIMEOUT` in seconds overrides;
                /// `Duration::ZERO` or `0` turns it off, resolved to
                /// `None`): a call of the candidate, the baseline, the
                /// oracle or the generator that runs longer ends the
                /// process with a message naming the trial, its seed and
                /// the command that replays it. A hung call cannot be
                /// interrupted in-process, hence the exit.
                trial_timeout: timeout(Duration) = (DEFAULT_TRIAL_TIMEOUT) {
                    key: false, env: Some("DUAL_DELTA_TRIAL_TIMEOUT"), default: "`300` s",
                    kind: $crate::Kind::Seconds,
                    expected: "a number of seconds > 0, or 0 to turn the limit off",
                    baseline: false, recorded: true, serde: (with = "crate::json_number::seconds"),
                    doc: "seconds one call of a test's functions may run before the process ends naming the trial and its replay (`0`: no limit)",
                }
                /// The baselines this run saves and compares with (see
                /// [`crate::baseline`]); each `DUAL_DELTA_*BASELINE*`
                /// variable that is set overrides its field.
                baselines: baselines(Baselines) = (Baselines::default()) {
                    key: false, env: None, default: "none",
                    kind: $crate::Kind::Composite,
                    expected: "the baselines to save and compare with",
                    baseline: false, recorded: false, serde: (skip),
                    doc: "the baselines to save and compare with; the four variables below override its fields",
                }
            }
            candidate {
                /// The most trials a batched candidate receives per call.
                batch_size: value(usize) = (32) {
                    key: "batch", env: None, default: "`32` (batched candidates only)",
                    kind: $crate::Kind::Count,
                    expected: "a whole number of trials per call, at least 1",
                    baseline: false, recorded: false,
                    doc: "the most trials a batched candidate receives per call",
                }
            }
            process {
                /// Whether the progress line may be drawn (`None`: outside
                /// CI); it is drawn only on a terminal.
                progress: env(bool) = () {
                    key: false, env: Some("DUAL_DELTA_PROGRESS"), default: "shown on a terminal outside CI",
                    kind: $crate::Kind::Bool,
                    expected: $crate::BOOL,
                    baseline: false, recorded: false,
                    doc: "`0` hides the progress line, `1` shows it even in CI (`CI` set and not empty); it is only ever drawn on a terminal",
                }
                /// Save each run as the baseline of this name.
                save_baseline: env(String) = () {
                    key: false, env: Some("DUAL_DELTA_SAVE_BASELINE"), default: "none",
                    kind: $crate::Kind::Name,
                    expected: $crate::NAME,
                    baseline: false, recorded: false,
                    doc: "save each run's errors as the baseline of this name",
                }
                /// Compare each run with the baseline of this name.
                compare_baseline: env(String) = () {
                    key: false, env: Some("DUAL_DELTA_BASELINE"), default: "none",
                    kind: $crate::Kind::Name,
                    expected: $crate::NAME,
                    baseline: false, recorded: false,
                    doc: "compare each run with the baseline of this name, paired by seed",
                }
                /// Where baselines are kept.
                baseline_dir: env(PathBuf) = () {
                    key: false, env: Some("DUAL_DELTA_BASELINE_DIR"), default: "`baselines/` under the report directory",
                    kind: $crate::Kind::Directory,
                    expected: "a directory for the baselines (unset it for the default)",
                    baseline: false, recorded: false,
                    doc: "where baselines are kept",
                }
                /// Run only the trial of this seed, and print its input and
                /// outputs in full (no verdict: the test fails saying so).
                trial: env(u64) = () {
                    key: false, env: Some("DUAL_DELTA_TRIAL"), default: "none",
                    kind: $crate::Kind::Seed,
                    expected: "a trial seed as a report prints it (`0x` and 16 hexadecimal digits)",
                    baseline: false, recorded: false,
                    doc: "run only the trial of this seed, printing its input and the three outputs in full; the test then fails, saying it gave no verdict",
                }
                /// Compare with a baseline saved on another device.
                baseline_any_device: env(bool) = () {
                    key: false, env: Some("DUAL_DELTA_BASELINE_ANY_DEVICE"), default: "`false`",
                    kind: $crate::Kind::Bool,
                    expected: $crate::BOOL,
                    baseline: false, recorded: false,
                    doc: "`1` compares with a baseline saved on another device",
                }
            }
        }
    };
}

/// The table's rows as [`Setting`]s, in its order.
macro_rules! rows {
    ($(
        $group:ident {
            $(
                $(#[doc = $rustdoc:literal])*
                $name:ident: $shape:ident($given:ty) = ($($init:tt)*) {
                    key: $key:tt, env: $env:expr, default: $default:expr,
                    kind: $kind:expr, expected: $expected:expr,
                    baseline: $baseline:expr, recorded: $recorded:expr,
                    $(serde: ($($serde:tt)*),)?
                    doc: $doc:expr $(,)?
                }
            )*
        }
    )*) => {
        /// Every setting, in the order the documentation lists them.
        pub const SETTINGS: &[Setting] = &[$($(
            Setting {
                name: stringify!($name),
                key: key!($key, $name),
                env: $env,
                builder: builder(stringify!($group), stringify!($name)),
                ty: ty!($shape $given),
                default: $default,
                kind: $kind,
                expected: $expected,
                baseline: $baseline,
                recorded: $recorded,
                doc: $doc,
            },
        )*)*];
    };
}

/// A row's attribute key: its name (`true`), none (`false`) or another.
macro_rules! key {
    (true, $name:ident) => {
        Some(stringify!($name))
    };
    (false, $name:ident) => {
        None
    };
    ($key:literal, $name:ident) => {
        Some($key)
    };
}

/// The type a row resolves to, as the documentation writes it.
macro_rules! ty {
    (optional $given:ty) => {
        concat!("Option<", stringify!($given), ">")
    };
    (timeout $given:ty) => {
        concat!("Option<", stringify!($given), ">")
    };
    ($shape:ident $given:ty) => {
        stringify!($given)
    };
}

/// The builder method of a row: a test's settings and the candidate's have
/// one, named after them; the process's have none.
const fn builder(group: &'static str, name: &'static str) -> Option<&'static str> {
    match group.as_bytes() {
        b"process" => None,
        _ => Some(name),
    }
}

crate::settings_table!(rows);

/// [`SETTINGS`] as a Markdown table, one row per setting: the table of the
/// runtime guide's configuration chapter, which a test keeps equal to this.
pub fn markdown_table() -> String {
    let code = |v: Option<&str>| v.map_or_else(|| "—".to_owned(), |v| format!("`{v}`"));
    let mut out = String::from(
        "| setting | attribute key | environment variable | builder method | type | default | what it does |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for s in SETTINGS {
        out += &format!(
            "| `{}` | {} | {} | {} | `{}` | {} | {} |\n",
            s.name,
            code(s.key),
            code(s.env),
            code(s.builder.map(|b| format!(".{b}(..)")).as_deref()),
            s.ty,
            s.default,
            s.doc,
        );
    }
    out
}
