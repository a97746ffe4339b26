//! The attribute against the one table of settings: its keys, its docs,
//! and the messages the builder and the environment give for the same
//! invalid values.

use proc_macro2::TokenStream;
use quote::quote;

use super::validate::{REQUIRED_KEYS, config_errors, config_of};
use crate::validate::*;

#[test]
fn the_keys_are_the_tables_and_the_attributes_docs_list_them_in_order() {
    // The attribute's docs include this table, written by the build script.
    let table = dual_delta_settings::attribute_table();
    let documented: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    assert_eq!(documented, keys());
    let docs = include_str!("../lib.rs");
    assert!(docs.contains(r#"include_str!(concat!(env!("OUT_DIR"), "/keys.md"))"#));
    assert!(docs.contains(r#"include_str!(concat!(env!("OUT_DIR"), "/claim.md"))"#));
    for setting in dual_delta_settings::SETTINGS {
        if let Some(key) = setting.key {
            assert!(keys().contains(&key), "{key}");
        }
    }
}

/// The runtime's message for `overrides` given by the builder, and for
/// `var=value` in the environment.
fn runtime_message(
    overrides: dual_delta_runtime::__private::Overrides,
    var: &str,
    value: &str,
) -> [String; 2] {
    use dual_delta_runtime::{__private::Overrides, settings::Settings};
    let builder = Settings::resolve_with("t", &overrides, |_| None).unwrap_err();
    let env = Settings::resolve_with("t", &Overrides::default(), |k| {
        (k == var).then(|| value.to_owned())
    });
    let env = env.map_or_else(|e| e.to_string(), |_| "no error".to_owned());
    [builder.to_string(), env]
}

#[test]
fn the_attribute_the_builder_and_the_environment_give_the_same_message() {
    use dual_delta_runtime::__private::Overrides;
    let required = REQUIRED_KEYS();
    let attr = |t: TokenStream| config_errors(quote!(#required #t));
    let none = Overrides::default;
    for (written, overrides, var, value) in [
        (
            quote!(n = 0),
            Overrides {
                n: Some(0),
                ..none()
            },
            "DUAL_DELTA_N",
            "0",
        ),
        (
            quote!(alpha = 1.5),
            Overrides {
                alpha: Some(1.5),
                ..none()
            },
            "DUAL_DELTA_ALPHA",
            "1.5",
        ),
        (
            quote!(threads = 0),
            Overrides {
                threads: Some(0),
                ..none()
            },
            "DUAL_DELTA_THREADS",
            "0",
        ),
        (
            quote!(gross_factor = 1.0),
            Overrides {
                gross_factor: Some(1.0),
                ..none()
            },
            "",
            "",
        ),
        (
            quote!(margin = -0.5),
            Overrides {
                margin: Some(-0.5),
                ..none()
            },
            "",
            "",
        ),
    ] {
        let [builder, env] = runtime_message(overrides, var, value);
        assert_eq!(attr(written), std::slice::from_ref(&builder));
        if !var.is_empty() {
            let key = builder
                .split('=')
                .next()
                .unwrap()
                .trim_start_matches("invalid ");
            assert_eq!(
                env,
                builder.replacen(&format!("invalid {key}="), &format!("invalid {var}="), 1)
            );
        }
    }
    // `inf` turns the gross-error gate off, whichever way it is given.
    assert!(attr(quote!(gross_factor = inf)).is_empty());
    assert!(attr(quote!(gross_factor = f64::INFINITY)).is_empty());
    let inf = Overrides {
        gross_factor: Some(f64::INFINITY),
        ..none()
    };
    assert!(dual_delta_runtime::settings::Settings::resolve_with("t", &inf, |_| None).is_ok());
    let c = config_of(quote!(#required gross_factor = inf)).unwrap_or_else(|e| panic!("{e}"));
    match c.overrides.get("gross_factor") {
        Some(Value::Literal(t)) => assert_eq!(t.to_string(), ":: core :: f64 :: INFINITY"),
        _ => panic!("no literal `gross_factor`"),
    }
}
