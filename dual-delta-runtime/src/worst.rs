//! The worst inputs, shown: the candidate's largest errors with the inputs
//! that gave them, each described with `Debug` (bounded) where the input
//! type has it, and the three outputs where the error is largest.
//!
//! Inputs are not kept while a run goes: after it, the worst trials'
//! inputs are drawn again from their seeds, which gives the same inputs.

use std::fmt::{self, Debug, Write as _};
use std::marker::PhantomData;

use crate::output::Element;

/// How many of the worst trials a run shows.
pub const SHOWN: usize = 3;

/// The most characters of an input's description; a longer one is cut and
/// says how long it was.
pub const MAX_CHARS: usize = 400;

/// One of the trials with the candidate's largest errors.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct WorstInput {
    /// The trial, its errors and its outputs where the candidate's error
    /// is largest.
    #[serde(flatten)]
    pub at: AtWorst,
    /// The input, as its `Debug` (at most [`MAX_CHARS`] characters) or the
    /// test's own description; `None` where the input type has no `Debug`
    /// and the test gave no description.
    pub input: Option<String>,
}

/// A trial, both errors, and the three outputs at the output element where
/// the candidate's error is largest.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct AtWorst {
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed (in JSON as `0x` and 16 hexadecimal digits).
    #[serde(with = "crate::rng::hex")]
    pub seed: u64,
    /// The candidate's error.
    #[serde(with = "crate::json_number")]
    pub delta1: f64,
    /// The baseline's error.
    #[serde(with = "crate::json_number")]
    pub delta2: f64,
    /// The output element where the candidate's error is largest, and the
    /// output's length.
    pub element: (usize, usize),
    /// The candidate's output there.
    #[serde(with = "crate::json_number")]
    pub candidate: f64,
    /// The baseline's output there.
    #[serde(with = "crate::json_number")]
    pub baseline: f64,
    /// The oracle's output there.
    #[serde(with = "crate::json_number")]
    pub oracle: f64,
}

/// The most characters of an input's description when one trial is
/// replayed (`DUAL_DELTA_TRIAL`): in full, short of the absurd.
pub const REPLAY_CHARS: usize = 1 << 20;

/// `x`'s `Debug`, cut at [`MAX_CHARS`] characters: a longer one ends with
/// `…` and its length.
pub fn bounded_debug<T: Debug + ?Sized>(x: &T) -> String {
    debug_cut(x, MAX_CHARS)
}

/// `x`'s `Debug`, cut at `max` characters: a longer one ends with `…` and
/// its length.
pub fn debug_cut<T: Debug + ?Sized>(x: &T, max: usize) -> String {
    Bounded::debug(x, max).finish()
}

/// A writer that keeps the first `max` characters and counts the rest.
struct Bounded {
    out: String,
    chars: usize,
    max: usize,
}

impl Bounded {
    /// `x`'s `Debug`, its first `max` characters kept.
    fn debug<T: Debug + ?Sized>(x: &T, max: usize) -> Self {
        let mut w = Bounded {
            out: String::new(),
            chars: 0,
            max,
        };
        let _ = write!(w, "{x:?}");
        w
    }

    /// Whether characters were left out.
    fn cut(&self) -> bool {
        self.chars > self.max
    }

    /// What was kept; where characters were left out, ending with `…` and
    /// the length.
    fn finish(mut self) -> String {
        if self.cut() {
            let _ = write!(self.out, "… ({} characters in all)", self.chars);
        }
        self.out
    }
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.chars < self.max {
                self.out.push(c);
            }
            self.chars += 1;
        }
        Ok(())
    }
}

/// One trial run again on its own (`DUAL_DELTA_TRIAL=<trial seed>`): its
/// input and the three outputs in full, and both errors.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ReplayedTrial {
    /// The trial's index in the run, where its seed is one of the run's
    /// (`None`: a seed of another base seed or `n`).
    pub index: Option<usize>,
    /// The trial's seed.
    pub seed: u64,
    /// The input's `Debug` (up to [`REPLAY_CHARS`] characters) or the
    /// test's description; `None` without either.
    pub input: Option<String>,
    /// The candidate's output, widened.
    pub candidate: Vec<f64>,
    /// The baseline's output, widened.
    pub baseline: Vec<f64>,
    /// The oracle's output.
    pub oracle: Vec<f64>,
    /// The candidate's error.
    pub delta1: f64,
    /// The baseline's error.
    pub delta2: f64,
}

