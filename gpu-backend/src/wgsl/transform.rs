//! [`SourceTransform`]: the freedoms Vulkan and WGSL leave a driver,
//! imitated on the WGSL before it is compiled, so that lavapipe (which
//! takes none of them) shows what a GPU driver that takes them does to a
//! kernel.

use std::borrow::Cow;
use std::fmt;

use super::sites::render;
use super::sites::{Wanted, sites};
use dual_delta_settings::gpu;

use super::strip::strip_round_trips;
use crate::env;
use crate::error::GpuError;

/// Which driver freedoms every shader (the kernels and the probe) is
/// compiled with, imitated on its WGSL: a set of the freedoms below, empty
/// by default (the source as written).
///
/// Each one rewrites only what the driver may change, choosing what a
/// driver taking the freedom could give, so that a kernel robust to the
/// freedom gives the same bits under it:
///
/// | name        | freedom | imitation |
/// |-------------|---------|-----------|
/// | `strip`     | NVIDIA's Vulkan driver removes conversion round trips | `f32(f16(v))` and `unpack2x16float(pack2x16float(..))` become their operand |
/// | `div-sqrt`  | Vulkan bounds `a / b` by 2.5 ulp and `sqrt` by `inverseSqrt`'s precision | every `f32` `a / b` and `sqrt(x)` moved by 1 to 3 ulps, up or down, chosen from the bits of the result |
/// | `nan-fold`  | naga emits no `SignedZeroInfNanPreserve`, so a driver may assume no NaN and no infinity | `v != v` is `false`, `v == v` `true`, and a comparison with an infinite constant is decided as for a finite `v` |
/// | `contract`  | SPIR-V lets a driver fuse `a * b + c` | every `f32` (scalar or vector) `a * b ± c`, the product written inline or bound by `let`, is fused: computed exactly and rounded once, lane by lane (WGSL's `fma` is not fused on lavapipe, so the fused result is computed with integer operations on the bits); every explicit `f32` `fma(a, b, c)`, which WGSL lets a driver compute fused or as `a * b + c`, gives `a * b + c` where the product is exact (both choices then agree) and NaN where it may not be |
/// | `f16-store` | Vulkan leaves the rounding of `f32` → `f16` conversions open | every `f16(v)` and `pack2x16float(v)` rounds toward zero |
/// | `ftz32`     | Vulkan lets a driver flush `f32` subnormals (the H100 does) | every `f32` `+`, `-`, `*`, `/` flushes subnormal operands and results to zero of their sign |
/// | `ftz16`     | the same for `f16` | every conversion between `f32` and `f16` (`f16(v)`, `f32(h)`, `pack2x16float`, `unpack2x16float`) flushes values below `2⁻¹⁴` to zero of their sign |
/// | `fold-identities` | with no `SignedZeroInfNanPreserve`, Mesa's inexact rewrites apply | `x + 0.0`, `0.0 + x` and `x - 0.0` become `x`, and `x * 0.0`, `0.0 * x` become `0.0` (for `f32` literals) |
/// | `nan-times-zero` | the same, at run time | every `f32` `a * b` is a zero (of the product's sign) where `a` or `b` is zero, even if the other is NaN or infinite |
/// | `reassoc`   | WGSL lets a driver reassociate `f32` additions and multiplications (Metal's fast math does) | within an expression, `(a * b) * c` becomes `a * (b * c)`, `(a + b) + c` becomes `a + (b + c)` and `(a - b) - c` becomes `a - (b + c)`; a call of a function returning `x * k` on a product `a * b` is inlined as `a * (b * k)` (so a multiplication by a uniform 1 no longer keeps a product from being fused with the addition around it) |
///
/// `all` is every one of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourceTransform(u16);

