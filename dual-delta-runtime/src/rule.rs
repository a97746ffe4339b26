//! Which rule decides a run's accuracy: the claim (the default) or the
//! paper's test alone.

use core::fmt;

/// The rule that decides accuracy at the end of a run (the gates decide
/// first under either).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rule {
    /// The claim ([`crate::decision::claim`]): less accurate beyond the margin in
    /// mean error (M) or on the typical input (T), where (T) needs both the
    /// one-sided `test` at margin 0 and the sign test at the margin.
    #[default]
    Claim,
    /// The paper's test alone: the run fails exactly where the one-sided
    /// `test` rejects at α over every input's paired errors. No margin, no
    /// mean criterion, no early stop; the gates still apply.
    Paper,
}

impl Rule {
    /// The rule as written in the attribute (`claim`, `paper`).
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Claim => "claim",
            Rule::Paper => "paper",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
