//! Axes: linear or logarithmic, where each value goes on them, and their
//! tick labels.

/// `metric error (log scale)`-style axis descriptions.
pub(super) fn axis_desc(metric: &str, what: &str, axis: &Axis) -> String {
    format!(
        "{metric} {what}{}",
        if axis.log { " (log scale)" } else { "" }
    )
}

/// The smallest and largest of two lists of placed values.
pub(super) fn data_extent(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let mut it = a.iter().chain(b).copied();
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
}

/// Where a value goes on an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Place {
    /// On the axis, at this (possibly log-transformed) coordinate.
    In(f64),
    /// Below the axis: `-inf`, or zero or negative on a logarithmic axis.
    Low,
    /// Above the axis: `+inf` or NaN.
    High,
}

/// A sample placed on an axis.
pub(super) struct Placed {
    pub(super) inside: Vec<f64>,
    pub(super) low: usize,
    pub(super) high: usize,
}

/// Pairs placed on a shared axis: the ones inside, and the ones with a
/// coordinate off the axis, moved to its edge.
pub(super) struct PlacedPairs {
    pub(super) inside: Vec<(f64, f64)>,
    pub(super) edge: Vec<(f64, f64)>,
}

pub(super) fn place_pairs(axis: &Axis, pairs: &[(f64, f64)]) -> PlacedPairs {
    let span = axis.hi - axis.lo;
    let clamp = |p: Place| match p {
        Place::In(t) => t,
        Place::Low => axis.lo + span * 0.015,
        Place::High => axis.hi - span * 0.015,
    };
    let mut inside = Vec::new();
    let mut edge = Vec::new();
    for &(a, b) in pairs {
        match (axis.place(a), axis.place(b)) {
            (Place::In(x), Place::In(y)) => inside.push((x, y)),
            (pa, pb) => edge.push((clamp(pa), clamp(pb))),
        }
    }
    PlacedPairs { inside, edge }
}

/// A linear or base-10 logarithmic axis; `lo`, `hi` are in plot
/// coordinates (`log10` of the value on a logarithmic axis).
#[derive(Clone, Copy, Debug)]
pub(super) struct Axis {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) log: bool,
    /// On a linear axis, plot coordinates are values divided by this.
    pub(super) scale: f64,
}

impl Axis {
    /// An axis for these values (see the module's documentation). With
    /// `from_zero`, a linear axis over non-negative values starts at zero.
    pub(super) fn fit<'a>(values: impl Iterator<Item = &'a f64>, from_zero: bool) -> Axis {
        let finite: Vec<f64> = values.copied().filter(|v| v.is_finite()).collect();
        let Some((lo, hi)) = data_extent(&finite, &[]) else {
            return Axis::linear(0.0, 1.0);
        };
        let positive = finite.iter().copied().filter(|&v| v > 0.0);
        let min_pos = positive.clone().fold(f64::INFINITY, f64::min);
        let max_pos = positive.fold(0.0, f64::max);
        if lo >= 0.0 && min_pos.is_finite() && max_pos / min_pos > 100.0 {
            let (tlo, thi) = (min_pos.log10(), max_pos.log10());
            let pad = (thi - tlo) * 0.02;
            return Axis {
                lo: (tlo - pad).floor(),
                hi: (thi + pad).ceil(),
                log: true,
                scale: 1.0,
            };
        }
        // Plot in units of a power of ten near the largest magnitude, so
        // that tiny errors (1e-17) and huge ones (1e308) both give spans that
        // plotters can place ticks on.
        let magnitude = lo.abs().max(hi.abs());
        let scale = if magnitude > 0.0 {
            10f64.powi(magnitude.log10().floor() as i32)
        } else {
            1.0
        };
        let scale = if scale.is_normal() { scale } else { 1.0 };
        let (lo, hi) = (lo / scale, hi / scale);
        let (mut lo, mut hi) = if hi > lo {
            let pad = (hi - lo) * 0.08;
            (lo - pad, hi + pad)
        } else {
            let w = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
            (lo - w, hi + w)
        };
        if hi - lo <= 1e-9 * lo.abs().max(hi.abs()) {
            // Constant data at the resolution of doubles.
            (lo, hi) = (lo - 1.0, hi + 1.0);
        }
        if from_zero && lo < 0.0 && finite.iter().all(|&v| v >= 0.0) {
            lo = 0.0;
        }
        Axis {
            lo,
            hi,
            log: false,
            scale,
        }
    }

    pub(super) fn linear(lo: f64, hi: f64) -> Axis {
        Axis {
            lo,
            hi,
            log: false,
            scale: 1.0,
        }
    }

    pub(super) fn place(&self, v: f64) -> Place {
        if v.is_nan() || v == f64::INFINITY {
            Place::High
        } else if v == f64::NEG_INFINITY || (self.log && v <= 0.0) {
            Place::Low
        } else if self.log {
            Place::In(v.log10())
        } else {
            Place::In(v / self.scale)
        }
    }

    pub(super) fn place_all(&self, values: &[f64]) -> Placed {
        let mut p = Placed {
            inside: Vec::with_capacity(values.len()),
            low: 0,
            high: 0,
        };
        for &v in values {
            match self.place(v) {
                Place::In(t) => p.inside.push(t),
                Place::Low => p.low += 1,
                Place::High => p.high += 1,
            }
        }
        p
    }

    /// How many tick labels to ask for.
    pub(super) fn ticks(&self) -> usize {
        if self.log {
            ((self.hi - self.lo).round() as usize + 1).clamp(2, 12)
        } else {
            8
        }
    }

    /// A tick label for plot coordinate `t`.
    pub(super) fn tick_label(&self, t: f64) -> String {
        if self.log {
            let k = t.round();
            if (t - k).abs() < 1e-6 {
                if k == 0.0 {
                    "1".to_owned()
                } else {
                    format!("1e{}", k as i64)
                }
            } else {
                short_number(10f64.powf(t))
            }
        } else {
            short_number(t * self.scale)
        }
    }

    /// A plot coordinate as a value, for the legend.
    pub(super) fn value_label(&self, t: f64) -> String {
        short_number(if self.log {
            10f64.powf(t)
        } else {
            t * self.scale
        })
    }
}

