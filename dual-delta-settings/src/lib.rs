//! The settings of a dual-delta run, written once.
//!
//! [`SETTINGS`] is the one table: for each setting its name (the field of
//! the runtime's `Overrides` and `Settings`), the `#[dual_delta_test]` key,
//! the environment variable, the builder method, the type, the default, the
//! rule a value must follow and the documentation line. The attribute
//! (`dual-delta-macros`) takes its keys and checks its values here, the
//! runtime (`dual-delta-runtime`) reads the environment and checks what the
//! builder was given with the same [`Setting::parse`], so an invalid value
//! gets the same [`Invalid`] message whichever way it came; the runtime's
//! tests check its settings record, its baseline settings and the
//! configuration chapter of its guide against this table.
//!
//! This crate has no dependencies, so that the attribute can use it at
//! compile time; depend on `dual-delta-runtime`, which re-exports what a
//! user needs.

#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

use core::fmt;

/// What a valid value of a setting is, and how its text reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number ≥ 1 (`1000`, `1_000`).
    Count,
    /// An unsigned 64-bit integer, decimal or `0x`-prefixed hexadecimal.
    Seed,
    /// A number strictly between 0 and 1.
    Probability,
    /// A finite number ≥ 0.
    NonNegative,
    /// A number > 1, or `inf`.
    AboveOne,
    /// A finite number of seconds ≥ 0 (`0`: no limit).
    Seconds,
    /// `true` or `false` (the environment also takes `1` and `0`).
    Bool,
    /// One of a few names, each with the runtime enum's variant.
    Choice(&'static [(&'static str, &'static str)]),
    /// A baseline's name: letters, digits, `.`, `_` and `-`, not starting
    /// with `.`, at most 100 characters.
    Name,
    /// A directory: any text that is not blank.
    Directory,
}

/// A value that passed its setting's rule.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A [`Kind::Count`].
    Count(usize),
    /// A [`Kind::Seed`].
    Seed(u64),
    /// A [`Kind::Probability`], [`Kind::NonNegative`], [`Kind::AboveOne`]
    /// or [`Kind::Seconds`].
    Number(f64),
    /// A [`Kind::Bool`].
    Bool(bool),
    /// A [`Kind::Choice`]: the variant of the name given.
    Variant(&'static str),
    /// A [`Kind::Name`] or a [`Kind::Directory`], trimmed.
    Text(String),
}

/// One setting: everything that is written about it, in one place.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The field of the runtime's `Overrides` and `Settings`, and its name
    /// in `summary.json`'s `settings` (`baselines.save` for a field of
    /// `Settings::baselines`).
    pub name: &'static str,
    /// The `#[dual_delta_test]` key, if the attribute takes it.
    pub key: Option<&'static str>,
    /// The environment variable, which overrides the attribute and the
    /// builder, if there is one.
    pub env: Option<&'static str>,
    /// The builder method of `DualDelta`, if there is one.
    pub builder: Option<&'static str>,
    /// The Rust type of the setting.
    pub ty: &'static str,
    /// The default, in words.
    pub default: &'static str,
    /// The rule a value follows.
    pub kind: Kind,
    /// What a valid value looks like, for error messages.
    pub expected: &'static str,
    /// Whether a saved baseline records it (and a comparison requires it
    /// to be the same).
    pub baseline: bool,
    /// Whether `summary.json`'s `settings` records it (the settings of the
    /// run itself, not where its files go).
    pub recorded: bool,
    /// What it does, in one line of Markdown.
    pub doc: &'static str,
}

/// A value that breaks its setting's rule: the same message from the
/// attribute, the builder and the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// The environment variable, or the setting's name or key.
    pub source: String,
    /// The value given, as written.
    pub value: String,
    /// What a valid value looks like.
    pub expected: &'static str,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {}={:?}: expected {}",
            self.source, self.value, self.expected
        )
    }
}

impl std::error::Error for Invalid {}

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

/// The setting called `name`.
///
/// # Panics
///
/// If no setting is called `name` (a misspelt name in the code).
pub fn setting(name: &str) -> &'static Setting {
    SETTINGS
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no setting is called `{name}`"))
}

/// The setting whose attribute key is `key`, if any.
pub fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == Some(key))
}

