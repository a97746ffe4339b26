//! The `#[dual_delta_test]` attribute of dual-delta.
//!
//! Depend on `dual-delta-runtime`, which re-exports the attribute and holds
//! everything the expansion calls; this crate is not meant to be used alone.

#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

use proc_macro::TokenStream;
use quote::ToTokens;

mod cases;
mod codegen;
mod derive;
mod display;
mod parse;
mod validate;

#[cfg(test)]
mod tests;

/// Turns a candidate function into a Dual-Delta test.
///
/// The annotated function is the candidate f1: it takes one input by
/// reference and returns an output. The attribute names the baseline f2 it is
/// compared with, the high-precision oracle fΩ both are measured against, and
/// the generator of the random inputs. The test runs N trials, measures the
/// error of f1 and of f2 against fΩ on each, compares the two paired error
/// samples statistically, prints a verdict table, and fails unless the
/// expectation (by default: the candidate is not significantly less accurate)
/// holds.
///
/// ```
/// use dual_delta_runtime::prelude::*;
///
/// fn random_vec(rng: &mut TrialRng) -> Vec<f32> {
///     (0..256).map(|_| rng.random_range(0.0f32..1.0)).collect()
/// }
/// fn sum_f64(x: &Vec<f32>) -> f64 {
///     x.iter().map(|&v| f64::from(v)).sum()
/// }
/// fn sum_kahan(x: &Vec<f32>) -> f32 {
///     let (mut sum, mut c) = (0.0f32, 0.0f32);
///     for &v in x {
///         let y = v - c;
///         let t = sum + y;
///         c = (t - sum) - y;
///         sum = t;
///     }
///     sum
/// }
///
/// #[dual_delta_test(oracle = sum_f64, baseline = sum_kahan, input = random_vec, expect = worse)]
/// fn sum_naive(x: &Vec<f32>) -> f32 {
///     x.iter().sum()
/// }
/// # fn main() {}
/// ```
///
/// # The claim
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/claim.md"))]
///
/// The runtime's `claim` module states the rule in full: what a pass
/// guarantees, what is measured, and what each setting costs.
///
/// # Keys
///
/// Values are Rust expressions where an expression makes sense (paths,
/// closures, calls), and literals where a number or a name is expected.
/// Every setting's key comes from the runtime's one table of settings
/// (its configuration chapter has each one's environment variable and
/// builder method too).
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/keys.md"))]
///
/// - `oracle`, `baseline` and `input` are any expressions: function paths,
///   closures, calls returning closures. Each output `O` is anything
///   implementing `Output` (a float, a `Vec`, a slice or an array of floats,
///   ...), and the three need not have the same type.
/// - `metric`: `max_hybrid` (`max |y - y′| / (1 + |y′|)`), `mean_hybrid`,
///   `norm_relative`, `max_absolute`, `max_relative` or `max_ulp` name the
///   built-in metrics (these names are reserved: a function of yours called
///   `max_ulp` is not reachable as `metric = max_ulp`; write
///   `metric = self::max_ulp`). Any other expression is a metric of the
///   candidate's (or baseline's) output and the oracle's, both widened to
///   `f64`, and is named in reports as written.
/// - `expect`: `no_worse` fails only when the candidate is shown less
///   accurate than the baseline beyond the margin (the claim); `equivalent` passes when no significant
///   difference is found and the error distributions are indistinguishable
///   (Kolmogorov-Smirnov); `better` passes only when the candidate is
///   significantly more accurate; `worse` passes only when it is
///   significantly less accurate (a test that a bad configuration is caught).
/// - `margin` δ: the claim's margin (see [the claim](#the-claim)). A
///   significant loss inside it passes and is stated in the verdict ("less
///   accurate by 0.8% (p = 7.2e-24 at margin 0), within the 5% margin").
///   `margin = 0.0` keeps both criteria with no margin: any significant
///   loss in mean or on the typical input fails.
/// - `rule`: `claim` (the default) or `paper`: the paper's test alone, the
///   run failing exactly where the one-sided `test` rejects at α over every
///   input (no margin, no mean criterion, no early stop; the gates still
///   apply).
/// - `stability`: the same expectations for the spread of the errors from
///   input to input (the paired spread test).
/// - `n` is the number of inputs a pass speaks for: every one of them runs
///   the candidate and the baseline, and the oracle wherever their outputs
///   differ (and on a seeded one-in-eight sample of the ties). A run stops
///   before `n` only at a failure (or at a pass in the quick mode and under
///   `expect = worse`): two anytime-valid e-processes of (T) watch the
///   inputs so far, a signed-rank process at margin 0 and a sign process at
///   the margin, and the run ends once the smaller of the two reaches 10⁴
///   (and 2/α); otherwise the claim over all `n` inputs decides at the
///   share of α left to it (α/2, each criterion at α/4). An `n` at which no
///   failure is possible is a compile error at the `n` where the settings
///   are literals, and an error when the test runs otherwise, naming the
///   smallest `n` that can fail: 9 under the defaults at α = 0.01, 8 with
///   `stop_early = false`, 7 under `rule = paper`
///   (`dual_delta_settings::levels::Deciding::min_n`, which the runtime
///   calls too).
///   `stop_early = false` runs every input as a full trial and decides at
///   α; so does `DUAL_DELTA_STOP_EARLY=0`. `screen = false` (or
///   `DUAL_DELTA_SCREEN=0`) is the quick mode: an early pass after `k`
///   trials is final unless the claim over those `k` inputs shows the
///   candidate less accurate, and the verdict states the share of inputs
///   with a non-finite output, a panic or a gross error `k`
///   trials cannot rule out.
/// - `gross_factor` G: a trial on which the candidate's error exceeds G ×
///   the larger of the baseline's largest error over the run and the error
///   one unit in the last place of the output's format makes fails the
///   test, as a NaN does (see the runtime's `screen` module).
/// - `allow_non_finite`: by default a trial on which the candidate's output
///   holds a NaN or an infinity while the baseline's and the oracle's are
///   finite fails the test whatever the expectation (with `expect = worse`
///   it counts as the candidate being worse), and the failure names the
///   first such trial, its seed and the position of the value. `true` keeps
///   such trials in the statistics only, as the worst possible errors: for
///   kernels where overflow on edge-case inputs is expected.
/// - `threads = 1` runs the trials one after another, for implementations
///   that must not run concurrently; results do not depend on it.
/// - `batch = 32`: the candidate is `fn name(xs: &[Input]) -> Vec<Output>`
///   and receives up to that many consecutive trials' inputs per call, such
///   as a GPU kernel running a whole batch in one submission; the baseline
///   runs on the other threads meanwhile (and the oracle too where every
///   input is a full trial; otherwise afterwards, where the outputs
///   differ). The trials and the
///   verdict are those of the same candidate called one input at a time.
/// - `check`: runs on every outcome, after the verdict, on the whole
///   `Outcome` (errors, summaries, every test); an `Err(reason)` fails the
///   test with the reason and the verdict table, and is reported as what
///   decided it. For example
///   `check = |o| if o.summaries().candidate.max < 1e-3 { Ok(()) } else { Err("max error".into()) }`.
///
/// # Run-time configuration
///
/// Settings are resolved when the test runs, never when it compiles, in this
/// order: the environment (`DUAL_DELTA_N`, `DUAL_DELTA_SEED`,
/// `DUAL_DELTA_ALPHA`, `DUAL_DELTA_THREADS`, `DUAL_DELTA_STOP_EARLY`,
/// `DUAL_DELTA_SCREEN`, `DUAL_DELTA_TRIAL_TIMEOUT`), then
/// the attribute, then the defaults. A variable that is set but invalid fails
/// the test with a message naming it. `DUAL_DELTA_SEED` takes the seed a failure prints, so a failing
/// run can be replayed exactly.
///
/// # The candidate
///
/// The candidate must be `fn name(x: &Input) -> Output`: exactly one
/// parameter (more only with [cases](#cases)), taken by shared reference;
/// not a method, not generic, not
/// `async`, not `unsafe`, and returning a value. Doc comments, `#[ignore]`,
/// `#[cfg(...)]`, `#[should_panic]` and lint attributes keep working.
/// Do not add `#[test]`: the attribute already makes the function a test.
/// A candidate taking a slice of numbers, `x: &[f32]` (`f16`, `bf16`,
/// `f64`, the FP8 formats, the integers), takes a `Vec<f32>` input: the
/// generator returns a `Vec`, and the baseline and the oracle may take
/// `&[f32]` or `&Vec<f32>`.
///
/// The function's name becomes the test's name (`cargo test sum_naive`
/// selects it), so the candidate cannot be called elsewhere under that name;
/// to test a function used elsewhere, call it from the body.
///
/// # Cases
///
/// `#[case(name = value, ...)]` under the attribute makes one test per case,
/// each named after its values (`sum_naive::len_1024`), with its own seed
/// (derived from that name) and its own report. `#[matrix(name = [value,
/// ...], ...)]` makes a case of every combination of the values listed
/// (`sum_blocked::len_1024_acc_f32`, ...); a candidate may have several of
/// each.
///
/// ```
/// use dual_delta_runtime::prelude::*;
///
/// fn random_vec(len: usize) -> impl Fn(&mut TrialRng) -> Vec<f32> + Sync {
///     move |rng| (0..len).map(|_| rng.random_range(0.0f32..1.0)).collect()
/// }
/// fn sum_f64(x: &Vec<f32>) -> f64 {
///     x.iter().map(|&v| f64::from(v)).sum()
/// }
/// fn sum_f32(x: &Vec<f32>) -> f32 {
///     x.iter().sum()
/// }
///
/// #[dual_delta_test(oracle = sum_f64, baseline = sum_f32, input = random_vec(len))]
/// #[case(len = 1024)]
/// #[case(len = 65536)]
/// fn sum_naive(x: &Vec<f32>) -> f32 {
///     x.iter().fold(0.0, |s, &v| s + v)
/// }
///
/// #[derive(Clone, Copy)]
/// enum Accumulation {
///     F32,
///     F64,
/// }
///
/// #[dual_delta_test(oracle = sum_f64, baseline = sum_f32, input = random_vec(len))]
/// #[matrix(len = [1024, 4096], acc = [Accumulation::F32, Accumulation::F64])]
/// fn sum_blocked(x: &Vec<f32>, acc: Accumulation) -> f32 {
///     let blocks = x.chunks(64).map(|b| b.iter().sum::<f32>());
///     match acc {
///         Accumulation::F32 => blocks.sum(),
///         Accumulation::F64 => blocks.map(f64::from).sum::<f64>() as f32,
///     }
/// }
/// # fn main() {}
/// ```
///
/// - Each case binds its names (`let len = 1024;`) before the attribute's
///   expressions, so `input`, `oracle`, `baseline`, `check` and the others
///   may use them.
/// - The candidate may take parameters after its input: each is a name that
///   every case sets, passed by value (`acc: Accumulation`, cloned for
///   every call) or by reference (`shape: &Shape`). Names the candidate does
///   not take are only bound for the expressions. With `batch = N` the
///   input is `xs: &[Input]` and the same parameters follow.
/// - A test's name is the case's names and values joined by `_`, in the
///   order written, lowercase: an integer as its digits, a path as its last
///   segment in snake case (`Accumulation::F32` is `f32`, `Layout::RowMajor`
///   is `row_major`), `-2` as `minus_2`, `0.5` as `0_5`; any other character
///   becomes `_`.
/// - The function is kept as written, callable under its name, next to a
///   module of the same name holding the tests, which sees everything the
///   function's module has in scope (`use super::*`): an expression naming
///   `super::item` must say `super::super::item` there.
/// - Mistakes are compile errors at the case, the value or the parameter,
///   all at once: a parameter no case sets, a case missing a name that
///   other cases set or the candidate takes, two cases of the same name,
///   an empty `#[case()]`, and a `#[case]` or `#[matrix]` above the
///   attribute rather than below it.
///
/// # Expansion
///
/// ```ignore
/// #[::dual_delta_runtime::__private::test]
/// fn sum_naive() {
///     fn sum_naive(x: &Vec<f32>) -> f32 {
///         x.iter().sum()
///     }
///
///     #[allow(clippy::needless_update)]
///     let overrides = ::dual_delta_runtime::__private::Overrides {
///         expect: ::dual_delta_runtime::__private::Some(
///             ::dual_delta_runtime::__private::Expect::Worse,
///         ),
///         ..::dual_delta_runtime::__private::Default::default()
///     };
///     ::dual_delta_runtime::__private::run_test(
///         ::dual_delta_runtime::__private::TestIdentity {
///             module_path: ::dual_delta_runtime::__private::module_path!(),
///             function: "sum_naive",
///             case: ::dual_delta_runtime::__private::None,
///             baseline: "sum_kahan",
///             oracle: "sum_f64",
///             input: "random_vec",
///             file: ::dual_delta_runtime::__private::file!(),
///             line: ::dual_delta_runtime::__private::line!(),
///             cargo: ::dual_delta_runtime::__private::cargo_target!(),
///         },
///         overrides,
///         ::dual_delta_runtime::__private::DualDelta::new(
///             sum_naive,
///             ::dual_delta_runtime::__private::baseline_of::<Vec<f32>, _, _>(sum_kahan),
///             ::dual_delta_runtime::__private::oracle_of::<Vec<f32>, _, _>(sum_f64),
///             ::dual_delta_runtime::__private::input_of::<Vec<f32>, _>(random_vec),
///         ),
///         ::dual_delta_runtime::__private::no_check,
///     );
/// }
/// ```
///
/// `baseline_of`, `oracle_of` and `input_of` return their argument, checked
/// against the candidate's input type `Vec<f32>` where it is written: a
/// baseline, an oracle or a generator of another type is reported at its
/// expression, by a bound of the function named after its role.
///
/// With `batch = 32` the run is
/// `__private::DualDelta::batched(...).batch_size(32usize)`.
///
/// With cases, the function is kept as written (allowed to be dead code
/// outside tests) and followed by `mod sum_naive { use super::*; ... }`
/// with one `#[test] fn len_1024()` per case: the case's `let`s, then the
/// same statements with `case: Some("len_1024")`, and as the candidate
/// `super::sum_naive`, or a closure passing the case's values after the
/// input, `|x: &Vec<f32>| super::sum_blocked(x, Clone::clone(&acc))`.
///
/// Mistakes in the attribute or the signature are compile errors pointing at
/// the offending token, all reported at once; the function is then emitted
/// unchanged next to the errors.
#[proc_macro_attribute]
pub fn dual_delta_test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args.into(), item.into()).into()
}