/// A number in at most about 4 significant digits, `1.25e-5` style for
/// very small or large magnitudes.
fn short_number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_owned()
    } else if !v.is_finite() {
        crate::report::csv::float(v)
    } else if (1e-3..1e5).contains(&a) {
        let s = format!("{v:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        // Keep at most 4 significant digits after the leading ones.
        match s.parse::<f64>() {
            Ok(x) if a >= 1.0 => format!("{}", (x * 1e3).round() / 1e3),
            _ => s.to_owned(),
        }
    } else {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((mantissa, exp)) => {
                let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
                format!("{mantissa}e{exp}")
            }
            None => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_when_errors_span_decades() {
        let a = Axis::fit([1e-8, 1e-7, 1e-5].iter(), true);
        assert!(a.log);
        assert_eq!((a.lo, a.hi), (-9.0, -4.0));
        let a = Axis::fit([1e-8, 5e-7, 0.0].iter(), true);
        assert!(!a.log);
        assert_eq!(a.lo, 0.0);
        assert!(!Axis::fit([-1.0, 1e-8, 1.0].iter(), true).log);
        assert_eq!(a.place(f64::INFINITY), Place::High);
        assert_eq!(a.place(f64::NAN), Place::High);
        let l = Axis::fit([1e-8, 1e-5].iter(), false);
        assert_eq!(l.place(0.0), Place::Low);
        assert_eq!(l.place(1e-6), Place::In(-6.0));
        // Tiny errors on a linear axis are plotted in units of their scale.
        let t = Axis::fit([1e-17, 5e-17].iter(), true);
        assert!(!t.log && t.scale == 1e-17, "{t:?}");
        assert_eq!(t.tick_label(2.0), "2e-17");
    }
    #[test]
    fn tick_labels() {
        let l = Axis {
            lo: -9.0,
            hi: -4.0,
            log: true,
            scale: 1.0,
        };
        assert_eq!(l.tick_label(-7.0), "1e-7");
        assert_eq!(l.tick_label(0.0), "1");
        assert_eq!(short_number(1.25e-5), "1.25e-5");
        assert_eq!(short_number(1e-5), "1e-5");
        assert_eq!(short_number(0.00125), "0.00125");
        assert_eq!(short_number(0.30000000000000004), "0.3");
        assert_eq!(short_number(12345.678), "12345.678");
        assert_eq!(short_number(2.5e7), "2.5e7");
    }
}
