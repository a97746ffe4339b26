//! Snapshots of the expansion (`cargo insta review` after a change, or
//! `INSTA_UPDATE=always cargo test -p dual-delta-macros`).

mod cases;
mod settings;
mod validate;

use proc_macro2::TokenStream;
use quote::quote;

/// The expansion of `#[dual_delta_test(args)] item`, pretty-printed.
fn expand(args: TokenStream, item: TokenStream) -> String {
    let tokens = crate::expand(args, item);
    let file = syn::parse2::<syn::File>(tokens.clone())
        .unwrap_or_else(|e| panic!("the expansion is not a file ({e}):\n{tokens}"));
    prettyplease::unparse(&file)
}

#[test]
fn readme_example() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = sum_f64,
            baseline = sum_pairwise,
            input = random_vec,
            n = 1000
        ),
        quote! {
            fn sum_naive(x: &Vec<f32>) -> f32 {
                x.iter().fold(0.0, |s, &v| s + v)
            }
        },
    ));
}

#[test]
fn attributes_are_kept_on_the_test() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = exact,
            baseline = reference,
            input = inputs,
            expect = worse
        ),
        quote! {
            /// Naive summation is caught.
            #[ignore = "slow"]
            #[cfg(target_pointer_width = "64")]
            #[should_panic(expected = "less accurate")]
            #[allow(clippy::needless_range_loop)]
            pub(crate) fn naive(x: &[f32; 8]) -> f32 {
                let mut s = 0.0;
                for i in 0..8 {
                    s += x[i];
                }
                s
            }
        },
    ));
}

#[test]
fn every_key_with_closures_and_a_custom_metric() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = |x: &Input| reference::<f64>(x),
            baseline = make_baseline(Precision::F32),
            input = |rng| Input::random(rng, 64),
            n = 200,
            seed = 0x5eed,
            alpha = 0.05,
            metric = |y: &[f64], o: &[f64]| l1(y, o),
            expect = equivalent,
            test = t,
            margin = 0.25,
            stability = no_worse,
            threads = 1,
            features = |x: &Input| vec![("rows", x.rows as f64)],
            check = |outcome| within_budget(outcome),
            crate = ::my_dual_delta,
        ),
        quote! {
            fn candidate(x: &Input) -> Vec<half::f16> {
                x.compute()
            }
        },
    ));
}

#[test]
fn built_in_names() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = o,
            baseline = b,
            input = i,
            metric = max_ulp,
            expect = better,
            test = sign,
            crate = rt,
        ),
        quote!(
            fn c(x: &u32) -> f32 {
                *x as f32
            }
        ),
    ));
}

#[test]
fn errors_come_with_the_function_unchanged() {
    insta::assert_snapshot!(expand(
        quote!(oracle = o, n = 0, n = 5, expct = worse),
        quote!(
            async fn c(x: &u32) {}
        ),
    ));
}

#[test]
fn not_a_function() {
    insta::assert_snapshot!(expand(
        quote!(oracle = o, baseline = b, input = i),
        quote!(
            struct S;
        ),
    ));
}

#[test]
fn a_batched_candidate() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = matmul_f64,
            baseline = matmul_cpu_f16,
            input = random_input,
            batch = 32
        ),
        quote! {
            fn gpu_matmul(xs: &[MatmulInput]) -> Vec<Vec<f16>> {
                gpu().matmul_batch(xs)
            }
        },
    ));
}

#[test]
fn a_candidate_taking_a_slice_of_numbers() {
    insta::assert_snapshot!(expand(
        quote!(
            oracle = sum_f64,
            baseline = sum_pairwise,
            input = random_vec
        ),
        quote! {
            fn sum_naive(x: &[f32]) -> f32 {
                x.iter().sum()
            }
        },
    ));
}

/// `#[derive(Coordinates)]`, pretty-printed.
fn derive(item: TokenStream) -> String {
    let tokens = crate::derive::coordinates(syn::parse2(item).unwrap());
    let file = syn::parse2::<syn::File>(tokens.clone())
        .unwrap_or_else(|e| panic!("the expansion is not a file ({e}):\n{tokens}"));
    prettyplease::unparse(&file)
}

#[test]
fn derived_coordinates_of_named_and_tuple_structs() {
    insta::assert_snapshot!(derive(quote! {
        struct Scaled<T> {
            values: Vec<T>,
            r#type: f32,
        }
    }));
    let tuple = derive(quote!(
        struct Pair(Vec<f32>, u32);
    ));
    assert!(tuple.contains(r#"sink.field("0", &self.0);"#), "{tuple}");
    assert!(tuple.contains(r#"sink.field("1", &self.1);"#), "{tuple}");
    let unit = derive(quote!(
        struct Unit;
    ));
    assert!(!unit.contains("sink.field"), "{unit}");
}

#[test]
fn derived_coordinates_of_an_enum_are_an_error_at_the_enum() {
    let tokens = crate::derive::coordinates(
        syn::parse2(quote!(
            enum E {
                A,
            }
        ))
        .unwrap(),
    );
    let text = tokens.to_string();
    assert!(text.contains("compile_error"), "{text}");
    assert!(text.contains("goes on a struct"), "{text}");
}
