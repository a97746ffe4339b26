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
//!   ([`crate::generate::trial_seed`] of the base seed and the index); replay one
//!   trial with [`crate::TrialRng::from_trial_seed`].
//! - `delta1`, `delta2`: the candidate's and the baseline's error, in the
//!   run's metric. Written with the fewest digits that read back as the same
//!   `f64` (scientific notation outside `1e-4 ..= 1e15`); non-finite values
//!   as `inf`, `-inf` and `nan`.
//! - `fingerprint`: a hash of the trial's oracle output bits, 16
//!   hexadecimal digits (see [`crate::baseline`]): `cargo dual-delta
//!   compare` pairs a stored run with a baseline by it.
//!
//! `summary.json` records its rows and checksum ([`DeltasRecord`]), and
//! [`read_checked`] reads it back only where both match.

use std::fmt::Write as _;
use std::path::Path;

use super::summary::DeltasRecord;
use crate::baseline::checksum;
use crate::error::{DeltasError, DeltasFault};
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

/// The index, the candidate's error and the oracle fingerprint of each
/// trial, from the `deltas.csv` at `path`, checked against what its
/// `summary.json` records of it (`record`: its rows and its checksum). A
/// file cut short, edited or damaged is an error naming it, never fewer
/// trials; a report of an earlier build, which records nothing of it, is
/// refused.
///
/// # Errors
///
/// [`DeltasError`]: the file and what is wrong with it.
pub fn read_checked(
    path: &Path,
    record: Option<&DeltasRecord>,
) -> Result<Vec<(usize, f64, u64)>, DeltasError> {
    let fail = |fault| DeltasError {
        path: path.to_owned(),
        fault,
    };
    let record = record.ok_or_else(|| fail(DeltasFault::Unrecorded))?;
    let bytes = std::fs::read(path).map_err(|e| fail(DeltasFault::Io(e.to_string())))?;
    let text = String::from_utf8_lossy(&bytes);
    let now = checksum(&bytes);
    if now != record.checksum {
        return Err(fail(DeltasFault::Damaged {
            rows: text.lines().count().saturating_sub(1),
            checksum: now,
            recorded_rows: record.rows,
            recorded_checksum: record.checksum.clone(),
        }));
    }
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(fail(DeltasFault::Row(None)));
    }
    let mut trials = Vec::with_capacity(record.rows);
    for (i, line) in lines.enumerate() {
        let bad = || fail(DeltasFault::Row(Some(i)));
        let cells: Vec<&str> = line.split(',').collect();
        let [index, _, d1, _, fp] = cells[..] else {
            return Err(bad());
        };
        trials.push((
            index.parse::<usize>().map_err(|_| bad())?,
            d1.parse::<f64>().map_err(|_| bad())?,
            u64::from_str_radix(fp, 16).map_err(|_| bad())?,
        ));
    }
    if trials.len() != record.rows {
        return Err(fail(DeltasFault::Rows {
            found: trials.len(),
            recorded: record.rows,
        }));
    }
    Ok(trials)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_only_whole() {
        let dir = std::env::temp_dir().join(format!("dual-delta-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("deltas.csv");
        let text = format!("{HEADER}\n3,0x1,0.5,1,00000000000000ff\n4,0x2,inf,2,0a\n");
        let record = DeltasRecord {
            rows: 2,
            checksum: checksum(text.as_bytes()),
        };
        std::fs::write(&path, &text).unwrap();
        let rows = read_checked(&path, Some(&record)).unwrap();
        assert_eq!(rows, [(3, 0.5, 255), (4, f64::INFINITY, 10)]);
        std::fs::write(&path, &text[..text.len() - 3]).unwrap();
        let e = read_checked(&path, Some(&record)).unwrap_err();
        assert!(
            matches!(
                e.fault,
                DeltasFault::Damaged {
                    rows: 2,
                    recorded_rows: 2,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("damaged or cut short: 2 rows and checksum")
        );
        let e = read_checked(&path, None).unwrap_err();
        assert_eq!(e.fault, DeltasFault::Unrecorded);
        let _ = std::fs::remove_dir_all(&dir);
    }

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
