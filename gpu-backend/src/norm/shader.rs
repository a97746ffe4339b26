//! WGSL sources of the LayerNorm kernels.
//!
//! Bindings are those of `crate::launch`: `in1` the rows `x`, `in2` the
//! weight `γ` and `in3` the bias `β`, both repeated for every row (so a
//! batch may mix inputs with different weights). The uniform holds the
//! rows in the dispatch, the row length, flags (bit 0: weight present,
//! bit 1: bias present) and `ε` as `f32` bits.

use core::fmt::Write as _;

use super::{LayerNormStrategy, RmsNormStrategy};
use crate::compile::Binding;
use crate::pipelines::PipelineKey;
use crate::reductions::ROW_THREADS;
use crate::reductions::shader::c;
use crate::wgsl::{EXACT, ROUND16, barriers};

/// Flag bit: a weight is present.
pub(super) const HAS_WEIGHT: u32 = 1;
/// Flag bit: a bias is present.
pub(super) const HAS_BIAS: u32 = 2;

/// A normalisation kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum NormKernel {
    /// LayerNorm.
    Layer(LayerNormStrategy),
    /// RMSNorm.
    Rms(RmsNormStrategy),
}

impl PipelineKey for NormKernel {
    fn label(self) -> &'static str {
        "norm"
    }

    fn bindings(self) -> &'static [Binding] {
        &SIX_BINDINGS
    }

    fn source(self, native: bool) -> String {
        source(self, native)
    }
}

/// The bindings the norm and attention kernels share (see [`prelude`]).
pub(crate) const SIX_BINDINGS: [Binding; 6] = [
    Binding::Uniform,
    Binding::Read,
    Binding::Read,
    Binding::Read,
    Binding::ReadWrite,
    Binding::ReadWrite,
];

/// The WGSL source of `kernel` for the native-`f16` path or the fallback.
pub(crate) fn source(kernel: NormKernel, native: bool) -> String {
    let mut s = prelude(native);
    s.push_str("struct Params { rows: u32, len: u32, flags: u32, eps: f32, pad: vec4<u32> }\n");
    s.push_str(&barriers("p.pad.x"));
    let _ = writeln!(
        s,
        "var<workgroup> wa: array<f32, {ROW_THREADS}>;
var<workgroup> wb: array<f32, {ROW_THREADS}>;
var<workgroup> wc: array<f32, {ROW_THREADS}>;

@compute @workgroup_size({ROW_THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {{
    let row = wid.x + wid.y * nwg.x;
    if (row >= p.rows) {{ return; }}
    let base = row * p.len;
    let n = f32(p.len);"
    );
    // The statistics, then each output's numerator before the division.
    let numerator = match kernel {
        NormKernel::Layer(LayerNormStrategy::OnePass) => one_pass(&mut s),
        NormKernel::Layer(LayerNormStrategy::TwoPass) => two_pass(&mut s),
        NormKernel::Layer(LayerNormStrategy::Welford) => welford(&mut s),
        NormKernel::Rms(strategy) => mean_square(&mut s, strategy),
    };
    let _ = writeln!(
        s,
        "    let sd = sqrt_rn(var_ + p.eps);
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        var y = div_rn({numerator}, sd);
        if ((p.flags & {HAS_WEIGHT}u) != 0u) {{ y = unfused(y * ld2(base + j)); }}
        if ((p.flags & {HAS_BIAS}u) != 0u) {{ y = pinned(y + ld3(base + j)); }}
        st(base + j, y);
    }}
}}"
    );
    s
}

/// What LayerNorm divides by `σ`.
const CENTRED: &str = "ld1(base + j) - mu";

/// RMSNorm's statistics: the mean square as `var_` (the output's divisor
/// is then `√(var_ + ε)`, as for LayerNorm); the numerator is `x` itself.
fn mean_square(s: &mut String, strategy: RmsNormStrategy) -> &'static str {
    let round = match strategy {
        RmsNormStrategy::F32 => "pinned",
        RmsNormStrategy::F16Accumulation => "round16",
    };
    let _ = writeln!(
        s,
        "    var s2 = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        let v = ld1(base + j);
        s2 = {round}(s2 + v * v);
    }}
    wa[t] = s2;"
    );
    tree(s, &format!("wa[t] = {round}(wa[t] + wa[t + h]);"));
    s.push_str("    let var_ = div_rn(wa[0], n);\n");
    "ld1(base + j)"
}

/// The tree over the slots: at step `h`, invocation `t < h` runs `body`
/// (which combines slot `t` with slot `t + h`).
fn tree(s: &mut String, body: &str) {
    let _ = writeln!(
        s,
        "    workgroupBarrier();
    for (var h = {}u; h > 0u; h = h >> 1u) {{
        if (t < h) {{ {body} }}
        workgroupBarrier();
    }}",
        ROW_THREADS / 2
    );
}

