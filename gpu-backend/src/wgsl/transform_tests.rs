//! Each imitated freedom rewrites what it targets and nothing else, the
//! kernels stay valid WGSL under it, and a kernel written the old way
//! would give other bits under it (so no imitation is vacuous).

use super::tests::{every_kernel_source, run_kernel};
use super::text::split_binary;
use super::*;

const NAN_FOLD: SourceTransform = SourceTransform::NAN_FOLD;
const CONTRACT: SourceTransform = SourceTransform::CONTRACT;
const F16_STORE: SourceTransform = SourceTransform::F16_STORE;
const DIV_SQRT: SourceTransform = SourceTransform::DIV_SQRT;

/// `body` as the body of a function of `a`, `b` (`f32`) and `u` (`u32`),
/// with the definitions it may call.
pub(super) fn function(body: &str) -> String {
    format!(
        "fn one(x: f32) -> f32 {{ return x; }}
fn f(a: f32, b: f32, c: f32, u: u32) -> f32 {{
    {body}
}}"
    )
}

/// The body of `function(body)` after `t` (helpers left out).
pub(super) fn body_after(t: SourceTransform, body: &str) -> String {
    let src = function(body);
    let out = t.apply(&src);
    let start = out.find("fn f(").unwrap();
    let end = out[start..].find("\n}").unwrap() + start;
    out[start..end]
        .lines()
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

#[test]
fn operators_are_found_at_the_top_level() {
    fn split<'a>(t: &'a str, op: &str) -> Option<(&'a str, &'a str)> {
        split_binary(t, op).map(|(l, r)| (&t[l], &t[r]))
    }
    assert_eq!(split("a * b + c", "+"), Some(("a * b", "c")));
    assert_eq!(
        split("(x - y) - f(z) * w", "-"),
        Some(("(x - y)", "f(z) * w"))
    );
    assert_eq!(split("a * -b", "*"), Some(("a", "-b")));
    assert_eq!(
        split("bitcast<f32>(u) < b", "<"),
        Some(("bitcast<f32>(u)", "b"))
    );
    assert_eq!(split("a <= b", "<"), None);
    assert_eq!(split("(q * r)", "*"), Some(("q", "r")));
    assert_eq!(split("v - 1e-5", "-"), Some(("v", "1e-5")));
}

#[test]
fn nan_and_infinity_comparisons_are_folded() {
    let fold = |b: &str| body_after(NAN_FOLD, b);
    assert_eq!(
        fold("if (a != a) { return a; } return b;"),
        "if (false) { return a; } return b;"
    );
    assert_eq!(
        fold("return select(a, b, a == a);"),
        "return select(a, b, true);"
    );
    assert_eq!(
        fold("if (a != bitcast<f32>(0xff800000u)) { return a; } return b;"),
        "if (true) { return a; } return b;"
    );
    assert_eq!(
        fold("return select(a, b, a >= bitcast<f32>(0x7f800000u));"),
        "return select(a, b, false);"
    );
    // Comparisons of finite values and of bits stay.
    for kept in [
        "return select(a, b, a != b);",
        "return select(a, b, a < 1.5);",
        "return select(a, b, bitcast<u32>(a) != 0xff800000u);",
        "return select(a, b, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);",
    ] {
        assert_eq!(fold(kept), kept);
    }
}

#[test]
fn inexact_products_are_contracted_and_others_kept() {
    let contract = |b: &str| body_after(CONTRACT, b);
    assert_eq!(
        contract("return a * b + c;"),
        "return imitated_fma((a), (b), (c));"
    );
    assert_eq!(
        contract("return c - a * b;"),
        "return imitated_fma(-(a), (b), (c));"
    );
    assert_eq!(
        contract("return (a * b) - c;"),
        "return imitated_fma((a), (b), -(c));"
    );
    assert_eq!(
        contract("return c + a * (b + c * a);"),
        "return imitated_fma((a), ((imitated_fma((c), (a), (b)))), (c));"
    );
    for kept in [
        "return f32(u * 4u + 1u) + a;",
        "return one(a * b) + c;",
        "return a * b * c;",
        // An operand a later statement may change (a `var`) cannot be
        // named where the product is used.
        "var x = a; let p = x * b; x = c; return p + x;",
        // Behind a bit barrier.
        "let p = bitcast<f32>(bitcast<u32>(a * b) | u); return p + c;",
    ] {
        assert_eq!(contract(kept), kept);
    }
}

