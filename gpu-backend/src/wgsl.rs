//! WGSL shared by every kernel family: rounding to `f16` and `bf16` on the
//! bits, and
//! the source transformation that removes conversion round trips as some
//! drivers do.
//!
//! Invariant of every generated kernel: no rounding is written as a
//! conversion round trip (`f32(f16(v))`, or
//! `unpack2x16float(pack2x16float(..))`): NVIDIA's Vulkan driver removes
//! both (measured on an H100), while it keeps genuine `f16` arithmetic and
//! stores. A kernel rounds an `f32` to `f16` with [`ROUND16`], integer
//! operations on the bits that no driver may change; conversions remain
//! only where a value is stored to or loaded from `f16` memory.

use std::borrow::Cow;

/// `round16(v)`: the `f16` nearest to `v` (ties to even; beyond 65504
/// infinity; `f16` subnormals as multiples of `2⁻²⁴`; NaN and infinities
/// unchanged), as an `f32`: what `f32(f16(v))` gives on a device that
/// keeps the round trip, computed with integer operations on the bits (and
/// one exact multiplication by `2⁻²⁴`). llvmpipe also runs it faster than
/// its own conversion (a longer software sequence): the `f16`-accumulating
/// matmul takes 26 ms at `128×4096×128` instead of 39 ms (AVX2 path).
pub(crate) const ROUND16: &str = "fn round16(v: f32) -> f32 {
    let u = bitcast<u32>(v);
    let a = u & 0x7fffffffu;
    // Normal f16 results: drop 13 fraction bits, ties to even (a carry into
    // the exponent is the right result); past 65504, infinity.
    let rn = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
    let normal = select(rn, 0x7f800000u, rn > 0x477fe000u);
    // Subnormal f16 results (below 2^-14): multiples of 2^-24, ties to even.
    let e = a >> 23u;
    let d = min(126u - min(e, 112u), 25u);
    let m = (a & 0x7fffffu) | 0x800000u;
    let q = (m + (1u << (d - 1u)) - 1u + ((m >> d) & 1u)) >> d;
    let sub = bitcast<u32>(f32(q) * 5.9604644775390625e-8);
    let r = select(normal, sub, e < 113u) | (u & 0x80000000u);
    return select(bitcast<f32>(r), v, a >= 0x7f800000u);
}
";

/// `rbf(v)`: the `bf16` nearest to `v` (ties to even; NaN stays a quiet
/// NaN), as its 16 bits, and `roundbf16(v)`: that value as an `f32`. Both
/// are integer operations on the bits.
pub(crate) const ROUND_BF16: &str = "fn rbf(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    if ((x & 0x7fffffffu) > 0x7f800000u) { return (x >> 16u) | 0x40u; }
    var r = x >> 16u;
    if ((x & 0x8000u) != 0u && (x & 0x17fffu) != 0u) { r = r + 1u; }
    return r;
}
fn roundbf16(v: f32) -> f32 { return bitcast<f32>(rbf(v) << 16u); }
";

/// How the WGSL of every kernel (and the probe) is compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum SourceTransform {
    /// As generated.
    #[default]
    AsWritten,
    /// With every conversion round trip replaced by its operand
    /// ([`strip_round_trips`]), as NVIDIA's Vulkan driver compiles them.
    StripRoundTrips,
}

impl SourceTransform {
    /// `source` transformed.
    pub(crate) fn apply(self, source: &str) -> Cow<'_, str> {
        match self {
            SourceTransform::AsWritten => Cow::Borrowed(source),
            SourceTransform::StripRoundTrips => Cow::Owned(strip_round_trips(source)),
        }
    }
}

