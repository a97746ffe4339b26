//! Emits the tests of a candidate with `#[case]`s: the function as written
//! (so that it stays callable), then a module named after it holding one
//! `#[test]` per case, named after the case's values, as rstest does.
//!
//! ```ignore
//! fn sum_naive(x: &Vec<f32>) -> f32 { ... }
//! mod sum_naive {
//!     use super::*;
//!     #[test]
//!     fn len_1024() {
//!         let len = 1024;
//!         // the run of `super::sum_naive`, as for a single test
//!     }
//! }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, ItemFn, Meta, Token};

use super::Run;
use crate::cases::{Case, Param, Suite};
use crate::validate::Config;

/// Attributes of the test rather than of the function.
const TEST_ATTRIBUTES: [&str; 2] = ["ignore", "should_panic"];

/// The function `f`, and a module of one test per case of `suite`.
pub(crate) fn cases(config: Config, mut f: ItemFn, suite: Suite) -> TokenStream {
    let run = Run::new(config, &f.sig);
    let Where {
        test,
        cfg,
        function,
    } = split(std::mem::take(&mut f.attrs));
    // Called by the tests only, which `cargo build` leaves out.
    let dead_code: Attribute = syn::parse_quote!(#[allow(dead_code)]);
    f.attrs = [&function[..], &[dead_code]].concat();
    let private = &run.private;
    let name = &f.sig.ident;
    let tests = suite.cases.iter().map(|case| {
        let lets = bindings(case, &suite.params);
        let candidate = candidate(&f, case, &suite.params, private);
        let body = run.body(&candidate, Some(&case.name));
        let test_name = &case.name;
        quote! {
            #(#test)*
            #[#private::test]
            fn #test_name() {
                #(#lets)*
                #body
            }
        }
    });
    quote! {
        #f

        #(#cfg)*
        mod #name {
            // The attribute's expressions name what the function's module
            // has in scope.
            #[allow(unused_imports)]
            use super::*;

            #(#tests)*
        }
    }
}

/// Where each of the function's attributes goes.
struct Where {
    /// On every test: `#[ignore]`, `#[should_panic]`.
    test: Vec<Attribute>,
    /// On the module: `#[cfg]`.
    cfg: Vec<Attribute>,
    /// On the function: the rest (`#[cfg]`, documentation, lints,
    /// `#[inline]`).
    function: Vec<Attribute>,
}

fn split(attrs: Vec<Attribute>) -> Where {
    let mut place = Where {
        test: Vec::new(),
        cfg: Vec::new(),
        function: Vec::new(),
    };
    for attr in attrs {
        let name = attr.path().segments.last().map(|s| s.ident.to_string());
        match name.as_deref() {
            Some("cfg") => {
                place.cfg.push(attr.clone());
                place.function.push(attr);
            }
            _ if is_test_attribute(&attr) => place.test.push(attr),
            _ => place.function.push(attr),
        }
    }
    place
}

/// `#[ignore]`, `#[should_panic]`, or a `#[cfg_attr]` giving only these.
fn is_test_attribute(attr: &Attribute) -> bool {
    let is_test = |meta: &Meta| {
        let last = meta.path().segments.last();
        last.is_some_and(|s| TEST_ATTRIBUTES.iter().any(|t| s.ident == t))
    };
    if attr.path().is_ident("cfg_attr") {
        let parsed = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated);
        return parsed.is_ok_and(|metas| metas.len() > 1 && metas.iter().skip(1).all(is_test));
    }
    is_test(&attr.meta)
}

/// `let name = value;` for each of the case's values; typed as the
/// candidate's parameter when it takes the value by value, so that a value
/// of another type is reported where it is written.
fn bindings<'a>(case: &'a Case, params: &'a [Param]) -> impl Iterator<Item = TokenStream> + 'a {
    case.bindings.iter().map(move |(name, value)| {
        let param = params.iter().find(|p| p.name.unraw() == name.unraw());
        match param {
            Some(Param {
                ty, by_ref: false, ..
            }) => quote!(let #name: #ty = #value;),
            Some(_) => quote!(let #name = #value;),
            // Perhaps only in the test's name.
            None => quote! {
                #[allow(unused_variables)]
                let #name = #value;
            },
        }
    })
}

/// The candidate as the run takes it: the function itself, or a closure
/// that passes the case's values to the parameters after the input.
fn candidate(f: &ItemFn, case: &Case, params: &[Param], private: &TokenStream) -> TokenStream {
    let name = &f.sig.ident;
    if params.is_empty() {
        return quote!(super::#name);
    }
    let input = syn::Ident::new("input", Span::mixed_site());
    let input_type = f.sig.inputs.first().and_then(|first| match first {
        syn::FnArg::Typed(param) => Some(&param.ty),
        syn::FnArg::Receiver(_) => None,
    });
    let args = params.iter().map(|param| {
        // The binding as the case names it.
        let binding = case
            .bindings
            .iter()
            .map(|(n, _)| n)
            .find(|n| n.unraw() == param.name.unraw())
            .unwrap_or(&param.name);
        match param.by_ref {
            true => quote!(&#binding),
            false => quote_spanned!(param.ty.span()=> #private::Clone::clone(&#binding)),
        }
    });
    quote!(|#input: #input_type| super::#name(#input, #(#args),*))
}
