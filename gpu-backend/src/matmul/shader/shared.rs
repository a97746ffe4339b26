//! The tile kernels for GPUs ([`Tiling::Shared`](super::Tiling::Shared)):
//! workgroups of [`SHARED_WORKGROUP`] invocations (two 32-wide subgroups,
//! or one 64-wide) own a [`SHARED_TILE`]` × `[`SHARED_TILE`] block of `C`
//! and step through their chunk of `k` [`SHARED_K`] at a time. At each
//! step every invocation fetches one texel of `A` and one of `B` (those of
//! the next step, while the current one is summed), the workgroup stores
//! them unpacked in workgroup memory, and each invocation sums its `2 × 2`
//! outputs from there: rows `ty` and `ty + 8`, columns `tx` and `tx + 8` of
//! the block, with `ty, tx` in `0..8`.
//!
//! The sums are those of the register-block kernels, operation for
//! operation: the `f32` kernel sums each block of [`K_BLOCK`] products of
//! the chunk in the order of `k` (a step holds two blocks) and adds each
//! block's sum to the output's; the `f16` kernel adds each product to the
//! output's sum and rounds. Positions past the chunk's end (its last step
//! may hold only 8 of the 32) are fetched clamped and never summed.

use core::fmt::Write as _;

use super::{K_BLOCK, MatmulKernel, grid_prologue, texture_decls};

/// Invocations per workgroup.
pub(crate) const SHARED_WORKGROUP: u32 = 64;

/// Rows and columns of `C` per workgroup.
pub(crate) const SHARED_TILE: u32 = 16;

/// Products of `k` per step (two blocks of [`K_BLOCK`]).
pub(crate) const SHARED_K: u32 = 32;

/// Words from one row of the staged `A` to the next: one more than
/// [`SHARED_K`], so that the rows the invocations of a 32-wide subgroup
/// read at once (four rows, the same `k`) fall in four memory banks.
const A_STRIDE: u32 = SHARED_K + 1;

const _: () = assert!(SHARED_K == 2 * K_BLOCK as u32 && SHARED_TILE == 16);

