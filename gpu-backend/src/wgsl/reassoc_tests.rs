//! `reassoc`: what it rewrites and what it leaves, and on the device the
//! bits a driver that reassociates gives, which a bit barrier keeps.

use super::tests::run_kernel;
use super::transform_tests::body_after;
use super::*;

const REASSOC: SourceTransform = SourceTransform::REASSOC;

#[test]
fn reassoc_parses_by_name_and_all_holds_it() {
    assert_eq!(SourceTransform::parse("reassoc").unwrap(), REASSOC);
    assert_eq!(REASSOC.to_string(), "reassoc");
    assert!(SourceTransform::ALL.contains(REASSOC));
    let e = SourceTransform::parse("fast-math").unwrap_err().to_string();
    assert!(e.contains("`reassoc`"), "{e}");
}

#[test]
fn inline_products_and_sums_are_reassociated_and_others_kept() {
    let re = |b: &str| body_after(REASSOC, b);
    assert_eq!(re("return a * b * c;"), "return ((a) * ((b) * (c)));");
    assert_eq!(re("return (a + b) + c;"), "return ((a) + ((b) + (c)));");
    assert_eq!(re("return a - b - c;"), "return ((a) - ((b) + (c)));");
    for kept in [
        // A value bound by `let` is rounded already.
        "let t = a * b; return t * c;",
        "return a * (b * c);",
        "return a + b * c;",
        "return (a + b) - c;",
        // Through a bit barrier.
        "return bitcast<f32>(bitcast<u32>(a * b) | u) * c;",
        "return bitcast<f32>(bitcast<u32>(a + b) | u) + c;",
        // Integers.
        "return f32((u + 1u) + u);",
    ] {
        assert_eq!(re(kept), kept);
    }
}

/// A function returning `x * k` (as `unfused` was: `k` a uniform 1) is
/// inlined and reassociated, so that a contracting driver may fuse the
/// product with the addition around it; one behind a bit barrier is not.
#[test]
fn a_multiplication_by_a_uniform_one_is_seen_through() {
    let source = "@group(0) @binding(0) var<uniform> z: u32;
fn times_one(x: f32) -> f32 { return x * bitcast<f32>(0x3f800000u | z); }
fn pinned(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) | z); }
fn f(a: f32, b: f32, c: f32) -> f32 { return times_one(a * b) + c; }
fn g(a: f32, b: f32, c: f32) -> f32 { return pinned(a * b) + c; }";
    let out = REASSOC.apply(source);
    assert!(
        out.contains("return ((a) * ((b) * (bitcast<f32>(0x3f800000u | z)))) + c;"),
        "{out}"
    );
    assert!(out.contains("return pinned(a * b) + c;"), "{out}");
    let both = REASSOC.union(SourceTransform::CONTRACT).apply(source);
    assert!(
        both.contains(
            "return imitated_fma(((a)), (((b) * (bitcast<f32>(0x3f800000u | z)))), (c));"
        ),
        "{both}"
    );
    assert!(both.contains("return pinned(a * b) + c;"), "{both}");
}

/// Cody–Waite's `(x − k·hi) − k·lo` reassociated is `x − (k·hi + k·lo)`:
/// other bits, which a bit barrier around the first difference keeps as
/// written (`c` is a zero the compiler cannot see).
#[test]
fn a_bit_barrier_keeps_the_order_written() {
    // 1 − 2⁻²⁵ rounds to 1 (a tie, to even), and 1 − 2⁻²⁵ again to 1;
    // reassociated, 1 − 2⁻²⁴ is exact.
    let t = 2f32.powi(-25);
    let words = [1f32.to_bits(), t.to_bits(), 0];
    let run = |body: &str, tr| run_kernel(body, &words, tr, 1).map(|v| f32::from_bits(v[0]));
    let old = "out[i] = bitcast<u32>((a - b) - b);";
    let new = "out[i] = bitcast<u32>(bitcast<f32>(bitcast<u32>(a - b) | bitcast<u32>(c)) - b);";
    let Some(written) = run(old, SourceTransform::AS_WRITTEN) else {
        return;
    };
    assert_eq!(written, 1.0);
    assert_eq!(run(old, REASSOC), Some(1.0 - 2.0 * t));
    assert_eq!(run(new, REASSOC), Some(1.0));
}

/// `unfused` the old way, a product times a uniform 1, is fused once
/// reassociated and contracted (`c − (a·a)·1` becomes `fma(−a, a·1, c)`):
/// on `E[x²] − E[x]²` at 1000 ± 1, other bits; the bit barrier keeps the
/// product rounded on its own (`b` is a zero the compiler cannot see).
#[test]
fn a_product_times_a_uniform_one_is_fused_once_reassociated() {
    let mu = 1000.3711f32;
    let words = [mu.to_bits(), 0, (mu * mu + 0.75).to_bits()];
    let both = REASSOC.union(SourceTransform::CONTRACT);
    let run = |body: &str, t| run_kernel(body, &words, t, 1).map(|v| v[0]);
    let old = "out[i] = bitcast<u32>(c - a * a * bitcast<f32>(0x3f800000u | bitcast<u32>(b)));";
    let new = "out[i] = bitcast<u32>(c - bitcast<f32>(bitcast<u32>(a * a) | bitcast<u32>(b)));";
    let Some(written) = run(old, SourceTransform::AS_WRITTEN) else {
        return;
    };
    assert_eq!(run(old, SourceTransform::CONTRACT), Some(written));
    assert_ne!(run(old, both), Some(written));
    assert_eq!(run(new, both), Some(written));
    assert_eq!(run(new, SourceTransform::AS_WRITTEN), Some(written));
}
