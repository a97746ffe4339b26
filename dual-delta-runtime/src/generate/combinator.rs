//! Combinators: mixtures, maps, pairs and names, for input generators and
//! for [`Values`].

use rand::RngExt;

use super::{Values, check_probability};
use crate::rng::TrialRng;

/// With probability `p` an input from `a`, otherwise one from `b` (one
/// Bernoulli draw per trial, then the branch's draws).
///
/// The branch taken is in the trial's input kind: the kind the branch noted,
/// or `mix.a` / `mix.b` where it noted none.
///
/// ```
/// use dual_delta_runtime::generate::{edges, matrix_pair, mix, normal};
/// use dual_delta_runtime::TrialRng;
/// use half::f16;
///
/// let ordinary = matrix_pair(8, 64, 8, normal::<f16>(1.0));
/// let rare = matrix_pair(8, 64, 8, edges(normal::<f16>(1.0)));
/// let input = mix(0.1, rare, ordinary);
/// let mut rng = TrialRng::for_trial(0, 0);
/// let pair = input(&mut rng);
/// assert_eq!(pair.shape(), (8, 64, 8));
/// assert!(rng.input_kind() == "normal" || rng.input_kind().starts_with("edge/"));
/// ```
///
/// # Panics
///
/// Panics unless `p` is in `[0, 1]`.
#[track_caller]
pub fn mix<T, A, B>(p: f64, a: A, b: B) -> impl Fn(&mut TrialRng) -> T + Send + Sync + Clone
where
    A: Fn(&mut TrialRng) -> T + Send + Sync + Clone,
    B: Fn(&mut TrialRng) -> T + Send + Sync + Clone,
{
    check_probability("the probability of a mix", p);
    move |rng: &mut TrialRng| {
        let before = rng.input_kind().len();
        let (x, branch) = if rng.random_bool(p) {
            (a(rng), "mix.a")
        } else {
            (b(rng), "mix.b")
        };
        if rng.input_kind().len() == before {
            rng.note_input_kind(branch);
        }
        x
    }
}

/// The inputs of `generator` transformed by `f` (the kind is the
/// generator's).
///
/// ```
/// use dual_delta_runtime::generate::{map, normal, vector};
/// use dual_delta_runtime::TrialRng;
///
/// // Sorted inputs.
/// let input = map(vector(100, normal::<f32>(1.0)), |mut x: Vec<f32>| {
///     x.sort_by(f32::total_cmp);
///     x
/// });
/// let x = input(&mut TrialRng::for_trial(0, 0));
/// assert!(x.windows(2).all(|w| w[0] <= w[1]));
/// ```
pub fn map<T, U, G, F>(generator: G, f: F) -> impl Fn(&mut TrialRng) -> U + Send + Sync + Clone
where
    G: Fn(&mut TrialRng) -> T + Send + Sync + Clone,
    F: Fn(T) -> U + Send + Sync + Clone,
{
    move |rng: &mut TrialRng| f(generator(rng))
}

/// Both inputs, `a`'s drawn first: for kernels of two arguments (the kinds
/// are noted in that order).
///
/// ```
/// use dual_delta_runtime::generate::{normal, vector, zip};
/// use dual_delta_runtime::TrialRng;
///
/// let input = zip(vector(16, normal::<f32>(1.0)), vector(16, normal::<f32>(1.0)));
/// let (x, y) = input(&mut TrialRng::for_trial(0, 0));
/// assert_eq!((x.len(), y.len()), (16, 16));
/// ```
pub fn zip<T, U, A, B>(a: A, b: B) -> impl Fn(&mut TrialRng) -> (T, U) + Send + Sync + Clone
where
    A: Fn(&mut TrialRng) -> T + Send + Sync + Clone,
    B: Fn(&mut TrialRng) -> U + Send + Sync + Clone,
{
    move |rng: &mut TrialRng| {
        let x = a(rng);
        let y = b(rng);
        (x, y)
    }
}