/// The index just past the parenthesis that closes the one opened just
/// before `from`, or `None` when it is never closed.
fn closing(s: &str, from: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (i, ch) in s[from..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first top-level argument of the argument list `args` (without its
/// parentheses).
fn first_argument(args: &str) -> &str {
    let mut depth = 0usize;
    for (i, ch) in args.char_indices() {
        match ch {
            '(' | '<' => depth += 1,
            ')' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return &args[..i],
            _ => {}
        }
    }
    args
}

/// `source` with every conversion round trip replaced by its operand, as
/// NVIDIA's Vulkan driver compiles them: `f32(f16(x))` becomes `(x)`,
/// `unpack2x16float(pack2x16float(vec2<f32>(x, y))).x` becomes `(x)`, and
/// `unpack2x16float(pack2x16float(v))` becomes `(v)`. Nested round trips
/// are removed too.
pub(crate) fn strip_round_trips(source: &str) -> String {
    const F16: &str = "f32(f16(";
    const PACKED: &str = "unpack2x16float(pack2x16float(";
    const VEC2: &str = "vec2<f32>(";
    let mut s = source.to_owned();
    // Everything before `from` has been looked at.
    let mut from = 0;
    loop {
        let found = [F16, PACKED]
            .into_iter()
            .filter_map(|pat| s[from..].find(pat).map(|at| (from + at, pat)))
            .min();
        let Some((at, pat)) = found else { return s };
        let inner = at + pat.len();
        let ends = closing(&s, inner).and_then(|i| Some((i, closing(&s, i)?)));
        let Some((inner_end, outer_end)) = ends.filter(|&(i, o)| o == i + 1) else {
            // `f32(f16(x) + y)` and the like: not a round trip.
            from = at + 1;
            continue;
        };
        let arg = &s[inner..inner_end - 1];
        let (operand, end) = match (pat, arg.strip_prefix(VEC2)) {
            (PACKED, Some(rest)) if s[outer_end..].starts_with(".x") => {
                (first_argument(rest).to_owned(), outer_end + 2)
            }
            _ => (arg.to_owned(), outer_end),
        };
        // The operand may hold round trips itself: look at it again.
        s.replace_range(at..end, &format!("({operand})"));
        from = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_are_replaced_by_their_operands() {
        assert_eq!(strip_round_trips("r = f32(f16(a + b));"), "r = (a + b);");
        assert_eq!(
            strip_round_trips(
                "return unpack2x16float(pack2x16float(vec2<f32>(min(v, w), 0.0))).x;"
            ),
            "return (min(v, w));"
        );
        assert_eq!(
            strip_round_trips("let p = unpack2x16float(pack2x16float(q));"),
            "let p = (q);"
        );
        assert_eq!(
            strip_round_trips("f32(f16(f32(f16(x)) * 2.0))"),
            "((x) * 2.0)"
        );
        assert_eq!(
            strip_round_trips("f32(f16(a) + h) + f32(f16(b))"),
            "f32(f16(a) + h) + (b)"
        );
        // Conversions that are not round trips stay.
        for kept in [
            "out[i] = f16(v);",
            "let x = f32(h);",
            "let y = f32(f16(a) + h);",
            "let y = f32(f16(a) + h) + f32(f16(b) * h);",
            "out[i] = pack2x16float(vec2<f32>(v, 0.0));",
            "let z = unpack2x16float(w).x;",
        ] {
            assert_eq!(strip_round_trips(kept), kept);
        }
    }

    /// Every kernel's source, on every path: what the invariant of this
    /// module is checked on.
    fn every_kernel_source() -> Vec<String> {
        use crate::lowp::shader::{self as lowp, LowpKernel};
        use crate::rows::shader::{self as rows, RowKernel};
        use crate::shader::{self as matmul, Kernel, Tiling};
        use crate::{AttentionVariant, Bf16Accumulation, LayerNormVariant, ReduceStrategy};
        use crate::{SoftmaxVariant, attention, norm};
        let mut v = Vec::new();
        for native in [true, false] {
            for kernel in [Kernel::TileF32, Kernel::TileF16, Kernel::ReduceSplits] {
                for tiling in [Tiling::Lanes, Tiling::Subgroup] {
                    v.push(matmul::source(kernel, native, tiling));
                }
            }
            let row_kernels = ReduceStrategy::ALL
                .map(RowKernel::Sum)
                .into_iter()
                .chain(SoftmaxVariant::ALL.map(RowKernel::Softmax));
            v.extend(row_kernels.map(|k| rows::source(k, native)));
            v.extend(LayerNormVariant::ALL.map(|k| norm::source(k, native)));
            v.extend(AttentionVariant::ALL.map(|k| attention::source(k, 5, 3, native)));
        }
        let lowp_kernels = Bf16Accumulation::ALL
            .map(LowpKernel::Bf16)
            .into_iter()
            .chain([
                LowpKernel::Fp8F32,
                LowpKernel::Fp8Limited,
                LowpKernel::Bf16Round,
            ]);
        v.extend(lowp_kernels.map(lowp::source));
        v
    }

    #[test]
    fn no_kernel_rounds_through_a_round_trip() {
        let sources = every_kernel_source();
        assert!(sources.len() > 40);
        for source in sources {
            assert_eq!(strip_round_trips(&source), source);
            assert!(!source.contains("f32(f16("), "{source}");
            assert!(
                !source.contains("unpack2x16float(pack2x16float("),
                "{source}"
            );
        }
    }

    #[test]
    fn the_transform_applies_only_when_asked() {
        let src = "acc = f32(f16(acc + one));";
        assert_eq!(SourceTransform::AsWritten.apply(src), src);
        assert_eq!(
            SourceTransform::StripRoundTrips.apply(src),
            "acc = (acc + one);"
        );
    }
}
