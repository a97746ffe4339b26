use super::paths::report_home;
use super::*;

fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
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
        env(&[(ENV_N, "50"), (ENV_ALPHA, "0.001"), (ENV_SEED, "0x10")]),
    )
    .unwrap();
    assert_eq!((s.n, s.alpha, s.seed), (50, 0.001, 16));
    assert_eq!(s.seed_source, SeedSource::Environment);

    let s = Settings::resolve_with("t", &Overrides::default(), env(&[])).unwrap();
    assert_eq!((s.n, s.alpha), (DEFAULT_N, DEFAULT_ALPHA));
    assert_eq!(s.seed, crate::rng::seed_from_name("t"));
    assert_eq!(s.seed_source, SeedSource::Default);
}

#[test]
fn invalid_env_names_the_variable() {
    for (k, v) in [
        (ENV_N, "0"),
        (ENV_N, "ten"),
        (ENV_ALPHA, "1.5"),
        (ENV_ALPHA, "nan"),
        (ENV_SEED, "-3"),
        (ENV_THREADS, "0"),
        (ENV_STOP_EARLY, "sometimes"),
        (ENV_SCREEN, "maybe"),
        (ENV_PROGRESS, "junk"),
        (ENV_SAVE_BASELINE, "../main"),
        (ENV_BASELINE, ""),
        (ENV_BASELINE_DIR, " "),
        (ENV_BASELINE_ANY_DEVICE, "perhaps"),
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
        env(&[(ENV_STOP_EARLY, "1"), (ENV_SCREEN, "true")]),
    )
    .unwrap();
    assert!(s.stop_early && s.screen);
    let s =
        Settings::resolve_with("t", &Overrides::default(), env(&[(ENV_STOP_EARLY, "0")])).unwrap();
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
        Settings::resolve_with("t", &Overrides::default(), env(pairs))
            .unwrap()
            .progress
    };
    assert!(p(&[]));
    assert!(!p(&[("CI", "true")]));
    assert!(p(&[("CI", "")]));
    assert!(!p(&[(ENV_PROGRESS, "0")]));
    assert!(p(&[(ENV_PROGRESS, "1"), ("CI", "true")]));
    assert_eq!(report_home(env(&[])), Ok(None));
    assert_eq!(report_home(env(&[(ENV_HOME, "/r")])), Ok(Some("/r".into())));
    let e = report_home(env(&[(ENV_HOME, " ")])).unwrap_err();
    assert_eq!(e.source, ENV_HOME);
}

#[test]
fn random_seed_is_recorded_as_random() {
    let s =
        Settings::resolve_with("t", &Overrides::default(), env(&[(ENV_SEED, "random")])).unwrap();
    assert_eq!(s.seed_source, SeedSource::Random);
}
