//! `#[case(...)]` and `#[matrix(...)]` under `#[dual_delta_test]`: one test
//! per case, each named after its values.
//!
//! `take` removes the attributes from the function and parses them; `suite`
//! checks them against the candidate's parameters and gives every case its
//! name. Every mistake is collected, spanned at the attribute, the value or
//! the parameter it concerns.

mod name;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Attribute, Expr, FnArg, Ident, Meta, Pat, Signature, Type};

use crate::parse::{self, Arg};
use crate::validate::Errors;

/// The two attributes, by the last segment of their path.
const ATTRIBUTES: [&str; 2] = ["case", "matrix"];

/// A `#[case]` or a `#[matrix]` as written: each name with its values (one
/// for a case, a list for a matrix).
pub(crate) struct Table {
    /// The attribute, for errors.
    attr: TokenStream,
    /// `matrix` rather than `case`.
    matrix: bool,
    /// The names in the order written, with their values.
    axes: Vec<(Ident, Vec<Expr>)>,
}

/// A parameter of the candidate after its input: a case's value, by name.
pub(crate) struct Param {
    /// Its name, which a case sets.
    pub(crate) name: Ident,
    /// Its type, `T` or `&T`.
    pub(crate) ty: Type,
    /// Taken as `&T`: the value is bound as is and lent.
    pub(crate) by_ref: bool,
}

/// One test: its name and its values, in the order written.
pub(crate) struct Case {
    /// The test function's name, such as `len_1024_acc_f32`.
    pub(crate) name: Ident,
    /// Each name with its value.
    pub(crate) bindings: Vec<(Ident, Expr)>,
}

/// The cases of a candidate, with the parameters they fill.
pub(crate) struct Suite {
    /// The candidate's parameters after the input, in order.
    pub(crate) params: Vec<Param>,
    /// The cases, `#[case]`s and products of `#[matrix]`es in the order
    /// written.
    pub(crate) cases: Vec<Case>,
}

/// Whether `attr` is `#[case]` or `#[matrix]` (by its path's last segment).
pub(crate) fn is_case_attribute(attr: &Attribute) -> bool {
    let last = attr.path().segments.last();
    last.is_some_and(|s| ATTRIBUTES.iter().any(|a| s.ident == a))
}

/// Removes the `#[case]`s and `#[matrix]`es from `attrs` and parses them.
pub(crate) fn take(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> Vec<Table> {
    let (tables, rest): (Vec<_>, Vec<_>) = attrs.drain(..).partition(is_case_attribute);
    *attrs = rest;
    tables
        .iter()
        .filter_map(|attr| errors.check(table(attr)))
        .collect()
}

fn table(attr: &Attribute) -> syn::Result<Table> {
    let matrix = attr
        .path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "matrix");
    let (what, example) = match matrix {
        true => ("#[matrix]", "#[matrix(len = [1024, 4096])]"),
        false => ("#[case]", "#[case(len = 1024)]"),
    };
    let empty = || {
        syn::Error::new_spanned(
            attr,
            format!("`{what}` sets no values: write `name = value` pairs, such as `{example}`"),
        )
    };
    let args = match &attr.meta {
        Meta::List(list) => parse::args(list.tokens.clone()).map_err(|e| {
            let message = format!("{e}: `{what}` takes `name = value` pairs, such as `{example}`");
            syn::Error::new(e.span(), message)
        })?,
        Meta::Path(_) => return Err(empty()),
        Meta::NameValue(nv) => {
            return Err(syn::Error::new_spanned(
                &nv.value,
                format!("write `{example}`"),
            ));
        }
    };
    if args.is_empty() {
        return Err(empty());
    }
    let mut errors = Errors::default();
    let mut axes: Vec<(Ident, Vec<Expr>)> = Vec::new();
    for Arg { key, value } in args {
        if axes.iter().any(|(name, _)| name.unraw() == key.unraw()) {
            errors.push(syn::Error::new(
                key.span(),
                format!("`{key}` set twice in this `{what}`"),
            ));
            continue;
        }
        let values = if matrix {
            match errors.check(list(&key, value)) {
                Some(values) => values,
                None => continue,
            }
        } else {
            vec![value]
        };
        axes.push((key, values));
    }
    errors.finish()?;
    let attr = attr.to_token_stream();
    Ok(Table { attr, matrix, axes })
}