fn one_pass(s: &mut String) -> &'static str {
    let _ = writeln!(
        s,
        "    var s1 = 0.0;
    var s2 = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        let v = ld1(base + j);
        s1 = pinned(s1 + v);
        s2 = pinned(s2 + v * v);
    }}
    wa[t] = s1;
    wb[t] = s2;"
    );
    tree(s, "wa[t] = wa[t] + wa[t + h]; wb[t] = wb[t] + wb[t + h];");
    let _ = writeln!(
        s,
        "    let mu = div_rn(wa[0], n);
    let var_ = max(div_rn(wb[0], n) - unfused(mu * mu), {});",
        c(0.0)
    );
    CENTRED
}

fn two_pass(s: &mut String) -> &'static str {
    let _ = writeln!(
        s,
        "    var s1 = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ s1 = pinned(s1 + ld1(base + j)); }}
    wa[t] = s1;"
    );
    tree(s, "wa[t] = wa[t] + wa[t + h];");
    let _ = writeln!(
        s,
        "    let mu = div_rn(wa[0], n);
    workgroupBarrier();
    var s2 = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        let d = ld1(base + j) - mu;
        s2 = pinned(s2 + unfused(d * d));
    }}
    wa[t] = s2;"
    );
    tree(s, "wa[t] = wa[t] + wa[t + h];");
    s.push_str("    let var_ = div_rn(wa[0], n);\n");
    CENTRED
}

fn welford(s: &mut String) -> &'static str {
    let _ = writeln!(
        s,
        "    var cnt = 0.0;
    var m = 0.0;
    var m2 = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        let v = ld1(base + j);
        cnt = pinned(cnt + 1.0);
        let d = v - m;
        m = pinned(m + div_rn(d, cnt));
        m2 = pinned(m2 + unfused(d * (v - m)));
    }}
    wa[t] = cnt;
    wb[t] = m;
    wc[t] = m2;"
    );
    tree(
        s,
        "let na = wa[t]; let nb = wa[t + h];
            if (nb > 0.0) {
                let nn = na + nb;
                let d = wb[t + h] - wb[t];
                wb[t] = wb[t] + unfused(d * div_rn(nb, nn));
                wc[t] = pinned(wc[t] + wc[t + h]) + unfused(pinned(d * d) * div_rn(na * nb, nn));
                wa[t] = nn;
            }",
    );
    s.push_str("    let mu = wb[0];\n    let var_ = div_rn(wc[0], n);\n");
    CENTRED
}

/// The WGSL that declares the six bindings the norm and attention kernels
/// share (uniform `Params`; inputs `in1`, `in2`, `in3`, `f16`: `x`, `γ`, `β`
/// or `Q`, `K`, `V`; the `f16` output `out`; `f32` `scratch`, the
/// materialised attention scores), with `Params`
/// (declared by the caller) at binding 0, and the helpers `ld1`, `ld2`,
/// `ld3` (an `f16` input as `f32`), `st` (round to `f16` and store) for
/// the native path or the fallback, `round16` (round to `f16` on the
/// bits) and the correctly rounded `div_rn` and `sqrt_rn` (see
/// `crate::wgsl`).
pub(crate) fn prelude(native: bool) -> String {
    let elem = if native { "f16" } else { "u32" };
    let mut s = String::new();
    if native {
        s.push_str("enable f16;\n\n");
    }
    s.push_str("@group(0) @binding(0) var<uniform> p: Params;\n");
    for b in 1..=3 {
        s.push_str(&format!(
            "@group(0) @binding({b}) var<storage, read> in{b}: array<{elem}>;\n"
        ));
    }
    s.push_str(&format!(
        "@group(0) @binding(4) var<storage, read_write> out: array<{elem}>;\n\
         @group(0) @binding(5) var<storage, read_write> scratch: array<f32>;\n"
    ));
    for b in 1..=3 {
        if native {
            s.push_str(&format!(
                "fn ld{b}(i: u32) -> f32 {{ return f32(in{b}[i]); }}\n"
            ));
        } else {
            s.push_str(&format!(
                "fn ld{b}(i: u32) -> f32 {{ return unpack2x16float(in{b}[i >> 1u] >> ((i & 1u) << 4u)).x; }}\n"
            ));
        }
    }
    if native {
        s.push_str("fn st(i: u32, v: f32) { out[i] = f16(round16(v)); }\n");
    } else {
        s.push_str(
            "fn st(i: u32, v: f32) { out[i] = pack2x16float(vec2<f32>(round16(v), 0.0)); }\n",
        );
    }
    s.push_str(ROUND16);
    s.push_str(EXACT);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_use_neither_fma_nor_exp() {
        let kernels = LayerNormStrategy::ALL
            .map(NormKernel::Layer)
            .into_iter()
            .chain(RmsNormStrategy::ALL.map(NormKernel::Rms));
        for strategy in kernels {
            for native in [true, false] {
                let src = source(strategy, native);
                assert!(src.contains("struct Params"));
                assert_eq!(src.contains("enable f16;"), native);
                assert!(src.contains("fn main("), "{strategy:?}");
                assert!(!src.contains("fma(") && !src.contains(" exp("));
            }
        }
    }
}
