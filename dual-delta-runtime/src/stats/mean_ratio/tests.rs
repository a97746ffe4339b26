use super::*;

/// Lognormal errors of median 1 and shape `sigma`, from a fixed stream.
fn lognormal(n: usize, sigma: f64, seed: u64) -> Vec<f64> {
    let mut rng = crate::rng::TrialRng::from_trial_seed(seed);
    (0..n)
        .map(|_| {
            let u: f64 = rand::RngExt::random_range(&mut rng, f64::EPSILON..1.0);
            let v: f64 = rand::RngExt::random(&mut rng);
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            (sigma * z).exp()
        })
        .collect()
}

#[test]
fn a_clear_loss_rejects_with_a_p_value_as_low_as_its_evidence() {
    let y = lognormal(1000, 1.0, 1);
    let x: Vec<f64> = y.iter().map(|v| 11.0 * v).collect();
    let m = MeanRatio::new(&x, &y).unwrap();
    assert!((m.ratio() - 11.0).abs() < 1e-12);
    // Far below any Monte Carlo floor.
    assert!(m.p_greater(1.05) < 1e-30, "{}", m.p_greater(1.05));
    assert!(m.p_less(1.0) > 0.99);
    let (lower, upper) = (m.lower(0.0025), m.upper(0.0025));
    assert!(lower > 10.0 && lower <= 11.0 && (11.0..12.0).contains(&upper));
}

#[test]
fn the_bounds_invert_the_test() {
    let y = lognormal(500, 1.0, 2);
    let noise = lognormal(500, 0.3, 3);
    let x: Vec<f64> = y.iter().zip(&noise).map(|(a, b)| 1.1 * a * b).collect();
    let m = MeanRatio::new(&x, &y).unwrap();
    let level = 0.005;
    let lower = m.lower(level);
    assert!(m.p_greater(lower * 0.999) < level && m.p_greater(lower * 1.001) >= level);
    let upper = m.upper(level);
    assert!(m.p_less(upper * 1.001) < level && m.p_less(upper * 0.999) >= level);
    assert!(lower < m.ratio() && m.ratio() < upper);
}

#[test]
fn no_magnitude_changes_a_test() {
    let y = lognormal(1000, 1.0, 4);
    let x: Vec<f64> = y
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 5 == 0 { 1.3 * v } else { 0.98 * v })
        .collect();
    let at = |s: f64| {
        let (xs, ys): (Vec<f64>, Vec<f64>) = x.iter().zip(&y).map(|(a, b)| (a * s, b * s)).unzip();
        let m = MeanRatio::new(&xs, &ys).unwrap();
        (
            m.ratio(),
            m.p_greater(1.0),
            m.p_greater(1.05),
            m.lower(0.0025),
        )
    };
    let reference = at(1e-6);
    for s in [1e300, 1e-300, 1e-310, 1.0] {
        let (r, p0, p5, lower) = at(s);
        assert!((r / reference.0 - 1.0).abs() < 1e-12, "{s}: {r}");
        assert!((p0 / reference.1 - 1.0).abs() < 1e-9, "{s}: {p0}");
        assert!((p5 / reference.2 - 1.0).abs() < 1e-9, "{s}: {p5}");
        assert!((lower / reference.3 - 1.0).abs() < 1e-9, "{s}: {lower}");
    }
}

#[test]
fn the_tail_no_sample_has_seen_lowers_the_evidence() {
    // A loss on the low-error inputs, ties on the high-error ones: the
    // tie-heavy tail is extrapolated, and the extrapolation only removes
    // rejections.
    let y = lognormal(1000, 2.5, 5);
    let threshold = {
        let mut s = y.clone();
        s.sort_by(f64::total_cmp);
        s[450]
    };
    let x: Vec<f64> = y
        .iter()
        .map(|&v| if v < threshold { 12.6 * v } else { v })
        .collect();
    let m = MeanRatio::new(&x, &y).unwrap();
    let tail = m.y_tail.as_ref().unwrap();
    assert!(tail.index_upper > 0.5, "{}", tail.index_upper);
    // The same differences without the extrapolation.
    let plain = p_excess(&m.x, &m.y, &m.w, m.total, 1.05, None);
    assert!(m.p_greater(1.05) >= plain);
    // A loss spread over every input is not extrapolated away.
    let x: Vec<f64> = y.iter().map(|v| 1.5 * v).collect();
    let m = MeanRatio::new(&x, &y).unwrap();
    assert_eq!(
        m.p_greater(1.05),
        p_excess(&m.x, &m.y, &m.w, m.total, 1.05, None)
    );
}

#[test]
fn weights_count_as_repeated_pairs() {
    let x = [1.0, 2.0, 4.0, 3.0];
    let y = [1.0, 1.0, 2.0, 3.0];
    let weighted = MeanRatio::weighted(&x, &y, &[1.0, 1.0, 1.0, 3.0]).unwrap();
    let repeated = MeanRatio::new(
        &[1.0, 2.0, 4.0, 3.0, 3.0, 3.0],
        &[1.0, 1.0, 2.0, 3.0, 3.0, 3.0],
    )
    .unwrap();
    assert_eq!(weighted.ratio(), repeated.ratio());
    assert!((weighted.p_greater(1.0) - repeated.p_greater(1.0)).abs() < 1e-12);
}

#[test]
fn degenerate_samples_are_decided_or_refused() {
    // Identical errors: no evidence either way.
    let m = MeanRatio::new(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(
        (m.ratio(), m.p_greater(1.0), m.p_less(1.0)),
        (1.0, 1.0, 1.0)
    );
    // An exact baseline: the ratio is infinite.
    let m = MeanRatio::new(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0]).unwrap();
    assert_eq!(m.ratio(), f64::INFINITY);
    assert!(matches!(
        MeanRatio::new(&[1.0], &[1.0]),
        Err(StatsError::TooFewObservations { .. })
    ));
    assert!(matches!(
        MeanRatio::new(&[1.0, f64::INFINITY], &[1.0, 1.0]),
        Err(StatsError::InvalidValue { index: 1, .. })
    ));
    assert!(matches!(
        MeanRatio::new(&[1.0, -1.0], &[1.0, 1.0]),
        Err(StatsError::InvalidValue { index: 1, .. })
    ));
}