/// Gives a struct its coordinates, each field's by its own `Coordinates`:
/// a vector field its length, largest and smallest magnitude, norm and
/// counts (`len(x.a)`, `‖x.a‖`), a number field its value and magnitude
/// (`x.scale`, `|x.scale|`), a field of a type of your own its coordinates.
/// The `where:` line of a failing test can then name the field that
/// carries the loss; the worst inputs are printed field by field, a vector
/// by its summary (length, range, first and last elements), any other field
/// by its `Debug`.
///
/// ```
/// use dual_delta_runtime::prelude::*;
///
/// #[derive(Debug, Coordinates)]
/// struct Scaled {
///     x: Vec<f32>,
///     scale: f32,
/// }
///
/// fn random_scaled(rng: &mut TrialRng) -> Scaled {
///     Scaled {
///         x: (0..256).map(|_| rng.random_range(-1.0f32..1.0)).collect(),
///         scale: rng.random_range(0.5f32..2.0),
///     }
/// }
/// fn norm_f64(s: &Scaled) -> f64 {
///     let sq: f64 = s.x.iter().map(|&v| f64::from(v).powi(2)).sum();
///     f64::from(s.scale) * sq.sqrt()
/// }
/// fn norm_f32(s: &Scaled) -> f32 {
///     s.scale * s.x.iter().map(|v| v * v).sum::<f32>().sqrt()
/// }
///
/// #[dual_delta_test(oracle = norm_f64, baseline = norm_f32, input = random_scaled)]
/// fn norm_scaled_first(s: &Scaled) -> f32 {
///     s.x.iter().map(|v| (v * s.scale) * (v * s.scale)).sum::<f32>().sqrt()
/// }
/// # fn main() {}
/// ```
///
/// Each field's type must implement `Coordinates` (numbers, vectors,
/// arrays and tuples of numbers do; derive it for a struct of your own);
/// the error names the field that does not.
#[proc_macro_derive(Coordinates)]
pub fn derive_coordinates(item: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(item) {
        Ok(input) => derive::coordinates(input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The attribute on `proc_macro2` tokens, for unit tests.
fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut function: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("`#[dual_delta_test]` goes on a function: {e}"),
            );
            return codegen::with_errors(e, item);
        }
    };
    let mut errors = validate::Errors::default();
    let parsed = errors.check(parse::args(args));
    // Read from the keys written, so that a candidate taking a slice is
    // checked as batched even where another key is invalid.
    let batched = parsed
        .as_ref()
        .is_some_and(|args| args.iter().any(|a| a.key == "batch"));
    let config = parsed.and_then(|args| errors.check(validate::config(args)));
    let has_cases = function.attrs.iter().any(cases::is_case_attribute);
    let tables = cases::take(&mut function.attrs, &mut errors);
    errors.check(validate::candidate(&function, batched, has_cases));
    let suite = has_cases.then(|| {
        let params = cases::params(&function.sig, &mut errors);
        cases::suite(tables, params, &mut errors)
    });
    match (errors.finish(), config, suite) {
        (Ok(()), Some(config), None) => codegen::test(config, function),
        (Ok(()), Some(config), Some(suite)) => codegen::cases(config, function, suite),
        // Without its `#[case]`s, which nothing else would read.
        (Err(e), ..) => codegen::with_errors(e, function.into_token_stream()),
        (Ok(()), None, _) => unreachable!("an invalid configuration has errors"),
    }
}

/// One case of a `#[dual_delta_test]`: see [its documentation](macro@dual_delta_test#cases).
///
/// `#[dual_delta_test(...)]` reads the `#[case(...)]`s written below it;
/// anywhere else, `#[case]` is an error saying so.
#[proc_macro_attribute]
pub fn case(_args: TokenStream, item: TokenStream) -> TokenStream {
    cases::misplaced("case", item.into()).into()
}

/// Cases over every combination of several values of a `#[dual_delta_test]`:
/// see [its documentation](macro@dual_delta_test#cases).
///
/// `#[dual_delta_test(...)]` reads the `#[matrix(...)]`s written below it;
/// anywhere else, `#[matrix]` is an error saying so.
#[proc_macro_attribute]
pub fn matrix(_args: TokenStream, item: TokenStream) -> TokenStream {
    cases::misplaced("matrix", item.into()).into()
}
