//! Why a report's `deltas.csv` cannot be read back: it is missing, cut
//! short, edited or damaged, or its report records nothing to check it
//! against.

use core::fmt;
use std::path::PathBuf;

/// Why the `deltas.csv` at `path` cannot be read back
/// ([`crate::report::csv::read_checked`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeltasError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub fault: DeltasFault,
}

/// What is wrong with a `deltas.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeltasFault {
    /// Its `summary.json` records no row count or checksum of it (a
    /// report of an earlier build).
    Unrecorded,
    /// It cannot be read.
    Io(String),
    /// Its checksum differs from the one recorded: cut short, edited or
    /// damaged.
    Damaged {
        /// Its rows below the header now.
        rows: usize,
        /// Its checksum now.
        checksum: String,
        /// The rows recorded.
        recorded_rows: usize,
        /// The checksum recorded.
        recorded_checksum: String,
    },
    /// A line is not `index,seed,delta1,delta2,fingerprint` (`None`: the
    /// header).
    Row(Option<usize>),
    /// It holds another number of rows than recorded.
    Rows {
        /// The rows it holds.
        found: usize,
        /// The rows recorded.
        recorded: usize,
    },
}

impl fmt::Display for DeltasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.fault {
            DeltasFault::Unrecorded => write!(
                f,
                "{path}: its summary.json records no row count or checksum of it (a report of \
                 an earlier build), so it cannot be checked: run the test again"
            ),
            DeltasFault::Io(e) => write!(f, "{path}: {e}"),
            DeltasFault::Damaged {
                rows,
                checksum,
                recorded_rows,
                recorded_checksum,
            } => write!(
                f,
                "{path}: damaged or cut short: {rows} rows and checksum {checksum} where its \
                 summary.json records {recorded_rows} rows and checksum {recorded_checksum}; \
                 run the test again"
            ),
            DeltasFault::Row(row) => {
                let row = row.map_or_else(|| "the header".to_owned(), |i| format!("row {i}"));
                write!(
                    f,
                    "{path}: {row} is not index,seed,delta1,delta2,fingerprint"
                )
            }
            DeltasFault::Rows { found, recorded } => write!(
                f,
                "{path}: {found} rows where its summary.json records {recorded}; run the test \
                 again"
            ),
        }
    }
}

impl std::error::Error for DeltasError {}
