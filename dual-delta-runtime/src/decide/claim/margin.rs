//! What the margin forgave: a significant difference within it, stated
//! rather than hidden.

/// A difference the margin forgives, stated rather than hidden: a
/// criterion of the claim finds the candidate significantly less accurate
/// at margin 0, yet neither shows it beyond the margin with confidence.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WithinMargin {
    /// `100 × (R − 1)`, `R` the ratio of mean errors over every input (see
    /// [`crate::decide::claim`]); negative when the candidate's mean error is the
    /// smaller, though it is worse on most inputs.
    #[serde(with = "crate::json_number")]
    pub percent: f64,
    /// `100 × (median of Δ1 / Δ2 − 1)` over every input, ties counting as
    /// a ratio of 1.
    #[serde(with = "crate::json_number", default)]
    pub typical_percent: f64,
    /// The smaller one-sided p-value at margin 0 of a criterion that found
    /// the candidate less accurate.
    #[serde(with = "crate::json_number")]
    pub p_value: f64,
    /// The margin δ.
    #[serde(with = "crate::json_number")]
    pub margin: f64,
    /// `100 × (P99 Δ1 / P99 Δ2 − 1)` when the candidate's tail is heavier
    /// than its mean shift says: at least twice the mean's percentage, and
    /// at least half a percentage point above it.
    pub p99_percent: Option<f64>,
}

impl WithinMargin {
    /// `less accurate by 0.8% (p = 7.2e-24), within the 5% margin; the tail
    /// is heavier (P99 +3.7%)`. Where a point estimate lies beyond the
    /// margin but no bound does, it says that instead.
    pub fn sentence(&self) -> String {
        let m = 100.0 * self.margin;
        let mut s = if self.percent > m || self.typical_percent > m {
            format!(
                "less accurate (p = {:.1e}): mean error {}, typical error {} the baseline's, \
                 not shown beyond the {m}% margin with confidence at this n",
                self.p_value,
                signed(self.percent),
                signed(self.typical_percent),
            )
        } else if self.percent >= 0.0 {
            format!(
                "less accurate by {} (p = {:.1e}), within the {m}% margin",
                percent(self.percent),
                self.p_value,
            )
        } else {
            format!(
                "less accurate on most inputs (p = {:.1e}), though its mean error is {} lower",
                self.p_value,
                percent(-self.percent)
            )
        };
        if let Some(p99) = self.p99_percent {
            s.push_str(&format!("; the tail is heavier (P99 +{})", percent(p99)));
        }
        s
    }
}

/// `+14%`, `−3.0%`.
fn signed(p: f64) -> String {
    if p >= 0.0 {
        format!("+{}", percent(p))
    } else {
        format!("−{}", percent(-p))
    }
}

/// `0.8%`, `0.071%`, `1.0%`, `12%`: rounded to two significant digits.
pub(crate) fn percent(p: f64) -> String {
    let r = format!("{p:.1e}").parse::<f64>().unwrap_or(p);
    if r >= 10.0 {
        format!("{r:.0}%")
    } else if r >= 1.0 {
        format!("{r:.1}%")
    } else {
        format!("{r}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_difference_reads_as_one_sentence() {
        let w = WithinMargin {
            percent: 0.8,
            typical_percent: 0.5,
            p_value: 7.2e-24,
            margin: 0.05,
            p99_percent: Some(3.7),
        };
        assert_eq!(
            w.sentence(),
            "less accurate by 0.8% (p = 7.2e-24), within the 5% margin; the tail is heavier \
             (P99 +3.7%)"
        );
        // A point estimate beyond the margin that no bound shows is not
        // called "within the margin".
        let unsure = WithinMargin {
            percent: 14.0,
            typical_percent: 2.0,
            p99_percent: None,
            ..w
        };
        assert_eq!(
            unsure.sentence(),
            "less accurate (p = 7.2e-24): mean error +14%, typical error +2.0% the baseline's, \
             not shown beyond the 5% margin with confidence at this n"
        );
        assert_eq!(percent(0.0712), "0.071%");
        assert_eq!(percent(0.99999), "1.0%");
        assert_eq!(percent(12.4), "12%");
    }
}
