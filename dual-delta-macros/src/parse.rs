//! Attribute arguments to a raw list of `key = value` pairs.
//!
//! Nothing is interpreted here: which keys exist, how often they may appear
//! and what their values must look like is `validate`'s business, so that it
//! can report every such mistake at once. Only malformed syntax (a key without
//! `= value`, a missing comma) stops parsing.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

/// One `key = value` argument, as written.
pub(crate) struct Arg {
    /// The key (`crate` is accepted although it is a keyword).
    pub(crate) key: Ident,
    /// The value: any expression; `validate` decides what it may be.
    pub(crate) value: Expr,
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key = input.call(Ident::parse_any)?;
        if !input.peek(Token![=]) {
            return Err(syn::Error::new(
                key.span(),
                format!("expected `{key} = <value>`"),
            ));
        }
        let eq: Token![=] = input.parse()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Err(syn::Error::new(
                eq.span,
                format!("expected a value after `{key} =`"),
            ));
        }
        let value = input.parse()?;
        Ok(Arg { key, value })
    }
}

/// Parses `key = value, key = value, ...` (a trailing comma is allowed).
pub(crate) fn args(tokens: TokenStream) -> syn::Result<Vec<Arg>> {
    let list = Punctuated::<Arg, Token![,]>::parse_terminated.parse2(tokens)?;
    Ok(list.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;

    fn keys_and_values(tokens: TokenStream) -> Vec<(String, String)> {
        args(tokens)
            .unwrap()
            .into_iter()
            .map(|a| (a.key.to_string(), a.value.to_token_stream().to_string()))
            .collect()
    }

    #[test]
    fn keys_values_and_trailing_comma() {
        let parsed = keys_and_values(quote!(
            oracle = a::b,
            input = |rng| gen(rng, 3),
            n = 10,
            crate = ::my_rt,
        ));
        let expected = [
            ("oracle", "a :: b"),
            ("input", "| rng | gen (rng , 3)"),
            ("n", "10"),
            ("crate", ":: my_rt"),
        ];
        assert_eq!(parsed.len(), expected.len());
        for ((k, v), (ek, ev)) in parsed.iter().zip(expected) {
            assert_eq!((k.as_str(), v.as_str()), (ek, ev));
        }
    }

    #[test]
    fn empty_arguments_parse_to_nothing() {
        assert!(args(TokenStream::new()).unwrap().is_empty());
    }

    #[test]
    fn malformed_syntax() {
        let message = |t: TokenStream| args(t).err().expect("an error").to_string();
        assert_eq!(message(quote!(oracle)), "expected `oracle = <value>`");
        assert_eq!(message(quote!(n(3))), "expected `n = <value>`");
        assert_eq!(message(quote!(n =)), "expected a value after `n =`");
        assert_eq!(
            message(quote!(n = , seed = 1)),
            "expected a value after `n =`"
        );
        assert_eq!(message(quote!(n = 1 seed = 2)), "expected `,`");
        assert_eq!(message(quote!(= 3)), "expected ident");
    }
}
