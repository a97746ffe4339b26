//! Checks the attribute's arguments and the candidate's signature.
//!
//! Every mistake becomes a `syn::Error` spanned at the offending token, and
//! all of them are collected, so that one compilation reports everything.

use proc_macro2::{Literal, Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, LitInt, Path, ReturnType, Safety, Type};

use crate::parse::Arg;

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

/// The expression without invisible groups (from `macro_rules!`
/// substitutions).
fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(g) = expr {
        expr = &g.expr;
    }
    expr
}

/// The value of a number literal, possibly negated.
fn number(expr: &Expr) -> Option<f64> {
    match ungroup(expr) {
        Expr::Lit(e) => match &e.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            Lit::Float(f) => f.base10_parse().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => number(&u.expr).map(|v| -v),
        _ => None,
    }
}

/// The integer literal `expr` is, if it is one.
fn int_literal(expr: &Expr) -> Option<&LitInt> {
    match ungroup(expr) {
        Expr::Lit(e) => match &e.lit {
            Lit::Int(i) => Some(i),
            _ => None,
        },
        _ => None,
    }
}

/// `lit` with its suffix replaced by `suffix`, keeping its digits (`0x`,
/// underscores) and span.
fn with_suffix(lit: &LitInt, suffix: &str) -> LitInt {
    let text = lit.to_string();
    let digits = text.strip_suffix(lit.suffix()).unwrap_or(&text);
    LitInt::new(&format!("{digits}{suffix}"), lit.span())
}

fn float_literal(value: f64, span: Span) -> Literal {
    let mut lit = Literal::f64_suffixed(value);
    lit.set_span(span);
    lit
}

/// `n` and `threads`: a whole number, at least 1.
fn positive_int(key: &Ident, value: &Expr, example: &str) -> syn::Result<LitInt> {
    let Some(lit) = int_literal(value) else {
        return Err(spanned(
            value,
            format!("`{key}` must be an integer literal, such as `{key} = {example}`"),
        ));
    };
    match lit.base10_parse::<usize>() {
        Ok(0) => Err(syn::Error::new(
            lit.span(),
            format!("`{key}` must be at least 1"),
        )),
        Ok(_) => Ok(with_suffix(lit, "usize")),
        Err(_) => Err(syn::Error::new(
            lit.span(),
            format!("`{key}` must fit in a `usize`"),
        )),
    }
}

fn seed(value: &Expr) -> syn::Result<LitInt> {
    let lit = int_literal(value).filter(|lit| lit.base10_parse::<u64>().is_ok());
    lit.map(|lit| with_suffix(lit, "u64")).ok_or_else(|| {
        spanned(
            value,
            "`seed` must be an integer literal that fits in a `u64`, such as `seed = 42` \
             or `seed = 0x2a`",
        )
    })
}

fn alpha(value: &Expr) -> syn::Result<Literal> {
    match number(value) {
        Some(a) if a > 0.0 && a < 1.0 => Ok(float_literal(a, value.span())),
        Some(_) => Err(spanned(
            value,
            "`alpha` must be strictly between 0 and 1, such as `alpha = 0.01`",
        )),
        None => Err(spanned(
            value,
            "`alpha` must be a number literal strictly between 0 and 1, such as `alpha = 0.01`",
        )),
    }
}

/// `margin`: a number literal ≥ 0.
fn non_negative(key: &Ident, value: &Expr, example: &str) -> syn::Result<Literal> {
    match number(value) {
        Some(m) if m >= 0.0 && m.is_finite() => Ok(float_literal(m, value.span())),
        _ => Err(spanned(
            value,
            format!("`{key}` must be a number literal >= 0, such as `{key} = {example}`"),
        )),
    }
}

/// `gross_factor`: a number literal > 1.
fn gross_factor(value: &Expr) -> syn::Result<Literal> {
    match number(value) {
        Some(g) if g > 1.0 && g.is_finite() => Ok(float_literal(g, value.span())),
        _ => Err(spanned(
            value,
            "`gross_factor` must be a number literal > 1, such as `gross_factor = 1000.0`",
        )),
    }
}

