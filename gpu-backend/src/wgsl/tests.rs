//! The shared WGSL: no kernel holds a round trip, the transformation, and
//! the exact division and square root on the device.

use super::*;

#[test]
fn round_trips_are_replaced_by_their_operands() {
    assert_eq!(strip_round_trips("r = f32(f16(a + b));"), "r = (a + b);");
    assert_eq!(
        strip_round_trips("return unpack2x16float(pack2x16float(vec2<f32>(min(v, w), 0.0))).x;"),
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

/// Every kernel's source, on every path (the registry's): what the
/// invariant of this module is checked on.
pub(super) fn every_kernel_source() -> Vec<String> {
    crate::registry::every_kernel()
        .into_iter()
        .map(|k| k.source)
        .collect()
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
    assert_eq!(SourceTransform::AS_WRITTEN.apply(src), src);
    assert_eq!(
        SourceTransform::STRIP_ROUND_TRIPS.apply(src),
        "acc = (acc + one);"
    );
}

/// A small deterministic generator of 64-bit words (xorshift64) from `state`.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Random `(a, b)` with exponents in `-span..=span`, and edge cases:
/// quotients and roots on and next to powers of two.
fn operands() -> Vec<(f32, f32)> {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut v = Vec::new();
    let mut random = |span: i64| {
        let r = next();
        let exp = (r >> 40) as i64 % (2 * span + 1) - span;
        let sign = if r & 1 << 35 != 0 { 0x8000_0000 } else { 0 };
        f32::from_bits(sign | (((exp + 127) as u32) << 23) | (r as u32 & 0x7f_ffff))
    };
    for _ in 0..4000 {
        v.push((random(40), random(40)));
    }
    let up = |x: f32| f32::from_bits(x.to_bits() + 1);
    let down = |x: f32| f32::from_bits(x.to_bits() - 1);
    for x in [1.0f32, 2.0, 4.0, 0.5, 3.0, 1.5, 1000.0, 7.0e-30, 3.0e30] {
        for y in [x, up(x), down(x), up(up(x)), down(down(x))] {
            v.push((x, y));
            v.push((y, x));
            v.push((-x, y));
        }
    }
    v
}

/// Operand pairs whose quotient lies just above a power of two (the ulps
/// below it are half as large, so Vulkan's 2.5 ulp is up to five steps on
/// the bits there), and roots likewise.
fn above_powers_of_two() -> Vec<(f32, f32)> {
    let up = |x: f32, k: u32| f32::from_bits(x.to_bits() + k);
    let mut v = Vec::new();
    for b in [3.0f32, 7.0, 1.1, 1.7, 0.3, 123.456] {
        for p in [1.0f32, 2.0, 0.25, 1024.0] {
            for k in 0..4 {
                // a = b * 2^p, nudged up: quotients 2^p·(1 + small).
                v.push((up(b * p, k), b));
                v.push((-up(b * p, k), b));
            }
        }
    }
    v
}

/// `div_fix` and `sqrt_fix` on the device, given the correctly rounded
/// result (computed on the CPU) moved by `k` steps on the bits, for every
/// `k` in `-7..=7`, for random operands and quotients just above powers of
/// two: what a driver whose division and square root are off by up to
/// Vulkan's bounds gives, and more.
#[test]
fn division_and_square_root_are_corrected_from_seven_steps_away() {
    let mut pairs = operands();
    pairs.extend(above_powers_of_two());
    let moved = |x: f32, k: i32| f32::from_bits((x.to_bits() as i32 + k) as u32);
    let mut words = Vec::new();
    let mut want = Vec::new();
    for &(a, b) in &pairs {
        let (q, r) = (a / b, a.abs().sqrt());
        for k in -7i32..=7 {
            // Only where the moved results stay normal (elsewhere the
            // device's result is returned unchanged, by design).
            if q.abs() > 1e-37 && q.abs() < 1e37 && moved(q, k).is_normal() {
                words.extend([a.to_bits(), b.to_bits(), moved(q, k).to_bits()]);
                want.push(q.to_bits());
            }
            words.extend([a.abs().to_bits(), 0, moved(r, k).to_bits()]);
            want.push(r.to_bits());
        }
    }
    let body = "if (b == 0.0) { out[i] = bitcast<u32>(sqrt_fix(a, c)); }
    else { out[i] = bitcast<u32>(div_fix(a, b, c)); }";
    let Some(got) = run_kernel(body, &words, SourceTransform::AS_WRITTEN, 1) else {
        return;
    };
    for (i, w) in words.chunks_exact(3).enumerate() {
        let (a, b, c) = (
            f32::from_bits(w[0]),
            f32::from_bits(w[1]),
            f32::from_bits(w[2]),
        );
        let what = if b == 0.0 {
            format!("sqrt({a:e})")
        } else {
            format!("{a:e} / {b:e}")
        };
        assert_eq!(got[i], want[i], "{what} from {c:e}");
    }
    assert!(want.len() > 100_000, "{}", want.len());
}

/// `div_rn` and `sqrt_rn` under the imitated division and square root
/// (each result 1 to 3 ulps off) are still correctly rounded, and the
/// imitation does move the device's own results.
#[test]
fn division_and_square_root_stay_exact_under_the_imitation() {
    let mut pairs = operands();
    pairs.extend(above_powers_of_two());
    let words: Vec<u32> = pairs
        .iter()
        .flat_map(|&(a, b)| [a.to_bits(), b.to_bits(), 0])
        .collect();
    let body = "out[2u * i] = bitcast<u32>(div_rn(a, b));
    out[2u * i + 1u] = bitcast<u32>(sqrt_rn(abs(a)));";
    let raw = "out[2u * i] = bitcast<u32>(a / b);
    out[2u * i + 1u] = bitcast<u32>(sqrt(abs(a)));";
    let run = |body: &str| run_kernel(body, &words, SourceTransform::DIV_SQRT, 2);
    let (Some(got), Some(off)) = (run(body), run(raw)) else {
        return;
    };
    let mut moved = 0;
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (q, r) = (a / b, a.abs().sqrt());
        if q.is_normal() && q.abs() < 1e37 {
            assert_eq!(got[2 * i], q.to_bits(), "{a:e} / {b:e}");
            moved += usize::from(off[2 * i] != q.to_bits());
        }
        assert_eq!(got[2 * i + 1], r.to_bits(), "sqrt({:e})", a.abs());
        let ulps = (off[2 * i + 1] as i64 - r.to_bits() as i64).abs();
        assert!((1..=3).contains(&ulps), "sqrt({:e}) moved {ulps}", a.abs());
    }
    assert!(moved > pairs.len() * 9 / 10, "{moved} of {}", pairs.len());
}

/// Runs `body` (WGSL statements reading `inp[3 * i + 0..3]` and writing
/// `outputs` words per triple, `out[outputs * i + ..]`, all `u32` bits) for
/// every triple of `words`, compiled after `transform`, on the shared
/// context; `None` where no GPU is usable and `DUAL_DELTA_GPU=skip`.
pub(super) fn run_kernel(
    body: &str,
    words: &[u32],
    transform: SourceTransform,
    outputs: usize,
) -> Option<Vec<u32>> {
    use crate::compile::{self as compute, Binding};
    let gpu = crate::require_gpu()?;
    let n = words.len() / 3;
    let source = format!(
        "@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
{ROUND16}
{EXACT}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = g.x + g.y * nwg.x * 64u;
    if (i >= {n}u) {{ return; }}
    let a = bitcast<f32>(inp[3u * i]);
    let b = bitcast<f32>(inp[3u * i + 1u]);
    let c = bitcast<f32>(inp[3u * i + 2u]);
    {body}
}}"
    );
    let (layout, pipeline_layout) =
        compute::layouts(&gpu.device, "triples", &[Binding::Read, Binding::ReadWrite]);
    let source = transform.apply(&source);
    let pipeline = compute::pipeline(&gpu.device, &pipeline_layout, "triples", &source);
    let input = gpu.storage("triples", bytemuck::cast_slice(words));
    let bytes = (n * 4 * outputs) as u64;
    let out = gpu.writable("triples out", bytes, true);
    let raw = crate::submit::dispatch_and_read(
        &gpu.device,
        &gpu.queue,
        "triples",
        &pipeline,
        &layout,
        &[&input, &out],
        gpu.grid(n as u64, 64),
        &out,
        bytes,
    )
    .unwrap();
    Some(bytemuck::pod_collect_to_vec(&raw))
}

