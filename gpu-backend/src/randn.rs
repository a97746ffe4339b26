//! Standard normal samples at memory speed: the `torch.randn` inputs of
//! every generator of this crate.
//!
//! Samples are made a block at a time, in two steps the compiler
//! vectorises:
//!
//! - uniform words: the trial's generator ([`TrialRng`], xoshiro256++)
//!   seeds [`LANES`] xoshiro256++ generators (four words each), which then
//!   run side by side, one per vector lane, [`PAIRS`] words per block (a
//!   single xoshiro256++ cannot go faster than one word per step of its
//!   state, which would take most of the time budget alone);
//! - a branch-free Box–Muller transform turns each word into two
//!   independent standard normal `f32` values: the high 31 bits give
//!   `u = (k + ½) · 2⁻³¹ ∈ (0, 1]` and the radius `r = √(−2 ln u)`, the low
//!   32 bits the angle (two bits a quadrant, the other 30 an angle
//!   `x ∈ [−π/4, π/4)` in it), and the pair is `(r cos θ, r sin θ)` with
//!   `θ = x + quadrant · π/2`.
//!
//! `ln`, `sin` and `cos` are polynomials on reduced ranges (the `logf`,
//! `sinf` and `cosf` of Cephes), accurate to a few `f32` ulps, evaluated
//! with separate multiplications and additions (never a fused
//! multiply-add), so that every processor and every vector width gives the
//! same bits. The samples are exact Box–Muller draws up to that rounding,
//! except that `|z|` never exceeds `√(64 ln 2) ≈ 6.66` (the radius of the
//! smallest `u`, `2⁻³²`), which a standard normal exceeds with probability
//! `2.7·10⁻¹¹`.
//!
//! The samples of a block are written cosines first, then sines; a slice
//! whose length is not a whole number of blocks takes the first `⌈r/2⌉`
//! cosines and the first `⌊r/2⌋` sines of its last block, `r` samples in
//! all. Every call takes `4 · LANES` words from the trial's generator,
//! whatever the length, so that what is drawn after it does not depend on
//! the length.

use dual_delta_runtime::TrialRng;
use half::slice::HalfFloatSliceExt as _;
use half::{bf16, f16};
use rand::Rng as _;

/// Words per block; each gives two samples.
pub const PAIRS: usize = 256;

/// Generators run side by side.
pub const LANES: usize = 8;

/// Samples per block.
const BLOCK: usize = 2 * PAIRS;

/// Fills `out` with standard normal samples drawn from `rng`.
///
/// ```
/// use dual_delta_runtime::TrialRng;
///
/// let mut z = vec![0.0f32; 1000];
/// dual_delta_gpu::randn::fill(&mut TrialRng::for_trial(1, 0), &mut z);
/// let mut again = vec![0.0f32; 1000];
/// dual_delta_gpu::randn::fill(&mut TrialRng::for_trial(1, 0), &mut again);
/// assert_eq!(z, again);
/// ```
pub fn fill(rng: &mut TrialRng, out: &mut [f32]) {
    fill_with(rng, out, <[f32]>::copy_from_slice);
}

/// `len` standard normal `f32` samples drawn from `rng` ([`fill`]).
pub fn f32s(len: usize, rng: &mut TrialRng) -> Vec<f32> {
    let mut out = vec![0.0; len];
    fill(rng, &mut out);
    out
}

/// Fills `out` with the samples of [`fill`] rounded to the nearest `f16`
/// (ties to even) a block at a time, with `half`'s vectorised conversion:
/// `torch.randn(len).half()`.
pub fn fill_f16(rng: &mut TrialRng, out: &mut [f16]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("f16c") {
        return fill_with(rng, out, |dst: &mut [f16], z| match dst.try_into() {
            // SAFETY: the processor has AVX2 and F16C.
            Ok(dst) => unsafe { f16_block_f16c(z.try_into().expect("a whole block"), dst) },
            Err(_) => dst.convert_from_f32_slice(z),
        });
    }
    fill_with(rng, out, |dst: &mut [f16], z| dst.convert_from_f32_slice(z));
}

