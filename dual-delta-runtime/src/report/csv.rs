//! `deltas.csv`: one row per trial.
//!
//! ```text
//! index,seed,delta1,delta2,fingerprint
//! 0,11400714819323198485,1.1920929e-7,0,9d2a60c1b4e3f7a8
//! ```
//!
//! - `index`: the trial's index, from 0.
//! - `seed`: the trial's own seed, `0x` and 16 hexadecimal digits as the
//!   terminal and `summary.json` write it
//!   ([`crate::trial_seed`] of the base seed and the index); replay one
//!   trial with [`crate::TrialRng::from_trial_seed`].
//! - `delta1`, `delta2`: the candidate's and the baseline's error, in the
//!   run's metric. Written with the fewest digits that read back as the same
//!   `f64` (scientific notation outside `1e-4 ..= 1e15`); non-finite values
//!   as `inf`, `-inf` and `nan`.
//! - `fingerprint`: a hash of the trial's oracle output bits, 16
//!   hexadecimal digits (see [`crate::baseline`]): `cargo dual-delta
//!   compare` pairs a stored run with a baseline by it.

use std::fmt::Write as _;

use crate::outcome::Outcome;

/// The header row.
pub const HEADER: &str = "index,seed,delta1,delta2,fingerprint";

/// The run's `deltas.csv`.
pub fn to_string(outcome: &Outcome) -> String {
    let n = outcome.delta1.len().min(outcome.delta2.len());
    let mut out = String::with_capacity(48 * (n + 1));
    out.push_str(HEADER);
    out.push('\n');
    for (i, (&a, &b)) in outcome.delta1.iter().zip(&outcome.delta2).enumerate() {
        let _ = writeln!(
            out,
            "{},{:#018x},{},{},{:016x}",
            outcome.trials[i],
            outcome.trial_seed(outcome.trials[i]),
            float(a),
            float(b),
            outcome.fingerprints.get(i).copied().unwrap_or(0)
        );
    }
    out
}

/// Formats an `f64` with the fewest digits that read back exactly (`inf`,
/// `-inf` and `nan` for the non-finite values).
pub fn float(v: f64) -> String {
    if v.is_nan() {
        "nan".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else if v == 0.0 || (1e-4..=1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_back_exactly() {
        for v in [
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-4,
            1.1920929e-7,
            5e-324,
            f64::MAX,
            123456.789,
            -2.5e20,
        ] {
            let s = float(v);
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{s}");
        }
        assert_eq!(float(f64::INFINITY), "inf");
        assert_eq!(float(f64::NEG_INFINITY), "-inf");
        assert_eq!(float(f64::NAN), "nan");
        assert_eq!("inf".parse::<f64>().unwrap(), f64::INFINITY);
        assert!("nan".parse::<f64>().unwrap().is_nan());
    }
}
