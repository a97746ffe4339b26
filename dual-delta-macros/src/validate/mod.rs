//! Checks the attribute's arguments and the candidate's signature.
//!
//! Every mistake becomes a `syn::Error` spanned at the offending token, and
//! all of them are collected, so that one compilation reports everything.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Expr, FnArg, Ident, ItemFn, LitInt, Path, ReturnType, Safety, Type};

use dual_delta_settings::{FUNCTION_KEYS, Kind, LAST_KEYS, METRICS, SETTINGS, Setting};

use crate::parse::Arg;

mod signature;
mod values;

pub(crate) use self::signature::{candidate, number_slice};
use self::values::*;
pub(crate) use self::values::{MetricChoice, edit_distance};

/// Every key, in the order the documentation lists them, from the one
/// table of settings: the three functions first, then the settings' keys,
/// then the extra check and the runtime's path.
pub(crate) fn keys() -> Vec<&'static str> {
    let settings = SETTINGS.iter().filter_map(|s| s.key);
    FUNCTION_KEYS
        .iter()
        .map(|(k, _)| *k)
        .chain(settings)
        .chain(LAST_KEYS.iter().map(|(k, _, _)| *k))
        .collect()
}

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
    /// `features = ...`: the features of an input, as written.
    pub(crate) features: Option<Expr>,
    /// `check = ...`: an extra check of the outcome, as written.
    pub(crate) check: Option<Expr>,
    /// `crate = ...`: the path of the runtime.
    pub(crate) krate: Option<Path>,
}

/// The optional settings given, in the order of [`keys`]: each is the
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

/// Settings collected from the arguments, before the required keys are
/// checked.
#[derive(Default)]
struct Builder {
    oracle: Option<Expr>,
    baseline: Option<Expr>,
    input: Option<Expr>,
    overrides: Overrides,
    batch: Option<LitInt>,
    features: Option<Expr>,
    check: Option<Expr>,
    krate: Option<Path>,
}

impl Builder {
    /// Sets `key`, a known key seen for the first time.
    fn set(&mut self, key: &Ident, value: Expr) -> syn::Result<()> {
        let name = key.to_string();
        match name.as_str() {
            "oracle" => self.oracle = Some(value),
            "baseline" => self.baseline = Some(value),
            "input" => self.input = Some(value),
            "features" => self.features = Some(value),
            "check" => self.check = Some(value),
            "crate" => self.krate = Some(krate(&value)?),
            "batch" => self.batch = Some(count(key, by_key("batch"), &value)?),
            _ => self.set_override(key, by_key(&name), value)?,
        }
        Ok(())
    }

    /// Sets `key`, the key of `setting`, a field of the runtime's
    /// `Overrides`.
    fn set_override(
        &mut self,
        key: &Ident,
        setting: &'static Setting,
        value: Expr,
    ) -> syn::Result<()> {
        let value = match setting.kind {
            Kind::Choice(choices) if choices == METRICS => Value::Metric(metric(value)?),
            Kind::Choice(_) => {
                // `Expect`, `Option<Expect>`, `AccuracyTest`: the enum.
                let ty = setting
                    .ty
                    .trim_start_matches("Option<")
                    .trim_end_matches('>');
                Value::Variant(ty, choice(key, setting, &value)?)
            }
            Kind::Count | Kind::Seed => {
                Value::Literal(count(key, setting, &value)?.to_token_stream())
            }
            Kind::Bool => Value::Literal(boolean(key, setting, &value)?.to_token_stream()),
            _ => Value::Literal(number(key, setting, &value)?),
        };
        self.overrides.0.push((setting.name, value));
        // In the order of the table, whatever the order written.
        self.overrides
            .0
            .sort_by_key(|(k, _)| SETTINGS.iter().position(|s| s.name == *k));
        Ok(())
    }
}

/// Validates the arguments, reporting every mistake at once.
pub(crate) fn config(args: Vec<Arg>) -> syn::Result<Config> {
    let mut errors = Errors::default();
    let too_few = too_few_trials(&args);
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
        if !keys().contains(&name.as_str()) {
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
    if let Some(e) = too_few {
        errors.push(e);
    }

    let present = [&builder.oracle, &builder.baseline, &builder.input];
    for ((key, what), value) in FUNCTION_KEYS.iter().zip(present) {
        if value.is_none() {
            errors.push(syn::Error::new(
                Span::call_site(),
                format!("missing `{key} = ...`: {what}"),
            ));
        }
    }
    errors.finish()?;

    let (Some(oracle), Some(baseline), Some(input)) =
        (builder.oracle, builder.baseline, builder.input)
    else {
        unreachable!("missing required keys are reported above")
    };
    Ok(Config {
        oracle,
        baseline,
        input,
        overrides: builder.overrides,
        batch: builder.batch,
        features: builder.features,
        check: builder.check,
        krate: builder.krate,
    })
}

fn unknown_key(key: &Ident) -> syn::Error {
    let name = key.to_string();
    let keys = keys();
    let valid = keys
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = keys
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