/// A whole block rounded to `f16` with F16C's `vcvtps2ph`, to nearest
/// even as `half`'s conversion (which does the same a call per 8 values).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
fn f16_block_f16c(z: &[f32; BLOCK], out: &mut [f16; BLOCK]) {
    use core::arch::x86_64::{
        _MM_FROUND_TO_NEAREST_INT, _mm_storeu_si128, _mm256_cvtps_ph, _mm256_loadu_ps,
    };
    for (src, dst) in z.as_chunks::<8>().0.iter().zip(out.as_chunks_mut::<8>().0) {
        // SAFETY: 8 `f32` read from `src` and 8 `f16` (`u16`) written to
        // `dst`, both unaligned accesses of exactly their size.
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.as_ptr()));
            _mm_storeu_si128(dst.as_mut_ptr().cast(), h);
        }
    }
}

/// Fills `out` with the samples of [`fill`] rounded to the nearest `bf16`
/// (ties to even): `torch.randn(len).bfloat16()`.
pub fn fill_bf16(rng: &mut TrialRng, out: &mut [bf16]) {
    fill_with(rng, out, |dst: &mut [bf16], z| {
        dst.convert_from_f32_slice(z)
    });
}

/// `len` samples of `torch.randn(len).half()` ([`fill_f16`]).
pub fn f16s(len: usize, rng: &mut TrialRng) -> Vec<f16> {
    let mut out = vec![f16::ZERO; len];
    fill_f16(rng, &mut out);
    out
}

/// `len` samples of `torch.randn(len).bfloat16()` ([`fill_bf16`]).
pub fn bf16s(len: usize, rng: &mut TrialRng) -> Vec<bf16> {
    let mut out = vec![bf16::ZERO; len];
    fill_bf16(rng, &mut out);
    out
}

/// `len` samples `convert(z)` of standard normal `z` ([`f32s`]), in order.
pub(crate) fn map<T: Copy + Default>(
    len: usize,
    rng: &mut TrialRng,
    convert: impl Fn(f32) -> T,
) -> Vec<T> {
    let mut out = vec![T::default(); len];
    fill_with(rng, &mut out, |dst: &mut [T], z| {
        for (d, &z) in dst.iter_mut().zip(z) {
            *d = convert(z);
        }
    });
    out
}

/// Fills `out` a block at a time: `write(dst, z)` stores the samples `z`
/// (as many as `dst` holds) into `dst`.
fn fill_with<T>(rng: &mut TrialRng, out: &mut [T], mut write: impl FnMut(&mut [T], &[f32])) {
    let mut lanes = Lanes::seed(rng);
    let mut z = [0.0f32; BLOCK];
    for dst in out.chunks_mut(BLOCK) {
        block(&mut lanes, &mut z);
        if dst.len() == BLOCK {
            write(dst, &z);
        } else {
            // The last, short block: its first cosines, then its first sines.
            let cosines = dst.len().div_ceil(2);
            let mut tail = [0.0f32; BLOCK];
            tail[..cosines].copy_from_slice(&z[..cosines]);
            tail[cosines..dst.len()].copy_from_slice(&z[PAIRS..PAIRS + dst.len() - cosines]);
            write(dst, &tail[..dst.len()]);
        }
    }
}

/// [`LANES`] xoshiro256++ generators, state word `i` of lane `l` in
/// `s[i][l]`, so that one step of all of them is a few vector operations.
#[derive(Clone, Debug)]
struct Lanes {
    s: [[u64; LANES]; 4],
}

impl Lanes {
    /// Lanes seeded from `rng`: lane by lane, four words each.
    fn seed(rng: &mut TrialRng) -> Self {
        let mut s = [[0u64; LANES]; 4];
        for lane in 0..LANES {
            for word in &mut s {
                word[lane] = rng.next_u64();
            }
            // xoshiro's one forbidden state (probability 2⁻²⁵⁶).
            if s.iter().all(|w| w[lane] == 0) {
                s[0][lane] = 1;
            }
        }
        Lanes { s }
    }