/// `expect`, `stability` and `test`: one of a few names, as an identifier.
fn choice(
    key: &Ident,
    value: &Expr,
    what: &str,
    choices: &[(&str, &'static str)],
) -> syn::Result<Ident> {
    let names = choices
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let Expr::Path(path) = ungroup(value) else {
        return Err(spanned(value, format!("`{key}` must be one of {names}")));
    };
    let Some(ident) = path.path.get_ident().filter(|_| path.qself.is_none()) else {
        return Err(spanned(value, format!("`{key}` must be one of {names}")));
    };
    let name = ident.to_string();
    match choices.iter().find(|(n, _)| *n == name) {
        Some((_, variant)) => Ok(Ident::new(variant, ident.span())),
        None => Err(syn::Error::new(
            ident.span(),
            format!("unknown {what} `{name}`; expected one of {names}"),
        )),
    }
}

/// `allow_non_finite`: `true` or `false`.
fn boolean(key: &Ident, value: &Expr) -> syn::Result<syn::LitBool> {
    match ungroup(value) {
        Expr::Lit(e) => match &e.lit {
            Lit::Bool(b) => Ok(b.clone()),
            _ => Err(spanned(value, format!("`{key}` must be `true` or `false`"))),
        },
        _ => Err(spanned(value, format!("`{key}` must be `true` or `false`"))),
    }
}

fn metric(value: Expr) -> syn::Result<MetricChoice> {
    if let Expr::Path(path) = ungroup(&value)
        && let Some(ident) = path.path.get_ident().filter(|_| path.qself.is_none())
    {
        if let Some((_, variant)) = METRICS.iter().find(|(name, _)| ident == name) {
            return Ok(MetricChoice::BuiltIn(Ident::new(variant, ident.span())));
        }
        // A near miss of a built-in name is a typo, not a function of the
        // user's (which `self::name` still reaches).
        let name = ident.to_string();
        if let Some((near, _)) = METRICS
            .iter()
            .filter(|(n, _)| edit_distance(n, &name) <= 2)
            .min_by_key(|(n, _)| edit_distance(n, &name))
        {
            let names = METRICS.map(|(n, _)| format!("`{n}`")).join(", ");
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "unknown metric `{name}` (did you mean `{near}`?); the built-in metrics are \
                     {names}; a metric of your own is a function `Fn(&[f64], &[f64]) -> f64`, \
                     written `metric = self::{name}` if that is its name"
                ),
            ));
        }
    }
    if let Expr::Lit(e) = ungroup(&value)
        && let Lit::Str(s) = &e.lit
    {
        let names = METRICS.map(|(n, _)| format!("`{n}`")).join(", ");
        return Err(syn::Error::new(
            s.span(),
            format!(
                "`metric` is a built-in metric's name without quotes ({names}) or a function \
                 `Fn(&[f64], &[f64]) -> f64`, not a string"
            ),
        ));
    }
    Ok(MetricChoice::Custom(value))
}

fn krate(value: &Expr) -> syn::Result<Path> {
    match ungroup(value) {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Ok(p.path.clone()),
        _ => Err(spanned(
            value,
            "`crate` must be the path of the runtime crate, such as `crate = ::dual_delta_runtime`",
        )),
    }
}

/// An error spanning `tokens`.
fn spanned(tokens: impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message)
}