impl SourceTransform {
    /// The source as written.
    pub const AS_WRITTEN: Self = Self(0);
    /// Conversion round trips removed.
    pub const STRIP_ROUND_TRIPS: Self = Self(1);
    /// `f32` division and square root off by 1 to 3 ulps.
    pub const DIV_SQRT: Self = Self(2);
    /// Comparisons that assume no NaN and no infinity folded.
    pub const NAN_FOLD: Self = Self(4);
    /// `a * b + c` contracted into `fma(a, b, c)`.
    pub const CONTRACT: Self = Self(8);
    /// `f32` → `f16` conversions rounded toward zero.
    pub const F16_STORE: Self = Self(16);
    /// `f32` subnormals flushed to zero.
    pub const FTZ32: Self = Self(32);
    /// `f16` subnormals flushed to zero in conversions.
    pub const FTZ16: Self = Self(64);
    /// `x + 0.0` folded to `x`, `x * 0.0` to `0.0`.
    pub const FOLD_IDENTITIES: Self = Self(128);
    /// `a * b` zero wherever `a` or `b` is, NaN and infinity included.
    pub const NAN_TIMES_ZERO: Self = Self(256);
    /// Additions and multiplications reassociated.
    pub const REASSOC: Self = Self(512);
    /// Every freedom.
    pub const ALL: Self = Self(1023);

    /// Each freedom on its own, with its name.
    pub const EACH: [(&'static str, Self); 10] = [
        ("strip", Self::STRIP_ROUND_TRIPS),
        ("div-sqrt", Self::DIV_SQRT),
        ("nan-fold", Self::NAN_FOLD),
        ("contract", Self::CONTRACT),
        ("f16-store", Self::F16_STORE),
        ("ftz32", Self::FTZ32),
        ("ftz16", Self::FTZ16),
        ("fold-identities", Self::FOLD_IDENTITIES),
        ("nan-times-zero", Self::NAN_TIMES_ZERO),
        ("reassoc", Self::REASSOC),
    ];

    /// Both sets' freedoms.
    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Whether every freedom of `other` is in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no freedom is taken.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Parses a `DUAL_DELTA_GPU_IMITATE` value: names from
    /// [`SourceTransform::EACH`] or `all`, separated by commas (empty or
    /// `none`: no freedom).
    pub fn parse(value: &str) -> Result<Self, GpuError> {
        let names = env::parse(&gpu::GPU_IMITATE, value)?;
        let each = names.iter().flat_map(|v| v.list()).map(|&name| match name {
            "none" => Self::AS_WRITTEN,
            "all" => Self::ALL,
            _ => Self::EACH
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, t)| t)
                .expect("the table's freedoms are those of `EACH`"),
        });
        Ok(each.fold(Self::AS_WRITTEN, Self::union))
    }

    /// `source` with the freedoms of `self` taken.
    ///
    /// In passes, each on the source the one before wrote: identities
    /// folded first (at compile time, as a compiler does), then
    /// reassociation (so that what it exposes can be contracted), then the
    /// freedoms of the first five table rows, then the flushes (of whatever
    /// arithmetic is left written as such), then `NaN · 0`. The helpers the
    /// rewritten source calls (`imitated_*`) are never rewritten.
    ///
    /// # Panics
    ///
    /// When a freedom other than `strip` is asked for and naga cannot
    /// parse or validate `source` (the kernels of this crate always can).
    pub fn apply(self, source: &str) -> Cow<'_, str> {
        let mut s = Cow::Borrowed(source);
        if self.contains(Self::STRIP_ROUND_TRIPS) {
            s = Cow::Owned(strip_round_trips(&s));
        }
        let passes = [
            Wanted {
                fold_identities: self.contains(Self::FOLD_IDENTITIES),
                ..Wanted::default()
            },
            Wanted {
                reassoc: self.contains(Self::REASSOC),
                ..Wanted::default()
            },
            Wanted {
                div_sqrt: self.contains(Self::DIV_SQRT),
                nan_fold: self.contains(Self::NAN_FOLD),
                contract: self.contains(Self::CONTRACT),
                f16_store: self.contains(Self::F16_STORE),
                ..Wanted::default()
            },
            Wanted {
                ftz32: self.contains(Self::FTZ32),
                ftz16: self.contains(Self::FTZ16),
                ..Wanted::default()
            },
            // After the flushes, which keep every product a product (of
            // flushed operands, flushed in turn).
            Wanted {
                nan_times_zero: self.contains(Self::NAN_TIMES_ZERO),
                ..Wanted::default()
            },
        ];
        for wanted in passes.into_iter().filter(Wanted::any) {
            let edits = sites(&s, wanted);
            if edits.is_empty() {
                continue;
            }
            let mut out = render(&s, &edits);
            let called = |out: &str, name: &str| {
                out.contains(&format!("{name}(")) && !out.contains(&format!("fn {name}("))
            };
            for (scalar, suffix, arity, widths) in LANEWISE {
                for &n in widths {
                    let name = format!("{scalar}{suffix}{n}");
                    if called(&out, &name) {
                        out.push_str(&lanewise(&name, scalar, arity, n));
                    }
                }
            }
            for (name, helper) in HELPERS {
                if called(&out, name) {
                    out.push_str(helper);
                }
            }
            s = Cow::Owned(out);
        }
        s
    }
}