    /// One word from each lane, in lane order (xoshiro256++'s step).
    #[inline(always)]
    fn step(&mut self, out: &mut [u64; LANES]) {
        let [s0, s1, s2, s3] = &mut self.s;
        for l in 0..LANES {
            out[l] = s0[l]
                .wrapping_add(s3[l])
                .rotate_left(23)
                .wrapping_add(s0[l]);
            let t = s1[l] << 17;
            s2[l] ^= s0[l];
            s3[l] ^= s1[l];
            s1[l] ^= s2[l];
            s0[l] ^= s3[l];
            s2[l] ^= t;
            s3[l] = s3[l].rotate_left(45);
        }
    }
}

/// The next block of samples from `lanes`: [`PAIRS`] words (step `j` of
/// lane `l` is word `j · LANES + l`), the cosines in `z[..PAIRS]`, the sines
/// in `z[PAIRS..]`. On x86-64 with AVX2 (or AVX-512) the same code is
/// compiled for the wider vectors; the bits are the same.
fn block(lanes: &mut Lanes, z: &mut [f32; BLOCK]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has AVX-512F, which is all the function
            // is compiled for.
            return unsafe { block_avx512(lanes, z) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: as above, for AVX2.
            return unsafe { block_avx2(lanes, z) };
        }
    }
    block_body(lanes, z);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn block_avx512(lanes: &mut Lanes, z: &mut [f32; BLOCK]) {
    block_body(lanes, z);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_avx2(lanes: &mut Lanes, z: &mut [f32; BLOCK]) {
    block_body(lanes, z);
}

#[inline(always)]
fn block_body(lanes: &mut Lanes, z: &mut [f32; BLOCK]) {
    let mut words = [0u64; PAIRS];
    for chunk in words.as_chunks_mut::<LANES>().0 {
        lanes.step(chunk);
    }
    let (cos, sin) = z.split_at_mut(PAIRS);
    for ((&w, c), s) in words.iter().zip(cos.iter_mut()).zip(sin.iter_mut()) {
        (*c, *s) = pair(w);
    }
}

/// `2⁻³¹`.
const TWO_M31: f32 = 1.0 / 2_147_483_648.0;
/// `(π/2) · 2⁻³⁰`: one step of the angle within a quadrant.
const ANGLE_STEP: f32 = core::f32::consts::FRAC_PI_2 / 1_073_741_824.0;

/// Two independent standard normal samples from one uniform word.
#[inline(always)]
fn pair(w: u64) -> (f32, f32) {
    // Radius: u = (k + ½)·2⁻³¹ ∈ (0, 1] from the high 31 bits.
    let k = (w >> 33) as i32;
    let u = (k as f32 + 0.5) * TWO_M31;
    let r = (-2.0 * ln(u)).sqrt();
    // Angle: a quadrant from bits 30–31, x ∈ [−π/4, π/4) from bits 0–29.
    let low = w as u32;
    let quadrant = low >> 30;
    let x = ((low & 0x3fff_ffff) as i32 as f32) * ANGLE_STEP - core::f32::consts::FRAC_PI_4;
    let (sin, cos) = sin_cos(x);
    // (cos, sin) of x + quadrant·π/2: quadrants 1 and 3 swap the two,
    // quadrants 1 and 2 negate the first, 2 and 3 the second.
    let odd = quadrant & 1 == 1;
    let (a, b) = if odd { (sin, cos) } else { (cos, sin) };
    let sign_a = ((quadrant ^ (quadrant >> 1)) & 1) << 31;
    let sign_b = (quadrant >> 1) << 31;
    (
        r * f32::from_bits(a.to_bits() ^ sign_a),
        r * f32::from_bits(b.to_bits() ^ sign_b),
    )
}

/// `ln u` for a positive normal `u` (Cephes' `logf` reduction, the series
/// of `atanh`): `u = m · 2ᵉ` with `m ∈ [√½, √2)`, `ln m = 2 atanh s` with
/// `s = (m − 1)/(m + 1)`, `|s| < 0.172`.
#[inline(always)]
fn ln(u: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let bits = u.to_bits() as i32;
    let e = (bits - 0x3f35_04f3) >> 23; // 0x3f3504f3: √½
    let m = f32::from_bits((bits - (e << 23)) as u32);
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let p = s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0))));
    let two_s = s + s;
    let e = e as f32;
    e * LN2_HI + (e * LN2_LO + (two_s + two_s * p))
}

