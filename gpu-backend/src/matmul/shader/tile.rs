//! The tile kernels' generator: one unrolled loop body per [`Tiling`],
//! the `f32`-accumulating and the `f16`-accumulating variants.

use core::fmt::Write as _;

use super::{K_BLOCK, MatmulKernel, TILE_WORKGROUP, Tiling, grid_prologue, texture_decls};

/// The kernel for [`Tiling::Lanes`] or [`Tiling::Subgroup`] (the shared
/// tiling has its own generator, `shared`).
pub(super) fn tile(s: &mut String, kernel: MatmulKernel, native: bool, tiling: Tiling) {
    assert!(
        tiling != Tiling::Shared,
        "the shared tiling has its own generator"
    );
    texture_decls(s, native);
    let wg = TILE_WORKGROUP;
    let ((rows, tn), f16_acc) = (tiling.block(kernel), kernel == MatmulKernel::TileF16);
    let (tm, qn) = (rows / tiling.invocations(), tn / 8);
    let (signature, id, r0) = match tiling {
        Tiling::Lanes => (
            "@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>",
            format!("gid.x + gid.y * (nwg.x * {wg}u)"),
            format!("tm * {tm}u"),
        ),
        Tiling::Subgroup => (
            "@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, \
             @builtin(subgroup_invocation_id) lane: u32",
            "wid.x + wid.y * nwg.x".to_owned(),
            format!("tm * {rows}u + lane * {tm}u"),
        ),
        Tiling::Shared => unreachable!("asserted above"),
    };
    let _ = writeln!(
        s,
        "@compute @workgroup_size({wg})
fn main({signature}) {{
    let id = {id};
{prologue}",
        prologue = grid_prologue(&r0, &format!("tn * {tn}u")),
    );
    for i in 0..tm {
        let _ = writeln!(s, "    let ra{i} = min(r0 + {i}u, p.m - 1u) * (p.kt / 8u);");
    }
    for q in 0..qn {
        let _ = writeln!(s, "    let cb{q} = min(c0 / 8u + {q}u, nv - 1u);");
    }
    for i in 0..tm {
        for j in 0..tn {
            let _ = writeln!(s, "    var s{i}_{j}: f32 = 0.0;");
        }
    }
    // f16 accumulation adds each product to `s` directly; f32 accumulation
    // sums blocks of K_BLOCK products into `t`, then adds each block's sum
    // to `s` (see `Accumulation::F32`).
    if f16_acc {
        s.push_str("    for (var kg = k0; kg < k1; kg = kg + 8u) {\n");
    } else {
        let _ = writeln!(
            s,
            "    for (var kb = k0; kb < k1; kb = kb + {K_BLOCK}u) {{\n    let ke = min(kb + {K_BLOCK}u, k1);"
        );
        for i in 0..tm {
            for j in 0..tn {
                let _ = writeln!(s, "    var t{i}_{j}: f32 = 0.0;");
            }
        }
        s.push_str("    for (var kg = kb; kg < ke; kg = kg + 8u) {\n");
    }
    // The step's values of B: `b(kk, j)` is B[kg + kk][c0 + j].
    let half = |j: u32| if j.is_multiple_of(2) { "x" } else { "y" };
    let b: Box<dyn Fn(u32, u32) -> String> = match tiling {
        Tiling::Lanes => {
            for kk in 0..8u32 {
                for q in 0..qn {
                    let _ = writeln!(
                        s,
                        "        let vb{q}_{kk} = ldb(cb{q} + (kg + {kk}u) * nv, bi);"
                    );
                    for w in 0..4 {
                        let _ = writeln!(
                            s,
                            "        let y{q}_{kk}_{w} = unpack2x16float(vb{q}_{kk}[{w}]);"
                        );
                    }
                }
            }
            Box::new(move |kk, j| format!("y{}_{kk}_{}.{}", j / 8, (j % 8) / 2, half(j)))
        }
        Tiling::Subgroup => {
            // Invocation `lane` reads row kg + lane; each value reaches the
            // others by broadcast.
            for q in 0..qn {
                let _ = writeln!(s, "        let vb{q} = ldb(cb{q} + (kg + lane) * nv, bi);");
                for w in 0..4 {
                    let _ = writeln!(s, "        let y{q}_{w} = unpack2x16float(vb{q}[{w}]);");
                }
            }
            for kk in 0..8u32 {
                for j in 0..tn {
                    let _ = writeln!(
                        s,
                        "        let b{kk}_{j} = subgroupBroadcast(y{}_{}.{}, {kk}u);",
                        j / 8,
                        (j % 8) / 2,
                        half(j)
                    );
                }
            }
            Box::new(|kk, j| format!("b{kk}_{j}"))
        }
        Tiling::Shared => unreachable!("asserted above"),
    };
    // The f32 sums row by row, each sum's eight products in a row: a sum
    // stays in a register for its eight steps (the sums do not fit in a
    // CPU's registers all at once, so stepping every sum at every `kk`
    // would load and store each of them eight times). The f16 sums step by
    // step, all sums at each: each step waits for the previous one's
    // rounding, so independent sums must be interleaved to keep the CPU
    // busy.
    for i in 0..tm {
        let _ = writeln!(s, "        let va{i} = lda(ra{i} + kg / 8u, bi);");
        for kk in 0..8u32 {
            let _ = writeln!(
                s,
                "        let x{i}_{kk} = unpack2x16float(va{i}[{}]).{};",
                kk / 2,
                half(kk)
            );
        }
        if f16_acc {
            continue;
        }
        for j in 0..tn {
            for kk in 0..8u32 {
                // The product of two f16 values is exact in f32, so fused or
                // not, this is one rounding per step; `pinned` keeps the
                // steps in the order of `k` (no driver can reassociate
                // the running sum across them).
                let y = b(kk, j);
                let _ = writeln!(
                    s,
                    "        t{i}_{j} = pinned(fma(x{i}_{kk}, {y}, t{i}_{j}));"
                );
            }
        }
    }
    if f16_acc {
        for kk in 0..8u32 {
            for i in 0..tm {
                for j in 0..tn {
                    let y = b(kk, j);
                    let _ = writeln!(
                        s,
                        "        s{i}_{j} = round16(fma(x{i}_{kk}, {y}, s{i}_{j}));"
                    );
                }
            }
        }
    }
    s.push_str("    }\n");
    if !f16_acc {
        for i in 0..tm {
            for j in 0..tn {
                let _ = writeln!(s, "    s{i}_{j} = pinned(s{i}_{j} + t{i}_{j});");
            }
        }
        s.push_str("    }\n");
    }
    s.push_str("    let obase = (bi * p.splits + sp) * p.m * p.n;\n");
    for i in 0..tm {
        let _ = writeln!(
            s,
            "    if (r0 + {i}u < p.m) {{\n        let o{i} = obase + (r0 + {i}u) * p.n + c0;"
        );
        for j in 0..tn {
            let _ = writeln!(
                s,
                "        if (c0 + {j}u < p.n) {{ st(o{i} + {j}u, s{i}_{j}); }}"
            );
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
}