/// The values of one axis of a matrix: `[a, b, ...]`, none twice.
fn list(key: &Ident, value: Expr) -> syn::Result<Vec<Expr>> {
    let Expr::Array(array) = value else {
        return Err(syn::Error::new_spanned(
            value,
            format!(
                "`#[matrix]` takes a list of values for each name, such as `{key} = [1024, 4096]`"
            ),
        ));
    };
    if array.elems.is_empty() {
        return Err(syn::Error::new_spanned(
            array,
            format!("`{key}` lists no values"),
        ));
    }
    let values: Vec<Expr> = array.elems.into_iter().collect();
    let mut errors = Errors::default();
    for (i, value) in values.iter().enumerate() {
        let this = name::value_name(value);
        if let Some(earlier) = values[..i].iter().find(|v| name::value_name(v) == this) {
            errors.push(syn::Error::new_spanned(
                value,
                format!(
                    "`{key}` lists `{}` after `{}`: both name a case `{key}_{this}`",
                    crate::display::display(value),
                    crate::display::display(earlier),
                ),
            ));
        }
    }
    errors.finish()?;
    Ok(values)
}

/// The candidate's parameters after the input, each `name: T` or
/// `name: &T`.
pub(crate) fn params(sig: &Signature, errors: &mut Errors) -> Vec<Param> {
    let typed = sig.inputs.iter().filter_map(|input| match input {
        FnArg::Typed(param) => Some(param),
        FnArg::Receiver(_) => None,
    });
    let mut params = Vec::new();
    for param in typed.skip(1) {
        let name = match &*param.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => p.ident.clone(),
            other => {
                errors.push(syn::Error::new_spanned(
                    other,
                    "a parameter after the input takes a case's value by its name: \
                     write `name: Type`, such as `acc: Accumulation`",
                ));
                continue;
            }
        };
        let by_ref = match &*param.ty {
            Type::Reference(r) if r.mutability.is_some() => {
                errors.push(syn::Error::new_spanned(
                    &param.ty,
                    format!("`{name}` takes its case's value by value or by shared reference, not `&mut`"),
                ));
                continue;
            }
            Type::Reference(_) => true,
            Type::ImplTrait(_) => {
                errors.push(syn::Error::new_spanned(
                    &param.ty,
                    "the candidate cannot be generic: give each parameter a concrete type, \
                     not `impl Trait`",
                ));
                continue;
            }
            _ => false,
        };
        let ty = (*param.ty).clone();
        params.push(Param { name, ty, by_ref });
    }
    params
}

