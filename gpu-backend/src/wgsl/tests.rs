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

/// Every kernel's source, on every path: what the invariant of this
/// module is checked on.
fn every_kernel_source() -> Vec<String> {
    use crate::attention::shader as attention;
    use crate::lowp::shader::{self as lowp, LowpKernel};
    use crate::matmul::shader::{self as matmul, MatmulKernel as Kernel, Tiling};
    use crate::norm::shader as norm;
    use crate::rows::shader::{self as rows, RowKernel};
    use crate::{
        attention::AttentionStrategy as AttentionVariant,
        lowp::Bf16Accumulation,
        norm::{LayerNormStrategy as LayerNormVariant, RmsNormStrategy as RmsNormVariant},
        rows::{SoftmaxStrategy as SoftmaxVariant, SumStrategy as ReduceStrategy},
    };
    let mut v = Vec::new();
    for native in [true, false] {
        for kernel in [Kernel::TileF32, Kernel::TileF16, Kernel::ReduceSplits] {
            for tiling in [Tiling::Lanes, Tiling::Subgroup, Tiling::Shared] {
                v.push(matmul::source(kernel, native, tiling));
            }
        }
        let row_kernels = ReduceStrategy::ALL
            .map(RowKernel::Sum)
            .into_iter()
            .chain(SoftmaxVariant::ALL.map(RowKernel::Softmax));
        v.extend(row_kernels.map(|k| rows::source(k, native)));
        let norms = LayerNormVariant::ALL
            .map(norm::NormKernel::Layer)
            .into_iter()
            .chain(RmsNormVariant::ALL.map(norm::NormKernel::Rms));
        v.extend(norms.map(|k| norm::source(k, native)));
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

/// Random `(a, b)` with exponents in `-span..=span`, and edge cases:
/// quotients and roots on and next to powers of two.
fn operands() -> Vec<(f32, f32)> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
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

/// `div_fix` and `sqrt_fix` on the device, given the device's own result
/// moved by `k` ulps, for every operand pair and every `k` in `-3..=3`:
/// what a driver whose division and square root are off by up to three
/// ulps gives.
#[test]
fn division_and_square_root_are_corrected_from_three_ulps_away() {
    use crate::compile::{self as compute, Binding};
    let Some(gpu) = crate::require_gpu() else {
        return;
    };
    let pairs = operands();
    let mut words = Vec::new();
    for &(a, b) in &pairs {
        for k in -3i32..=3 {
            words.extend([a.to_bits(), b.to_bits(), k as u32]);
        }
    }
    let n = words.len() / 3;
    let source = format!(
        "@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
{EXACT}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = g.x + g.y * nwg.x * 64u;
    if (i >= {n}u) {{ return; }}
    let a = bitcast<f32>(inp[3u * i]);
    let b = bitcast<f32>(inp[3u * i + 1u]);
    let k = bitcast<i32>(inp[3u * i + 2u]);
    let q = bitcast<f32>(u32(i32(bitcast<u32>(a / b)) + k));
    out[2u * i] = bitcast<u32>(div_fix(a, b, q));
    let x = abs(a);
    let r = bitcast<f32>(u32(i32(bitcast<u32>(sqrt(x))) + k));
    out[2u * i + 1u] = bitcast<u32>(sqrt_fix(x, r));
}}"
    );
    let (layout, pipeline_layout) =
        compute::layouts(&gpu.device, "exact", &[Binding::Read, Binding::ReadWrite]);
    let pipeline = compute::pipeline(
        &gpu.device,
        &pipeline_layout,
        "exact",
        &source,
        SourceTransform::AsWritten,
    );
    let input = gpu.storage("exact inputs", bytemuck::cast_slice(&words));
    let bytes = (n * 8) as u64;
    let out = gpu.writable("exact outputs", bytes, true);
    let raw = gpu
        .dispatch_and_read(
            "exact",
            &pipeline,
            &layout,
            &[&input, &out],
            gpu.grid(n as u64, 64),
            &out,
            bytes,
        )
        .unwrap();
    let got: Vec<u32> = bytemuck::pod_collect_to_vec(&raw);
    let mut checked = 0;
    for (i, w) in words.chunks_exact(3).enumerate() {
        let (a, b, k) = (f32::from_bits(w[0]), f32::from_bits(w[1]), w[2] as i32);
        let (q, r) = (a / b, a.abs().sqrt());
        // Only where the moved results stay normal (elsewhere the device's
        // result is returned unchanged, by design).
        let moved = |x: f32| f32::from_bits((x.to_bits() as i32 + k) as u32);
        if q.abs() > 1e-37 && q.abs() < 1e37 && moved(q).is_normal() {
            assert_eq!(got[2 * i], q.to_bits(), "{a:e} / {b:e} from {k} ulp");
            checked += 1;
        }
        assert_eq!(
            got[2 * i + 1],
            r.to_bits(),
            "sqrt({:e}) from {k} ulp",
            a.abs()
        );
    }
    assert!(checked > 25_000, "{checked}");
}
