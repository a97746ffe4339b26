//! WGSL sources of the low-precision kernels, generated with their
//! register-block loops unrolled.
//!
//! Every kernel shares one bind group layout:
//!
//! | binding | contents                                                     |
//! |---------|--------------------------------------------------------------|
//! | 0       | `LowpParams` (uniform)                                       |
//! | 1       | `A`: two `bf16` or four E4M3 codes per `u32` (read)          |
//! | 2       | `B`, packed the same way (read)                              |
//! | 3       | the output, one `u32` per element: `bf16` bits in the low half, or `f32` bits (write) |
//! | 4       | one `f32` output scale per matmul of the batch (read)        |
//!
//! Element `i` of a packed matrix is half `i & 1` (`bf16`) or byte `i & 3`
//! (E4M3) of word `i / 2` or `i / 4`, counting from the least significant:
//! the little-endian bytes of the values in order. Invocation `id` owns one
//! [`LOWP_TILE`]` × `[`LOWP_TILE`] block of `C` of one matmul of the batch,
//! in the order `(batch, tile row, tile column)`.

use core::fmt::Write as _;

use super::hopper::{limited_helpers, limited_loop};
use super::unroll::{each, rows_cols};
use super::{Bf16Accumulation, FP8_MMA_K, LOWP_COLS, LOWP_ROWS};
use crate::compile::Binding;
use crate::pipelines::PipelineKey;
use crate::wgsl::{ROUND_BF16, barriers};

/// Invocations per workgroup of the tile kernels (one llvmpipe SIMD vector).
pub(crate) const TILE_WORKGROUP: u32 = 8;

/// Invocations per workgroup of the `bf16` rounding kernel.
pub(crate) const ROUND_WORKGROUP: u32 = 64;

/// The layout of the uniform `LowpParams` (twelve `u32`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct LowpParams {
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) n: u32,
    pub(crate) tiles_m: u32,
    pub(crate) tiles_n: u32,
    /// Matmuls in this dispatch.
    pub(crate) batch: u32,
    /// The K chunk accumulated with limited precision before promotion.
    pub(crate) chunk: u32,
    /// Values to round (the rounding kernel only).
    pub(crate) count: u32,
    /// Always 0: the bit barrier `pinned` ORs it in, a value no compiler
    /// can see (see [`barriers`](crate::wgsl::barriers)).
    pub(crate) zero: u32,
    pub(crate) pad: [u32; 3],
}

/// A low-precision kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LowpKernel {
    /// The `bf16` matmul with the given accumulation.
    Bf16(Bf16Accumulation),
    /// The FP8 matmul accumulating in `f32`.
    Fp8F32,
    /// The FP8 matmul with Hopper's limited accumulation over chunks of
    /// `chunk`, each promoted to an `f32` sum.
    Fp8Limited,
    /// `f32` bits to `bf16` bits, one per invocation.
    Bf16Round,
}

const HEADER: &str = "struct LowpParams {
    m: u32, k: u32, n: u32, tiles_m: u32,
    tiles_n: u32, batch: u32, chunk: u32, count: u32,
    zero: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> p: LowpParams;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<storage, read> scales: array<f32>;

fn bf_a(i: u32) -> f32 { return bitcast<f32>(((a[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu) << 16u); }
fn bf_b(i: u32) -> f32 { return bitcast<f32>(((b[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu) << 16u); }
fn q_a(i: u32) -> u32 { return (a[i >> 2u] >> ((i & 3u) << 3u)) & 0xffu; }
fn q_b(i: u32) -> u32 { return (b[i >> 2u] >> ((i & 3u) << 3u)) & 0xffu; }
// An E4M3 code as sig/8 * 2^ex: sig signed, ex -6 for subnormals, -126 for zero.
fn sig(c: u32) -> i32 {
    let e = (c >> 3u) & 15u;
    let m = i32(select(c & 7u, (c & 7u) | 8u, e != 0u));
    return select(m, -m, c >= 128u);
}
fn ex(c: u32) -> i32 {
    let e = (c >> 3u) & 15u;
    return select(select(-6, i32(e) - 7, e != 0u), -126, (c & 0x7fu) == 0u);
}
fn p2(e: i32) -> f32 { return bitcast<f32>(u32(clamp(e, -126, 127) + 127) << 23u); }
// The exact value of an E4M3 code.
fn val(c: u32) -> f32 { return f32(sig(c)) * p2(max(ex(c), -6) - 3); }
fn aexp(c: f32) -> i32 {
    let be = (bitcast<u32>(c) >> 23u) & 255u;
    return select(i32(be) - 127, -126, be == 0u);
}
";

impl PipelineKey for LowpKernel {
    fn label(self) -> &'static str {
        "matmul_lowp"
    }

    fn bindings(self) -> &'static [Binding] {
        use Binding::{Read, ReadWrite, Uniform};
        &[Uniform, Read, Read, ReadWrite, Read]
    }

    /// One source for both paths: the kernels read and write no `f16`.
    fn source(self, _native: bool) -> String {
        source(self)
    }
}

/// The WGSL source of `kernel`.
pub(crate) fn source(kernel: LowpKernel) -> String {
    let mut s = String::from(HEADER);
    s.push_str(ROUND_BF16);
    s.push_str(&barriers("p.zero"));
    match kernel {
        LowpKernel::Bf16Round => {
            let _ = writeln!(
                s,
                "@compute @workgroup_size({ROUND_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = gid.x + gid.y * (nwg.x * {ROUND_WORKGROUP}u);
    if (i < p.count) {{ out[i] = rbf(bitcast<f32>(a[i])); }}
}}"
            );
            return s;
        }
        LowpKernel::Fp8Limited => limited_helpers(&mut s),
        _ => {}
    }
    tile(&mut s, kernel);
    s
}