/// `(sin x, cos x)` for `|x| ≤ π/4` (Cephes' `sinf` and `cosf`
/// polynomials).
#[inline(always)]
fn sin_cos(x: f32) -> (f32, f32) {
    let x2 = x * x;
    let sin = x + x * x2 * (-1.666_665_5e-1 + x2 * (8.332_161e-3 + x2 * -1.951_529_6e-4));
    let cos =
        1.0 - 0.5 * x2 + x2 * x2 * (4.166_664_6e-2 + x2 * (-1.388_731_6e-3 + x2 * 2.443_315_7e-5));
    (sin, cos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helpers_are_accurate() {
        for i in 1..=100_000u32 {
            let u = i as f32 / 100_000.0;
            let want = f64::from(u).ln();
            let got = f64::from(ln(u));
            assert!(
                (got - want).abs() <= 4e-7 * want.abs().max(1e-3) + 1e-12,
                "ln {u}: {got} vs {want}"
            );
        }
        assert_eq!(ln(1.0), 0.0);
        assert!((f64::from(ln(2f32.powi(-32))) + 32.0 * core::f64::consts::LN_2).abs() < 1e-5);
        for i in -1000..=1000 {
            let x = i as f32 * core::f32::consts::FRAC_PI_4 / 1000.0;
            let (s, c) = sin_cos(x);
            let x = f64::from(x);
            assert!((f64::from(s) - x.sin()).abs() < 2e-7, "sin {x}");
            assert!((f64::from(c) - x.cos()).abs() < 2e-7, "cos {x}");
        }
    }

    #[test]
    fn pairs_cover_every_quadrant() {
        // Smallest u (largest radius), in each quadrant at x = -π/4.
        let r = (64.0 * core::f64::consts::LN_2).sqrt();
        let h = r * core::f64::consts::FRAC_1_SQRT_2;
        let want = [(h, -h), (h, h), (-h, h), (-h, -h)];
        for (q, (c, s)) in want.into_iter().enumerate() {
            let (a, b) = pair((q as u64) << 30);
            assert!((f64::from(a) - c).abs() < 1e-5, "quadrant {q}: {a} vs {c}");
            assert!((f64::from(b) - s).abs() < 1e-5, "quadrant {q}: {b} vs {s}");
        }
        // Largest u: radius 0.
        assert_eq!(pair(u64::MAX), (0.0, -0.0));
    }

    /// Each lane is xoshiro256++ itself, and every vector width the
    /// processor has gives the bits of the plain code.
    #[test]
    fn every_path_gives_the_same_bits() {
        use rand::SeedableRng as _;

        let lanes = Lanes::seed(&mut TrialRng::for_trial(7, 0));
        let mut plain = lanes.clone();
        let mut z = [0.0f32; BLOCK];
        block_body(&mut plain, &mut z);
        let mut dispatched = lanes.clone();
        let mut again = [0.0f32; BLOCK];
        block(&mut dispatched, &mut again);
        assert_eq!(z.map(f32::to_bits), again.map(f32::to_bits));
        assert_eq!(plain.s, dispatched.s);

        let mut by_hand = lanes.clone();
        let mut one = rand_xoshiro::Xoshiro256PlusPlus::from_seed(bytemuck::cast(
            [0, 1, 2, 3].map(|i| lanes.s[i][3]),
        ));
        let mut step = [0u64; LANES];
        for _ in 0..10 {
            by_hand.step(&mut step);
            assert_eq!(step[3], one.next_u64());
        }
    }

    #[test]
    fn lengths_take_the_same_words() {
        for len in [0, 1, 2, 3, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5] {
            let mut rng = TrialRng::for_trial(3, len);
            let z = f32s(len, &mut rng);
            assert_eq!(z.len(), len);
            let mut twin = TrialRng::for_trial(3, len);
            for _ in 0..4 * LANES {
                twin.next_u64();
            }
            assert_eq!(rng.next_u64(), twin.next_u64(), "len {len}");
            // A prefix of a whole block is the block's cosines, then sines.
            if len > 0 && len < BLOCK {
                let full = f32s(BLOCK, &mut TrialRng::for_trial(3, len));
                let p = len.div_ceil(2);
                assert_eq!(z[..p], full[..p]);
                assert_eq!(z[p..], full[PAIRS..PAIRS + len - p]);
            }
            if len > BLOCK {
                let longer = f32s(len + BLOCK, &mut TrialRng::for_trial(3, len));
                let whole = len / BLOCK * BLOCK;
                assert_eq!(z[..whole], longer[..whole]);
            }
        }
        let h = f16s(BLOCK + 3, &mut TrialRng::for_trial(4, 0));
        let z = f32s(BLOCK + 3, &mut TrialRng::for_trial(4, 0));
        assert!(h.iter().zip(&z).all(|(h, &z)| *h == f16::from_f32(z)));
        let b = bf16s(BLOCK + 3, &mut TrialRng::for_trial(4, 0));
        assert!(b.iter().zip(&z).all(|(b, &z)| *b == bf16::from_f32(z)));
    }

    /// One million samples against N(0, 1): the mean within 5 standard
    /// errors (0.005), the variance within 5 standard errors (1 ± 0.0071),
    /// the Kolmogorov–Smirnov distance below 0.0025 (its 1% critical value
    /// at n = 10⁶ is 1.63/√n = 0.00163), and the tails: the 0.1% and 99.9%
    /// quantiles within 0.02 of ±3.0902.
    #[test]
    fn samples_are_standard_normal() {
        const N: usize = 1_000_000;
        let mut z: Vec<f64> = f32s(N, &mut TrialRng::for_trial(11, 0))
            .into_iter()
            .map(f64::from)
            .collect();
        let n = N as f64;
        let mean = z.iter().sum::<f64>() / n;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!(mean.abs() < 0.005, "mean {mean}");
        assert!((var - 1.0).abs() < 0.0071, "variance {var}");
        z.sort_by(f64::total_cmp);
        let phi = |x: f64| 0.5 * erfc(-x / core::f64::consts::SQRT_2);
        let d = z
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = phi(x);
                (f - i as f64 / n).abs().max((i as f64 + 1.0) / n - f)
            })
            .fold(0.0, f64::max);
        let q = |p: f64| z[(p * n) as usize];
        println!(
            "{N} samples: mean {mean:.5}, variance {var:.5}, KS distance {d:.5}, \
             0.1% and 99.9% quantiles {:.4} and {:.4}, extremes {:.3} and {:.3}",
            q(0.001),
            q(0.999),
            z[0],
            z[N - 1]
        );
        assert!(d < 0.0025, "KS distance {d}");
        assert!(
            (q(0.001) + 3.0902).abs() < 0.02,
            "0.1% quantile {}",
            q(0.001)
        );
        assert!(
            (q(0.999) - 3.0902).abs() < 0.02,
            "99.9% quantile {}",
            q(0.999)
        );
        assert!(z[0] >= -6.67 && z[N - 1] <= 6.67);
    }

    /// `erfc` to about 1e-7 (Numerical Recipes' `erfcc`): enough for a KS
    /// distance checked to 2.5e-3.
    fn erfc(x: f64) -> f64 {
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let r = t
            * (-z * z - 1.265_512_23
                + t * (1.000_023_68
                    + t * (0.374_091_96
                        + t * (0.096_784_18
                            + t * (-0.186_288_06
                                + t * (0.278_868_07
                                    + t * (-1.135_203_98
                                        + t * (1.488_515_87
                                            + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
                .exp();
        if x >= 0.0 { r } else { 2.0 - r }
    }
}
