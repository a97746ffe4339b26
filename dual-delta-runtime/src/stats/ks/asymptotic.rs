//! The asymptotic p-value (SciPy's `mode='asymp'`): the distribution of the
//! one-sample two-sided statistic `D_n` (SciPy's `kstwo`,
//! `scipy/stats/_ksstats.py`) at the effective sample size, or Hodges'
//! formula for one-sided tests.

use super::kolmogn::{
    kolmogn_dmtw_cdf, kolmogn_pelz_good_cdf, kolmogn_pomeranz_cdf, log_nfactorial_div_n_pow_n,
};
use super::smirnov::smirnov;
use crate::stats::Alternative;

/// The asymptotic p-value (SciPy's `mode='asymp'`).
pub(super) fn asymptotic_2samp(n1: usize, n2: usize, d: f64, alternative: Alternative) -> f64 {
    let (a, b) = (n1 as f64, n2 as f64);
    let (m, n) = if a >= b { (a, b) } else { (b, a) };
    let en = m * n / (m + n);
    let p = match alternative {
        Alternative::TwoSided => kstwo_sf(d, en.round_ties_even()),
        Alternative::Greater | Alternative::Less => {
            let z = en.sqrt() * d;
            let expt = -2.0 * (z * z) - 2.0 * z * (m + 2.0 * n) / (m * n * (m + n)).sqrt() / 3.0;
            expt.exp()
        }
    };
    p.clamp(0.0, 1.0)
}

/// `scipy.stats.kstwo.sf(x, n)` for an integer `n ≥ 1` (given as a float).
fn kstwo_sf(x: f64, n: f64) -> f64 {
    if n.is_nan() || n < 1.0 || x.is_nan() {
        return f64::NAN;
    }
    // Support (0.5 / n, 1): 1 at or below, 0 at or above.
    if x <= 0.5 / n {
        return 1.0;
    }
    if x >= 1.0 {
        return 0.0;
    }
    kolmogn_sf(n as i64, x)
}

/// SciPy's `_kolmogn(n, x, cdf=False)`.
fn kolmogn_sf(n: i64, x: f64) -> f64 {
    let clip = |p: f64| p.clamp(0.0, 1.0);
    if x >= 1.0 {
        return 0.0;
    }
    if x <= 0.0 {
        return 1.0;
    }
    let nf = n as f64;
    let t = nf * x;
    if t <= 1.0 {
        // Ruben-Gambino: 1/(2n) <= x <= 1/n.
        if t <= 0.5 {
            return 1.0;
        }
        let prob = if n <= 140 {
            let inv = 1.0 / nf;
            (1..=n).fold(1.0, |p, i| p * (i as f64 * inv * (2.0 * t - 1.0)))
        } else {
            (log_nfactorial_div_n_pow_n(nf) + nf * (2.0 * t - 1.0).ln()).exp()
        };
        return clip(1.0 - prob);
    }
    if t >= nf - 1.0 {
        return clip(2.0 * (1.0 - x).powf(nf));
    }
    if x >= 0.5 {
        return clip(2.0 * smirnov(n, x));
    }
    let nxsquared = t * x;
    if n <= 140 {
        if nxsquared <= 0.754693 {
            return clip(1.0 - kolmogn_dmtw_cdf(n, x));
        }
        if nxsquared <= 4.0 {
            return clip(1.0 - kolmogn_pomeranz_cdf(n, x));
        }
        return clip(2.0 * smirnov(n, x));
    }
    if nxsquared >= 370.0 {
        return 0.0;
    }
    if nxsquared >= 2.2 {
        return clip(2.0 * smirnov(n, x));
    }
    let cdf = if nxsquared >= 18.0 {
        1.0
    } else if n <= 100_000 && nf * x.powf(1.5) <= 1.4 {
        kolmogn_dmtw_cdf(n, x)
    } else {
        kolmogn_pelz_good_cdf(n, x)
    };
    clip(1.0 - cdf)
}
