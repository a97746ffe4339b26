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
//! [`gpu::VARIABLES`] is the GPU crate's (`dual-delta-gpu`): the variables
//! that choose its device, read by the same rules ([`Kind`]), so that an
//! invalid value gets the same message there too.
//!
//! This crate has no dependencies, so that the attribute can use it at
//! compile time; depend on `dual-delta-runtime`, which re-exports what a
//! user needs.

#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

use core::fmt;

mod attribute;
pub mod gpu;
pub mod levels;
mod table;

pub use self::attribute::{CLAIM, FUNCTION_KEYS, LAST_KEYS, attribute_table};
pub use self::table::{
    BOOL, EXPECTATION, EXPECTATIONS, METRICS, NAME, RULES, SETTINGS, TESTS, markdown_table,
};

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
    /// One of a few names, each with its enum's variant.
    Choice(&'static [(&'static str, &'static str)]),
    /// Names of a list, separated by commas, each with its variant (empty
    /// items ignored).
    List(&'static [(&'static str, &'static str)]),
    /// A baseline's name: letters, digits, `.`, `_` and `-`, not starting
    /// with `.`, at most 100 characters.
    Name,
    /// A directory: any text that is not blank.
    Directory,
    /// A name to look for: any text that is not blank.
    Text,
    /// A value only the builder gives, a whole struct: it has no text.
    Composite,
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
    /// A [`Kind::List`]: the variants of the names given, in their order.
    List(Vec<&'static str>),
    /// A [`Kind::Name`], a [`Kind::Directory`] or a [`Kind::Text`],
    /// trimmed.
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
        self.kind.read(text.trim()).ok_or_else(|| Invalid {
            source: source.to_owned(),
            value: text.to_owned(),
            expected: self.expected,
        })
    }

    /// Checks a typed value, given by the builder or the attribute, by the
    /// same rule as [`Setting::parse`] reads text, with the same message.
    ///
    /// # Errors
    ///
    /// When `value` breaks the rule: [`Invalid`], quoting `value` as
    /// written by [`Value`]'s `Display`.
    pub fn check(&self, source: &str, value: &Value) -> Result<(), Invalid> {
        if self.kind.valid(value) {
            Ok(())
        } else {
            Err(Invalid {
                source: source.to_owned(),
                value: value.to_string(),
                expected: self.expected,
            })
        }
    }
}

impl Kind {
    /// The value `t` (trimmed) is by this rule, if it follows it.
    fn read(self, t: &str) -> Option<Value> {
        let value = match self {
            Kind::Count => t.replace('_', "").parse::<usize>().ok().map(Value::Count),
            Kind::Seed => parse_seed(t).map(Value::Seed),
            Kind::Probability | Kind::NonNegative | Kind::Seconds | Kind::AboveOne => {
                t.parse::<f64>().ok().map(Value::Number)
            }
            Kind::Bool => match t {
                "0" | "false" => Some(Value::Bool(false)),
                "1" | "true" => Some(Value::Bool(true)),
                _ => None,
            },
            Kind::Choice(choices) => variant(choices, t).map(Value::Variant),
            Kind::List(choices) => t
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(|name| variant(choices, name))
                .collect::<Option<_>>()
                .map(Value::List),
            Kind::Name | Kind::Directory | Kind::Text => Some(Value::Text(t.to_owned())),
            Kind::Composite => None,
        };
        value.filter(|v| self.valid(v))
    }

    /// Whether `value` follows this rule.
    fn valid(self, value: &Value) -> bool {
        match (self, value) {
            (Kind::Count, Value::Count(n)) => *n >= 1,
            (Kind::Seed, Value::Seed(_)) | (Kind::Bool, Value::Bool(_)) => true,
            (Kind::Probability, Value::Number(a)) => *a > 0.0 && *a < 1.0,
            (Kind::NonNegative | Kind::Seconds, Value::Number(m)) => m.is_finite() && *m >= 0.0,
            (Kind::AboveOne, Value::Number(g)) => *g > 1.0,
            (Kind::Choice(choices), Value::Variant(v)) => choices.iter().any(|(_, c)| c == v),
            (Kind::List(choices), Value::List(vs)) => {
                vs.iter().all(|v| choices.iter().any(|(_, c)| c == v))
            }
            (Kind::Name, Value::Text(t)) => valid_name(t),
            (Kind::Directory | Kind::Text, Value::Text(t)) => !t.trim().is_empty(),
            _ => false,
        }
    }
}

/// The variant of `name` among `choices`.
fn variant(choices: &[(&'static str, &'static str)], name: &str) -> Option<&'static str> {
    choices
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, variant)| *variant)
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

    /// The seed of a [`Kind::Seed`].
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn unsigned(&self) -> u64 {
        match self {
            Value::Seed(s) => *s,
            _ => panic!("{self:?} is not a seed"),
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

    /// The variant of a [`Kind::Choice`].
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn variant(&self) -> &'static str {
        match self {
            Value::Variant(v) => v,
            _ => panic!("{self:?} is not a choice"),
        }
    }

    /// The variants of a [`Kind::List`].
    ///
    /// # Panics
    ///
    /// For any other value.
    pub fn list(&self) -> &[&'static str] {
        match self {
            Value::List(vs) => vs,
            _ => panic!("{self:?} is not a list"),
        }
    }

    /// The text of a [`Kind::Name`], [`Kind::Directory`] or [`Kind::Text`].
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

impl fmt::Display for Value {
    /// The value as a user writes it: the builder's value in an error
    /// message reads as the same value in the environment would.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Seed(s) => write!(f, "{s}"),
            Value::Number(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Variant(v) => write!(f, "{v}"),
            Value::List(vs) => write!(f, "{}", vs.join(",")),
            Value::Text(t) => write!(f, "{t}"),
        }
    }
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
            ("save_baseline", "../x"),
            ("baseline_dir", " "),
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
