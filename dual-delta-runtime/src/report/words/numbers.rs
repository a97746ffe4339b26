//! Numbers as the words print them.

/// An error value, compactly (`4.5708e-4`, `inf`).
pub fn num(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.4e}")
    }
}

/// A p-value for a table cell (`0.0123`, `1.663e-165`, `< 1e-300` below
/// the smallest double); in a sentence use [`p_is`].
pub fn pval(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".into()
    } else if p >= 1e-3 {
        format!("{p:.4}")
    } else {
        format!("{p:.3e}")
    }
}

/// `p = 0.0123`, or `p < 1e-300` for a p-value below the smallest double.
pub fn p_is(p: f64) -> String {
    if p == 0.0 {
        "p < 1e-300".into()
    } else {
        format!("p = {}", pval(p))
    }
}

/// `p = 7.2e-24`: a p-value in a sentence, two digits.
pub(crate) fn p_short(p: f64) -> String {
    if p == 0.0 {
        "p < 1e-300".into()
    } else if p >= 0.01 {
        format!("p = {p:.2}")
    } else {
        format!("p = {p:.1e}")
    }
}

/// `1.234e-5`, `NaN`, `inf`: a value in a sentence.
pub(crate) fn sci(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3e}")
    } else {
        v.to_string()
    }
}

/// `0.8%`, `0.071%`, `1.0%`, `12%`: rounded to two significant digits.
pub(super) fn percent(p: f64) -> String {
    let r = format!("{p:.1e}").parse::<f64>().unwrap_or(p);
    if r >= 10.0 {
        format!("{r:.0}%")
    } else if r >= 1.0 {
        format!("{r:.1}%")
    } else {
        format!("{r}%")
    }
}

/// `+14%`, `−3.0%`.
pub(super) fn signed(p: f64) -> String {
    if p >= 0.0 {
        format!("+{}", percent(p))
    } else {
        format!("−{}", percent(-p))
    }
}

/// A ratio to the baseline: `×3.00`, `×0.95`, `×∞`.
pub(crate) fn times(r: f64) -> String {
    if r.is_finite() && r >= 1e4 {
        format!("×{r:.2e}")
    } else if r.is_finite() {
        format!("×{r:.2}")
    } else {
        "×∞".to_owned()
    }
}

/// A ratio of means as a change, `+12%`, or with `as_times` (and beyond
/// ×3 or not finite) as `×4.50`.
pub(super) fn change(ratio: f64, as_times: bool) -> String {
    if as_times || !ratio.is_finite() || ratio >= 3.0 {
        times(ratio)
    } else {
        signed(100.0 * (ratio - 1.0))
    }
}

/// `1`, `2048`, `3.141`, `1e-300`: a cut's bound, every digit it has
/// (a bound is the simplest number between the two sides of its cut).
pub(crate) fn bound(v: f64) -> String {
    if v == 0.0 || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `422959`, `1.83`: a ratio without trailing zeros.
pub(crate) fn plain(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_words() {
        assert_eq!(percent(0.0712), "0.071%");
        assert_eq!(percent(0.99999), "1.0%");
        assert_eq!(percent(12.4), "12%");
        assert_eq!(
            (signed(14.0), signed(-3.0)),
            ("+14%".into(), "−3.0%".into())
        );
        assert_eq!(
            (times(3.0), times(2.64e6), times(f64::INFINITY)),
            ("×3.00".into(), "×2.64e6".into(), "×∞".into())
        );
        assert_eq!(
            (change(1.12, false), change(4.5, false)),
            ("+12%".into(), "×4.50".into())
        );
        assert_eq!(
            (plain(422959.3), plain(1.830)),
            ("422959".into(), "1.83".into())
        );
        assert_eq!(
            (p_short(7.2e-24), p_short(0.31)),
            ("p = 7.2e-24".into(), "p = 0.31".into())
        );
    }
}
