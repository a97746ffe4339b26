//! The candidate's signature: what a function must look like to be judged.

use super::*;

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

/// The number types a candidate may take a slice of without `batch = ...`:
/// its input is then their `Vec`.
const NUMBERS: [&str; 14] = [
    "f16", "bf16", "f32", "f64", "E4m3", "E5m2", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
    "u64",
];

/// Whether `ty` names a number type (`f32`, `half::f16`, ...).
fn is_number(ty: &Type) -> bool {
    matches!(ungroup_type(ty), Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.arguments.is_empty()
            && NUMBERS.iter().any(|n| s.ident == n)))
}

/// The element `E` of a candidate's input `&[E]` where `E` is a number and
/// the candidate takes one input a call: its input is then a `Vec<E>`.
pub(crate) fn number_slice(ty: &Type, batched: bool) -> Option<&Type> {
    match ungroup_type(ty) {
        Type::Reference(r) if !batched => match ungroup_type(&r.elem) {
            Type::Slice(slice) if is_number(&slice.elem) => Some(&slice.elem),
            _ => None,
        },
        _ => None,
    }
}

/// The input must be `&Input`, with `Input` a concrete, sized type (a slice
/// only with `batch = ...`, or of numbers, `&[f32]`, whose input is their
/// `Vec`).
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
            // A slice of numbers: the input is their `Vec`.
            Type::Slice(slice) if is_number(&slice.elem) => {}
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
