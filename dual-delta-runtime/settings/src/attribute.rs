//! The attribute's keys that are not settings (its three functions, its
//! check and the runtime's path), and the attribute's key table and claim
//! written from this crate, so that the attribute's documentation and the
//! runtime's say the same.

use crate::SETTINGS;

/// The three functions every test names, with what each is.
pub const FUNCTION_KEYS: [(&str, &str); 3] = [
    (
        "oracle",
        "the high-precision reference, a function `Fn(&I) -> O`",
    ),
    (
        "baseline",
        "the implementation the candidate is compared with, a function `Fn(&I) -> O`",
    ),
    (
        "input",
        "the input generator, a function `Fn(&mut TrialRng) -> I`",
    ),
];

/// The keys after the settings: what each is and its default.
pub const LAST_KEYS: [(&str, &str, &str); 3] = [
    (
        "features",
        "features of an input a failing run's loss is cut by, `Fn(&I) -> Vec<(&'static str, f64)>`, beside its own coordinates",
        "the input's coordinates",
    ),
    (
        "check",
        "an extra check of the outcome, `FnOnce(&Outcome) -> Result<(), String>`: an `Err` fails the test",
        "none",
    ),
    (
        "crate",
        "the path of the runtime, if renamed",
        "`::dual_delta_runtime`",
    ),
];

/// What a test claims and how the claim decides, in Markdown: the
/// runtime's `claim` module opens with it and the attribute's
/// documentation quotes it.
pub const CLAIM: &str = include_str!("../claim.md");

/// Every key of the attribute as a Markdown table (`key`, `value`,
/// `default`): the three functions, each setting's key, then the check and
/// the runtime's path.
pub fn attribute_table() -> String {
    let mut out = String::from("| key | value | default |\n| --- | --- | --- |\n");
    for (key, what) in FUNCTION_KEYS {
        out += &format!("| `{key}` | **required**: {what} | |\n");
    }
    for s in SETTINGS {
        if let Some(key) = s.key {
            out += &format!("| `{key}` | {} | {} |\n", s.doc, s.default);
        }
    }
    for (key, what, default) in LAST_KEYS {
        out += &format!("| `{key}` | {what} | {default} |\n");
    }
    out
}