impl fmt::Display for SourceTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = Self::EACH
            .iter()
            .filter(|&&(_, t)| self.contains(t))
            .map(|&(n, _)| n)
            .collect();
        f.write_str(&names.join(","))
    }
}

/// The lane-by-lane forms of the scalar helpers below, each added where it
/// is called, before them: `{scalar}{suffix}{n}` takes `arity` arguments of
/// `vecn<f32>` and applies `scalar` to each lane.
const LANEWISE: [(&str, &str, usize, &[usize]); 4] = [
    ("imitated_fma_exact", "", 3, &[2, 3, 4]),
    ("imitated_fma", "", 3, &[2, 3, 4]),
    ("imitated_ftz16", "x", 1, &[2]),
    ("imitated_rz16", "x", 1, &[2]),
];

/// The WGSL of `name`, which applies `scalar` (of `arity` `f32`
/// arguments) to each of the `n` lanes of its `vecn<f32>` arguments.
fn lanewise(name: &str, scalar: &str, arity: usize, n: usize) -> String {
    let ty = format!("vec{n}<f32>");
    let args = &["a", "b", "c"][..arity];
    let params: Vec<String> = args.iter().map(|a| format!("{a}: {ty}")).collect();
    let lanes: Vec<String> = ["x", "y", "z", "w"][..n]
        .iter()
        .map(|lane| {
            let operands: Vec<String> = args.iter().map(|a| format!("{a}.{lane}")).collect();
            format!("{scalar}({})", operands.join(", "))
        })
        .collect();
    format!(
        "fn {name}({}) -> {ty} {{ return {ty}({}); }}\n",
        params.join(", "),
        lanes.join(", ")
    )
}

/// The functions the rewritten sources call, each added where it is
/// called (after the rewriting, so never rewritten itself); each after
/// those that call it.
const HELPERS: [(&str, &str); 9] = [
    ("imitated_fma_exact", IMITATED_FMA_EXACT),
    ("imitated_fma", IMITATED_FMA),
    (
        "imitated_mul0",
        "fn imitated_mul0(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a); let ub = bitcast<u32>(b);
    let zero = (ua & 0x7fffffffu) == 0u || (ub & 0x7fffffffu) == 0u;
    return select(a * b, bitcast<f32>((ua ^ ub) & 0x80000000u), zero);
}
",
    ),
    (
        "imitated_ftz16",
        "fn imitated_ftz16(v: f32) -> f32 {
    let u = bitcast<u32>(v);
    return select(v, bitcast<f32>(u & 0x80000000u), (u & 0x7fffffffu) < 0x38800000u);
}
",
    ),
    (
        "imitated_ftz",
        "fn imitated_ftz(v: f32) -> f32 {
    let u = bitcast<u32>(v);
    return select(v, bitcast<f32>(u & 0x80000000u), (u & 0x7f800000u) == 0u);
}
",
    ),
    (
        "imitated_div",
        "fn imitated_div(a: f32, b: f32) -> f32 { return imitated_ulps(a / b); }\n",
    ),
    (
        "imitated_sqrt",
        "fn imitated_sqrt(x: f32) -> f32 { return imitated_ulps(sqrt(x)); }\n",
    ),
    // Called by the ones above.
    ("imitated_ulps", IMITATED_ULPS),
    ("imitated_rz16", IMITATED_RZ16),
];

