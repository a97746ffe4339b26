//! Per-trial random number generation.
//!
//! Every trial draws its input from its own [`TrialRng`], seeded from the run's
//! base seed and the trial index through [`trial_seed`]. A trial can therefore
//! be replayed alone, and trials can run on any number of threads with results
//! identical to a serial run.

use core::convert::Infallible;

use rand_core::{SeedableRng, TryRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The random number generator handed to input generators.
///
/// It implements the traits of `rand` 0.10 ([`rand::Rng`], and
/// [`rand::RngExt`] for `random_range` and friends), so every distribution
/// of `rand` 0.10 and `rand_distr` 0.6 works with it. Use the `rand` this
/// crate re-exports, [`crate::rand`] (its prelude brings `RngExt` into
/// scope), so that the version always matches whatever `rand` your own
/// crate depends on: the traits of another `rand` (0.9, say) are not
/// implemented for it. The algorithm (xoshiro256++ seeded through SplitMix64) is
/// fixed by this crate and does not change between releases of `rand`, so a
/// seed printed today replays the same inputs tomorrow.
#[derive(Clone, Debug)]
pub struct TrialRng {
    inner: Xoshiro256PlusPlus,
    seed: u64,
    input_kind: String,
}

impl TrialRng {
    /// The generator of trial `index` in a run with base seed `base_seed`.
    pub fn for_trial(base_seed: u64, index: usize) -> Self {
        Self::from_trial_seed(trial_seed(base_seed, index))
    }

    /// A generator from a trial seed, as printed for the worst trial of a run.
    pub fn from_trial_seed(seed: u64) -> Self {
        Self {
            inner: Xoshiro256PlusPlus::seed_from_u64(seed),
            seed,
            input_kind: String::new(),
        }
    }

    /// The trial seed this generator was created from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Notes what kind of input the generator is making (`normal`,
    /// `edge/subnormal`, ...), so that reports can trace the worst trials to
    /// their kind of input. Successive notes are joined with `/`, so nested
    /// generators build a path such as `mix/edge/overflow`.
    pub fn note_input_kind(&mut self, kind: &str) {
        if !self.input_kind.is_empty() {
            self.input_kind.push('/');
        }
        self.input_kind.push_str(kind);
    }

    /// The kind of input noted so far (empty when no generator noted one).
    pub fn input_kind(&self) -> &str {
        &self.input_kind
    }
}

impl TryRng for TrialRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.inner.try_next_u32()
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.inner.try_next_u64()
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.inner.try_fill_bytes(dst)
    }
}

/// A seed as reports and baselines write it: `0x` and 16 hexadecimal
/// digits (what `DUAL_DELTA_SEED` reads).
pub(crate) fn seed_hex(seed: u64) -> String {
    format!("{seed:#018x}")
}

/// `#[serde(with = "crate::rng::hex")]`: a seed written as [`seed_hex`]
/// writes it, read back by [`dual_delta_settings::parse_seed`]; a seed
/// written as a JSON integer (as reports before this format wrote some) is
/// read too.
pub(crate) mod hex {
    use serde::Serializer;
    use serde::de::{self, Deserializer, Visitor};
    use std::fmt;

    pub(crate) fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::seed_hex(*seed))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Seed)
    }

    struct Seed;

    impl Visitor<'_> for Seed {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a seed: `0x` and hexadecimal digits, or an integer")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<u64, E> {
            dual_delta_settings::parse_seed(text)
                .ok_or_else(|| E::custom(format!("not a seed: {text:?}")))
        }
    }
}

/// The seed of trial `index` in a run with base seed `base_seed`.
///
/// Two rounds of the SplitMix64 finaliser over the base seed and the index:
/// neighbouring indices and neighbouring base seeds give unrelated streams.
pub fn trial_seed(base_seed: u64, index: usize) -> u64 {
    mix64(mix64(base_seed) ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A seed derived from a name (FNV-1a, then mixed): the default base seed of
/// an annotated test, so every test has its own fixed, printed seed.
pub fn seed_from_name(name: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix64(hash)
}

fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, RngExt};

    #[test]
    fn trial_streams_are_reproducible_and_distinct() {
        let mut a = TrialRng::for_trial(7, 3);
        let mut b = TrialRng::for_trial(7, 3);
        let mut c = TrialRng::for_trial(7, 4);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert_eq!(a.seed(), trial_seed(7, 3));
    }

    #[test]
    fn replay_from_trial_seed_matches_the_trial() {
        let mut a = TrialRng::for_trial(42, 999);
        let mut b = TrialRng::from_trial_seed(trial_seed(42, 999));
        let x: f64 = a.random();
        let y: f64 = b.random();
        assert_eq!(x.to_bits(), y.to_bits());
    }

    #[test]
    fn input_kinds_nest() {
        let mut rng = TrialRng::from_trial_seed(1);
        assert_eq!(rng.input_kind(), "");
        rng.note_input_kind("mix");
        rng.note_input_kind("edge");
        assert_eq!(rng.input_kind(), "mix/edge");
    }

    #[test]
    fn names_give_distinct_seeds() {
        assert_ne!(seed_from_name("a::b"), seed_from_name("a::c"));
        assert_eq!(seed_from_name("a::b"), seed_from_name("a::b"));
    }
}
