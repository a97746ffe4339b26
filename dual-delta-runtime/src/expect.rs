//! What a test expects of the candidate: read by the sequential test (in
//! `stats`) and by the verdicts alike, so it lives beside both.

use core::fmt;

/// What a test expects of the candidate, for accuracy or for stability.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// Fail iff the candidate is significantly worse (the default CI gate).
    #[default]
    NoWorse,
    /// Pass iff no significant difference is found (for accuracy, the KS test
    /// must also find the distributions indistinguishable).
    Equivalent,
    /// Pass iff the candidate is significantly better.
    Better,
    /// Pass iff the candidate is significantly worse: a test proving that a
    /// bad configuration is caught.
    Worse,
}

impl Expect {
    /// The expectation as written in the attribute (`no_worse`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Expect::NoWorse => "no_worse",
            Expect::Equivalent => "equivalent",
            Expect::Better => "better",
            Expect::Worse => "worse",
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
