//! The probe: one small compute shader (one workgroup of [`THREADS`]
//! invocations) whose every operand is read from a storage buffer, so that
//! nothing can be folded when it is compiled, and the measurements read
//! from its output.
//!
//! Invocation 0 runs the scalar probes (loops of 4096 additions, `fma`,
//! subnormals, conversions, NaN and infinities) and writes one word each at
//! the `O_*` slots; every invocation divides and takes square roots of its
//! share of [`SAMPLES`] random operands, and writes its `subgroup_size`.
//! The `f16` probes are compiled only where the device has native `f16`,
//! the subgroup one only where it has subgroup operations.

use core::fmt::Write as _;

use wgpu::util::DeviceExt as _;

use super::facts::{Exactness, SubgroupSizes};
use crate::compile::{self, Binding};
use crate::error::GpuError;
use crate::submit;
use crate::wgsl::SourceTransform;

mod layout;

pub(in crate::semantics) use self::layout::Measurements;
use self::layout::*;

/// The probe's WGSL, with the `f16` probes where `f16` and the subgroup
/// probe where `subgroups`.
fn source(f16: bool, subgroups: bool) -> String {
    let mut s = String::new();
    if f16 {
        s.push_str("enable f16;\n");
    }
    let per = SAMPLES / THREADS as usize;
    let outh = if f16 {
        "@group(0) @binding(2) var<storage, read_write> outh: array<f16>;\n"
    } else {
        ""
    };
    let sg_param = if subgroups {
        ", @builtin(subgroup_size) sg: u32"
    } else {
        ""
    };
    let _ = write!(
        s,
        "@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
{outh}fn f(i: u32) -> f32 {{ return bitcast<f32>(inp[i]); }}
fn wf(i: u32, v: f32) {{ out[i] = bitcast<u32>(v); }}
fn pk(v: f32) -> u32 {{ return pack2x16float(vec2<f32>(v, 0.0)) & 0xffffu; }}

@compute @workgroup_size({THREADS})
fn main(@builtin(local_invocation_index) t: u32{sg_param}) {{
    for (var i = 0u; i < {per}u; i++) {{
        let j = t * {per}u + i;
        wf({O_DIV}u + j, f({I_DIV}u + 2u * j) / f({I_DIV}u + 2u * j + 1u));
        wf({O_SQRT}u + j, sqrt(f({I_SQRT}u + j)));
    }}
"
    );
    if subgroups {
        let _ = writeln!(s, "    out[{O_SUBGROUP}u + t] = sg;");
    }
    let _ = write!(
        s,
        "    if (t != 0u) {{ return; }}
    let one = f({I_ONE}u);
    let n = inp[{I_N}u];
    var acc = 0.0;
    for (var i = 0u; i < n; i++) {{ acc = unpack2x16float(pack2x16float(vec2<f32>(acc + one, 0.0))).x; }}
    wf({O_PACKED_LOOP}u, acc);
    wf({O_PACKED_ONCE}u, unpack2x16float(pack2x16float(vec2<f32>(f({I_ONCE}u), 0.0))).x);
    let a = f({I_A}u);
    let b = f({I_B}u);
    let c = f({I_C}u);
    wf({O_FMA}u, fma(a, b, c));
    wf({O_CONTRACT}u, a * b + c);
    let ab = a * b;
    wf({O_CONTRACT_LET}u, ab + c);
    wf({O_SUB}u, f({I_SUB}u) * one);
    wf({O_SUB}u + 1u, f({I_SUB}u) + f({I_ZERO}u));
    wf({O_SUB}u + 2u, f({I_TINY}u) * f({I_HALF}u));
    out[{O_H_SUB_PACKED}u] = pk(f({I_H_SUB_F32}u));
    wf({O_H_SUB_PACKED}u + 1u, unpack2x16float(inp[{I_H_SUB_BITS}u]).x);
    let nan = f({I_NAN}u);
    let inf = f({I_INF}u);
    let th = f({I_THOUSAND}u);
    wf({O_NAN}u, max(nan, one));
    wf({O_NAN}u + 1u, max(one, nan));
    wf({O_NAN}u + 2u, min(nan, one));
    wf({O_NAN}u + 3u, min(one, nan));
    wf({O_INF}u, exp(th));
    wf({O_INF}u + 1u, exp(-th));
    wf({O_INF}u + 2u, exp(inf));
    wf({O_INF}u + 3u, exp(-inf));
    wf({O_INF}u + 4u, one / f({I_ZERO}u));
    wf({O_INF}u + 5u, f({I_BIG}u) * f({I_TWO}u));
    wf({O_INF}u + 6u, inf - f({I_INF2}u)); // two loads: `x - x` may fold to 0
    wf({O_INF}u + 7u, max(inf, one));
    wf({O_INF}u + 8u, min(-inf, one));
    wf({O_INF}u + 9u, exp(nan));
    for (var i = 0u; i < {cases}u; i++) {{ out[{O_CONV_PACKED}u + i] = pk(f({I_CONV}u + i)); }}
",
        cases = CONVERSION_CASES.len(),
    );
    if f16 {
        let _ = write!(
            s,
            "    let h1 = f16(one);
    var hacc = 0.0h;
    for (var i = 0u; i < n; i++) {{ hacc = hacc + h1; }}
    wf({O_H_LOOP}u, f32(hacc));
    var racc = 0.0;
    for (var i = 0u; i < n; i++) {{ racc = f32(f16(racc + one)); }}
    wf({O_H_TRIP_LOOP}u, racc);
    wf({O_H_TRIP_ONCE}u, f32(f16(f({I_ONCE}u))));
    let ha = f16(f({I_HA}u));
    let hc = f16(f({I_HC}u));
    outh[{H_FMA}u] = fma(ha, ha, hc);
    let hs = f16(f({I_H_SUB_F32}u));
    outh[{H_SUB}u] = hs * h1;
    outh[{H_SUB}u + 1u] = hs;
    for (var i = 0u; i < {cases}u; i++) {{ outh[{H_CONV}u + i] = f16(f({I_CONV}u + i)); }}
",
            cases = CONVERSION_CASES.len(),
        );
    }
    s.push_str("}\n");
    s
}

/// How far `got` is from the correctly rounded `want`, in `f32` ulps
/// (both positive and finite; otherwise the largest distance).
fn ulps(got: f32, want: f32) -> u32 {
    if got.is_finite() && got >= 0.0 {
        got.to_bits().abs_diff(want.to_bits())
    } else {
        u32::MAX
    }
}

fn exactness(results: impl Iterator<Item = (f32, f32)>) -> Exactness {
    let (mut differing, mut of, mut max_ulps) = (0, 0, 0);
    for (got, want) in results {
        of += 1;
        let d = ulps(got, want);
        if d != 0 {
            differing += 1;
            max_ulps = max_ulps.max(d);
        }
    }
    match differing {
        0 => Exactness::CorrectlyRounded,
        _ => Exactness::Approximate {
            differing,
            of,
            max_ulps,
        },
    }
}

/// Decodes the output words.
fn measurements(
    w: &[u32],
    hw: Option<&[u16]>,
    input: &[u32],
    subgroups: Option<(u32, u32)>,
) -> Result<Measurements, GpuError> {
    let f = |i: usize| f32::from_bits(w[i]);
    let inp = |i: usize| f32::from_bits(input[i]);
    let fma_exact = FMA_A * FMA_A + FMA_C; // unfused on the CPU: 0
    let fused = |i: usize| f(i) != fma_exact;
    let sub_want = [inp(I_SUB), inp(I_SUB), f32::MIN_POSITIVE * 0.5];
    let f32_subnormals = core::array::from_fn(|i| f(O_SUB + i).to_bits() == sub_want[i].to_bits());
    let h_sub = inp(I_H_SUB_F32);
    let f16_subnormals_packed = [w[O_H_SUB_PACKED] == 0x0010, f(O_H_SUB_PACKED + 1) == h_sub];
    let nan_max_min = core::array::from_fn(|i| {
        let v = f(O_NAN + i);
        if v.is_nan() {
            Some(true)
        } else {
            (v == 1.0).then_some(false)
        }
    });
    let inf = f32::INFINITY;
    let want_inf = [inf, 0.0, inf, 0.0, inf, inf, f32::NAN, inf, -inf];
    let infinities_pass = want_inf.iter().enumerate().all(|(i, &want)| {
        let got = f(O_INF + i);
        if want.is_nan() {
            got.is_nan()
        } else {
            got == want
        }
    });
    let nearest = |i: usize| half::f16::from_f32(CONVERSION_CASES[i]).to_bits() as u32;
    let cases = CONVERSION_CASES.len();
    let mut conversion_differing = (0..cases)
        .filter(|&i| w[O_CONV_PACKED + i] != nearest(i))
        .count();
    let mut conversion_of = cases;
    let f16m = hw.map(|hw| {
        conversion_of += cases;
        conversion_differing += (0..cases)
            .filter(|&i| u32::from(hw[H_CONV + i]) != nearest(i))
            .count();
        F16Measurements {
            loop_sum: f(O_H_LOOP),
            round_trip_loop: f(O_H_TRIP_LOOP),
            round_trip_once: f(O_H_TRIP_ONCE),
            fma_fused: half::f16::from_bits(hw[H_FMA]).to_f32() != 0.0,
            subnormals: [hw[H_SUB] == 0x0010, hw[H_SUB + 1] == 0x0010],
        }
    });
    let division = exactness((0..SAMPLES).map(|j| {
        let (a, b) = (inp(I_DIV + 2 * j), inp(I_DIV + 2 * j + 1));
        (f(O_DIV + j), a / b)
    }));
    let sqrt = exactness((0..SAMPLES).map(|j| (f(O_SQRT + j), inp(I_SQRT + j).sqrt())));
    let subgroups = match subgroups {
        None => None,
        Some((min, max)) => {
            let seen = &w[O_SUBGROUP..O_SUBGROUP + THREADS as usize];
            let measured = seen[0];
            if seen.iter().any(|&s| s != measured) {
                return Err(GpuError::Device(format!(
                    "the probe's workgroup saw several subgroup sizes: {seen:?}"
                )));
            }
            Some(SubgroupSizes::new(min, max, Some(measured)).ok_or_else(|| {
                GpuError::Device(format!(
                    "subgroup sizes {min}..{max} with {measured} measured are not powers \
                     of two in order"
                ))
            })?)
        }
    };
    Ok(Measurements {
        packed_loop: f(O_PACKED_LOOP),
        packed_once: f(O_PACKED_ONCE),
        fma_fused: fused(O_FMA),
        contracted: fused(O_CONTRACT) || fused(O_CONTRACT_LET),
        f32_subnormals,
        f16_subnormals_packed,
        nan_max_min,
        infinities_pass,
        exp_keeps_nan: f(O_INF + 9).is_nan(),
        conversion_differing,
        conversion_of,
        division,
        sqrt,
        subgroups,
        f16: f16m,
    })
}

/// The measurements of the probe run on `device`, compiled after
/// `transform` as every kernel is: the `f16` probes where `f16` (the device has `SHADER_F16`), the
/// subgroup probe where `subgroups` (the adapter's sizes; the device has
/// `SUBGROUP`).
pub(super) fn probe(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    transform: SourceTransform,
    f16: bool,
    subgroups: Option<(u32, u32)>,
) -> Result<Measurements, GpuError> {
    use Binding::{Read, ReadWrite};
    let (layout, pipeline_layout) =
        compile::layouts(device, "probe", &[Read, ReadWrite, ReadWrite]);
    let source = source(f16, subgroups.is_some());
    let pipeline = compile::pipeline(device, &pipeline_layout, "probe", &transform.apply(&source));
    let input = inputs();
    let inp = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe inputs"),
        contents: bytemuck::cast_slice(&input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output = |label, bytes| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: submit::padded(bytes),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let (bytes, hbytes) = ((OUTPUTS * 4) as u64, (H_OUTPUTS * 2) as u64);
    let (out, outh) = (output("probe outputs", bytes), output("probe f16", hbytes));
    let run = |read: &wgpu::Buffer, bytes| {
        submit::dispatch_and_read(
            device,
            queue,
            "probe",
            &pipeline,
            &layout,
            &[&inp, &out, &outh],
            (1, 1),
            read,
            bytes,
        )
    };
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&run(&out, bytes)?);
    let halves: Option<Vec<u16>> = if f16 {
        Some(bytemuck::pod_collect_to_vec(&run(&outh, hbytes)?))
    } else {
        None
    };
    measurements(&words, halves.as_deref(), &input, subgroups)
}

#[cfg(test)]
pub(super) mod fixtures {
    //! Measurements as lavapipe and the NVIDIA H100 give them (see
    //! `device-semantics` in the H100 run), for the interpretation's tests.

    use super::*;

    /// lavapipe (Mesa 22.3.6, llvmpipe 256 bits).
    pub(in crate::semantics) fn lavapipe() -> Measurements {
        Measurements {
            packed_loop: 2048.0,
            packed_once: 1.0,
            fma_fused: false,
            contracted: false,
            f32_subnormals: [true; 3],
            f16_subnormals_packed: [true; 2],
            nan_max_min: [Some(false); 4],
            infinities_pass: true,
            exp_keeps_nan: true,
            conversion_differing: 0,
            conversion_of: 32,
            division: Exactness::CorrectlyRounded,
            sqrt: Exactness::CorrectlyRounded,
            subgroups: SubgroupSizes::new(8, 8, Some(8)),
            f16: Some(F16Measurements {
                loop_sum: 2048.0,
                round_trip_loop: 2048.0,
                round_trip_once: 1.0,
                fma_fused: false,
                subnormals: [true; 2],
            }),
        }
    }

    /// The H100 (NVIDIA 580.159.04): round trips removed, `fma` fused,
    /// `f32` subnormals flushed, subgroups of 32. (Division and square root
    /// were not probed there: taken as lavapipe's.)
    pub(in crate::semantics) fn h100() -> Measurements {
        let mut m = lavapipe();
        m.packed_loop = 4096.0;
        m.packed_once = 1.0 + 1.0 / 4096.0;
        m.fma_fused = true;
        m.f32_subnormals = [false; 3];
        m.subgroups = SubgroupSizes::new(32, 32, Some(32));
        if let Some(h) = &mut m.f16 {
            h.round_trip_loop = 4096.0;
            h.round_trip_once = 1.0 + 1.0 / 4096.0;
            h.fma_fused = true;
        }
        m
    }

    #[test]
    fn the_inputs_hold_what_the_probes_expect() {
        let w = inputs();
        assert_eq!(w.len(), INPUTS);
        assert_eq!(f32::from_bits(w[I_SUB]), 2f32.powi(-130));
        assert!(f32::from_bits(w[I_SUB]).is_subnormal());
        assert_eq!(f32::from_bits(w[I_H_SUB_F32]), 2f32.powi(-20));
        // The fma operands: exact product 1 + 2^-11 + 2^-24, a tie in f32.
        let exact = f64::from(FMA_A) * f64::from(FMA_A) + f64::from(FMA_C);
        assert_eq!(exact, 2f64.powi(-24));
        assert_eq!(FMA_A * FMA_A + FMA_C, 0.0);
        let h = |v: f32| half::f16::from_f32(v);
        let hexact = h(FMA_HA).to_f64() * h(FMA_HA).to_f64() + h(FMA_HC).to_f64();
        assert_eq!(hexact, 2f64.powi(-12));
        assert_eq!((h(FMA_HA) * h(FMA_HA) + h(FMA_HC)).to_f32(), 0.0);
        // Random operands: normal, quotients and roots normal too.
        for j in 0..SAMPLES {
            let (a, b) = (
                f32::from_bits(w[I_DIV + 2 * j]),
                f32::from_bits(w[I_DIV + 2 * j + 1]),
            );
            assert!(a.is_normal() && b.is_normal() && (a / b).is_normal());
            assert!(f32::from_bits(w[I_SQRT + j]).is_normal());
        }
    }
}