/// Checks that `f` can be a candidate: `fn name(x: &Input) -> Output`, or
/// with `batch = ...` (`batched`) `fn name(xs: &[Input]) -> Vec<Output>`;
/// not generic, not `async`, not `unsafe`, not already a `#[test]`. With
/// `#[case]`s (`cases`) it may take more parameters after the input, which
/// `cases::params` checks.
pub(crate) fn candidate(f: &ItemFn, batched: bool, cases: bool) -> syn::Result<()> {
    let sig = &f.sig;
    let mut errors = Errors::default();

    for attr in &f.attrs {
        let path = attr.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            let written = path.to_token_stream().to_string().replace(' ', "");
            errors.push(spanned(
                attr,
                format!(
                    "`#[dual_delta_test]` already makes this function a test: remove `#[{written}]`"
                ),
            ));
        }
    }
    if let Some(token) = &sig.asyncness {
        errors.push(spanned(
            token,
            "the candidate cannot be `async`: every trial calls it synchronously",
        ));
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.push(spanned(
            token,
            "the candidate cannot be `unsafe`: every trial calls it as a safe function",
        ));
    }
    if !sig.generics.params.is_empty() {
        errors.push(spanned(
            &sig.generics,
            "the candidate cannot be generic: the test calls it on one concrete input type",
        ));
    }
    if let Some(clause) = &sig.generics.where_clause {
        errors.push(spanned(
            clause,
            "the candidate cannot have a `where` clause: the test calls it on one concrete \
             input type",
        ));
    }

    if sig.inputs.is_empty() {
        errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            "the candidate takes one parameter, its input by reference: \
             `fn name(x: &Input) -> Output`",
        ));
    }
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            errors.push(spanned(
                receiver,
                "the candidate is a free function, not a method: \
                 `fn name(x: &Input) -> Output` without `self`",
            ));
        }
    }
    let typed: Vec<_> = sig
        .inputs
        .iter()
        .filter(|input| matches!(input, FnArg::Typed(_)))
        .collect();
    if typed.len() > 1 && !cases {
        let extra: TokenStream = typed[1..]
            .iter()
            .flat_map(|a| a.to_token_stream())
            .collect();
        errors.push(spanned(
            extra,
            format!(
                "the candidate takes exactly one parameter, its input, but has {}: \
                 put several values in one input type, such as `x: &(A, B)`, or give the \
                 others values with `#[case(name = value)]`",
                typed.len()
            ),
        ));
    }
    if let Some(FnArg::Typed(param)) = typed.first() {
        check_input_type(&param.ty, batched, &mut errors);
        if batched {
            check_batch_type(&param.ty, &mut errors);
        }
    }

    match &sig.output {
        ReturnType::Default => errors.push(syn::Error::new(
            sig.paren_token.span.close(),
            "the candidate must return its output, such as `-> Vec<f32>`; \
             without a return type it returns `()`",
        )),
        ReturnType::Type(_, ty) if is_unit(ty) => errors.push(spanned(
            ty,
            "the candidate must return its output, such as `-> Vec<f32>`, not `()`",
        )),
        ReturnType::Type(..) => {}
    }
    errors.finish()
}

fn ungroup_type(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(g) => ty = &g.elem,
            Type::Paren(p) => ty = &p.elem,
            _ => return ty,
        }
    }
}

fn is_unit(ty: &Type) -> bool {
    matches!(ungroup_type(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// `str`: an input no generator can return.
fn is_unsized_path(ty: &Type) -> bool {
    matches!(ungroup_type(ty), Type::Path(p) if p.qself.is_none() && p.path.is_ident("str"))
}

/// The input must be `&Input`, with `Input` a concrete, sized type (a slice
/// only with `batch = ...`).
fn check_input_type(ty: &Type, batched: bool, errors: &mut Errors) {
    match ungroup_type(ty) {
        Type::Reference(r) if r.mutability.is_some() => errors.push(spanned(
            ty,
            "the candidate takes its input by shared reference (`&Input`), not `&mut`",
        )),
        Type::Reference(r) => match ungroup_type(&r.elem) {
            Type::ImplTrait(_) => errors.push(spanned(
                &r.elem,
                "the candidate cannot be generic: give its input a concrete type, \
                 not `impl Trait`",
            )),
            // Only `batch = ...` candidates take slices; checked there.
            Type::Slice(_) if batched => {}
            Type::Slice(slice) => {
                let elem = slice.elem.to_token_stream().to_string().replace(' ', "");
                errors.push(spanned(
                    ty,
                    format!(
                        "the candidate takes `&[{elem}]`, but each trial's input is one value \
                         that the generator returns, such as a `Vec<{elem}>`: take `&Vec<{elem}>` \
                         (and call the kernel with `x.as_slice()`), or add `batch = N` if the \
                         candidate takes many trials' inputs at once"
                    ),
                ));
            }
            Type::Path(_) if is_unsized_path(&r.elem) => errors.push(spanned(
                ty,
                "the candidate's input is a value the generator returns, so it must have a \
                     size known at compile time: take `&String`, not `&str`",
            )),
            _ => {}
        },
        _ => errors.push(spanned(
            ty,
            "the candidate takes its input by reference: `&Input`, such as `x: &Vec<f32>`",
        )),
    }
}

/// With `batch = ...` the input must be a slice, `&[Input]`.
fn check_batch_type(ty: &Type, errors: &mut Errors) {
    if let Type::Reference(r) = ungroup_type(ty)
        && r.mutability.is_none()
        && !matches!(ungroup_type(&r.elem), Type::Slice(_))
    {
        errors.push(spanned(
            ty,
            "with `batch = ...` the candidate takes the inputs of consecutive trials as a \
             slice, `xs: &[Input]`, and returns one output per input, such as \
             `-> Vec<Vec<f32>>`",
        ));
    }
}
