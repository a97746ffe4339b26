use super::paths::report_home;
use super::*;

/// An environment holding `pairs` only.
pub(crate) fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        pairs
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn env_over_attribute_over_default() {
    let attr = Overrides {
        n: Some(200),
        alpha: Some(0.05),
        seed: Some(9),
        ..Overrides::default()
    };
    let s = Settings::resolve_with("t", &attr, env(&[])).unwrap();
    assert_eq!((s.n, s.alpha, s.seed), (200, 0.05, 9));
    assert_eq!(s.seed_source, SeedSource::Explicit);

    let s = Settings::resolve_with(
        "t",
        &attr,
        env(&[
            ("DUAL_DELTA_N", "50"),
            ("DUAL_DELTA_ALPHA", "0.001"),
            ("DUAL_DELTA_SEED", "0x10"),
        ]),
    )
    .unwrap();
    assert_eq!((s.n, s.alpha, s.seed), (50, 0.001, 16));
    assert_eq!(s.seed_source, SeedSource::Environment);

    let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
    assert_eq!((s.n, s.alpha), (1000, 0.01));
    assert_eq!(s.seed, crate::rng::seed_from_name("t"));
    assert_eq!(s.seed_source, SeedSource::Default);
}

#[test]
fn invalid_env_names_the_variable() {
    for (k, v) in [
        ("DUAL_DELTA_N", "0"),
        ("DUAL_DELTA_N", "ten"),
        ("DUAL_DELTA_ALPHA", "1.5"),
        ("DUAL_DELTA_ALPHA", "nan"),
        ("DUAL_DELTA_SEED", "-3"),
        ("DUAL_DELTA_THREADS", "0"),
        ("DUAL_DELTA_STOP_EARLY", "sometimes"),
        ("DUAL_DELTA_SCREEN", "maybe"),
        ("DUAL_DELTA_PROGRESS", "junk"),
        ("DUAL_DELTA_SAVE_BASELINE", "../main"),
        ("DUAL_DELTA_BASELINE", ""),
        ("DUAL_DELTA_BASELINE_DIR", " "),
        ("DUAL_DELTA_BASELINE_ANY_DEVICE", "perhaps"),
    ] {
        let e = Settings::resolve_with("t", &Overrides::default(), env(&[(k, v)])).unwrap_err();
        assert_eq!(e.source, k);
        assert!(e.to_string().contains(k), "{e}");
    }
}

#[test]
fn invalid_overrides_are_errors() {
    let bad = [
        Overrides {
            n: Some(0),
            ..Overrides::default()
        },
        Overrides {
            alpha: Some(0.0),
            ..Overrides::default()
        },
        Overrides {
            margin: Some(-0.1),
            ..Overrides::default()
        },
        Overrides {
            threads: Some(0),
            ..Overrides::default()
        },
    ];
    for o in bad {
        assert!(Settings::resolve_with("t", &o, env(&[])).is_err(), "{o:?}");
    }
}

#[test]
fn early_stopping_and_the_screen_are_on_unless_turned_off_and_one_margin_serves_both() {
    let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
    assert!(s.stop_early && s.screen);
    assert_eq!(s.margin, crate::stats::sequential::DEFAULT_MARGIN);
    assert_eq!(s.gross_factor, DEFAULT_GROSS_FACTOR);
    let off = Overrides {
        stop_early: Some(false),
        screen: Some(false),
        margin: Some(0.2),
        ..Overrides::default()
    };
    let s = Settings::resolve_with("t", &off, env(&[])).unwrap();
    assert!(!s.stop_early && !s.screen);
    assert_eq!(s.margin, 0.2);
    let s = Settings::resolve_with(
        "t",
        &off,
        env(&[
            ("DUAL_DELTA_STOP_EARLY", "1"),
            ("DUAL_DELTA_SCREEN", "true"),
        ]),
    )
    .unwrap();
    assert!(s.stop_early && s.screen);
    let s = Settings::resolve_with(
        "t",
        &Overrides::default(),
        env(&[("DUAL_DELTA_STOP_EARLY", "0")]),
    )
    .unwrap();
    assert!(!s.stop_early);
    for factor in [1.0, 0.5, f64::NAN] {
        let bad = Overrides {
            gross_factor: Some(factor),
            ..Overrides::default()
        };
        assert!(Settings::resolve_with("t", &bad, env(&[])).is_err());
    }
    let no_gate = Overrides {
        gross_factor: Some(f64::INFINITY),
        ..Overrides::default()
    };
    assert!(Settings::resolve_with("t", &no_gate, env(&[])).is_ok());
}

