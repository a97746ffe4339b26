//! The attribute's values: each key's literal checked and converted, with
//! a spanned error that says what was expected.

use super::*;

/// The expression without invisible groups (from `macro_rules!`
/// substitutions).
pub(super) fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(g) = expr {
        expr = &g.expr;
    }
    expr
}

/// The value of a number literal, possibly negated.
pub(super) fn number(expr: &Expr) -> Option<f64> {
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

/// `n` and `threads`: a whole number, at least 1.
pub(super) fn positive_int(key: &Ident, value: &Expr, example: &str) -> syn::Result<LitInt> {
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

pub(super) fn seed(value: &Expr) -> syn::Result<LitInt> {
    let lit = int_literal(value).filter(|lit| lit.base10_parse::<u64>().is_ok());
    lit.map(|lit| with_suffix(lit, "u64")).ok_or_else(|| {
        spanned(
            value,
            "`seed` must be an integer literal that fits in a `u64`, such as `seed = 42` \
             or `seed = 0x2a`",
        )
    })
}

pub(super) fn alpha(value: &Expr) -> syn::Result<Literal> {
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
pub(super) fn non_negative(key: &Ident, value: &Expr, example: &str) -> syn::Result<Literal> {
    match number(value) {
        Some(m) if m >= 0.0 && m.is_finite() => Ok(float_literal(m, value.span())),
        _ => Err(spanned(
            value,
            format!("`{key}` must be a number literal >= 0, such as `{key} = {example}`"),
        )),
    }
}

/// `gross_factor`: a number literal > 1.
pub(super) fn gross_factor(value: &Expr) -> syn::Result<Literal> {
    match number(value) {
        Some(g) if g > 1.0 && g.is_finite() => Ok(float_literal(g, value.span())),
        _ => Err(spanned(
            value,
            "`gross_factor` must be a number literal > 1, such as `gross_factor = 1000.0`",
        )),
    }
}

/// `expect`, `stability` and `test`: one of a few names, as an identifier.
pub(super) fn choice(
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
pub(super) fn boolean(key: &Ident, value: &Expr) -> syn::Result<syn::LitBool> {
    match ungroup(value) {
        Expr::Lit(e) => match &e.lit {
            Lit::Bool(b) => Ok(b.clone()),
            _ => Err(spanned(value, format!("`{key}` must be `true` or `false`"))),
        },
        _ => Err(spanned(value, format!("`{key}` must be `true` or `false`"))),
    }
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

pub(super) fn krate(value: &Expr) -> syn::Result<Path> {
    match ungroup(value) {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Ok(p.path.clone()),
        _ => Err(spanned(
            value,
            "`crate` must be the path of the runtime crate, such as `crate = ::dual_delta_runtime`",
        )),
    }
}
