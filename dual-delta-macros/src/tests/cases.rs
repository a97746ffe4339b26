//! `#[case]` and `#[matrix]`: snapshots of the expansion, the names of the
//! tests, and every mistake with its message.

use proc_macro2::TokenStream;
use quote::quote;

use super::expand;

/// The names of the `#[test]` functions in `expansion`.
fn test_names(expansion: &str) -> Vec<String> {
    let file: syn::File = syn::parse_str(expansion).unwrap();
    let module = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) => m.content.as_ref(),
            _ => None,
        })
        .expect("a module of tests");
    module
        .1
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// The messages of the `compile_error!`s in the expansion.
fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
    let expansion = expand(args, item);
    let file: syn::File = syn::parse_str(&expansion).unwrap();
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().unwrap().ident == "compile_error" => {
                Some(m.mac.parse_body::<syn::LitStr>().unwrap().value())
            }
            _ => None,
        })
        .collect()
}

fn required() -> TokenStream {
    quote!(
        oracle = sum_f64,
        baseline = sum_pairwise,
        input = random_vec(len)
    )
}

#[test]
fn two_cases() {
    let expansion = expand(
        required(),
        quote! {
            /// Naive summation.
            #[case(len = 1024)]
            #[case(len = 65536)]
            #[ignore = "slow"]
            #[cfg(target_pointer_width = "64")]
            fn sum_naive(x: &Vec<f32>) -> f32 {
                x.iter().sum()
            }
        },
    );
    assert_eq!(test_names(&expansion), ["len_1024", "len_65536"]);
    insta::assert_snapshot!(expansion);
}

#[test]
fn a_candidate_taking_case_values() {
    let expansion = expand(
        quote!(
            oracle = matmul_f64,
            baseline = matmul_cpu_f16,
            input = random_matmul_input(m, k, 128),
            check = |o| budget(o, acc),
            batch = 8
        ),
        quote! {
            #[case(m = 128, k = 4096, acc = Accumulation::F32, shape = Shape::Square)]
            fn gpu_matmul(xs: &[MatmulInput], acc: Accumulation, shape: &Shape) -> Vec<Vec<f16>> {
                gpu().matmul_batch(xs, acc, shape)
            }
        },
    );
    assert_eq!(
        test_names(&expansion),
        ["m_128_k_4096_acc_f32_shape_square"]
    );
    insta::assert_snapshot!(expansion);
}

#[test]
fn a_matrix_is_every_combination_after_the_cases() {
    let expansion = expand(
        required(),
        quote! {
            #[case(len = 8, acc = Accumulation::F16)]
            #[matrix(len = [1024, 65536], acc = [Accumulation::F32, Accumulation::BF16])]
            #[matrix(acc = [Accumulation::F64], len = [0x10, -1, 0.5])]
            fn sum(x: &Vec<f32>, acc: Accumulation) -> f32 {
                x.iter().sum()
            }
        },
    );
    assert_eq!(
        test_names(&expansion),
        [
            "len_8_acc_f16",
            "len_1024_acc_f32",
            "len_1024_acc_bf16",
            "len_65536_acc_f32",
            "len_65536_acc_bf16",
            "acc_f64_len_16",
            "acc_f64_len_minus_1",
            "acc_f64_len_0_5",
        ]
    );
}

#[test]
fn the_same_names_are_needed_in_every_case() {
    let item = quote! {
        #[case(len = 1024, acc = Accumulation::F32)]
        #[case(len = 4096)]
        #[matrix(len = [1, 2])]
        fn sum(x: &Vec<f32>, acc: Accumulation, scale: f32) -> f32 {
            x.iter().sum()
        }
    };
    assert_eq!(
        errors(required(), item),
        [
            "the candidate's parameter `scale` has no value: set `scale = ...` in every \
             `#[case]` (or list its values in `#[matrix]`)",
            "this `#[case]` has no `acc` (the candidate takes it): every case sets the same names",
            "this `#[matrix]` has no `acc` (the candidate takes it): every case sets the same \
             names",
        ]
    );
    let item = quote! {
        #[case(len = 1024, label = "a")]
        #[case(len = 4096)]
        fn sum(x: &Vec<f32>) -> f32 {
            x.iter().sum()
        }
    };
    assert_eq!(
        errors(required(), item),
        ["this `#[case]` has no `label` (other cases set it): every case sets the same names"]
    );
}