#[test]
fn progress_is_shown_outside_ci_unless_turned_off_and_home_must_name_a_directory() {
    let p = |pairs: &[(&str, &str)]| {
        Process::read(env(pairs))
            .unwrap()
            .shows_progress(env(pairs))
    };
    assert!(p(&[]));
    assert!(!p(&[("CI", "true")]));
    assert!(p(&[("CI", "")]));
    assert!(!p(&[("DUAL_DELTA_PROGRESS", "0")]));
    assert!(p(&[("DUAL_DELTA_PROGRESS", "1"), ("CI", "true")]));
    assert_eq!(report_home(env(&[])), Ok(None));
    assert_eq!(report_home(env(&[(ENV_HOME, "/r")])), Ok(Some("/r".into())));
    let e = report_home(env(&[(ENV_HOME, " ")])).unwrap_err();
    assert_eq!(e.source, ENV_HOME);
}

#[test]
fn random_seed_is_recorded_as_random() {
    let s = Settings::resolve_with(
        "t",
        &Overrides::default(),
        env(&[("DUAL_DELTA_SEED", "random")]),
    )
    .unwrap();
    assert_eq!(s.seed_source, SeedSource::Random);
}

#[test]
fn every_variable_of_the_table_is_read_by_its_rule() {
    for s in SETTINGS {
        let Some(var) = s.env else { continue };
        let e = Settings::resolve_with("t", &Overrides::default(), env(&[(var, " ")])).unwrap_err();
        assert_eq!(e, invalid(var, " ", s.expected), "{var}");
    }
}

#[test]
fn the_builder_and_the_environment_give_the_same_message() {
    let by_builder = |o: Overrides| Settings::resolve_with("t", &o, env(&[])).unwrap_err();
    let by_env =
        |var, v| Settings::resolve_with("t", &Overrides::default(), env(&[(var, v)])).unwrap_err();
    let pairs = [
        (
            by_builder(Overrides {
                n: Some(0),
                ..Overrides::default()
            }),
            by_env("DUAL_DELTA_N", "0"),
        ),
        (
            by_builder(Overrides {
                alpha: Some(1.5),
                ..Overrides::default()
            }),
            by_env("DUAL_DELTA_ALPHA", "1.5"),
        ),
        (
            by_builder(Overrides {
                threads: Some(0),
                ..Overrides::default()
            }),
            by_env("DUAL_DELTA_THREADS", "0"),
        ),
    ];
    for (builder, environment) in pairs {
        assert_eq!(
            (builder.value.as_str(), builder.expected),
            (environment.value.as_str(), environment.expected)
        );
        assert_eq!(
            builder.to_string().replacen(
                &format!("invalid {}=", builder.source),
                &format!("invalid {}=", environment.source),
                1
            ),
            environment.to_string()
        );
    }
    let gross = by_builder(Overrides {
        gross_factor: Some(1.0),
        ..Overrides::default()
    });
    assert_eq!(
        gross.to_string(),
        "invalid gross_factor=\"1\": expected a number > 1, or inf to turn the gross-error gate off"
    );
}

#[test]
fn the_guide_holds_the_table_row_by_row() {
    let guide = include_str!("../guide/configuration.md");
    let (_, rest) = guide
        .split_once("<!-- settings: begin -->\n")
        .expect("the chapter marks its table");
    let (written, _) = rest
        .split_once("<!-- settings: end -->")
        .expect("the chapter ends its table");
    let table = dual_delta_settings::markdown_table();
    let want: Vec<&str> = table.lines().collect();
    let rows: Vec<&str> = written.lines().collect();
    for (i, (row, want)) in rows.iter().zip(&want).enumerate() {
        assert_eq!(row, want, "row {i} of the configuration chapter's settings");
    }
    assert_eq!(rows.len(), want.len(), "rows in the configuration chapter");
}

/// The names of the settings of the table that `pick` keeps.
fn table_names(pick: impl Fn(&Setting) -> bool) -> std::collections::BTreeSet<String> {
    SETTINGS
        .iter()
        .filter(|s| pick(s))
        .map(|s| s.name.to_owned())
        .collect()
}

/// The fields of `value`, a JSON object, with `seed_hex` read as `seed`.
fn fields(value: serde_json::Value) -> std::collections::BTreeSet<String> {
    let serde_json::Value::Object(map) = value else {
        panic!("{value} is not an object")
    };
    map.keys()
        .map(|k| {
            if k == "seed_hex" {
                "seed".to_owned()
            } else {
                k.clone()
            }
        })
        .collect()
}

#[test]
fn a_baseline_records_the_settings_the_table_marks() {
    let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
    let recorded = fields(serde_json::to_value(crate::baseline::BaselineSettings::of(&s)).unwrap());
    assert_eq!(recorded, table_names(|s| s.baseline));
}
