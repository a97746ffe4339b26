//! The looser arithmetic imitated (`ftz32`, `ftz16`, `fold-identities`,
//! `nan-times-zero`): each rewrites what it targets and nothing else, and
//! on the device gives what a driver taking the freedom gives.

use super::tests::run_kernel;
use super::transform_tests::body_after;
use super::*;

const FTZ32: SourceTransform = SourceTransform::FTZ32;
const FTZ16: SourceTransform = SourceTransform::FTZ16;
const FOLD: SourceTransform = SourceTransform::FOLD_IDENTITIES;
const NAN0: SourceTransform = SourceTransform::NAN_TIMES_ZERO;

#[test]
fn the_new_freedoms_parse_by_name_and_all_holds_them() {
    for (name, t) in [
        ("ftz32", FTZ32),
        ("ftz16", FTZ16),
        ("fold-identities", FOLD),
        ("nan-times-zero", NAN0),
    ] {
        assert_eq!(SourceTransform::parse(name).unwrap(), t);
        assert_eq!(t.to_string(), name);
        assert!(SourceTransform::ALL.contains(t));
    }
    let all: Vec<&str> = SourceTransform::EACH.iter().map(|&(n, _)| n).collect();
    assert_eq!(SourceTransform::ALL.to_string(), all.join(","));
    let e = SourceTransform::parse("ftz").unwrap_err().to_string();
    assert!(e.contains("`nan-times-zero`"), "{e}");
}

#[test]
fn identities_are_folded_and_others_kept() {
    let fold = |b: &str| body_after(FOLD, b);
    assert_eq!(fold("return a + 0.0;"), "return (a);");
    assert_eq!(fold("return 0.0 + a * b;"), "return (a * b);");
    assert_eq!(fold("return (a - 0.0) * c;"), "return ((a)) * c;");
    assert_eq!(fold("return a * 0.0 + c;"), "return 0.0 + c;");
    for kept in [
        "return a + b;",
        "return 0.0 - a;",
        "return a * bitcast<f32>(0x3f800000u | u);",
        "return a + f32(u);",
    ] {
        assert_eq!(fold(kept), kept);
    }
}

#[test]
fn products_become_zero_where_a_factor_is() {
    let nan0 = |b: &str| body_after(NAN0, b);
    assert_eq!(nan0("return a * b;"), "return imitated_mul0(a, b);");
    assert_eq!(
        nan0("return a * (b * c) + 1.0;"),
        "return imitated_mul0(a, (imitated_mul0(b, c))) + 1.0;"
    );
    for kept in ["return a + b;", "return f32(u * 3u);"] {
        assert_eq!(nan0(kept), kept);
    }
}

#[test]
fn arithmetic_and_f16_conversions_are_flushed() {
    let ftz = |b: &str| body_after(FTZ32, b);
    assert_eq!(
        ftz("return a * b;"),
        "return imitated_ftz(imitated_ftz(a) * imitated_ftz(b));"
    );
    assert_eq!(
        ftz("return exp(a) - fma(a, b, c);"),
        "return imitated_ftz(imitated_ftz(imitated_ftz(exp(a))) - imitated_ftz(imitated_ftz(fma(a, b, c))));"
    );
    assert_eq!(ftz("return f32(u + 1u);"), "return f32(u + 1u);");
    let src = "enable f16;
@group(0) @binding(0) var<storage, read_write> h: array<f16>;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;
fn st(i: u32, v: f32) { h[i] = f16(v); w[i] = pack2x16float(vec2<f32>(v, 0.0)); }
fn ld(i: u32) -> f32 { return f32(h[i]) + unpack2x16float(w[i]).y; }";
    let out = FTZ16.apply(src);
    for part in [
        "h[i] = f16(imitated_ftz16(v));",
        "pack2x16float(imitated_ftz16x2(vec2<f32>(v, 0.0)))",
        "return imitated_ftz16(f32(h[i])) + imitated_ftz16x2(unpack2x16float(w[i])).y;",
        "fn imitated_ftz16(",
        "fn imitated_ftz16x2(",
    ] {
        assert!(out.contains(part), "{part}\n{out}");
    }
    // Under `all`, a product is flushed and then zero where a factor is.
    let all = body_after(SourceTransform::ALL, "return a * b;");
    assert_eq!(
        all,
        "return imitated_ftz(imitated_mul0(imitated_ftz(a), imitated_ftz(b)));"
    );
}

/// An expression, the freedom, the operands `a`, `b`, `c`, the result as
/// written where lavapipe keeps it, and the result under the freedom.
type Case = (&'static str, SourceTransform, [f32; 3], Option<f32>, f32);

/// On the device: what each freedom gives where it applies, and the
/// source as written elsewhere.
#[test]
fn the_looser_arithmetic_runs_as_a_driver_taking_it() {
    let tiny = f32::from_bits(0x0000_1000); // an f32 subnormal
    let small = 2.0f32.powi(-70);
    let h_sub = 2.0f32.powi(-20); // an f16 subnormal, a normal f32
    // (body, transform, a b c, as written where lavapipe keeps it,
    // imitated). Mesa itself folds `a + 0.0` and `a * 0.0` written with a
    // literal (lavapipe gives -0 for -0 + 0.0): the folds are checked
    // under the imitation only.
    let cases: [Case; 8] = [
        (
            "a * b",
            FTZ32,
            [small, small, 0.0],
            Some(small * small),
            0.0,
        ),
        ("a + b", FTZ32, [tiny, 0.0, 0.0], Some(tiny), 0.0),
        (
            "a * b",
            FTZ32,
            [-small, small, 0.0],
            Some(-small * small),
            -0.0,
        ),
        ("a * b", FTZ32, [1.5, 2.0, 0.0], Some(3.0), 3.0),
        ("a * b", NAN0, [f32::NAN, 0.0, 0.0], Some(f32::NAN), 0.0),
        (
            "a * b",
            NAN0,
            [f32::INFINITY, -0.0, 0.0],
            Some(f32::NAN),
            -0.0,
        ),
        ("a + 0.0", FOLD, [-0.0, 0.0, 0.0], None, -0.0),
        ("a * 0.0", FOLD, [f32::INFINITY, 0.0, 0.0], None, 0.0),
    ];
    for (expr, t, [a, b, c], written, imitated) in cases {
        let words = [a.to_bits(), b.to_bits(), c.to_bits()];
        let body = format!("out[i] = bitcast<u32>({expr});");
        let Some(as_written) = run_kernel(&body, &words, SourceTransform::AS_WRITTEN, 1) else {
            return;
        };
        let got = run_kernel(&body, &words, t, 1).unwrap()[0];
        let same = |x: u32, y: f32| x == y.to_bits() || (y.is_nan() && f32::from_bits(x).is_nan());
        if let Some(written) = written {
            let found = f32::from_bits(as_written[0]);
            assert!(
                same(as_written[0], written),
                "{expr} on {a:e}, {b:e}: {found:e}"
            );
        }
        assert!(
            same(got, imitated),
            "{expr} under {t} on {a:e}, {b:e}: {:e}",
            f32::from_bits(got)
        );
    }
    // An f16 subnormal through a packed store and load.
    let words = [h_sub.to_bits(), 0, 0];
    let body = "out[i] = bitcast<u32>(unpack2x16float(pack2x16float(vec2<f32>(a, 1.0))).x);";
    let run = |t| run_kernel(body, &words, t, 1).unwrap()[0];
    assert_eq!(run(SourceTransform::AS_WRITTEN), h_sub.to_bits());
    assert_eq!(run(FTZ16), 0);
}
