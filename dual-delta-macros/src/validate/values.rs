//! The attribute's values: each key's literal checked and converted, with
//! a spanned error that says what was expected.

use proc_macro2::{Literal, Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitInt, Path};

use dual_delta_settings::{Kind, METRICS, Setting};

use crate::parse::Arg;

/// The expression without invisible groups (from `macro_rules!`
/// substitutions).
pub(super) fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(g) = expr {
        expr = &g.expr;
    }
    expr
}

/// The integer literal `expr` is, if it is one.
pub(super) fn int_literal(expr: &Expr) -> Option<&LitInt> {
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
pub(super) fn with_suffix(lit: &LitInt, suffix: &str) -> LitInt {
    let text = lit.to_string();
    let digits = text.strip_suffix(lit.suffix()).unwrap_or(&text);
    LitInt::new(&format!("{digits}{suffix}"), lit.span())
}

pub(super) fn float_literal(value: f64, span: Span) -> Literal {
    let mut lit = Literal::f64_suffixed(value);
    lit.set_span(span);
    lit
}

/// The error for `value`, an invalid value of `setting` given as `key`:
/// the table's message, as the builder and the environment give it.
fn invalid(key: &Ident, setting: &Setting, value: &Expr, text: Option<String>) -> syn::Error {
    let written = || {
        let text = value.to_token_stream().to_string();
        text.replace(" :: ", "::").replace("- ", "-")
    };
    let text = text.unwrap_or_else(written);
    let message = match setting.parse(&key.to_string(), &text) {
        Err(invalid) => invalid,
        Ok(_) => dual_delta_settings::Invalid {
            source: key.to_string(),
            value: text,
            expected: setting.expected,
        },
    };
    spanned(value, message)
}

/// The text of a number literal as the runtime reads it: an integer's
/// digits in base 10, a float's shortest form (`1.0` is `1`), `-` before a
/// negation, `inf` for `inf` and `f64::INFINITY`.
fn number_text(expr: &Expr) -> Option<String> {
    match ungroup(expr) {
        Expr::Lit(e) => match &e.lit {
            Lit::Int(i) => Some(i.base10_digits().to_owned()),
            Lit::Float(f) => f.base10_parse::<f64>().ok().map(|x| x.to_string()),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            number_text(&u.expr).map(|t| format!("-{t}"))
        }
        Expr::Path(p) if p.path.is_ident("inf") || p.path.segments.last()?.ident == "INFINITY" => {
            Some("inf".to_owned())
        }
        _ => None,
    }
}

/// `n`, `threads`, `batch` and `seed`: an integer literal by the table's
/// rule, with the field's type as its suffix.
pub(super) fn count(key: &Ident, setting: &Setting, value: &Expr) -> syn::Result<LitInt> {
    let lit = int_literal(value);
    let text = lit.map(|l| l.base10_digits().to_owned());
    let suffix = if setting.kind == Kind::Seed {
        "u64"
    } else {
        "usize"
    };
    match (lit, &text) {
        (Some(lit), Some(t)) if setting.parse(&key.to_string(), t).is_ok() => {
            Ok(with_suffix(lit, suffix))
        }
        _ => Err(invalid(key, setting, value, text)),
    }
}

/// The error for an `n` written below the fewest inputs at which the
/// test can fail under the settings written (each the table's default
/// where not written): such a test could never fail. The count is
/// [`dual_delta_settings::levels::Deciding::min_n`], the runtime's own, so
/// that an `n` accepted here runs to a verdict. Settings that are not
/// literals are left to the runtime, which checks the same when the test
/// runs.
pub(super) fn too_few_trials(args: &[Arg]) -> Option<syn::Error> {
    let arg = |key: &str| args.iter().find(|a| a.key == key).map(|a| &a.value);
    let n_expr = arg("n")?;
    let n: usize = int_literal(n_expr)?.base10_parse().ok()?;
    let default = |key: &str| by_key(key).default.trim_matches('`');
    let alpha: f64 = match arg("alpha") {
        Some(value) => number_text(value)?.parse().ok()?,
        None => default("alpha").parse().ok()?,
    };
    let name = |key: &str| -> Option<String> {
        match arg(key).map(ungroup) {
            Some(Expr::Path(p)) => Some(p.path.get_ident()?.to_string()),
            Some(Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            })) => Some(b.value.to_string()),
            Some(_) => None,
            None => Some(default(key).to_owned()),
        }
    };
    let (test, expect, rule) = (name("test")?, name("expect")?, name("rule")?);
    let stop_early = match name("stop_early")?.as_str() {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    if n == 0 || !(alpha > 0.0 && alpha < 1.0) {
        return None; // reported as an invalid value
    }
    let deciding =
        dual_delta_settings::levels::Deciding::new(alpha, &expect, &test, &rule, stop_early);
    let min = deciding.min_n();
    (n < min).then(|| {
        spanned(
            n_expr,
            dual_delta_settings::levels::too_few(n, min, &test, deciding.test_level()),
        )
    })
}

