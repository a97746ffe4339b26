//! Emits the test function, or with `#[case]`s a module of tests, one per
//! case (`cases`).
//!
//! The expansion only names the runtime through `<crate>::__private` and holds
//! no logic of its own: it hands the candidate, the three expressions and the
//! attribute's settings to `__private::run_test`, which resolves the settings
//! (environment over attribute over defaults), runs the trials and decides.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Ident, ItemFn, LitInt, Path, Signature};

use crate::display::display;
use crate::validate::{Config, MetricChoice, Value, number_slice};

mod cases;

pub(crate) use cases::cases;

/// The default path of the runtime.
fn default_crate() -> Path {
    syn::parse_quote!(::dual_delta_runtime)
}

/// The `#[test]` function running `f` as the candidate.
pub(crate) fn test(config: Config, f: ItemFn) -> TokenStream {
    let run = Run::new(config, &f.sig);
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = f;
    let name = &sig.ident;
    let private = &run.private;
    let body = run.body(&quote!(#name), None);
    quote! {
        #(#attrs)*
        #[#private::test]
        #vis fn #name() {
            #sig #block

            #body
        }
    }
}

/// What every test of one attribute runs: the settings, the check and the
/// three expressions, ready to be emitted in each test's body.
pub(crate) struct Run {
    /// `<crate>::__private`.
    pub(crate) private: TokenStream,
    /// The fields of `Overrides` that the attribute sets.
    fields: Vec<TokenStream>,
    check: TokenStream,
    input: TokenStream,
    baseline: TokenStream,
    oracle: TokenStream,
    /// The baseline, oracle and input expressions as written.
    names: [String; 3],
    /// The candidate's name.
    function: String,
    batch: Option<LitInt>,
    /// What the run reads of an input: how the worst are shown (`Debug`
    /// where the type has it, picked by method resolution so that a type
    /// without it still works), its coordinates and the user's features,
    /// which a failing run's loss is cut by.
    inputs: TokenStream,
    /// The input type `Vec<E>` of a candidate taking `&[E]`, a slice of
    /// numbers: the candidate is called through a closure taking `&Vec<E>`.
    number_slice: Option<syn::Type>,
}

impl Run {
    pub(crate) fn new(config: Config, sig: &Signature) -> Run {
        let Config {
            oracle,
            baseline,
            input,
            overrides,
            batch,
            features,
            check,
            krate,
        } = config;
        let krate = krate.unwrap_or_else(default_crate);
        let private = quote!(#krate::__private);
        let some = |value: &dyn ToTokens| {
            let span = value.span();
            quote_spanned!(span=> #private::Some(#value))
        };
        let fields = overrides.0.into_iter().map(|(key, value)| {
            let value = match value {
                Value::Literal(tokens) => some(&tokens),
                Value::Variant(ty, variant) => {
                    let ty = syn::Ident::new(ty, Span::call_site());
                    some(&quote!(#private::#ty::#variant))
                }
                Value::Metric(MetricChoice::BuiltIn(variant)) => {
                    some(&quote!(#private::Metric::#variant))
                }
                Value::Metric(MetricChoice::Custom(expr)) => {
                    // Spanned at the expression, so that a metric of the wrong
                    // type is reported there rather than at the whole attribute.
                    let span = expr.span();
                    let custom = respan(quote!(#private::Metric::custom), span);
                    let name = display(&expr);
                    some(&quote_spanned! {span=>
                        #custom(#name, #expr)
                    })
                }
            };
            let key = syn::Ident::new(key, Span::call_site());
            quote!(#key: #value)
        });
        let fields = fields.collect();
        let check = match check {
            // Spanned at the expression: a check of the wrong type is reported
            // there.
            Some(expr) => quote_spanned!(expr.span()=> #expr),
            None => quote!(#private::no_check),
        };
        let names = [&baseline, &oracle, &input].map(display);
        // The input type the candidate takes. The three expressions are checked
        // against it on their own, spanned at each, so that a generator or a
        // reference of the wrong type is reported at the expression that is
        // wrong rather than inside the runtime.
        // A candidate taking `&[E]`, a slice of numbers, takes a `Vec<E>`
        // input; the three expressions may take either.
        let number_slice: Option<syn::Type> = sig.inputs.first().and_then(|first| match first {
            syn::FnArg::Typed(param) => number_slice(&param.ty, batch.is_some())
                .map(|elem| syn::parse_quote!(#private::Vec<#elem>)),
            syn::FnArg::Receiver(_) => None,
        });
        let input_type = |sig: &Signature, batched: bool| match &number_slice {
            Some(vec) => Some(vec.clone()),
            None => input_type(sig, batched),
        };
        let inputs = match input_type(sig, batch.is_some()) {
            Some(ty) => quote! {
                .describe_inputs_with({
                    #[allow(unused_imports)]
                    use #private::{ViaDebug as _, ViaFields as _, ViaSummary as _, WithoutDebug as _};
                    // The four references are the point: method resolution
                    // finds `ViaFields` first for a type described field by
                    // field (`#[derive(Coordinates)]`), then `ViaSummary` for
                    // a vector of numbers, then `ViaDebug` where the type has
                    // `Debug`.
                    #[allow(clippy::needless_borrow)]
                    let describer = (&&&&#private::Describe::<#ty>::NEW).describer();
                    describer
                })
                // The input's own coordinates, where its type has them.
                .coordinates_with({
                    #[allow(unused_imports)]
                    use #private::{WithCoordinates as _, WithoutCoordinates as _};
                    #[allow(clippy::needless_borrow)]
                    let coordinates = (&&#private::CoordinatesOf::<#ty>::NEW).coordinates_fn();
                    coordinates
                })
            },
            None => TokenStream::new(),
        };
        // Spanned at the expression: features of the wrong type are
        // reported there.
        let inputs = match features {
            Some(expr) => {
                let call = respan(quote!(.features), expr.span());
                quote_spanned!(expr.span()=> #inputs #call(#expr))
            }
            None => inputs,
        };
        let (input, baseline, oracle) = match input_type(sig, batch.is_some()) {
            Some(ty) => {
                let span = |expr: &Expr| expr.span();
                let (baseline_span, oracle_span) = (span(&baseline), span(&oracle));
                let (baseline, oracle) = match &number_slice {
                    Some(vec) => (by_vec(&baseline, vec), by_vec(&oracle, vec)),
                    None => (baseline.to_token_stream(), oracle.to_token_stream()),
                };
                (
                    quote_spanned!(span(&input)=> #private::input_of::<#ty, _>(#input)),
                    quote_spanned!(baseline_span=> #private::baseline_of::<#ty, _, _>(#baseline)),
                    quote_spanned!(oracle_span=> #private::oracle_of::<#ty, _, _>(#oracle)),
                )
            }
            None => (
                input.to_token_stream(),
                baseline.to_token_stream(),
                oracle.to_token_stream(),
            ),
        };
        Run {
            private,
            fields,
            check,
            input,
            baseline,
            oracle,
            names,
            function: sig.ident.unraw().to_string(),
            batch,
            inputs,
            number_slice,
        }
    }

    /// The statements of a test that runs `candidate`; `case` is the
    /// case's name, for a test of a `#[case]`.
    pub(crate) fn body(&self, candidate: &TokenStream, case: Option<&Ident>) -> TokenStream {
        let Run {
            names: [baseline_name, oracle_name, input_name],
            function,
            batch,
            inputs,
            ..
        } = self;
        let (private, fields, check) = (&self.private, &self.fields, &self.check);
        let (input, baseline, oracle) = (&self.input, &self.baseline, &self.oracle);
        let case = match case {
            Some(case) => {
                let case = case.to_string();
                quote!(#private::Some(#case))
            }
            None => quote!(#private::None),
        };
        let candidate = match &self.number_slice {
            Some(vec) => by_vec(candidate, vec),
            None => candidate.clone(),
        };
        // The run: a batched candidate takes up to `size` inputs per call.
        let run = match batch {
            Some(size) => quote! {
                #private::DualDelta::batched(#candidate, #baseline, #oracle, #input).batch_size(#size)
            },
            None => quote!(#private::DualDelta::new(#candidate, #baseline, #oracle, #input)),
        };
        let run = quote!(#run #inputs);
        // Local-variable hygiene: never shadows a user item named `overrides`.
        let overrides = Ident::new("overrides", Span::mixed_site());
        quote! {
            // Every field may be set, which makes the update needless.
            #[allow(clippy::needless_update)]
            let #overrides = #private::Overrides {
                #(#fields,)*
                ..#private::Default::default()
            };
            #private::run_test(
                #private::TestIdentity {
                    module_path: #private::module_path!(),
                    function: #function,
                    case: #case,
                    baseline: #baseline_name,
                    oracle: #oracle_name,
                    input: #input_name,
                    file: #private::file!(),
                    line: #private::line!(),
                    cargo: #private::cargo_target!(),
                },
                #overrides,
                #run,
                #check,
            );
        }
    }
}

/// The type `T` of the candidate's parameter `x: &T` (`xs: &[T]` when
/// `batched`); validation has checked that it has this form.
fn input_type(sig: &Signature, batched: bool) -> Option<syn::Type> {
    let Some(syn::FnArg::Typed(param)) = sig.inputs.first() else {
        return None;
    };
    let syn::Type::Reference(r) = &*param.ty else {
        return None;
    };
    match (&*r.elem, batched) {
        (syn::Type::Slice(s), true) => Some((*s.elem).clone()),
        (_, true) => None,
        (elem, false) => Some(elem.clone()),
    }
}

/// `f`, a function of `&[E]` or of `&Vec<E>`, as a closure of `&Vec<E>`
/// (`vec`): the call coerces the reference to what `f` takes.
fn by_vec(f: &dyn ToTokens, vec: &syn::Type) -> TokenStream {
    let (function, x) = (
        Ident::new("function", Span::mixed_site()),
        Ident::new("x", Span::mixed_site()),
    );
    quote!({
        let #function = #f;
        move |#x: &#vec| #function(#x)
    })
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(g) = &tree {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = TokenTree::Group(group);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}

/// The errors, followed by the function as written so that an IDE still
/// analyses its body.
pub(crate) fn with_errors(errors: syn::Error, item: TokenStream) -> TokenStream {
    let errors = errors.into_compile_error();
    quote! {
        #errors
        #[allow(dead_code)]
        #item
    }
}
