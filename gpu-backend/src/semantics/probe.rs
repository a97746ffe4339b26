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

use half::f16;
use wgpu::util::DeviceExt as _;

use super::{DeviceSemantics, Exactness, SubgroupSizes};
use crate::GpuError;
use crate::gpu::compute::{self, Binding};
use crate::wgsl::SourceTransform;

/// Invocations of the probe's one workgroup.
const THREADS: u32 = 64;
/// Operands of the division and square-root probes: random, and one in
/// four just above a power of two (see `inputs`).
const SAMPLES: usize = 1024;
/// Additions of one in the loops (the `f16` sum stops at 2048).
const LOOP: u32 = 4096;

// Input words: scalars first, then the random operands.
const I_ONE: usize = 0;
const I_N: usize = 1;
const I_A: usize = 2;
const I_B: usize = 3;
const I_C: usize = 4;
const I_SUB: usize = 5;
const I_TINY: usize = 6;
const I_HALF: usize = 7;
const I_ZERO: usize = 8;
const I_NAN: usize = 9;
const I_INF: usize = 10;
const I_BIG: usize = 11;
const I_TWO: usize = 12;
const I_THOUSAND: usize = 13;
const I_ONCE: usize = 14;
const I_H_SUB_F32: usize = 15;
const I_H_SUB_BITS: usize = 16;
const I_HA: usize = 17;
const I_HC: usize = 18;
const I_INF2: usize = 19;
const I_CONV: usize = 32;
const I_DIV: usize = I_CONV + CONVERSION_CASES.len();
const I_SQRT: usize = I_DIV + 2 * SAMPLES;
const INPUTS: usize = I_SQRT + SAMPLES;

// Output words.
const O_PACKED_LOOP: usize = 0;
const O_PACKED_ONCE: usize = 1;
const O_FMA: usize = 2;
const O_CONTRACT: usize = 3;
const O_CONTRACT_LET: usize = 4;
const O_SUB: usize = 5; // three: 2^-130 · 1, 2^-130 + 0, 2^-126 · ½
const O_H_SUB_PACKED: usize = 8; // two: pack2x16float, unpack2x16float
const O_NAN: usize = 10; // four: max(NaN, 1), max(1, NaN), min(NaN, 1), min(1, NaN)
const O_INF: usize = 14; // ten, see `infinities_pass`
const O_H_LOOP: usize = 24;
const O_H_TRIP_LOOP: usize = 25;
const O_H_TRIP_ONCE: usize = 26;
const O_CONV_PACKED: usize = 32;
const O_DIV: usize = O_CONV_PACKED + CONVERSION_CASES.len();
const O_SQRT: usize = O_DIV + SAMPLES;
const O_SUBGROUP: usize = O_SQRT + SAMPLES;
const OUTPUTS: usize = O_SUBGROUP + THREADS as usize;

// `f16` output elements (a second output, `array<f16>`, so that every
// `f32 → f16` conversion is a store the driver must carry out).
const H_FMA: usize = 0;
const H_SUB: usize = 1; // two: arithmetic, f16(x)
const H_CONV: usize = 3;
const H_OUTPUTS: usize = H_CONV + CONVERSION_CASES.len();

// The slots do not overlap.
const _: () = assert!(I_INF2 < I_CONV && O_INF + 10 <= O_H_LOOP && O_H_TRIP_ONCE < O_CONV_PACKED);

/// `1 + 2⁻¹²`: its product with itself is `1 + 2⁻¹¹ + 2⁻²⁴`, a tie in
/// `f32` that rounds to `1 + 2⁻¹¹`; fused with `c = −(1 + 2⁻¹¹)` it leaves
/// `2⁻²⁴`, unfused `0`.
const FMA_A: f32 = 1.0 + 1.0 / 4096.0;
/// See [`FMA_A`].
const FMA_C: f32 = -(1.0 + 1.0 / 2048.0);
/// `1 + 2⁻⁶` in `f16`: squared `1 + 2⁻⁵ + 2⁻¹²`, which rounds to
/// `1 + 2⁻⁵`; fused with `−(1 + 2⁻⁵)` it leaves `2⁻¹²`.
const FMA_HA: f32 = 1.0 + 1.0 / 64.0;
/// See [`FMA_HA`].
const FMA_HC: f32 = -(1.0 + 1.0 / 32.0);

/// `f32 → f16` conversion probes: ties (to even, both signs), values just
/// off ties, the largest finite `f16`, overflow, subnormal ties and
/// values that round to zero.
const CONVERSION_CASES: [f32; 16] = [
    1.0 + 1.0 / 2048.0,
    1.0 + 3.0 / 2048.0,
    -(1.0 + 1.0 / 2048.0),
    -(1.0 + 3.0 / 2048.0),
    1.0 + 1.0 / 2048.0 + 1.0 / 1048576.0,
    1.0 + 1.0 / 2048.0 - 1.0 / 1048576.0,
    0.1,
    -3.3,
    65504.0,
    65519.0,
    65520.0,
    -70000.0,
    2.980_232_2e-8, // 2^-25: a tie between 0 and 2^-24
    8.940_697e-8,   // 3 · 2^-25: a tie between 2^-24 and 2^-23
    1.0e-8,
    6.0e-5,
];