impl Setting {
    /// The environment variable of a setting that has one.
    ///
    /// # Panics
    ///
    /// If it has none (a setting read from the environment by mistake).
    pub fn env_var(&self) -> &'static str {
        self.env
            .unwrap_or_else(|| panic!("`{}` has no environment variable", self.name))
    }

    /// Reads `text` by this setting's rule; `source` names where it came
    /// from in the error (the variable, the key or the setting).
    ///
    /// # Errors
    ///
    /// When `text` breaks the rule: [`Invalid`], whose message names
    /// `source`, quotes `text` and says what [`Setting::expected`] is.
    pub fn parse(&self, source: &str, text: &str) -> Result<Value, Invalid> {
        self.read(text.trim()).ok_or_else(|| Invalid {
            source: source.to_owned(),
            value: text.to_owned(),
            expected: self.expected,
        })
    }

    fn read(&self, t: &str) -> Option<Value> {
        let number = |ok: fn(f64) -> bool| t.parse::<f64>().ok().filter(|&x| ok(x));
        match self.kind {
            Kind::Count => t
                .replace('_', "")
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .map(Value::Count),
            Kind::Seed => parse_seed(t).map(Value::Seed),
            Kind::Probability => number(|a| a > 0.0 && a < 1.0).map(Value::Number),
            Kind::NonNegative | Kind::Seconds => {
                number(|m| m.is_finite() && m >= 0.0).map(Value::Number)
            }
            Kind::AboveOne => number(|g| g > 1.0).map(Value::Number),
            Kind::Bool => match t {
                "0" | "false" => Some(Value::Bool(false)),
                "1" | "true" => Some(Value::Bool(true)),
                _ => None,
            },
            Kind::Choice(choices) => choices
                .iter()
                .find(|(name, _)| *name == t)
                .map(|(_, variant)| Value::Variant(variant)),
            Kind::Name => valid_name(t).then(|| Value::Text(t.to_owned())),
            Kind::Directory => (!t.is_empty()).then(|| Value::Text(t.to_owned())),
        }
    }
}

impl Value {
    /// The count of a [`Kind::Count`].
    ///
    /// # Panics
    ///
    /// For any other value (a setting read by the wrong rule).
    pub fn count(&self) -> usize {
        match self {
            Value::Count(n) => *n,
            _ => panic!("{self:?} is not a count"),
        }
    }

    /// The number of a numeric kind.
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn number(&self) -> f64 {
        match self {
            Value::Number(x) => *x,
            _ => panic!("{self:?} is not a number"),
        }
    }

    /// The truth of a [`Kind::Bool`].
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn bool(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            _ => panic!("{self:?} is not true or false"),
        }
    }

    /// The text of a [`Kind::Name`] or [`Kind::Directory`].
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn text(self) -> String {
        match self {
            Value::Text(t) => t,
            _ => panic!("{self:?} is not text"),
        }
    }
}

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

/// A seed as printed by reports: decimal or `0x`-prefixed hexadecimal,
/// `_` allowed between digits.
pub fn parse_seed(v: &str) -> Option<u64> {
    let v = v.trim().replace('_', "");
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// A baseline name: a file name of letters, digits, `.`, `_` and `-`, not
/// starting with `.`.
fn valid_name(v: &str) -> bool {
    !v.is_empty()
        && !v.starts_with('.')
        && v.len() <= 100
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keys_variables_and_methods_are_unique() {
        for column in [
            |s: &Setting| Some(s.name),
            |s: &Setting| s.key,
            |s: &Setting| s.env,
        ] {
            let mut seen: Vec<&str> = SETTINGS.iter().filter_map(column).collect();
            let all = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), all);
        }
    }

    #[test]
    fn each_rule_reads_its_values_and_refuses_the_rest() {
        let ok = |name: &str, t: &str| setting(name).parse(name, t).unwrap();
        assert_eq!(ok("n", "1_000"), Value::Count(1000));
        assert_eq!(ok("seed", "0x2a"), Value::Seed(42));
        assert_eq!(ok("gross_factor", "inf"), Value::Number(f64::INFINITY));
        assert_eq!(ok("stop_early", "0"), Value::Bool(false));
        assert_eq!(ok("test", "t"), Value::Variant("PairedT"));
        for (name, bad) in [
            ("n", "0"),
            ("alpha", "1"),
            ("alpha", "NaN"),
            ("margin", "inf"),
            ("gross_factor", "1"),
            ("gross_factor", "NaN"),
            ("baselines.save", "../x"),
            ("baselines.dir", " "),
        ] {
            let e = setting(name).parse(name, bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid {name}={bad:?}: expected {}",
                    setting(name).expected
                )
            );
        }
    }
}
