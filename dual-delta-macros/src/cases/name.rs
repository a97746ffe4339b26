//! The name of a case's test, made from its values: `len = 1024, acc =
//! Accumulation::F32` is `len_1024_acc_f32`.
//!
//! A name is lowercase ASCII letters, digits and underscores: integer
//! literals are their decimal digits, a path is its last segment in snake
//! case (`RowMajor` is `row_major`), a negative number starts with `minus_`,
//! and every other character of a value (the `.` of `0.5`, the quotes of a
//! string) becomes `_`.

use syn::ext::IdentExt;
use syn::{Expr, Ident, Lit, UnOp};

use crate::display::display;

/// `name_value_name_value...` for the bindings of one case.
pub(crate) fn case_name<'a>(bindings: impl IntoIterator<Item = (&'a Ident, &'a Expr)>) -> String {
    bindings
        .into_iter()
        .map(|(name, value)| {
            let name = snake_case(&name.unraw().to_string());
            match value_name(value) {
                v if v.is_empty() => format!("{name}_empty"),
                v => format!("{name}_{v}"),
            }
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// The part of a name that one value gives.
pub(crate) fn value_name(value: &Expr) -> String {
    match value {
        Expr::Group(g) => value_name(&g.expr),
        Expr::Paren(p) => value_name(&p.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            format!("minus_{}", value_name(&u.expr))
        }
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(i) => i.base10_digits().to_owned(),
            Lit::Float(f) => snake_case(f.base10_digits()),
            Lit::Str(s) => snake_case(&s.value()),
            Lit::Char(c) => snake_case(&c.value().to_string()),
            other => snake_case(&display(other)),
        },
        Expr::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(last) => snake_case(&last.ident.unraw().to_string()),
            None => String::new(),
        },
        other => snake_case(&display(other)),
    }
}

/// `text` in lowercase ASCII snake case: a word boundary in camel case
/// (`RowMajor`, `F16Serial`, `HTTPServer`) and every character that is not
/// an ASCII letter or digit become one `_`, with none at either end.
pub(crate) fn snake_case(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use super::*;

    fn name_of(value: Expr) -> String {
        value_name(&value)
    }

    #[test]
    fn values_become_identifier_safe_names() {
        let cases: [(Expr, &str); 16] = [
            (syn::parse_quote!(1024), "1024"),
            (syn::parse_quote!(65_536usize), "65536"),
            (syn::parse_quote!(0x10), "16"),
            (syn::parse_quote!(-3), "minus_3"),
            (syn::parse_quote!(0.5), "0_5"),
            (syn::parse_quote!(-1.5e-3f32), "minus_1_5e_3"),
            (syn::parse_quote!(true), "true"),
            (syn::parse_quote!("Row Major"), "row_major"),
            (syn::parse_quote!('x'), "x"),
            (syn::parse_quote!(Accumulation::F32), "f32"),
            (syn::parse_quote!(Layout::RowMajor), "row_major"),
            (syn::parse_quote!(ReduceStrategy::F16Serial), "f16_serial"),
            (syn::parse_quote!(crate::BF16), "bf16"),
            (syn::parse_quote!(HTTPServer), "http_server"),
            (syn::parse_quote!(Shape::new(128, 64)), "shape_new_128_64"),
            (syn::parse_quote!((8)), "8"),
        ];
        for (value, want) in cases {
            let written = display(&value);
            assert_eq!(name_of(value), want, "{written}");
        }
    }

    #[test]
    fn a_case_joins_its_names_and_values() {
        let (m, acc, s) = (
            format_ident!("m"),
            format_ident!("Acc"),
            format_ident!("r#type"),
        );
        let (v128, f32, empty): (Expr, Expr, Expr) = (
            syn::parse_quote!(128),
            syn::parse_quote!(Accumulation::F32),
            syn::parse_quote!(""),
        );
        assert_eq!(
            case_name([(&m, &v128), (&acc, &f32), (&s, &empty)]),
            "m_128_acc_f32_type_empty"
        );
    }
}