/// What the probe shader wrote, decoded; `DeviceSemantics` interprets it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Measurements {
    pub(super) packed_loop: f32,
    pub(super) packed_once: f32,
    pub(super) fma_fused: bool,
    pub(super) contracted: bool,
    /// Per probe: whether the subnormal survived.
    pub(super) f32_subnormals: [bool; 3],
    pub(super) f16_subnormals_packed: [bool; 2],
    /// Per order and function: whether the result is NaN (`None`: neither
    /// NaN nor the number).
    pub(super) nan_max_min: [Option<bool>; 4],
    pub(super) infinities_pass: bool,
    pub(super) exp_keeps_nan: bool,
    pub(super) conversion_differing: usize,
    pub(super) conversion_of: usize,
    pub(super) division: Exactness,
    pub(super) sqrt: Exactness,
    pub(super) subgroups: Option<SubgroupSizes>,
    pub(super) f16: Option<F16Measurements>,
}

/// The probes that need native `f16`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct F16Measurements {
    pub(super) loop_sum: f32,
    pub(super) round_trip_loop: f32,
    pub(super) round_trip_once: f32,
    pub(super) fma_fused: bool,
    /// `2⁻²⁰ · 1` in `f16`, and `f16(2⁻²⁰)`.
    pub(super) subnormals: [bool; 2],
}

/// A small deterministic generator for the random operands (xorshift64*).
struct Operands(u64);

impl Operands {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A positive normal `f32` with a random significand and an exponent
    /// in `-span..=span`.
    fn normal(&mut self, span: i32) -> f32 {
        let r = self.next();
        let exp = (r >> 40) as i32 % (2 * span + 1) - span;
        f32::from_bits((((exp + 127) as u32) << 23) | (r as u32 & 0x7f_ffff))
    }
}

/// The input words.
fn inputs() -> Vec<u32> {
    let mut w = vec![0u32; INPUTS];
    let scalars: [(usize, f32); 18] = [
        (I_ONE, 1.0),
        (I_A, FMA_A),
        (I_B, FMA_A),
        (I_C, FMA_C),
        (I_SUB, f32::from_bits(0x0008_0000)), // 2^-130
        (I_TINY, f32::MIN_POSITIVE),          // 2^-126
        (I_HALF, 0.5),
        (I_ZERO, 0.0),
        (I_NAN, f32::NAN),
        (I_INF, f32::INFINITY),
        (I_INF2, f32::INFINITY),
        (I_BIG, 3.0e38),
        (I_TWO, 2.0),
        (I_THOUSAND, 1000.0),
        (I_ONCE, 1.0 + 1.0 / 4096.0),
        (I_H_SUB_F32, f16::from_bits(0x0010).to_f32()), // 2^-20
        (I_HA, FMA_HA),
        (I_HC, FMA_HC),
    ];
    for (i, v) in scalars {
        w[i] = v.to_bits();
    }
    w[I_N] = LOOP;
    w[I_H_SUB_BITS] = 0x0010; // the f16 2^-20, in the low half
    for (i, v) in CONVERSION_CASES.iter().enumerate() {
        w[I_CONV + i] = v.to_bits();
    }
    let mut rng = Operands(0x9e37_79b9_7f4a_7c15);
    for i in 0..SAMPLES {
        let b = rng.normal(20);
        let sqrt = rng.normal(60);
        // One operand in four gives a quotient (a root) just above a power
        // of two, where the ulps below are half as large: a device's error
        // bound in ulps of the result is twice as many steps there.
        let (a, sqrt) = if i % 4 == 0 {
            let nudge = (i / 4 % 3) as u32 + 1;
            let power = f32::from_bits(((127 + (i / 4 % 9) as i32 - 4) as u32) << 23);
            // An even power of two (odd exponent field): its root is one.
            let even = f32::from_bits(sqrt.to_bits() & 0xff00_0000 | 0x0080_0000);
            (
                f32::from_bits((b * power).to_bits() + nudge),
                f32::from_bits(even.to_bits() + nudge),
            )
        } else {
            (rng.normal(20), sqrt)
        };
        w[I_DIV + 2 * i] = a.to_bits();
        w[I_DIV + 2 * i + 1] = b.to_bits();
        w[I_SQRT + i] = sqrt.to_bits();
    }
    w
}

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

/// Runs the probe on `device`, compiled after `transform` as every kernel
/// is: the `f16` probes where `f16` (the device has `SHADER_F16`), the
/// subgroup probe where `subgroups` (the adapter's sizes; the device has
/// `SUBGROUP`).
pub(super) fn probe(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    transform: SourceTransform,
    f16: bool,
    subgroups: Option<(u32, u32)>,
) -> Result<DeviceSemantics, GpuError> {
    use Binding::{Read, ReadWrite};
    let (layout, pipeline_layout) =
        compute::layouts(device, "probe", &[Read, ReadWrite, ReadWrite]);
    let source = source(f16, subgroups.is_some());
    let pipeline = compute::pipeline(device, &pipeline_layout, "probe", &source, transform);
    let input = inputs();
    let inp = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe inputs"),
        contents: bytemuck::cast_slice(&input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output = |label, bytes| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: compute::padded(bytes),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let (bytes, hbytes) = ((OUTPUTS * 4) as u64, (H_OUTPUTS * 2) as u64);
    let (out, outh) = (output("probe outputs", bytes), output("probe f16", hbytes));
    let run = |read: &wgpu::Buffer, bytes| {
        compute::dispatch_and_read(
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
    let m = measurements(&words, halves.as_deref(), &input, subgroups)?;
    Ok(DeviceSemantics::from_measurements(&m))
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
