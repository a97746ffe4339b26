//! An expression as reports name it: as written, on one line, spaced the
//! way rustfmt would space it (`|x: &Vec<f32>| sum_f64(x)`, not the token
//! stream's `| x : & Vec < f32 > | sum_f64 (x)`).
//!
//! The spacing follows a few rules on neighbouring tokens, enough for the
//! paths, calls, closures, literals and operators that the attribute's
//! expressions are made of; an unusual expression at worst gets an extra or
//! a missing space.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// The expression's text on one line.
pub(crate) fn display(expr: &impl ToTokens) -> String {
    let mut out = String::new();
    write_stream(&mut out, expr.to_token_stream());
    out
}

/// What the previous token was, for the spacing of the next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Nothing yet (the start of the stream or of a group).
    Start,
    /// An identifier or keyword.
    Ident,
    /// A literal.
    Literal,
    /// A closing `)`, `]` or `}`.
    Close,
    /// A punctuation character that joins the next one (`:` of `::`, `-`
    /// of `->`).
    Joint,
    /// A prefix operator (unary `&`, `-`, `!`, `*`) or an opening `|` or
    /// `<`: no space after.
    Prefix,
    /// Any other punctuation: a space after.
    Punct,
    /// `.` or `::`: no space after.
    Path,
}

/// Keywords after which a parenthesis or bracket is not a call or index.
const KEYWORDS: [&str; 10] = [
    "if", "match", "while", "for", "in", "return", "move", "let", "else", "as",
];

fn write_stream(out: &mut String, stream: TokenStream) {
    let mut prev = Prev::Start;
    let mut last_ident = String::new();
    // Open closure parameter lists and generic argument lists.
    let mut closure_open = false;
    let mut generics = 0usize;
    for tree in stream {
        match tree {
            TokenTree::Ident(ident) => {
                space_if(
                    out,
                    !matches!(prev, Prev::Start | Prev::Joint | Prev::Prefix | Prev::Path),
                );
                last_ident = ident.to_string();
                out.push_str(&last_ident);
                prev = Prev::Ident;
            }
            TokenTree::Literal(lit) => {
                space_if(
                    out,
                    !matches!(prev, Prev::Start | Prev::Joint | Prev::Prefix | Prev::Path),
                );
                out.push_str(&lit.to_string());
                prev = Prev::Literal;
            }
            TokenTree::Group(group) => {
                let delimiter = group.delimiter();
                let call = matches!(delimiter, Delimiter::Parenthesis | Delimiter::Bracket)
                    && (prev == Prev::Close
                        || (prev == Prev::Ident && !KEYWORDS.contains(&last_ident.as_str())));
                let tight = matches!(prev, Prev::Start | Prev::Joint | Prev::Prefix | Prev::Path);
                space_if(out, !call && !tight);
                let (open, close) = match delimiter {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_stream(out, group.stream());
                if delimiter == Delimiter::Brace && group.stream().is_empty() {
                    out.truncate(out.len() - 1);
                    out.push('}');
                } else {
                    out.push_str(close);
                }
                prev = Prev::Close;
            }
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                let joint = punct.spacing() == Spacing::Joint;
                let operand_before = matches!(prev, Prev::Literal | Prev::Close)
                    || (prev == Prev::Ident && !KEYWORDS.contains(&last_ident.as_str()));
                let (space_before, next) = match c {
                    ',' | ';' => (false, Prev::Punct),
                    '.' => (false, if joint { Prev::Joint } else { Prev::Path }),
                    '?' => (false, Prev::Close),
                    ':' if prev == Prev::Joint => (false, Prev::Path),
                    ':' if joint => (prev != Prev::Ident && prev != Prev::Close, Prev::Joint),
                    ':' => (false, Prev::Punct),
                    '|' if prev == Prev::Joint => (false, Prev::Punct),
                    '|' if joint => (!matches!(prev, Prev::Start), Prev::Joint),
                    '|' if !closure_open && !operand_before => {
                        closure_open = true;
                        (!matches!(prev, Prev::Start), Prev::Prefix)
                    }
                    '|' if closure_open => {
                        closure_open = false;
                        (false, Prev::Punct)
                    }
                    '<' if !joint && (prev == Prev::Path || starts_upper(&last_ident, prev)) => {
                        generics += 1;
                        (false, Prev::Prefix)
                    }
                    '>' if generics > 0 && prev != Prev::Joint => {
                        generics -= 1;
                        (false, Prev::Close)
                    }
                    '&' | '-' | '*' | '!' if !operand_before && prev != Prev::Joint => {
                        (!matches!(prev, Prev::Start | Prev::Prefix), Prev::Prefix)
                    }
                    '!' if prev == Prev::Ident => (false, Prev::Path),
                    _ if joint => (prev != Prev::Joint && prev != Prev::Start, Prev::Joint),
                    _ => (prev != Prev::Joint && prev != Prev::Start, Prev::Punct),
                };
                space_if(
                    out,
                    space_before && !matches!(prev, Prev::Prefix | Prev::Path),
                );
                out.push(c);
                prev = next;
            }
        }
    }
}