fn tile(s: &mut String, kernel: LowpKernel) {
    let _ = writeln!(
        s,
        "@compute @workgroup_size({TILE_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let id = gid.x + gid.y * (nwg.x * {TILE_WORKGROUP}u);
    let tiles = p.tiles_m * p.tiles_n;
    if (id >= tiles * p.batch) {{ return; }}
    let tn = id % p.tiles_n;
    let tm = (id / p.tiles_n) % p.tiles_m;
    let bi = id / tiles;
    let r0 = tm * {LOWP_ROWS}u;
    let c0 = tn * {LOWP_COLS}u;
    let abase = bi * p.m * p.k;
    let bbase = bi * p.k * p.n;"
    );
    rows_cols(
        s,
        "    let ra{i} = abase + min(r0 + {i}u, p.m - 1u) * p.k;",
        "    let cb{j} = bbase + min(c0 + {j}u, p.n - 1u);",
    );
    each(s, "    var s{i}_{j}: f32 = 0.0;");
    match kernel {
        LowpKernel::Bf16(acc) => {
            s.push_str(
                "    for (var kk = 0u; kk < p.k; kk = kk + 1u) {\n        let ob = kk * p.n;\n",
            );
            rows_cols(
                s,
                "        let x{i} = bf_a(ra{i} + kk);",
                "        let y{j} = bf_b(cb{j} + ob);",
            );
            // The product of two bf16 values is exact in f32: fused or
            // not, one f32 rounding per step; `pinned` keeps the steps in
            // the order of `k` (no driver can reassociate the running sum
            // across them).
            match acc {
                Bf16Accumulation::F32 => {
                    each(s, "        s{i}_{j} = pinned(x{i} * y{j} + s{i}_{j});")
                }
                Bf16Accumulation::Bf16 => {
                    each(s, "        s{i}_{j} = roundbf16(x{i} * y{j} + s{i}_{j});")
                }
            }
            s.push_str("    }\n");
        }
        LowpKernel::Fp8F32 => {
            // Groups of FP8_MMA_K products summed on their own, each
            // group's sum added to the accumulator.
            let g = FP8_MMA_K;
            let _ = writeln!(
                s,
                "    for (var g0 = 0u; g0 < p.k; g0 = g0 + {g}u) {{\n    let g1 = min(g0 + {g}u, p.k);"
            );
            each(s, "    var t{i}_{j}: f32 = 0.0;");
            s.push_str(
                "    for (var kk = g0; kk < g1; kk = kk + 1u) {\n        let ob = kk * p.n;\n",
            );
            rows_cols(
                s,
                "        let x{i} = val(q_a(ra{i} + kk));",
                "        let y{j} = val(q_b(cb{j} + ob));",
            );
            each(s, "        t{i}_{j} = pinned(x{i} * y{j} + t{i}_{j});");
            s.push_str("    }\n");
            each(s, "    s{i}_{j} = pinned(s{i}_{j} + t{i}_{j});");
            s.push_str("    }\n");
        }
        LowpKernel::Fp8Limited => limited_loop(s),
        LowpKernel::Bf16Round => unreachable!("not a tile kernel"),
    }
    let store = match kernel {
        LowpKernel::Bf16(_) => "rbf(s{i}_{j})",
        _ => "bitcast<u32>(s{i}_{j} * scales[bi])",
    };
    s.push_str("    let obase = bi * p.m * p.n;\n");
    for i in 0..LOWP_ROWS {
        let _ = writeln!(
            s,
            "    if (r0 + {i}u < p.m) {{\n        let o{i} = obase + (r0 + {i}u) * p.n + c0;"
        );
        for j in 0..LOWP_COLS {
            let v = store
                .replace("{i}", &i.to_string())
                .replace("{j}", &j.to_string());
            let _ = writeln!(
                s,
                "        if (c0 + {j}u < p.n) {{ out[o{i} + {j}u] = {v}; }}"
            );
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_generated_and_use_no_fma() {
        for kernel in [
            LowpKernel::Bf16(Bf16Accumulation::F32),
            LowpKernel::Bf16(Bf16Accumulation::Bf16),
            LowpKernel::Fp8F32,
            LowpKernel::Fp8Limited,
            LowpKernel::Bf16Round,
        ] {
            let src = source(kernel);
            assert!(src.contains("fn main("), "{kernel:?}");
            assert!(!src.contains("fma("), "{kernel:?}");
        }
    }
}