/// `alpha`, `margin` and `gross_factor`: a number literal (or `inf`) by
/// the table's rule, as an `f64`.
pub(super) fn number(key: &Ident, setting: &Setting, value: &Expr) -> syn::Result<TokenStream> {
    let text = number_text(value);
    match text.as_deref().map(|t| setting.parse(&key.to_string(), t)) {
        Some(Ok(dual_delta_settings::Value::Number(x))) if x.is_infinite() => {
            Ok(quote::quote_spanned!(value.span()=> ::core::f64::INFINITY))
        }
        Some(Ok(dual_delta_settings::Value::Number(x))) => {
            Ok(float_literal(x, value.span()).to_token_stream())
        }
        _ => Err(invalid(key, setting, value, text)),
    }
}

/// `expect`, `stability` and `test`: one of the table's names, as the
/// runtime enum's variant.
pub(super) fn choice(key: &Ident, setting: &Setting, value: &Expr) -> syn::Result<Ident> {
    let ident = match ungroup(value) {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    };
    match ident.map(|i| (i, setting.parse(&key.to_string(), &i.to_string()))) {
        Some((ident, Ok(dual_delta_settings::Value::Variant(variant)))) => {
            Ok(Ident::new(variant, ident.span()))
        }
        _ => Err(invalid(key, setting, value, None)),
    }
}

/// `allow_non_finite`, `stop_early`, `screen`: `true` or `false`.
pub(super) fn boolean(key: &Ident, setting: &Setting, value: &Expr) -> syn::Result<syn::LitBool> {
    match ungroup(value) {
        Expr::Lit(e) if matches!(e.lit, Lit::Bool(_)) => match &e.lit {
            Lit::Bool(b) => Ok(b.clone()),
            _ => unreachable!(),
        },
        _ => Err(invalid(key, setting, value, None)),
    }
}

/// The built-in metrics' names, quoted.
fn metric_names() -> String {
    let names: Vec<_> = METRICS.iter().map(|(n, _)| format!("`{n}`")).collect();
    names.join(", ")
}

pub(super) fn metric(value: Expr) -> syn::Result<MetricChoice> {
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
            let names = metric_names();
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
        let names = metric_names();
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

pub(super) fn krate(value: &Expr) -> syn::Result<Path> {
    match ungroup(value) {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Ok(p.path.clone()),
        _ => Err(spanned(
            value,
            "`crate` must be the path of the runtime crate, such as `crate = ::dual_delta_runtime`",
        )),
    }
}

/// The `metric` setting.
pub(crate) enum MetricChoice {
    /// A built-in metric: the `Metric` variant.
    BuiltIn(Ident),
    /// Any other expression: a user metric `Fn(&[f64], &[f64]) -> f64`.
    Custom(Expr),
}

/// The setting whose key `key` is (one of [`keys`](super::keys)).
pub(super) fn by_key(key: &str) -> &'static Setting {
    dual_delta_settings::by_key(key).expect("a setting's key")
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
pub(super) fn spanned(tokens: impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message)
}