/// `a * b + c` contracted is a fused multiply-add: one rounding of the
/// exact `a * b + c`, on random operands where that differs from the
/// unfused result about a third of the time (lavapipe's own `fma` is not
/// fused: it gives the unfused result, so the imitation computes the fused
/// one on the bits).
#[test]
fn the_imitated_fma_rounds_once() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut words = Vec::new();
    for _ in 0..20000 {
        let r = next();
        let f = |bits: u64, e: u32| f32::from_bits(((bits as u32) & 0x807f_ffff) | (e << 23));
        let ea = 100 + (r % 40) as u32;
        let eb = 100 + ((r >> 8) % 40) as u32;
        let ec = ea + eb - 127 - 2 + ((r >> 16) % 5) as u32;
        words.extend([
            f(r >> 20, ea).to_bits(),
            f(r >> 33, eb).to_bits(),
            f(next(), ec).to_bits(),
        ]);
    }
    let Some(got) = run_kernel(
        "out[i] = bitcast<u32>(a * b + c);",
        &words,
        SourceTransform::CONTRACT,
        1,
    ) else {
        return;
    };
    let mut bad = 0;
    for (i, w) in words.chunks_exact(3).enumerate() {
        let (a, b, c) = (
            f32::from_bits(w[0]),
            f32::from_bits(w[1]),
            f32::from_bits(w[2]),
        );
        if got[i] != a.mul_add(b, c).to_bits() {
            if bad < 5 {
                eprintln!(
                    "{a:e} {b:e} {c:e}: {:e} vs {:e} (unfused {:e})",
                    f32::from_bits(got[i]),
                    a.mul_add(b, c),
                    a * b + c
                );
            }
            bad += 1;
        }
    }
    let differ = words
        .chunks_exact(3)
        .filter(|w| {
            let [a, b, c] = [w[0], w[1], w[2]].map(f32::from_bits);
            a.mul_add(b, c) != a * b + c
        })
        .count();
    assert_eq!(bad, 0, "of {}", got.len());
    assert!(differ > 5000, "{differ}");
}