/// WGSL's explicit `fma` may be computed fused or as `a * b + c`: under
/// `contract` it gives `a * b + c` where the product is exact (both choices
/// agree) and NaN where it is not, scalar or vector; an `f16` one (no
/// kernel has one) is left alone.
#[test]
fn explicit_fma_is_checked_for_an_exact_product() {
    let contract = |b: &str| body_after(CONTRACT, b);
    assert_eq!(
        contract("return fma(a, b, c);"),
        "return imitated_fma_exact(a, b, c);"
    );
    assert_eq!(
        contract("return fma(a, b, fma(c, a * b, c));"),
        "return imitated_fma_exact(a, b, imitated_fma_exact(c, a * b, c));"
    );
    assert_eq!(
        contract("let v = fma(vec4<f32>(a), vec4<f32>(b), vec4<f32>(c)); return v.w;"),
        "let v = imitated_fma_exact4(vec4<f32>(a), vec4<f32>(b), vec4<f32>(c)); return v.w;"
    );
    let src = function("return fma(a, b, c);");
    let out = CONTRACT.apply(&src);
    assert!(out.contains("fn imitated_fma_exact("), "{out}");
    let f16_src = "enable f16;\nfn g(a: f16, b: f16, c: f16) -> f16 { return fma(a, b, c); }";
    assert_eq!(CONTRACT.apply(f16_src), f16_src);
    let x = 1.0f32 + 1.0 / 4096.0;
    let h = 1.0f32 + 1.0 / 1024.0;
    let big = 65504.0f32;
    let cases: [(f32, f32, f32); 9] = [
        // (1 + 2⁻¹²)² − 1 is 2⁻¹¹ + 2⁻²⁴ exactly: lavapipe's unfused fma
        // rounds the product first (to even) and loses the 2⁻²⁴.
        (x, x, -1.0),
        // Products of two f16 values (at most 22 significant bits), as in
        // the matmuls: exact, whatever their magnitudes.
        (h, -h, 3.0),
        (big, big, 1.0),
        (2f32.powi(-24), 2f32.powi(-24), 0.5),
        (f32::from_bits(0x3f7f_e000), 1.5, -0.25),
        // Zero, infinite and NaN operands.
        (0.0, f32::MAX, 1.0),
        (f32::INFINITY, 2.0, 1.0),
        // 24 + 2 significant bits: inexact.
        (f32::from_bits(0x3f80_0001), 1.5, 0.0),
        // A subnormal product.
        (2f32.powi(-70), 2f32.powi(-70), 0.0),
    ];
    let words: Vec<u32> = cases
        .iter()
        .flat_map(|&(a, b, c)| [a.to_bits(), b.to_bits(), c.to_bits()])
        .collect();
    let body = "out[i] = bitcast<u32>(fma(a, b, c));";
    let Some(as_written) = run_kernel(body, &words, SourceTransform::AS_WRITTEN, 1) else {
        return;
    };
    assert_eq!(
        f32::from_bits(as_written[0]),
        2f32.powi(-11),
        "lavapipe's fma is not fused"
    );
    let checked = run_kernel(body, &words, CONTRACT, 1).unwrap();
    for (i, &(a, b, c)) in cases.iter().enumerate() {
        let got = f32::from_bits(checked[i]);
        let inexact = matches!(i, 0 | 7 | 8);
        if inexact {
            assert!(got.is_nan(), "{a:e} {b:e} {c:e}: {got:e}");
        } else {
            assert_eq!(checked[i], as_written[i], "{a:e} {b:e} {c:e}");
            assert_eq!(
                got.to_bits(),
                a.mul_add(b, c).to_bits(),
                "{a:e} {b:e} {c:e}"
            );
        }
    }
}