/// The positions (into a run's `delta1`) of its [`SHOWN`] largest
/// candidate errors, largest first (the earlier trial first among equals;
/// NaN errors first of all).
pub(crate) fn positions(delta1: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..delta1.len()).collect();
    let key = |i: usize| {
        if delta1[i].is_nan() {
            f64::INFINITY
        } else {
            delta1[i]
        }
    };
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    order.truncate(SHOWN);
    order
}

/// How much of an input to show: at most `max` characters, and the
/// output element where the candidate's error is largest, where the output
/// is a vector (an input of the output's length is shown around it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The most characters.
    pub max: usize,
    /// The worst output element and the output's length.
    pub around: Option<(usize, usize)>,
}

impl Cut {
    /// At most `max` characters, around no element.
    pub const fn chars(max: usize) -> Self {
        Cut { max, around: None }
    }
}

/// A vector of numbers too long to show in [`Cut::max`] characters, in
/// one line: its length and format, its range, its first and last
/// elements, and where its length is the output's, the elements around
/// the worst output element; a shorter one as its `Debug`.
///
/// `4096 × f32 in [1.2e-4, 9.9998e-1]: first [0.5, 0.25, 0.125, 0.0625], last
/// [...]; elements 2046..=2050 around the worst output element 2048: [...]`
pub fn summarise<E: Element + Debug>(x: &[E], cut: &Cut) -> String {
    let debug = Bounded::debug(x, cut.max);
    if x.len() <= 2 * EDGE || !debug.cut() {
        return debug.finish();
    }
    let list = |xs: &[E]| {
        let items: Vec<String> = xs.iter().map(|e| format!("{e:?}")).collect();
        format!("[{}]", items.join(", "))
    };
    let finite: Vec<f64> = x
        .iter()
        .map(|e| e.to_f64())
        .filter(|v| v.is_finite())
        .collect();
    let range = match (
        finite.iter().copied().reduce(f64::min),
        finite.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) => format!(" in [{lo:.4e}, {hi:.4e}]"),
        _ => String::new(),
    };
    let non_finite = match x.len() - finite.len() {
        0 => String::new(),
        k => format!(" ({k} not finite)"),
    };
    let mut out = format!(
        "{} × {}{range}{non_finite}: first {}, last {}",
        x.len(),
        E::FORMAT,
        list(&x[..EDGE]),
        list(&x[x.len() - EDGE..]),
    );
    if let Some((at, len)) = cut.around.filter(|&(at, len)| len == x.len() && at < len) {
        let (lo, hi) = (at.saturating_sub(2), (at + 2).min(len - 1));
        out.push_str(&format!(
            "; elements {lo}..={hi} around the worst output element {at}: {}",
            list(&x[lo..=hi])
        ));
    }
    out
}

/// The elements shown at each end of a summarised vector.
const EDGE: usize = 4;

/// What `#[dual_delta_test]` asks for an input type `T`: each field where
/// it is described field by field ([`Fields`]), a summary for a vector of
/// numbers ([`summarise`]), else `Debug` where it has it, else nothing (by
/// method resolution: `(&&&&Describe::<T>::NEW).describer()` finds
/// [`ViaFields`] first, then [`ViaSummary`], then [`ViaDebug`]).
#[doc(hidden)]
pub struct Describe<T>(PhantomData<fn(&T)>);

impl<T> Describe<T> {
    /// The one value.
    pub const NEW: Self = Describe(PhantomData);
}

/// A description of an input, cut as [`Cut`] says.
pub type Describer<T> = fn(&T, &Cut) -> String;

/// An input type described field by field, each field as the attribute
/// would describe an input of its type (a vector of numbers by its summary):
/// `#[derive(Coordinates)]` implements it.
#[doc(hidden)]
pub trait Fields {
    /// `a: …; scale: …`, each field cut as `cut` says.
    fn describe_fields(&self, cut: &Cut) -> String;
}

/// One field of a [`Fields`] description: `name: ` and the field described
/// by `describer`, or `name: …` where its type has no description.
#[doc(hidden)]
pub fn describe_field<T>(
    name: &str,
    describer: Option<Describer<T>>,
    value: &T,
    cut: &Cut,
) -> String {
    match describer {
        Some(describe) => format!("{name}: {}", describe(value, cut)),
        None => format!("{name}: …"),
    }
}

/// [`Describe`] for a type described field by field.
#[doc(hidden)]
pub trait ViaFields<T> {
    /// [`Fields::describe_fields`].
    fn describer(&self) -> Option<Describer<T>>;
}

impl<T: Fields> ViaFields<T> for &&&Describe<T> {
    fn describer(&self) -> Option<Describer<T>> {
        Some(|x, cut| x.describe_fields(cut))
    }
}