pub(super) fn tile(s: &mut String, kernel: MatmulKernel, native: bool) {
    texture_decls(s, native);
    let (wg, t, kstep, stride) = (SHARED_WORKGROUP, SHARED_TILE, SHARED_K, A_STRIDE);
    let prologue = grid_prologue(&format!("tm * {t}u"), &format!("tn * {t}u"));
    let _ = writeln!(
        s,
        "var<workgroup> sa: array<f32, {sa}>;
var<workgroup> sb: array<f32, {sb}>;

// Stores the texel `v` unpacked at `at` of `sa` (a) or `sb` (b).
fn put_a(at: u32, v: vec4<u32>) {{
    let y0 = unpack2x16float(v[0]); let y1 = unpack2x16float(v[1]);
    let y2 = unpack2x16float(v[2]); let y3 = unpack2x16float(v[3]);
    sa[at] = y0.x; sa[at + 1u] = y0.y; sa[at + 2u] = y1.x; sa[at + 3u] = y1.y;
    sa[at + 4u] = y2.x; sa[at + 5u] = y2.y; sa[at + 6u] = y3.x; sa[at + 7u] = y3.y;
}}
fn put_b(at: u32, v: vec4<u32>) {{
    let y0 = unpack2x16float(v[0]); let y1 = unpack2x16float(v[1]);
    let y2 = unpack2x16float(v[2]); let y3 = unpack2x16float(v[3]);
    sb[at] = y0.x; sb[at + 1u] = y0.y; sb[at + 2u] = y1.x; sb[at + 3u] = y1.y;
    sb[at + 4u] = y2.x; sb[at + 5u] = y2.y; sb[at + 6u] = y3.x; sb[at + 7u] = y3.y;
}}

@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let id = wid.x + wid.y * nwg.x;
{prologue}
    let tx = li % 8u;
    let ty = li / 8u;
    // The texels this invocation fetches: row `li / 4` of the block of A,
    // texel `li % 4` of the step; row `li / 2` of the step's rows of B,
    // texel `li % 2` of the block's columns.
    let ra = min(r0 + li / 4u, p.m - 1u) * (p.kt / 8u);
    let last = (k1 - 1u) / 8u;
    let cb = min(c0 / 8u + li % 2u, nv - 1u);
    var va = lda(ra + min(k0 / 8u + li % 4u, last), bi);
    var vb = ldb(cb + min(k0 + li / 2u, k1 - 1u) * nv, bi);
    var s0 = 0.0; var s1 = 0.0; var s2 = 0.0; var s3 = 0.0;
    for (var kb = k0; kb < k1; kb = kb + {kstep}u) {{
        put_a((li / 4u) * {stride}u + (li % 4u) * 8u, va);
        put_b((li / 2u) * {t}u + (li % 2u) * 8u, vb);
        workgroupBarrier();
        let kn = kb + {kstep}u;
        if (kn < k1) {{
            va = lda(ra + min(kn / 8u + li % 4u, last), bi);
            vb = ldb(cb + min(kn + li / 2u, k1 - 1u) * nv, bi);
        }}
        // Products in this step, a multiple of 8.
        let n8 = min((k1 - kb) / 8u, {groups}u);",
        sa = t * stride,
        sb = kstep * t,
        groups = kstep / 8,
    );
    let f16_acc = kernel == MatmulKernel::TileF16;
    if !f16_acc {
        s.push_str("        var t0 = 0.0; var t1 = 0.0; var t2 = 0.0; var t3 = 0.0;\n");
    }
    // Output o of the invocation: row ty + 8·(o / 2), column tx + 8·(o % 2).
    for g in 0..kstep / 8 {
        let _ = writeln!(s, "        if (n8 > {g}u) {{");
        for kk in g * 8..g * 8 + 8 {
            let _ = writeln!(
                s,
                "            let a0_{kk} = sa[ty * {stride}u + {kk}u]; let a1_{kk} = sa[(ty + 8u) * {stride}u + {kk}u];
            let b0_{kk} = sb[{kk}u * {t}u + tx]; let b1_{kk} = sb[{kk}u * {t}u + tx + 8u];"
            );
            for (o, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                if f16_acc {
                    let _ = writeln!(
                        s,
                        "            s{o} = round16(fma(a{i}_{kk}, b{j}_{kk}, s{o}));"
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "            t{o} = pinned(fma(a{i}_{kk}, b{j}_{kk}, t{o}));"
                    );
                }
            }
        }
        s.push_str("        }\n");
        // The end of a block of K_BLOCK products: its sum joins the output's
        // (a block with no product in the chunk adds nothing).
        if !f16_acc && (g + 1) * 8 % K_BLOCK as u32 == 0 {
            let first = g + 1 - K_BLOCK as u32 / 8;
            let _ = writeln!(
                s,
                "        if (n8 > {first}u) {{ s0 = pinned(s0 + t0); s1 = pinned(s1 + t1); s2 = pinned(s2 + t2); s3 = pinned(s3 + t3); }}
        t0 = 0.0; t1 = 0.0; t2 = 0.0; t3 = 0.0;"
            );
        }
    }
    let _ = writeln!(
        s,
        "        workgroupBarrier();
    }}
    let obase = (bi * p.splits + sp) * p.m * p.n;
    let ca = c0 + tx;
    let cz = c0 + tx + 8u;
    if (r0 + ty < p.m) {{
        let o = obase + (r0 + ty) * p.n;
        if (ca < p.n) {{ st(o + ca, s0); }}
        if (cz < p.n) {{ st(o + cz, s1); }}
    }}
    if (r0 + ty + 8u < p.m) {{
        let o = obase + (r0 + ty + 8u) * p.n;
        if (ca < p.n) {{ st(o + ca, s2); }}
        if (cz < p.n) {{ st(o + cz, s3); }}
    }}
}}"
    );
}