/// RADV and ANV contract through `let` and lane by lane: so does the
/// imitation.
#[test]
fn products_bound_by_let_and_vector_products_are_contracted() {
    let contract = |b: &str| body_after(CONTRACT, b);
    assert_eq!(
        contract("let p = a * b; return c - p;"),
        "let p = a * b; return imitated_fma(-(a), (b), (c));"
    );
    assert_eq!(
        contract("let p = a * 3.0; let q = p + c; return q;"),
        "let p = a * 3.0; let q = imitated_fma((a), (3.0), (c)); return q;"
    );
    assert_eq!(
        contract("let v = vec2<f32>(a, b) * c + vec2<f32>(b, a); return v.x;"),
        "let v = imitated_fma2(vec2<f32>((vec2<f32>(a, b))), vec2<f32>((c)), \
         vec2<f32>((vec2<f32>(b, a)))); return v.x;"
    );
    let src = function("let v = vec3<f32>(a) * vec3<f32>(b) - vec3<f32>(c); return v.y;");
    let out = CONTRACT.apply(&src);
    assert!(
        out.contains("fn imitated_fma3(") && out.contains("fn imitated_fma("),
        "{out}"
    );
    let module = naga::front::wgsl::parse_str(&out).unwrap();
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
}

#[test]
fn conversions_to_f16_and_divisions_are_rewritten() {
    let src = "enable f16;
@group(0) @binding(0) var<storage, read_write> h: array<f16>;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;
fn st(i: u32, v: f32) { h[i] = f16(v); w[i] = pack2x16float(vec2<f32>(v, 0.0)); }
fn ld(i: u32) -> f32 { return f32(h[i]) + sqrt(f32(i)) / 3.0; }
fn idx(i: u32) -> u32 { return i / 3u; }";
    let out = F16_STORE.apply(src);
    assert!(out.contains("h[i] = f16(imitated_rz16(v));"), "{out}");
    assert!(
        out.contains("pack2x16float(imitated_rz16x2(vec2<f32>(v, 0.0)))"),
        "{out}"
    );
    assert!(
        out.contains("return f32(h[i]) + sqrt(f32(i)) / 3.0;"),
        "{out}"
    );
    let out = DIV_SQRT.apply(src);
    assert!(
        out.contains("imitated_div(imitated_sqrt(f32(i)), 3.0)"),
        "{out}"
    );
    assert!(out.contains("return i / 3u;"), "{out}");
}