/// [`Describe`] for a vector of numbers.
#[doc(hidden)]
pub trait ViaSummary<T> {
    /// [`summarise`].
    fn describer(&self) -> Option<Describer<T>>;
}

impl<E: Element + Debug> ViaSummary<Vec<E>> for &&Describe<Vec<E>> {
    fn describer(&self) -> Option<Describer<Vec<E>>> {
        Some(|x, cut| summarise(x, cut))
    }
}

/// [`Describe`] for a `Debug` input type.
#[doc(hidden)]
pub trait ViaDebug<T> {
    /// [`debug_cut`].
    fn describer(&self) -> Option<Describer<T>>;
}

impl<T: Debug> ViaDebug<T> for &Describe<T> {
    fn describer(&self) -> Option<Describer<T>> {
        Some(|x, cut| debug_cut(x, cut.max))
    }
}

/// [`Describe`] for any other input type.
#[doc(hidden)]
pub trait WithoutDebug<T> {
    /// None.
    fn describer(&self) -> Option<Describer<T>>;
}

impl<T> WithoutDebug<T> for Describe<T> {
    fn describer(&self) -> Option<Describer<T>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_debug_is_cut_and_says_its_length() {
        let v: Vec<u8> = vec![7; 1000];
        let full = format!("{v:?}");
        let cut = bounded_debug(&v);
        assert!(cut.starts_with(&full[..MAX_CHARS]));
        assert!(cut.ends_with(&format!("… ({} characters in all)", full.len())));
        assert_eq!(bounded_debug(&[1.5f32, 2.0]), "[1.5, 2.0]");
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn the_describer_is_debug_where_the_type_has_it() {
        struct Opaque;
        let debug = (&&&Describe::<Vec<i32>>::NEW).describer().unwrap();
        assert_eq!(debug(&vec![1, 2], &Cut::chars(MAX_CHARS)), "[1, 2]");
        assert_eq!(
            debug(&vec![1, 2], &Cut::chars(3)),
            "[1,… (6 characters in all)"
        );
        #[allow(clippy::needless_borrow)]
        let none = (&&&Describe::<Opaque>::NEW).describer();
        assert!(none.is_none());
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn a_long_vector_of_numbers_is_summarised_around_its_worst_element() {
        let summary = (&&&Describe::<Vec<f32>>::NEW).describer().unwrap();
        let short = vec![0.5f32, 1.0];
        assert_eq!(summary(&short, &Cut::chars(MAX_CHARS)), "[0.5, 1.0]");
        let mut x: Vec<f32> = (0..4096).map(|i| i as f32 / 4.0).collect();
        x[7] = f32::NAN;
        let cut = Cut {
            max: MAX_CHARS,
            around: Some((2048, 4096)),
        };
        assert_eq!(
            summary(&x, &cut),
            "4096 × f32 in [0.0000e0, 1.0238e3] (1 not finite): first [0.0, 0.25, 0.5, 0.75], \
             last [1023.0, 1023.25, 1023.5, 1023.75]; elements 2046..=2050 around the worst \
             output element 2048: [511.5, 511.75, 512.0, 512.25, 512.5]"
        );
        // Around an element of an output of another length: not shown.
        let scalar = Cut {
            max: MAX_CHARS,
            around: Some((0, 1)),
        };
        assert!(!summary(&x, &scalar).contains("around"));
        // Given the room, in full.
        let full = summary(&x, &Cut::chars(REPLAY_CHARS));
        assert_eq!(full, format!("{x:?}"));
    }

    #[test]
    fn a_trial_at_its_worst_reads_back_with_its_seed_in_hexadecimal() {
        let at = AtWorst {
            trial: 3,
            seed: 0x2a,
            delta1: f64::INFINITY,
            delta2: 0.5,
            element: (1, 4),
            candidate: f64::NAN,
            baseline: 1.0,
            oracle: 1.0,
        };
        let json = serde_json::to_string(&at).unwrap();
        assert!(json.contains(r#""seed":"0x000000000000002a""#), "{json}");
        let back: AtWorst = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (back.seed, back.element, back.delta1),
            (0x2a, (1, 4), f64::INFINITY)
        );
        assert!(back.candidate.is_nan());
    }

    #[test]
    fn the_largest_errors_come_first_nan_before_all() {
        assert_eq!(positions(&[1.0, 5.0, f64::NAN, 5.0, 2.0]), [2, 1, 3]);
        assert_eq!(positions(&[1.0]), [0]);
    }
}