/// Whether `<` after this identifier opens generic arguments: after a type
/// name (`Vec`, `HashMap`) rather than a value (`x < 1.0`).
fn starts_upper(ident: &str, prev: Prev) -> bool {
    prev == Prev::Ident && ident.starts_with(|c: char| c.is_ascii_uppercase())
}

fn space_if(out: &mut String, space: bool) {
    if space && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::display;

    /// The same text as rustfmt's (through prettyplease), whitespace
    /// collapsed, for the kinds of expression the attribute takes.
    #[test]
    fn spaced_as_rustfmt_would() {
        let cases: [syn::Expr; 15] = [
            syn::parse_quote!(sum_f64),
            syn::parse_quote!(dual_delta_gpu::matmul_f64),
            syn::parse_quote!(|x: &Vec<f32>| sum_f64(x)),
            syn::parse_quote!(|y: &[f64], o: &[f64]| (y[0] - o[0]).abs() / o[0].abs()),
            syn::parse_quote!(random_matmul_input(128, 4096, 128)),
            syn::parse_quote!(|rng: &mut TrialRng| short_vec(rng, 512)),
            syn::parse_quote!(matmul::<f16>),
            syn::parse_quote!(move || vec![1.0; 4]),
            syn::parse_quote!(|x| if x < 1.0 { 0.0 } else { 1.0 }),
            syn::parse_quote!(generate::matrix_pair(16, 64, 16, normal::<f16>(1.0))),
            syn::parse_quote!(|x: &Vec<f32>| -> f64 { x.iter().map(|&v| f64::from(v)).sum() }),
            syn::parse_quote!(|o| if o.delta1().len() == 300 {
                Ok(())
            } else {
                Err("n".into())
            }),
            syn::parse_quote!(Metric::custom("m", |y: &[f64], o: &[f64]| y[0] - o[0])),
            syn::parse_quote!(|x: &(Vec<f32>, usize)| x.0.len() as f64 * -2.0),
            syn::parse_quote!(self::max_ulp),
        ];
        for expr in cases {
            let file: syn::File = syn::parse_quote!(const _: () = #expr;);
            let text = prettyplease::unparse(&file);
            let text = text
                .trim()
                .strip_prefix("const _: () = ")
                .and_then(|t| t.strip_suffix(';'))
                .unwrap();
            let want = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(display(&expr), want);
        }
        // As written, where rustfmt would break a long line (and prettyplease
        // add braces).
        let long: syn::Expr = syn::parse_quote!(|xs: &[MatmulInput]| Gpu::shared()
            .unwrap()
            .matmul_batch(xs, Accumulation::F32)
            .unwrap());
        assert_eq!(
            display(&long),
            "|xs: &[MatmulInput]| Gpu::shared().unwrap().matmul_batch(xs, Accumulation::F32).unwrap()"
        );
    }
}