/// Every kernel is valid WGSL under every freedom, and each freedom other
/// than `strip` (which finds no round trip to remove: see
/// `no_kernel_rounds_through_a_round_trip`) changes the kernels it targets.
#[test]
fn every_kernel_is_rewritten_and_stays_valid() {
    let sources = every_kernel_source();
    for (name, t) in SourceTransform::EACH
        .into_iter()
        .chain([("all", SourceTransform::ALL)])
    {
        let mut changed = 0;
        let mut reassociated = Vec::new();
        for source in &sources {
            let out = t.apply(source);
            if name == "reassoc" {
                let before: Vec<&str> = source.lines().collect();
                reassociated.extend(
                    out.lines()
                        .filter(|l| !before.contains(l))
                        .map(String::from),
                );
            }
            let module = naga::front::wgsl::parse_str(&out)
                .unwrap_or_else(|e| panic!("{name}: {}\n{out}", e.emit_to_string(&out)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {e:?}\n{out}"));
            changed += usize::from(out != *source);
        }
        match name {
            // No kernel rounds through a round trip, nor holds a
            // comparison a driver may fold: they test special values on
            // the bits.
            "strip" | "nan-fold" => assert_eq!(changed, 0, "{name}"),
            // Nor an identity with a zero a compiler sees: every `+ 0` and
            // `* 1` they need goes through a uniform.
            "fold-identities" => assert_eq!(changed, 0, "{name}"),
            // Every kernel reads f16 or bf16 values and computes in f32.
            "ftz32" | "nan-times-zero" => assert!(changed > 20, "{name}: {changed}"),
            // Not the sums, nor the LayerNorms whose every product is
            // `unfused`; the `f16` matmuls' explicit `fma` is checked for
            // an exact product (of two `f16` values: it always is).
            "contract" => assert!(changed > 20, "{name}: {changed}"),
            "div-sqrt" => assert!(changed > 0, "{name}"),
            // Every order a kernel's bits depend on is pinned by a bit
            // barrier, and its other sums and products are written one
            // operation to a statement: nothing left to reassociate.
            "reassoc" => assert!(
                reassociated.is_empty(),
                "{name}: {changed} kernels, {reassociated:#?}"
            ),
            // Every kernel that stores f16 (the bf16 and FP8 ones store
            // bits).
            "f16-store" => {
                let storing = sources.iter().filter(|s| s.contains("fn st(")).count();
                assert!(storing >= 50 && changed == storing, "{name}: {changed}");
            }
            _ => assert!(changed >= 50, "{name}: {changed}"),
        }
    }
    // The kernels with `div_rn` (every row, norm and attention kernel) are
    // all reached by the division freedom.
    let with_div = sources.iter().filter(|s| s.contains("fn div_rn(")).count();
    let div_changed = sources
        .iter()
        .filter(|s| DIV_SQRT.apply(s).contains("imitated_div("))
        .count();
    assert_eq!(div_changed, with_div);
}

/// The old ways of the kernels give other bits under the freedoms, and the
/// new ways the same bits: a NaN test written `v != v` (the `exp`), a
/// product added as it is (`mu * mu` in the one-pass LayerNorm), a store
/// that leaves the rounding to the conversion. (lavapipe itself folds
/// `v != v` to false: the old NaN test never held there either.)
#[test]
fn the_old_ways_would_differ_under_the_freedoms() {
    let nan = [f32::NAN.to_bits(), 0, 0];
    let old = "out[i] = select(0u, 1u, a != a);";
    let new = "out[i] = select(0u, 1u, (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u);";
    let run = |body: &str, t| run_kernel(body, &nan, t, 1).map(|v| v[0]);
    let Some(new_as_written) = run(new, SourceTransform::AS_WRITTEN) else {
        return;
    };
    assert_eq!(new_as_written, 1);
    assert_eq!(run(new, NAN_FOLD), Some(1));
    assert_eq!(run(old, NAN_FOLD), Some(0));

    // E[x²] − E[x]² on 1000 ± 1: c = E[x²], a = mu, b = 0 (a zero the
    // compiler cannot see, for `unfused`'s bit barrier).
    let mu = 1000.3711f32;
    let words = [mu.to_bits(), 0, (mu * mu + 0.75).to_bits()];
    let old = "out[i] = bitcast<u32>(c - a * a);";
    let new = "out[i] = bitcast<u32>(c - bitcast<f32>(bitcast<u32>(a * a) | bitcast<u32>(b)));";
    let run = |body: &str, t| run_kernel(body, &words, t, 1).unwrap()[0];
    assert_ne!(run(old, CONTRACT), run(old, SourceTransform::AS_WRITTEN));
    assert_eq!(run(new, CONTRACT), run(new, SourceTransform::AS_WRITTEN));
    // The same through a `let`, and lane by lane.
    let old = "let p = a * a; out[i] = bitcast<u32>(c - p);";
    assert_ne!(run(old, CONTRACT), run(old, SourceTransform::AS_WRITTEN));
    let old = "let v = vec2<f32>(c) - vec2<f32>(a) * a; out[i] = bitcast<u32>(v.y);";
    assert_ne!(run(old, CONTRACT), run(old, SourceTransform::AS_WRITTEN));

    // 1 + 3·2⁻¹², between two f16 values, nearer the upper one.
    let v = 1.0f32 + 3.0 / 4096.0;
    let words = [v.to_bits(), 0, 0];
    let run = |body: &str, t| run_kernel(body, &words, t, 1).unwrap()[0];
    let old = "out[i] = pack2x16float(vec2<f32>(a, 0.0));";
    let new = "out[i] = pack2x16float(vec2<f32>(round16(a), 0.0));";
    assert_ne!(run(old, F16_STORE), run(old, SourceTransform::AS_WRITTEN));
    assert_eq!(run(new, F16_STORE), run(new, SourceTransform::AS_WRITTEN));
}

/// `DUAL_DELTA_GPU_IMITATE`'s row of the settings table names every
/// freedom, `none` and `all`.
#[test]
fn the_table_names_every_freedom() {
    let dual_delta_settings::Kind::List(names) = dual_delta_settings::gpu::GPU_IMITATE.kind else {
        panic!("DUAL_DELTA_GPU_IMITATE takes a list");
    };
    let names: Vec<&str> = names.iter().map(|&(n, _)| n).collect();
    let mut want = vec!["none", "all"];
    want.extend(SourceTransform::EACH.map(|(n, _)| n));
    assert_eq!(names, want);
}