/// `q` moved by 1, 2 or 3 ulps, up or down, as a hash of its bits says;
/// zero, subnormal, infinite and NaN results, and those next to them,
/// unchanged (so the result stays normal and finite).
const IMITATED_ULPS: &str = "
fn imitated_ulps(q: f32) -> f32 {
    let u = bitcast<u32>(q);
    let e = (u >> 23u) & 0xffu;
    if (e < 2u || e > 252u) { return q; }
    let h = (u ^ (u >> 11u)) * 0x9e3779b1u;
    let k = 1u + (h >> 28u) % 3u;
    return bitcast<f32>(select(u - k, u + k, (h & 0x8000u) != 0u));
}
";

/// `a * b + c` rounded once, as a fused multiply-add gives it, with
/// integer operations on the bits (lavapipe's compiler simplifies the
/// floating-point error-free transformations away): the 48-bit product of
/// the significands and `c`'s significand, aligned in 64 bits (what is
/// shifted out kept as a sticky bit), added or subtracted, and rounded to
/// nearest even once. Where an operand is zero, subnormal, infinite or NaN,
/// or the product or the result would not be a normal number, the unfused
/// `a * b + c` (what a driver that does not contract gives).
const IMITATED_FMA: &str = "
fn imitated_mul64(x: u32, y: u32) -> vec2<u32> {
    let xl = x & 0xffffu; let xh = x >> 16u; let yl = y & 0xffffu; let yh = y >> 16u;
    let ll = xl * yl; let lh = xl * yh; let hl = xh * yl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    return vec2<u32>((ll & 0xffffu) | (mid << 16u), xh * yh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}
// v >> s (64 bits as (low, high)), with any bit shifted out ORed into bit 0.
fn imitated_shr(v: vec2<u32>, s: u32) -> vec2<u32> {
    if (s == 0u) { return v; }
    if (s >= 64u) { return vec2<u32>(select(0u, 1u, (v.x | v.y) != 0u), 0u); }
    var r = vec2<u32>(0u, 0u);
    var lost = 0u;
    if (s >= 32u) {
        let t = s - 32u;
        r = vec2<u32>(v.y >> t, 0u);
        lost = v.x | (v.y & ((1u << t) - 1u));
    } else {
        r = vec2<u32>((v.x >> s) | (v.y << (32u - s)), v.y >> s);
        lost = v.x & ((1u << s) - 1u);
    }
    return vec2<u32>(r.x | select(0u, 1u, lost != 0u), r.y);
}
fn imitated_shl(v: vec2<u32>, s: u32) -> vec2<u32> {
    if (s == 0u) { return v; }
    if (s >= 32u) { return vec2<u32>(0u, v.x << (s - 32u)); }
    return vec2<u32>(v.x << s, (v.y << s) | (v.x >> (32u - s)));
}
fn imitated_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn imitated_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn imitated_fma(a: f32, b: f32, c: f32) -> f32 {
    let ua = bitcast<u32>(a); let ub = bitcast<u32>(b); let uc = bitcast<u32>(c);
    let ea = (ua >> 23u) & 0xffu; let eb = (ub >> 23u) & 0xffu; let ec = (uc >> 23u) & 0xffu;
    let ep = i32(ea) + i32(eb) - 127;
    if (ea == 0u || eb == 0u || ec == 0u || ea == 255u || eb == 255u || ec == 255u || ep < 3 || ep > 252) {
        return a * b + c;
    }
    // x: the product of the significands (48 bits) << 14, bit 0 worth
    // 2^lx; y: c's significand << 38, bit 0 worth 2^ly.
    var x = imitated_shl(imitated_mul64((ua & 0x7fffffu) | 0x800000u, (ub & 0x7fffffu) | 0x800000u), 14u);
    var y = vec2<u32>(0u, ((uc & 0x7fffffu) | 0x800000u) << 6u);
    let lx = i32(ea) + i32(eb) - 314;
    let ly = i32(ec) - 188;
    var l = lx;
    if (lx < ly) {
        x = imitated_shr(x, u32(min(ly - lx, 64)));
        l = ly;
    } else {
        y = imitated_shr(y, u32(min(lx - ly, 64)));
    }
    let neg_p = ((ua ^ ub) & 0x80000000u) != 0u;
    let neg_c = (uc & 0x80000000u) != 0u;
    var z = vec2<u32>(0u, 0u);
    var neg = neg_p;
    if (neg_p == neg_c) {
        z = imitated_add64(x, y);
    } else if (x.y > y.y || (x.y == y.y && x.x >= y.x)) {
        z = imitated_sub64(x, y);
    } else {
        z = imitated_sub64(y, x);
        neg = neg_c;
    }
    if ((z.x | z.y) == 0u) { return 0.0; }
    let n = 63u - select(countLeadingZeros(z.y), 32u + countLeadingZeros(z.x), z.y == 0u);
    // The 24 bits from the leading one, the next (round) bit, and a sticky
    // bit for everything below.
    var t = 0u;
    if (n >= 25u) { t = imitated_shr(z, n - 25u).x; } else { t = imitated_shl(z, 25u - n).x; }
    let sig = t >> 2u;
    let round_up = ((t >> 1u) & 1u) == 1u && ((t & 1u) == 1u || (sig & 1u) == 1u);
    var m = sig + select(0u, 1u, round_up);
    var e = i32(n) + l + 127;
    if (m == 0x1000000u) { m = 0x800000u; e = e + 1; }
    if (e < 1 || e > 254) { return a * b + c; }
    return bitcast<f32>(select(0u, 0x80000000u, neg) | (u32(e) << 23u) | (m & 0x7fffffu));
}
";

/// `fma(a, b, c)` where a fused and an unfused `fma` give the same bits:
/// `a * b` exact in `f32` (a zero, an infinite or NaN operand, or normal
/// operands whose significands' odd parts have 24 significant bits or fewer
/// together, with a normal product), where `a * b + c` rounds once; NaN
/// elsewhere, where a driver's choice could change the result. (A subnormal
/// operand counts as inexact: no kernel multiplies one in an `fma`.)
const IMITATED_FMA_EXACT: &str = "
fn imitated_fma_exact(a: f32, b: f32, c: f32) -> f32 {
    let ua = bitcast<u32>(a); let ub = bitcast<u32>(b);
    let ea = (ua >> 23u) & 0xffu; let eb = (ub >> 23u) & 0xffu;
    let zero = (ua & 0x7fffffffu) == 0u || (ub & 0x7fffffffu) == 0u;
    let special = ea == 255u || eb == 255u;
    let bits = 48u - countTrailingZeros(ua | 0x800000u) - countTrailingZeros(ub | 0x800000u);
    let ep = i32(ea) + i32(eb) - 127;
    let exact = ea != 0u && eb != 0u && bits <= 24u && ep >= 2 && ep <= 253;
    return select(bitcast<f32>(0x7fc00000u), a * b + c, zero || special || exact);
}
";

/// `v` rounded toward zero to `f16` precision (an `f16` value, as an
/// `f32`), so that the conversion after it is exact: beyond 65504, 65504;
/// below `2⁻¹⁴`, a multiple of `2⁻²⁴`; NaN and infinities unchanged.
const IMITATED_RZ16: &str = "
fn imitated_rz16(v: f32) -> f32 {
    let u = bitcast<u32>(v);
    let a = u & 0x7fffffffu;
    let sign = u & 0x80000000u;
    if (a >= 0x7f800000u) { return v; }
    if (a > 0x477fe000u) { return bitcast<f32>(sign | 0x477fe000u); }
    if (a < 0x38800000u) {
        let q = floor(bitcast<f32>(a) * 16777216.0) * 5.9604644775390625e-8;
        return bitcast<f32>(sign | bitcast<u32>(q));
    }
    return bitcast<f32>(u & 0xffffe000u);
}
";
