//! The levels a run's tests are held to, and the fewest inputs at which a
//! test can fail, from its settings' names: the one function the attribute
//! calls at compile time and the runtime when the test runs, so that an
//! `n` the attribute accepts runs to a verdict.
//!
//! α is split between the anytime-valid sequential test and the tests over
//! every input ([`alpha_split`]). Under the claim (`rule = claim`) the
//! tests over every input get the share left to them where the run may
//! stop early (all of α with `stop_early = false`), and its two criteria
//! half of that each; under the paper's rule (`rule = paper`) the one
//! paired test gets all of α.

/// How α is shared between the sequential test's two sides and the tests
/// over every input at the cap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// The level of the sequential fail side: it fails when its e-value
    /// reaches `1 / fail`.
    pub fail: f64,
    /// The level of the sequential pass side.
    pub pass: f64,
    /// The level of the tests over every input at the cap, where the run
    /// could have stopped early.
    pub fallback: f64,
}

/// The split of α for `expect` (the table's name: `no_worse`,
/// `equivalent`, `better`, `worse`).
///
/// | expect | fail | pass | fallback |
/// | --- | --- | --- | --- |
/// | `no_worse` | α / 2 | α | α / 2 |
/// | `equivalent` | α / 2 | α | α / 6 |
/// | `better`, `worse` | α | α / 2 | α / 2 |
///
/// A pass decided early cannot be a false failure, so under `no_worse` the
/// pass side has all of α; `equivalent` also leaves the
/// Kolmogorov-Smirnov test its share at the cap; under `better` and
/// `worse` the roles of the sides are swapped.
pub fn alpha_split(expect: &str, alpha: f64) -> Split {
    match expect {
        "equivalent" => Split {
            fail: alpha / 2.0,
            pass: alpha,
            fallback: alpha / 6.0,
        },
        "better" | "worse" => Split {
            fail: alpha,
            pass: alpha / 2.0,
            fallback: alpha / 2.0,
        },
        _ => Split {
            fail: alpha / 2.0,
            pass: alpha,
            fallback: alpha / 2.0,
        },
    }
}

/// The settings that decide the fewest inputs a run can fail with, by the
/// table's names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deciding<'a> {
    alpha: f64,
    expect: &'a str,
    test: &'a str,
    rule: &'a str,
    stop_early: bool,
}

impl<'a> Deciding<'a> {
    /// α; `expect` (`no_worse`, `equivalent`, `better`, `worse`); `test`
    /// (`wilcoxon`, `sign`, `t`); `rule` (`claim`, `paper`); and
    /// `stop_early`, which `rule = paper` ignores (it runs every input).
    pub fn new(
        alpha: f64,
        expect: &'a str,
        test: &'a str,
        rule: &'a str,
        stop_early: bool,
    ) -> Deciding<'a> {
        Deciding {
            alpha,
            expect,
            test,
            rule,
            stop_early,
        }
    }
}

impl Deciding<'_> {
    /// The level of the tests over every input at the cap: the share of α
    /// left to them where the run may stop early, all of α otherwise.
    pub fn fixed_level(&self) -> f64 {
        if self.stop_early && self.rule != "paper" {
            alpha_split(self.expect, self.alpha).fallback
        } else {
            self.alpha
        }
    }

    /// The level the deciding paired test is held to at the cap: half of
    /// [`Deciding::fixed_level`] under the claim (its typical-input
    /// criterion, beside the mean's), all of it under the paper's rule.
    pub fn test_level(&self) -> f64 {
        if self.rule == "paper" {
            self.fixed_level()
        } else {
            self.fixed_level() / 2.0
        }
    }

    /// The fewest inputs at which the run can fail its accuracy claim: the
    /// fewest at which `test` (and, under the claim, the sign test beside
    /// it) can reject at [`Deciding::test_level`].
    ///
    /// ```
    /// use dual_delta_settings::levels::Deciding;
    /// let at = |alpha, rule, stop_early| Deciding::new(alpha, "no_worse", "wilcoxon", rule, stop_early);
    /// assert_eq!(at(0.01, "claim", true).min_n(), 9); // the defaults
    /// assert_eq!(at(0.01, "claim", false).min_n(), 8);
    /// assert_eq!(at(0.01, "paper", true).min_n(), 7);
    /// assert_eq!(at(0.05, "claim", true).min_n(), 7);
    /// ```
    pub fn min_n(&self) -> usize {
        min_trials(self.test, self.test_level())
    }
}

/// The fewest trials at which the one-sided `test` (`wilcoxon`, `sign` or
/// `t`) can reject at `level`: the exact Wilcoxon and sign tests cannot
/// give a p-value below `2^-n`, and the paired t-test also needs 3
/// observations for the Shapiro-Wilk check of normality (and falls back
/// to Wilcoxon where it rejects).
///
/// ```
/// use dual_delta_settings::levels::min_trials;
/// assert_eq!(min_trials("wilcoxon", 0.0025), 9); // 2^-9 < 0.0025 <= 2^-8
/// assert_eq!(min_trials("sign", 0.01), 7);
/// assert_eq!(min_trials("t", 0.5), 3);
/// ```
pub fn min_trials(test: &str, level: f64) -> usize {
    let mut n = 1;
    while 0.5f64.powi(n as i32) >= level {
        n += 1;
    }
    if test == "t" { n.max(3) } else { n }
}

/// The name of `test` (`wilcoxon`, `sign`, `t`) in messages.
pub fn test_name(test: &str) -> &'static str {
    match test {
        "sign" => "sign test",
        "t" => "paired t-test",
        _ => "Wilcoxon signed-rank test",
    }
}

/// Why an `n` below the fewest that can fail is refused: the same words
/// from the attribute at compile time and from the runtime.
///
/// ```
/// use dual_delta_settings::levels::too_few;
/// assert_eq!(
///     too_few(8, 9, "wilcoxon", 0.0025),
///     "n = 8 inputs are too few: the one-sided Wilcoxon signed-rank test cannot reject at \
///      level 0.0025 with fewer than 9, so this test could never fail; use n >= 9"
/// );
/// ```
pub fn too_few(n: usize, min: usize, test: &str, level: f64) -> String {
    format!(
        "n = {n} inputs are too few: the one-sided {} cannot reject at level {level} with fewer \
         than {min}, so this test could never fail; use n >= {min}",
        test_name(test)
    )
}