#[test]
fn duplicates_are_reported() {
    let item = quote! {
        #[case(len = 1024)]
        #[case(len = 1024)]
        #[case(len = 0x400)]
        #[matrix(len = [1, 2, 0x1])]
        #[case(len = 1, len = 2)]
        fn sum(x: &Vec<f32>) -> f32 {
            x.iter().sum()
        }
    };
    assert_eq!(
        errors(required(), item),
        [
            "`len` lists `0x1` after `1`: both name a case `len_1`",
            "`len` set twice in this `#[case]`",
            "this case repeats the case `len_1024` above",
            "this case is named `len_1024`, as is a case above with other values: give one of \
             them other values",
        ]
    );
    let item = quote! {
        #[case(len = 8, acc = Accumulation::F32)]
        #[case(acc = Accumulation::F32, len = 8)]
        fn sum(x: &Vec<f32>, acc: Accumulation) -> f32 {
            x.iter().sum()
        }
    };
    assert_eq!(
        errors(required(), item),
        ["this case repeats the case `len_8_acc_f32` above"]
    );
}

#[test]
fn malformed_cases() {
    let item = quote! {
        #[case()]
        #[case]
        #[matrix(len = 1024)]
        #[matrix(len = [])]
        #[case(1024)]
        fn sum(x: &Vec<f32>, (a, b): (u8, u8), m: &mut u8, n: impl Sized) -> f32 {
            x.iter().sum()
        }
    };
    assert_eq!(
        errors(required(), item),
        [
            "`#[case]` sets no values: write `name = value` pairs, such as `#[case(len = 1024)]`",
            "`#[case]` sets no values: write `name = value` pairs, such as `#[case(len = 1024)]`",
            "`#[matrix]` takes a list of values for each name, such as `len = [1024, 4096]`",
            "`len` lists no values",
            "expected ident: `#[case]` takes `name = value` pairs, such as `#[case(len = 1024)]`",
            "a parameter after the input takes a case's value by its name: write `name: Type`, \
             such as `acc: Accumulation`",
            "`m` takes its case's value by value or by shared reference, not `&mut`",
            "the candidate cannot be generic: give each parameter a concrete type, not `impl \
             Trait`",
        ]
    );
}

#[test]
fn without_cases_a_second_parameter_is_an_error() {
    let item = quote! {
        fn sum(x: &Vec<f32>, acc: Accumulation) -> f32 {
            x.iter().sum()
        }
    };
    let e = errors(required(), item);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].ends_with("or give the others values with `#[case(name = value)]`"));
}

#[test]
fn a_case_on_its_own_says_where_it_goes() {
    let message = |item: TokenStream| {
        let tokens = crate::cases::misplaced("case", item);
        let file: syn::File = syn::parse2(tokens).unwrap();
        let text = prettyplease::unparse(&file);
        assert!(
            !text.contains("len = 2") && !text.contains("oracle = o"),
            "{text}"
        );
        text
    };
    let above = message(quote! {
        #[case(len = 2)]
        #[dual_delta_test(oracle = o, baseline = b, input = i)]
        fn sum(x: &Vec<f32>, len: usize) -> f32 { 0.0 }
    });
    assert!(above.contains("so it goes below it"), "{above}");
    let alone = message(quote! {
        fn sum(x: &Vec<f32>, len: usize) -> f32 { 0.0 }
    });
    assert!(
        alone.contains("add `#[dual_delta_test(...)]` above it"),
        "{alone}"
    );
}
