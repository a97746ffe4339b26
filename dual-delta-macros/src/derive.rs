//! `#[derive(Coordinates)]`: a struct's coordinates, each field's by its
//! own `Coordinates` (named `x.field`, `len(x.field)`), and its
//! description field by field (a vector of numbers by its summary).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields, Index};

/// The `Coordinates` and `Fields` impls of a struct, or an error at the
/// item where it is no struct.
pub(crate) fn coordinates(input: DeriveInput) -> TokenStream {
    let fields = match &input.data {
        Data::Struct(s) => &s.fields,
        Data::Enum(e) => return error(e.enum_token.span(), &input),
        Data::Union(u) => return error(u.union_token.span(), &input),
    };
    let private = quote!(::dual_delta_runtime::__private);
    // Each field's access (`self.a`, `self.0`), its name in the report and
    // its type.
    let fields: Vec<_> = match fields {
        Fields::Named(named) => named
            .named
            .iter()
            .map(|f| {
                let ident = f.ident.clone().expect("a named field");
                let name = ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                (quote!(#ident), name, &f.ty, f.span())
            })
            .collect(),
        Fields::Unnamed(unnamed) => unnamed
            .unnamed
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let index = Index::from(i);
                (quote!(#index), i.to_string(), &f.ty, f.span())
            })
            .collect(),
        Fields::Unit => Vec::new(),
    };
    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    // A generic struct has coordinates where each field's type has them.
    let mut bounded = input.generics.clone();
    if !input.generics.params.is_empty() {
        let predicates = &mut bounded.make_where_clause().predicates;
        for (_, _, ty, _) in &fields {
            predicates.push(syn::parse_quote!(#ty: #private::Coordinates));
        }
    }
    let coordinates_where = &bounded.where_clause;
    // Spanned at each field: a field without coordinates is reported there.
    let pushes = fields
        .iter()
        .map(|(access, name, _, span)| quote_spanned!(*span=> sink.field(#name, &self.#access);));
    let sink = format_ident!("sink");
    let parts = fields.iter().map(|(access, name, ty, _)| {
        quote! {
            #private::describe_field(
                #name,
                // The four references pick the field's description as the
                // attribute picks an input's.
                (&&&&#private::Describe::<#ty>::NEW).describer(),
                &self.#access,
                cut,
            )
        }
    });
    quote! {
        impl #impl_generics #private::Coordinates for #ident #type_generics #coordinates_where {
            fn coordinates(&self, #sink: &mut #private::Sink<'_>) {
                #(#pushes)*
            }
        }

        impl #impl_generics #private::Fields for #ident #type_generics #where_clause {
            #[allow(clippy::needless_borrow)]
            fn describe_fields(&self, cut: &#private::InputCut) -> #private::String {
                #[allow(unused_imports)]
                use #private::{ViaDebug as _, ViaFields as _, ViaSummary as _, WithoutDebug as _};
                let parts: #private::Vec<#private::String> = #private::Vec::from([#(#parts),*]);
                parts.join("; ")
            }
        }
    }
}

/// The error of a derive on an enum or a union.
fn error(span: proc_macro2::Span, input: &DeriveInput) -> TokenStream {
    let message = format!(
        "`#[derive(Coordinates)]` goes on a struct: give `{}` its coordinates with an `impl Coordinates`",
        input.ident
    );
    syn::Error::new(span, message).to_compile_error()
}
