//! Checks the attribute's arguments and the candidate's signature.
//!
//! Every mistake becomes a `syn::Error` spanned at the offending token, and
//! all of them are collected, so that one compilation reports everything.

use proc_macro2::{Literal, Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, LitInt, Path, ReturnType, Safety, Type};

use crate::parse::Arg;

mod signature;
mod values;

pub(crate) use self::signature::candidate;
use self::values::*;

/// Every key, in the order the documentation lists them.
pub(crate) const KEYS: [&str; 19] = [
    "oracle",
    "baseline",
    "input",
    "n",
    "seed",
    "alpha",
    "metric",
    "expect",
    "test",
    "margin",
    "stability",
    "threads",
    "allow_non_finite",
    "stop_early",
    "screen",
    "gross_factor",
    "batch",
    "check",
    "crate",
];

/// The required keys and what each one is, for "missing key" errors.
const REQUIRED: [(&str, &str); 3] = [
    (
        "oracle",
        "the high-precision reference, a function `Fn(&I) -> O`",
    ),
    (
        "baseline",
        "the implementation the candidate is compared with, a function `Fn(&I) -> O`",
    ),
    (
        "input",
        "the input generator, a function `Fn(&mut TrialRng) -> I`",
    ),
];

/// `expect` and `stability` values and their `Expect` variants.
pub(crate) const EXPECTATIONS: [(&str, &str); 4] = [
    ("no_worse", "NoWorse"),
    ("equivalent", "Equivalent"),
    ("better", "Better"),
    ("worse", "Worse"),
];

/// `test` values and their `AccuracyTest` variants.
pub(crate) const TESTS: [(&str, &str); 3] =
    [("wilcoxon", "Wilcoxon"), ("sign", "Sign"), ("t", "PairedT")];

/// Built-in metric names and their `Metric` variants.
pub(crate) const METRICS: [(&str, &str); 6] = [
    ("max_hybrid", "MaxHybrid"),
    ("mean_hybrid", "MeanHybrid"),
    ("norm_relative", "NormRelative"),
    ("max_absolute", "MaxAbsolute"),
    ("max_relative", "MaxRelative"),
    ("max_ulp", "MaxUlp"),
];

/// Errors collected so far.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Adds the error of `result`, if any, and returns its value.
    pub(crate) fn check<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// All errors as one, or `Ok` when there were none.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// The attribute's settings, validated.
pub(crate) struct Config {
    /// `oracle = ...`, as written.
    pub(crate) oracle: Expr,
    /// `baseline = ...`, as written.
    pub(crate) baseline: Expr,
    /// `input = ...`, as written.
    pub(crate) input: Expr,
    /// The optional settings, as the runtime's `Overrides` takes them.
    pub(crate) overrides: Overrides,
    /// `batch = ...`: the candidate takes this many trials' inputs at once,
    /// as a `usize` literal.
    pub(crate) batch: Option<LitInt>,
    /// `check = ...`: an extra check of the outcome, as written.
    pub(crate) check: Option<Expr>,
    /// `crate = ...`: the path of the runtime.
    pub(crate) krate: Option<Path>,
}

