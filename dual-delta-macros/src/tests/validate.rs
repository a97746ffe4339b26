//! Validation of the attribute's arguments and of the candidate's
//! signature: every mistake and its message.

use proc_macro2::TokenStream;
use quote::quote;

use quote::ToTokens;

use crate::validate::*;

pub(super) fn config_of(tokens: TokenStream) -> syn::Result<Config> {
    config(crate::parse::args(tokens)?)
}

/// Every error message, in order.
fn messages(result: syn::Result<impl Sized>) -> Vec<String> {
    match result {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

pub(super) fn config_errors(tokens: TokenStream) -> Vec<String> {
    messages(config_of(tokens))
}

fn candidate_errors(item: TokenStream) -> Vec<String> {
    messages(candidate(&syn::parse2(item).unwrap(), false, false))
}

fn batched_candidate_errors(item: TokenStream) -> Vec<String> {
    messages(candidate(&syn::parse2(item).unwrap(), true, false))
}

pub(super) const REQUIRED_KEYS: fn() -> TokenStream =
    || quote!(oracle = o, baseline = b, input = i,);

#[test]
fn a_full_configuration() {
    let required = REQUIRED_KEYS();
    let c = config_of(quote!(
        #required n = 1_000, seed = 0xdead_beef, alpha = 0.05, metric = max_ulp,
        expect = worse, test = t, margin = 1, stability = better, threads = 1,
        batch = 64, crate = ::rt,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.krate.unwrap().to_token_stream().to_string(), ":: rt");
    assert_eq!(c.batch.unwrap().to_string(), "64usize");
    let o = c.overrides;
    let literal = |key| match o.get(key) {
        Some(Value::Literal(t)) => t.to_string(),
        _ => panic!("no literal `{key}`"),
    };
    let variant = |key| match o.get(key) {
        Some(Value::Variant(ty, v)) => format!("{ty}::{v}"),
        _ => panic!("no variant `{key}`"),
    };
    assert_eq!(literal("n"), "1_000usize");
    assert_eq!(literal("seed"), "0xdead_beefu64");
    assert_eq!(literal("alpha"), "0.05f64");
    assert!(
        matches!(o.get("metric"), Some(Value::Metric(MetricChoice::BuiltIn(v))) if v == "MaxUlp")
    );
    assert_eq!(variant("expect"), "Expect::Worse");
    assert_eq!(variant("test"), "AccuracyTest::PairedT");
    assert_eq!(literal("margin"), "1f64");
    assert_eq!(variant("stability"), "Expect::Better");
    assert_eq!(literal("threads"), "1usize");
    // In the order of KEYS.
    let keys: Vec<&str> = o.0.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        keys,
        [
            "n",
            "seed",
            "alpha",
            "metric",
            "expect",
            "test",
            "margin",
            "stability",
            "threads"
        ]
    );
}

#[test]
fn only_the_required_keys() {
    let c = config_of(REQUIRED_KEYS()).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.overrides.0.is_empty() && c.krate.is_none() && c.batch.is_none());
}

#[test]
fn suffixes_are_normalised() {
    let required = REQUIRED_KEYS();
    let c = config_of(quote!(#required n = 50u32, seed = 7u8)).unwrap();
    let literal = |key| match c.overrides.get(key) {
        Some(Value::Literal(t)) => t.to_string(),
        _ => panic!("no literal `{key}`"),
    };
    assert_eq!(literal("n"), "50usize");
    assert_eq!(literal("seed"), "7u64");
}

#[test]
fn a_metric_expression_is_custom() {
    let required = REQUIRED_KEYS();
    for metric in [quote!(my_metric), quote!(|y, o| 0.0), quote!(m::max_ulp)] {
        let c = config_of(quote!(#required metric = #metric)).unwrap();
        assert!(
            matches!(
                c.overrides.get("metric"),
                Some(Value::Metric(MetricChoice::Custom(_)))
            ),
            "{metric}"
        );
    }
}

#[test]
fn missing_keys_are_all_reported() {
    assert_eq!(
        config_errors(quote!()),
        [
            "missing `oracle = ...`: the high-precision reference, a function `Fn(&I) -> O`",
            "missing `baseline = ...`: the implementation the candidate is compared with, \
             a function `Fn(&I) -> O`",
            "missing `input = ...`: the input generator, a function \
             `Fn(&mut TrialRng) -> I`",
        ]
    );
}

#[test]
fn unknown_and_duplicate_keys() {
    let required = REQUIRED_KEYS();
    let errors = config_errors(quote!(#required aplha = 0.1, n = 50, n = 60, fast = true));
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].starts_with(
        "unknown key `aplha` (did you mean `alpha`?); the keys are `oracle`, `baseline`"
    ));
    assert!(
        errors[0].ends_with(
            "`threads`, `allow_non_finite`, `stop_early`, `screen`, `gross_factor`, `bound`, `batch`, `features`, `check`, `crate`"
        ),
        "{}",
        errors[0]
    );
    assert_eq!(errors[1], "`n` set multiple times");
    assert!(errors[2].starts_with("unknown key `fast`; the keys are"));
}

#[test]
fn an_n_too_small_to_fail_at_the_attribute_alpha() {
    let required = REQUIRED_KEYS();
    let errors = config_errors(quote!(#required n = 8));
    assert_eq!(
        errors,
        [
            "n = 8 inputs are too few: the one-sided Wilcoxon signed-rank test cannot reject at \
             level 0.0025 with fewer than 9, so this test could never fail; use n >= 9"
        ]
    );
    // The runtime's own count, from the settings crate, at every setting
    // that moves it.
    for (n, ok) in [(9, true), (8, false)] {
        assert_eq!(
            config_errors(quote!(#required n = #n)).is_empty(),
            ok,
            "n = {n}"
        );
    }
    assert!(config_errors(quote!(#required n = 8, stop_early = false)).is_empty());
    assert!(!config_errors(quote!(#required n = 7, stop_early = false)).is_empty());
    assert!(config_errors(quote!(#required n = 7, rule = paper)).is_empty());
    assert!(!config_errors(quote!(#required n = 6, rule = paper)).is_empty());
    let errors = config_errors(quote!(#required n = 9, alpha = 0.001, test = sign));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .contains("the one-sided sign test cannot reject at level 0.00025 with fewer than 12"),
        "{errors:?}"
    );
}

#[test]
fn bad_values_are_all_reported() {
    let required = REQUIRED_KEYS();
    let errors = config_errors(quote!(
        #required n = 0, seed = -1, alpha = 1.0, expect = great, test = z,
        margin = -0.5, stability = 3, threads = N, metric = "max_ulp", crate = 1,
    ));
    assert_eq!(
        errors,
        [
            "invalid n=\"0\": expected a whole number of trials, at least 1",
            "invalid seed=\"-1\": expected an unsigned 64-bit integer (decimal or 0x-hex), or \
             `random` in the environment",
            "invalid alpha=\"1\": expected a number strictly between 0 and 1",
            "invalid expect=\"great\": expected one of `no_worse`, `equivalent`, `better`, `worse`",
            "invalid test=\"z\": expected one of `wilcoxon`, `sign`, `t`",
            "invalid margin=\"-0.5\": expected a finite number >= 0",
            "invalid stability=\"3\": expected one of `no_worse`, `equivalent`, `better`, `worse`",
            "invalid threads=\"N\": expected a whole number of threads, at least 1",
            "`metric` is a built-in metric's name without quotes (`max_hybrid`, \
             `mean_hybrid`, `norm_relative`, `max_absolute`, `max_relative`, `max_ulp`) \
             or a function `Fn(&[f64], &[f64]) -> f64`, not a string",
            "`crate` must be the path of the runtime crate, such as \
             `crate = ::dual_delta_runtime`",
        ]
    );
}

#[test]
fn number_edge_cases() {
    let required = REQUIRED_KEYS();
    let errs = |t: TokenStream| config_errors(quote!(#required #t));
    assert_eq!(errs(quote!(alpha = 0)).len(), 1);
    assert_eq!(errs(quote!(alpha = -0.5)).len(), 1);
    assert_eq!(errs(quote!(alpha = ALPHA)).len(), 1);
    assert!(errs(quote!(alpha = 0.999)).is_empty());
    assert!(errs(quote!(margin = 0)).is_empty());
    assert!(errs(quote!(margin = 2.5e-1)).is_empty());
    assert_eq!(errs(quote!(n = 1e3)).len(), 1);
    assert_eq!(errs(quote!(n = -5)).len(), 1);
    assert_eq!(
        errs(quote!(n = 99999999999999999999999)),
        ["invalid n=\"99999999999999999999999\": expected a whole number of trials, at least 1"]
    );
    assert_eq!(errs(quote!(seed = 18446744073709551616)).len(), 1);
    assert!(errs(quote!(seed = 18446744073709551615)).is_empty());
}

#[test]
fn a_good_candidate() {
    assert!(
        candidate_errors(quote!(
            fn f(x: &Vec<f32>) -> f32 {
                0.0
            }
        ))
        .is_empty()
    );
    assert!(
        candidate_errors(quote!(
            pub fn f(_: &[f32; 4]) -> impl Output {
                0.0
            }
        ))
        .is_empty()
    );
    assert!(
        candidate_errors(quote!(
            #[doc = "d"]
            #[ignore]
            const fn f(x: &u8) -> f32 {
                0.0
            }
        ))
        .is_empty()
    );
}

#[test]
fn signature_mistakes() {
    let one = |item: TokenStream| {
        let e = candidate_errors(item);
        assert_eq!(e.len(), 1, "{e:?}");
        e.into_iter().next().unwrap()
    };
    assert!(
        one(quote!(
            fn f() -> f32 {
                0.0
            }
        ))
        .starts_with("the candidate takes one parameter")
    );
    assert!(
        one(quote!(
            fn f(&self) -> f32 {
                0.0
            }
        ))
        .contains("not a method")
    );
    assert!(
        one(quote!(
            fn f(a: &u8, b: &u8) -> f32 {
                0.0
            }
        ))
        .contains("but has 2")
    );
    assert!(
        one(quote!(
            fn f<T>(a: &T) -> f32 {
                0.0
            }
        ))
        .contains("cannot be generic")
    );
    assert!(
        one(quote!(
            fn f<'a>(a: &'a u8) -> f32 {
                0.0
            }
        ))
        .contains("cannot be generic")
    );
    assert!(
        one(quote!(
            fn f(a: &u8) -> f32
            where
                u8: Copy,
            {
                0.0
            }
        ))
        .contains("`where`")
    );
    assert!(
        one(quote!(
            fn f(a: &impl Sized) -> f32 {
                0.0
            }
        ))
        .contains("cannot be generic")
    );
    assert!(
        one(quote!(
            async fn f(a: &u8) -> f32 {
                0.0
            }
        ))
        .contains("`async`")
    );
    assert!(
        one(quote!(
            unsafe fn f(a: &u8) -> f32 {
                0.0
            }
        ))
        .contains("`unsafe`")
    );
    assert!(
        one(quote!(
            fn f(a: &u8) {}
        ))
        .contains("without a return type")
    );
    assert!(
        one(quote!(
            fn f(a: &u8) -> () {}
        ))
        .contains("not `()`")
    );
    assert!(
        one(quote!(
            fn f(a: Vec<f32>) -> f32 {
                0.0
            }
        ))
        .contains("by reference")
    );
    assert!(
        one(quote!(
            fn f(a: &mut u8) -> f32 {
                0.0
            }
        ))
        .contains("not `&mut`")
    );
    assert_eq!(
        one(quote!(
            #[test]
            fn f(a: &u8) -> f32 {
                0.0
            }
        )),
        "`#[dual_delta_test]` already makes this function a test: remove `#[test]`"
    );
}

#[test]
fn a_batched_candidate_takes_a_slice() {
    assert!(
        batched_candidate_errors(quote!(
            fn f(xs: &[Vec<f32>]) -> Vec<f32> {
                Vec::new()
            }
        ))
        .is_empty()
    );
    let e = batched_candidate_errors(quote!(
        fn f(x: &Vec<f32>) -> f32 {
            0.0
        }
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("with `batch = ...` the candidate takes the inputs of consecutive"),
        "{e:?}"
    );
    let zero = config_errors(quote!(oracle = o, baseline = b, input = i, batch = 0));
    assert_eq!(
        zero,
        ["invalid batch=\"0\": expected a whole number of trials per call, at least 1"]
    );
}

#[test]
fn signature_mistakes_are_all_reported() {
    let e = candidate_errors(quote!(
        async fn f<T>(self, a: u8, b: u8) {}
    ));
    assert_eq!(e.len(), 6, "{e:?}");
    assert_eq!(
        candidate_errors(quote!(
            fn f(&self, a: &u8) -> f32 {
                0.0
            }
        ))
        .len(),
        1
    );
}

#[test]
fn edit_distance_counts_edits() {
    assert_eq!(edit_distance("alpha", "aplha"), 2);
    assert_eq!(edit_distance("seed", "seeds"), 1);
    assert_eq!(edit_distance("n", ""), 1);
    assert_eq!(edit_distance("", ""), 0);
}