/// `generator`, noting `kind` before whatever it notes: names a plain
/// closure's inputs in reports, or groups generators under a common prefix.
///
/// ```
/// use dual_delta_runtime::generate::{named, normal, vector};
/// use dual_delta_runtime::TrialRng;
///
/// let input = named("weights", vector(16, normal::<f32>(0.02)));
/// let mut rng = TrialRng::for_trial(0, 0);
/// input(&mut rng);
/// assert_eq!(rng.input_kind(), "weights/normal");
/// ```
pub fn named<T, G>(
    kind: impl Into<String>,
    generator: G,
) -> impl Fn(&mut TrialRng) -> T + Send + Sync + Clone
where
    G: Fn(&mut TrialRng) -> T + Send + Sync + Clone,
{
    let kind: String = kind.into();
    move |rng: &mut TrialRng| {
        rng.note_input_kind(&kind);
        generator(rng)
    }
}

/// A mixture of two [`Values`]: with probability `p` per draw (per pair for
/// [`Values::draw_pair`]) values from `a`, otherwise from `b`. Made by
/// [`mix_values`].
#[derive(Clone, Debug)]
pub struct MixValues<A, B> {
    p: f64,
    a: A,
    b: B,
}

/// With probability `p` per draw values from `a`, otherwise from `b`; for a
/// matrix pair one choice covers both factors. The branch taken is in the
/// kind, as for [`mix`].
///
/// ```
/// use dual_delta_runtime::generate::{mix_values, normal, student_t, vector};
/// use dual_delta_runtime::TrialRng;
///
/// let input = vector(64, mix_values(0.2, student_t::<f32>(1.5, 1.0), normal::<f32>(1.0)));
/// let mut rng = TrialRng::for_trial(0, 3);
/// input(&mut rng);
/// assert!(["student_t", "normal"].contains(&rng.input_kind()));
/// ```
///
/// # Panics
///
/// Panics unless `p` is in `[0, 1]`.
#[track_caller]
pub fn mix_values<A, B>(p: f64, a: A, b: B) -> MixValues<A, B> {
    check_probability("the probability of a mix", p);
    MixValues { p, a, b }
}

impl<A, B> MixValues<A, B> {
    /// The probability of the first branch.
    pub fn probability(&self) -> f64 {
        self.p
    }

    fn branch<T>(
        &self,
        rng: &mut TrialRng,
        a: impl FnOnce(&A, &mut TrialRng) -> T,
        b: impl FnOnce(&B, &mut TrialRng) -> T,
    ) -> T {
        let before = rng.input_kind().len();
        let (x, branch) = if rng.random_bool(self.p) {
            (a(&self.a, rng), "mix.a")
        } else {
            (b(&self.b, rng), "mix.b")
        };
        if rng.input_kind().len() == before {
            rng.note_input_kind(branch);
        }
        x
    }
}

impl<E, A: Values<E>, B: Values<E>> Values<E> for MixValues<A, B> {
    fn draw(&self, rng: &mut TrialRng, rows: usize, cols: usize) -> Vec<E> {
        self.branch(
            rng,
            |a, rng| a.draw(rng, rows, cols),
            |b, rng| b.draw(rng, rows, cols),
        )
    }

    fn draw_pair(&self, rng: &mut TrialRng, m: usize, k: usize, n: usize) -> (Vec<E>, Vec<E>) {
        self.branch(
            rng,
            |a, rng| a.draw_pair(rng, m, k, n),
            |b, rng| b.draw_pair(rng, m, k, n),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_branches_are_named_by_the_mix() {
        let one = |_: &mut TrialRng| 1u8;
        let two = |_: &mut TrialRng| 2u8;
        let g = mix(0.5, one, two);
        for i in 0..20 {
            let mut rng = TrialRng::for_trial(0, i);
            let x = g(&mut rng);
            assert_eq!(rng.input_kind(), if x == 1 { "mix.a" } else { "mix.b" });
        }
    }

    #[test]
    #[should_panic(expected = "probability")]
    fn probabilities_are_checked() {
        let _ = mix_values(1.5, (), ());
    }
}
