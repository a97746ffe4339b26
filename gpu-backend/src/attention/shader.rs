//! WGSL sources of the attention kernels.
//!
//! Bindings are those of `crate::launch`: `in1` `Q`, `in2` `K`, `in3` `V`
//! (all heads of the dispatch, `[heads, seq, dim]` row-major), `out` the
//! output `[heads, seq_q, d_v]`, `scratch` the scores of `Naive`
//! (`[heads, seq_q, seq_k]`). The uniform holds the (head, query) pairs of
//! the dispatch, `seq_q`, `seq_k`, `d`, `d_v`, the causal flag and the
//! scale `1/√d` as `f32` bits.

use core::fmt::Write as _;

use super::{ATTENTION_THREADS, AttentionStrategy, FLASH_BLOCK};
use crate::compile::Binding;
use crate::norm::shader::{SIX_BINDINGS, prelude};
use crate::pipelines::PipelineKey;
use crate::reductions::shader::exp_fn;

/// The attention family's pipeline key: a strategy and the head
/// dimensions its source is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AttentionKey {
    /// The strategy.
    pub(crate) strategy: AttentionStrategy,
    /// The dimension of queries and keys.
    pub(crate) d: u32,
    /// The dimension of values.
    pub(crate) d_v: u32,
}

impl PipelineKey for AttentionKey {
    fn label(self) -> &'static str {
        "attention"
    }

    fn bindings(self) -> &'static [Binding] {
        &SIX_BINDINGS
    }

    fn source(self, native: bool) -> String {
        source(self.strategy, self.d as usize, self.d_v as usize, native)
    }
}

/// The WGSL source of `strategy` for head dimensions `d` and `d_v`, for the
/// native-`f16` path or the fallback. The loops over `d` and `d_v` are
/// unrolled here: the query row and the accumulators are scalar variables
/// (registers), and only the loops over keys remain (llvmpipe stops any
/// invocation after 65535 loop iterations in all, see
/// [`MAX_KEYS`](super::MAX_KEYS)), and in the flash strategies the loop
/// over the outputs that divides them by the sum.
pub(crate) fn source(strategy: AttentionStrategy, d: usize, d_v: usize, native: bool) -> String {
    let mut s = prelude(native);
    s.push_str(
        "struct Params { total: u32, seq_q: u32, seq_k: u32, d: u32,
                 d_v: u32, causal: u32, scale: f32, pad: u32 }\n",
    );
    exp_fn(&mut s, "p.pad");
    let _ = writeln!(
        s,
        "@compute @workgroup_size({ATTENTION_THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {{
    let g = (wid.x + wid.y * nwg.x) * {ATTENTION_THREADS}u + lid;
    if (g >= p.total) {{ return; }}
    let h = g / p.seq_q;
    let i = g % p.seq_q;
    var keys = p.seq_k;
    if (p.causal != 0u) {{ keys = min(i + 1u, p.seq_k); }}
    let kb = h * p.seq_k * {d}u;
    let vb = h * p.seq_k * {d_v}u;
    let ob = g * {d_v}u;
    let qb = g * {d}u;"
    );
    for c in 0..d {
        let _ = writeln!(s, "    let q{c} = ld1(qb + {c}u);");
    }
    for c in 0..d_v {
        let _ = writeln!(s, "    var o{c} = 0.0;");
    }
    // The unscaled score of key `j` into `s`, summed over c = 0, 1, ….
    let mut dot = String::from("var s = 0.0;\n        let kj = kb + j * ");
    let _ = writeln!(dot, "{d}u;");
    for c in 0..d {
        let _ = writeln!(dot, "        s = pinned(s + q{c} * ld2(kj + {c}u));");
    }
    // `o_c ← R(o_c + pj · v_jc)` for every c.
    let pv = |round: &str| {
        let mut t = format!("let vj = vb + j * {d_v}u;\n");
        for c in 0..d_v {
            let _ = writeln!(
                t,
                "            o{c} = {round}(o{c} + unfused(pj * ld3(vj + {c}u)));"
            );
        }
        t
    };
    match strategy {
        AttentionStrategy::Naive => {
            let _ = writeln!(
                s,
                "    let sb = g * p.seq_k;
    var m = bitcast<f32>(0xff800000u);
    for (var j = 0u; j < keys; j++) {{
        {dot}
        let s16 = round16(s * p.scale);
        scratch[sb + j] = s16;
        m = max(m, s16);
    }}
    var z = 0.0;
    for (var j = 0u; j < keys; j++) {{
        let e = ex(scratch[sb + j] - m);
        scratch[sb + j] = e;
        z = pinned(z + e);
    }}
    for (var j = 0u; j < keys; j++) {{
        let pj = round16(div_rn(scratch[sb + j], z));
        {pv}
    }}",
                pv = pv("pinned")
            );
            for c in 0..d_v {
                let _ = writeln!(s, "    st(ob + {c}u, o{c});");
            }
        }
        AttentionStrategy::Flash | AttentionStrategy::FlashF16Accumulation => {
            let r = if strategy == AttentionStrategy::Flash {
                "pinned"
            } else {
                "round16"
            };
            let mut rescale = String::new();
            for c in 0..d_v {
                let _ = writeln!(rescale, "        o{c} = {r}(unfused(o{c} * alpha));");
            }
            let _ = writeln!(
                s,
                "    var m = bitcast<f32>(0xff800000u);
    var l = 0.0;
    var sblk: array<f32, {FLASH_BLOCK}>;
    for (var j0 = 0u; j0 < keys; j0 += {FLASH_BLOCK}u) {{
        let j1 = min(j0 + {FLASH_BLOCK}u, keys);
        var mb = m;
        for (var j = j0; j < j1; j++) {{
            {dot}
            let sc = unfused(s * p.scale);
            sblk[j - j0] = sc;
            mb = max(mb, sc);
        }}
        let alpha = ex(m - mb);
        l = unfused(l * alpha);
{rescale}
        for (var j = j0; j < j1; j++) {{
            let pj = ex(sblk[j - j0] - mb);
            l = pinned(l + pj);
            {pv}
        }}
        m = mb;
    }}",
                pv = pv(r)
            );
            // One copy of the exact division, in a loop over the outputs:
            // inlined once per output, `d_v` copies took LLVM about 0.06 s
            // each to compile (1 s of the 1.1 s at d_v = 16).
            let _ = writeln!(s, "    var ov: array<f32, {d_v}>;");
            for c in 0..d_v {
                let _ = writeln!(s, "    ov[{c}] = o{c};");
            }
            let _ = writeln!(
                s,
                "    for (var c = 0u; c < {d_v}u; c++) {{ st(ob + c, div_rn(ov[c], l)); }}"
            );
        }
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_use_neither_fma_nor_the_builtin_exp() {
        for strategy in AttentionStrategy::ALL {
            for native in [true, false] {
                let src = source(strategy, 5, 3, native);
                assert_eq!(src.contains("enable f16;"), native);
                assert!(src.contains("fn main("), "{strategy:?}");
                assert!(!src.contains("fma(") && !src.contains(" exp("));
            }
        }
    }
}