/// The optional settings given, in the order of [`KEYS`]: each key is the
/// name of the runtime's `Overrides` field it sets.
#[derive(Default)]
pub(crate) struct Overrides(pub(crate) Vec<(&'static str, Value)>);

#[cfg(test)]
impl Overrides {
    /// The value of `key`, if it was given.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

/// A validated optional setting.
pub(crate) enum Value {
    /// A literal with the field's type as its suffix (`1000usize`,
    /// `0.05f64`, `true`).
    Literal(TokenStream),
    /// A variant of the runtime enum named first (`Expect`, `AccuracyTest`).
    Variant(&'static str, Ident),
    /// `metric = ...`.
    Metric(MetricChoice),
}

/// The `metric` setting.
pub(crate) enum MetricChoice {
    /// A built-in metric: the `Metric` variant.
    BuiltIn(Ident),
    /// Any other expression: a user metric `Fn(&[f64], &[f64]) -> f64`.
    Custom(Expr),
}

/// Settings collected from the arguments, before the required keys are
/// checked.
#[derive(Default)]
struct Builder {
    oracle: Option<Expr>,
    baseline: Option<Expr>,
    input: Option<Expr>,
    overrides: Overrides,
    batch: Option<LitInt>,
    check: Option<Expr>,
    krate: Option<Path>,
}

impl Builder {
    /// Sets `key`, a known key seen for the first time.
    fn set(&mut self, key: &Ident, value: Expr) -> syn::Result<()> {
        let name = key.to_string();
        // The keys that are not the runtime's `Overrides` fields.
        match name.as_str() {
            "oracle" => self.oracle = Some(value),
            "baseline" => self.baseline = Some(value),
            "input" => self.input = Some(value),
            "batch" => self.batch = Some(positive_int(key, &value, "32")?),
            "check" => self.check = Some(value),
            "crate" => self.krate = Some(krate(&value)?),
            _ => return self.set_override(key, &name, value),
        }
        Ok(())
    }

    /// Sets `key` (named `name`), a field of the runtime's `Overrides`.
    fn set_override(&mut self, key: &Ident, name: &str, value: Expr) -> syn::Result<()> {
        let literal = |tokens: &dyn ToTokens| Value::Literal(tokens.to_token_stream());
        let setting = match name {
            "n" => literal(&positive_int(key, &value, "1000")?),
            "seed" => literal(&seed(&value)?),
            "alpha" => literal(&alpha(&value)?),
            "metric" => Value::Metric(metric(value)?),
            "expect" | "stability" => {
                Value::Variant("Expect", choice(key, &value, "expectation", &EXPECTATIONS)?)
            }
            "test" => Value::Variant("AccuracyTest", choice(key, &value, "test", &TESTS)?),
            "margin" => literal(&non_negative(key, &value, "0.1")?),
            "gross_factor" => literal(&gross_factor(&value)?),
            "threads" => literal(&positive_int(key, &value, "1")?),
            "allow_non_finite" | "stop_early" | "screen" => literal(&boolean(key, &value)?),
            _ => unreachable!("`{key}` is in KEYS"),
        };
        let key = KEYS.iter().find(|k| **k == name).expect("a key of KEYS");
        self.overrides.0.push((key, setting));
        // In the order of KEYS, whatever the order written.
        self.overrides
            .0
            .sort_by_key(|(k, _)| KEYS.iter().position(|key| key == k));
        Ok(())
    }
}

/// Validates the arguments, reporting every mistake at once.
pub(crate) fn config(args: Vec<Arg>) -> syn::Result<Config> {
    let mut errors = Errors::default();
    let mut builder = Builder::default();
    let mut seen: Vec<String> = Vec::new();
    for Arg { key, value } in args {
        let name = key.to_string();
        if name == "pass_margin" {
            errors.push(syn::Error::new(
                key.span(),
                "`pass_margin` is gone: `margin` (default 0.05) is the margin of the early \
                 decision and of the fixed-N test alike, so that `stop_early` on or off tests \
                 the same claim",
            ));
            continue;
        }
        if !KEYS.contains(&name.as_str()) {
            errors.push(unknown_key(&key));
            continue;
        }
        if seen.contains(&name) {
            errors.push(syn::Error::new(
                key.span(),
                format!("`{name}` set multiple times"),
            ));
            continue;
        }
        seen.push(name);
        errors.check(builder.set(&key, value));
    }

    let present = [&builder.oracle, &builder.baseline, &builder.input];
    for ((key, what), value) in REQUIRED.iter().zip(present) {
        if value.is_none() {
            errors.push(syn::Error::new(
                Span::call_site(),
                format!("missing `{key} = ...`: {what}"),
            ));
        }
    }
    errors.finish()?;

    match builder {
        Builder {
            oracle: Some(oracle),
            baseline: Some(baseline),
            input: Some(input),
            overrides,
            batch,
            check,
            krate,
        } => Ok(Config {
            oracle,
            baseline,
            input,
            overrides,
            batch,
            check,
            krate,
        }),
        _ => unreachable!("missing required keys are reported above"),
    }
}

fn unknown_key(key: &Ident) -> syn::Error {
    let name = key.to_string();
    let valid = KEYS.map(|k| format!("`{k}`")).join(", ");
    let hint = KEYS
        .iter()
        .filter(|k| {
            let tolerance = match k.len() {
                1 => 0,
                2..=4 => 1,
                _ => 2,
            };
            edit_distance(k, &name) <= tolerance
        })
        .min_by_key(|k| edit_distance(k, &name))
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    syn::Error::new(
        key.span(),
        format!("unknown key `{name}`{hint}; the keys are {valid}"),
    )
}

/// Levenshtein distance, for "did you mean" hints.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// An error spanning `tokens`.
fn spanned(tokens: impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message)
}