/// The cases of `tables`, checked against the candidate's `params`: every
/// case sets the same names, among them every parameter; no two cases
/// share a name.
pub(crate) fn suite(tables: Vec<Table>, params: Vec<Param>, errors: &mut Errors) -> Suite {
    let set = |name: &Ident| {
        tables
            .iter()
            .any(|t| t.axes.iter().any(|(n, _)| n.unraw() == name.unraw()))
    };
    for param in params.iter().filter(|p| !set(&p.name)) {
        let name = &param.name;
        errors.push(syn::Error::new(
            name.span(),
            format!(
                "the candidate's parameter `{name}` has no value: set `{name} = ...` in every \
                 `#[case]` (or list its values in `#[matrix]`)"
            ),
        ));
    }
    // Every name some case sets, first as written.
    let mut names: Vec<&Ident> = Vec::new();
    for (name, _) in tables.iter().flat_map(|t| &t.axes) {
        if !names.iter().any(|n| n.unraw() == name.unraw()) {
            names.push(name);
        }
    }
    let mut cases: Vec<Case> = Vec::new();
    for table in &tables {
        let has = |name: &Ident| table.axes.iter().any(|(n, _)| n.unraw() == name.unraw());
        let missing: Vec<String> = names
            .iter()
            .filter(|n| !has(n))
            .map(|n| {
                let why = match params.iter().any(|p| p.name.unraw() == n.unraw()) {
                    true => "the candidate takes it",
                    false => "other cases set it",
                };
                format!("`{n}` ({why})")
            })
            .collect();
        if !missing.is_empty() {
            let what = if table.matrix { "#[matrix]" } else { "#[case]" };
            errors.push(syn::Error::new_spanned(
                &table.attr,
                format!(
                    "this `{what}` has no {}: every case sets the same names",
                    missing.join(", ")
                ),
            ));
            continue;
        }
        for bindings in product(&table.axes) {
            let name = name::case_name(bindings.iter().map(|(n, v)| (n, v)));
            // The same values, in any order.
            let same = |earlier: &&Case| {
                bindings.iter().all(|(n, v)| {
                    let written =
                        |(en, ev): &(Ident, Expr)| en.unraw() == n.unraw() && display_eq(ev, v);
                    earlier.bindings.iter().any(written)
                })
            };
            if let Some(earlier) = cases.iter().find(same) {
                let message = format!("this case repeats the case `{}` above", earlier.name);
                errors.push(syn::Error::new_spanned(&table.attr, message));
                continue;
            }
            if cases.iter().any(|c| c.name == name) {
                let message = format!(
                    "this case is named `{name}`, as is a case above with other values: give \
                     one of them other values"
                );
                errors.push(syn::Error::new_spanned(&table.attr, message));
                continue;
            }
            let name = Ident::new(&name, proc_macro2::Span::call_site());
            cases.push(Case { name, bindings });
        }
    }
    Suite { params, cases }
}

fn display_eq(a: &Expr, b: &Expr) -> bool {
    crate::display::display(a) == crate::display::display(b)
}

/// Every combination of the axes' values, the first axis varying slowest.
fn product(axes: &[(Ident, Vec<Expr>)]) -> Vec<Vec<(Ident, Expr)>> {
    axes.iter()
        .fold(vec![Vec::new()], |combinations, (name, values)| {
            combinations
                .into_iter()
                .flat_map(|prefix| {
                    values.iter().map(move |value| {
                        let mut next = prefix.clone();
                        next.push((name.clone(), value.clone()));
                        next
                    })
                })
                .collect()
        })
}

/// `#[case]` or `#[matrix]` (`what`) expanded on its own: above
/// `#[dual_delta_test]`, or without it. The error, and the function without
/// these attributes.
pub(crate) fn misplaced(what: &str, item: TokenStream) -> TokenStream {
    let is_test = |attr: &Attribute| {
        let last = attr.path().segments.last();
        last.is_some_and(|s| s.ident == "dual_delta_test")
    };
    let mut f = match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let message = format!("`#[{what}]` goes on a `#[dual_delta_test]` function");
            let error = syn::Error::new(proc_macro2::Span::call_site(), message);
            return crate::codegen::with_errors(error, item);
        }
    };
    let message = match f.attrs.iter().any(is_test) {
        true => format!(
            "`#[{what}]` is read by `#[dual_delta_test]`, so it goes below it: move \
             `#[dual_delta_test(...)]` above the `#[case]`s and `#[matrix]`es"
        ),
        false => format!(
            "`#[{what}]` gives the cases of a `#[dual_delta_test]` candidate: add \
             `#[dual_delta_test(...)]` above it"
        ),
    };
    f.attrs.retain(|a| !is_case_attribute(a) && !is_test(a));
    let error = syn::Error::new(proc_macro2::Span::call_site(), message);
    crate::codegen::with_errors(error, f.into_token_stream())
}
