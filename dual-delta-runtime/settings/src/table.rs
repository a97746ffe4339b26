//! The one table: every setting, in the order the documentation lists
//! them, and the table as Markdown.

use super::{Kind, Setting};

/// `expect` and `stability`: the names and the runtime's `Expect` variants.
pub const EXPECTATIONS: &[(&str, &str)] = &[
    ("no_worse", "NoWorse"),
    ("equivalent", "Equivalent"),
    ("better", "Better"),
    ("worse", "Worse"),
];

/// `test`: the names and the runtime's `AccuracyTest` variants.
pub const TESTS: &[(&str, &str)] = &[("wilcoxon", "Wilcoxon"), ("sign", "Sign"), ("t", "PairedT")];

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

const EXPECTATION: &str = "one of `no_worse`, `equivalent`, `better`, `worse`";
const BOOL: &str = "`true` or `1`, `false` or `0`";

/// Every setting, in the order the documentation lists them.
pub const SETTINGS: &[Setting] = &[
    Setting {
        name: "n",
        key: Some("n"),
        env: Some("DUAL_DELTA_N"),
        builder: Some("n"),
        ty: "usize",
        default: "`1000`",
        kind: Kind::Count,
        expected: "a whole number of trials, at least 1",
        baseline: true,
        recorded: true,
        doc: "number of inputs, the most a run takes (large enough to fail at α: ≥ 8 at 0.01)",
    },
    Setting {
        name: "seed",
        key: Some("seed"),
        env: Some("DUAL_DELTA_SEED"),
        builder: Some("seed"),
        ty: "u64",
        default: "derived from the test's name",
        kind: Kind::Seed,
        expected: "an unsigned 64-bit integer (decimal or 0x-hex), or `random` in the environment",
        baseline: true,
        recorded: true,
        doc: "base seed, decimal or `0x` hex (the one a failure prints replays it); \
              `DUAL_DELTA_SEED=random` draws a fresh one",
    },
    Setting {
        name: "alpha",
        key: Some("alpha"),
        env: Some("DUAL_DELTA_ALPHA"),
        builder: Some("alpha"),
        ty: "f64",
        default: "`0.01`",
        kind: Kind::Probability,
        expected: "a number strictly between 0 and 1",
        baseline: true,
        recorded: true,
        doc: "significance level α",
    },
    Setting {
        name: "metric",
        key: Some("metric"),
        env: None,
        builder: Some("metric"),
        ty: "Metric",
        default: "`max_hybrid`",
        kind: Kind::Choice(METRICS),
        expected: "a built-in metric's name (`max_hybrid`, `mean_hybrid`, `norm_relative`, \
                   `max_absolute`, `max_relative`, `max_ulp`) or a function \
                   `Fn(&[f64], &[f64]) -> f64`",
        baseline: true,
        recorded: true,
        doc: "the error metric, also the unit of every error in the report",
    },
    Setting {
        name: "expect",
        key: Some("expect"),
        env: None,
        builder: Some("expect"),
        ty: "Expect",
        default: "`no_worse`",
        kind: Kind::Choice(EXPECTATIONS),
        expected: EXPECTATION,
        baseline: true,
        recorded: true,
        doc: "the accuracy expectation that decides pass or fail",
    },
    Setting {
        name: "test",
        key: Some("test"),
        env: None,
        builder: Some("test"),
        ty: "AccuracyTest",
        default: "`wilcoxon`",
        kind: Kind::Choice(TESTS),
        expected: "one of `wilcoxon`, `sign`, `t`",
        baseline: false,
        recorded: true,
        doc: "the paired test deciding accuracy at fixed N (`t`: the paired t-test)",
    },
    Setting {
        name: "margin",
        key: Some("margin"),
        env: None,
        builder: Some("margin"),
        ty: "f64",
        default: "`0.05`",
        kind: Kind::NonNegative,
        expected: "a finite number >= 0",
        baseline: true,
        recorded: true,
        doc: "non-inferiority margin δ, for the early decision and the fixed-N test alike \
              (`0`: the paper's test)",
    },
    Setting {
        name: "stability",
        key: Some("stability"),
        env: None,
        builder: Some("stability"),
        ty: "Option<Expect>",
        default: "not checked",
        kind: Kind::Choice(EXPECTATIONS),
        expected: EXPECTATION,
        baseline: false,
        recorded: true,
        doc: "the stability expectation, if any",
    },
    Setting {
        name: "threads",
        key: Some("threads"),
        env: Some("DUAL_DELTA_THREADS"),
        builder: Some("threads"),
        ty: "Option<usize>",
        default: "all cores",
        kind: Kind::Count,
        expected: "a whole number of threads, at least 1",
        baseline: false,
        recorded: true,
        doc: "threads running trials (`1`: serially; results are the same)",
    },
    Setting {
        name: "allow_non_finite",
        key: Some("allow_non_finite"),
        env: None,
        builder: Some("allow_non_finite"),
        ty: "bool",
        default: "`false`: such a trial fails the test",
        kind: Kind::Bool,
        expected: BOOL,
        baseline: false,
        recorded: true,
        doc: "`true` accepts a candidate's NaN or infinity where the baseline and the oracle \
              are finite",
    },
    Setting {
        name: "stop_early",
        key: Some("stop_early"),
        env: Some("DUAL_DELTA_STOP_EARLY"),
        builder: Some("stop_early"),
        ty: "bool",
        default: "`true`",
        kind: Kind::Bool,
        expected: BOOL,
        baseline: false,
        recorded: true,
        doc: "`false` runs every input as a full trial; `true` skips the oracle on ties and \
              stops as soon as the sequential test decides",
    },
    Setting {
        name: "screen",
        key: Some("screen"),
        env: Some("DUAL_DELTA_SCREEN"),
        builder: Some("screen"),
        ty: "bool",
        default: "`true`: a pass covers every input",
        kind: Kind::Bool,
        expected: BOOL,
        baseline: false,
        recorded: true,
        doc: "`false`: the quick mode, an early pass after `k` trials is final (rare events on \
              the other inputs unchecked, and said so)",
    },
    Setting {
        name: "gross_factor",
        key: Some("gross_factor"),
        env: None,
        builder: Some("gross_factor"),
        ty: "f64",
        default: "`100`",
        kind: Kind::AboveOne,
        expected: "a number > 1, or inf to turn the gross-error gate off",
        baseline: false,
        recorded: true,
        doc: "the gross-error gate's factor G: a candidate's error above G × the baseline's \
              fails the run (`inf`: no gate)",
    },
    Setting {
        name: "batch_size",
        key: Some("batch"),
        env: None,
        builder: Some("batch_size"),
        ty: "usize",
        default: "`32` (batched candidates only)",
        kind: Kind::Count,
        expected: "a whole number of trials per call, at least 1",
        baseline: false,
        recorded: false,
        doc: "the most trials a batched candidate receives per call",
    },
    Setting {
        name: "trial_timeout",
        key: None,
        env: Some("DUAL_DELTA_TRIAL_TIMEOUT"),
        builder: Some("trial_timeout"),
        ty: "Option<Duration>",
        default: "`300` s",
        kind: Kind::Seconds,
        expected: "a number of seconds > 0, or 0 to turn the limit off",
        baseline: false,
        recorded: true,
        doc: "seconds one call of a test's functions may run before the process ends naming \
              the trial and its replay (`0`: no limit)",
    },
    Setting {
        name: "progress",
        key: None,
        env: Some("DUAL_DELTA_PROGRESS"),
        builder: None,
        ty: "bool",
        default: "shown on a terminal outside CI",
        kind: Kind::Bool,
        expected: BOOL,
        baseline: false,
        recorded: false,
        doc: "`0` hides the progress line, `1` shows it even in CI (`CI` set and not empty); \
              it is only ever drawn on a terminal",
    },
    Setting {
        name: "baselines.save",
        key: None,
        env: Some("DUAL_DELTA_SAVE_BASELINE"),
        builder: Some("baselines"),
        ty: "Option<String>",
        default: "none",
        kind: Kind::Name,
        expected: "a baseline name of letters, digits, `.`, `_` and `-`, such as `main`",
        baseline: false,
        recorded: false,
        doc: "save each run's errors as the baseline of this name",
    },
    Setting {
        name: "baselines.compare",
        key: None,
        env: Some("DUAL_DELTA_BASELINE"),
        builder: Some("baselines"),
        ty: "Option<String>",
        default: "none",
        kind: Kind::Name,
        expected: "a baseline name of letters, digits, `.`, `_` and `-`, such as `main`",
        baseline: false,
        recorded: false,
        doc: "compare each run with the baseline of this name, paired by seed",
    },
    Setting {
        name: "baselines.dir",
        key: None,
        env: Some("DUAL_DELTA_BASELINE_DIR"),
        builder: Some("baselines"),
        ty: "Option<PathBuf>",
        default: "`baselines/` under the report directory",
        kind: Kind::Directory,
        expected: "a directory for the baselines (unset it for the default)",
        baseline: false,
        recorded: false,
        doc: "where baselines are kept",
    },
    Setting {
        name: "baselines.any_device",
        key: None,
        env: Some("DUAL_DELTA_BASELINE_ANY_DEVICE"),
        builder: Some("baselines"),
        ty: "bool",
        default: "`false`",
        kind: Kind::Bool,
        expected: BOOL,
        baseline: false,
        recorded: false,
        doc: "`1` compares with a baseline saved on another device",
    },
];

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
