//! WGSL sources of the row kernels (reductions and softmax).
//!
//! Every row kernel shares one bind group layout:
//!
//! | binding | contents                                                   |
//! |---------|------------------------------------------------------------|
//! | 0       | `RowParams` (uniform): rows in the dispatch, row length    |
//! | 1       | the input rows, `f16` (read)                               |
//! | 2       | the output: one value per row, or one row per row (write)  |
//! | 3       | `f32` scratch, one value per input element (pairwise sum)  |
//!
//! Storage formats are those of the matmul kernels: `array<f16>` on the
//! native path; on the fallback path inputs are `f16` pairs packed in
//! `array<u32>` and outputs one `u32` per element (low half). Arithmetic is
//! `f32`; "`f16` arithmetic" is an `f32` operation rounded to `f16` at once
//! on the bits (`round16`, see `crate::wgsl`: never a conversion round
//! trip, which drivers may remove), which equals the `f16` operation for
//! `+` (the `f32` sum of two `f16` values rounded to `f16` is the correctly
//! rounded `f16` sum).
//!
//! Workgroup `row` (flattened over a 2-D dispatch) handles one row with
//! [`ROW_THREADS`] invocations; invocation `t` visits the elements
//! `t, t + ROW_THREADS, …` of the row, and the per-invocation results are
//! combined by a tree in workgroup memory: at step `s = ROW_THREADS/2, …,
//! 2, 1`, invocation `t < s` combines slot `t` with slot `t + s`.

use core::fmt::Write as _;

use super::emulate::{EXP_C, EXP_HI, EXP_LO, LN2_HI, LN2_LO, LOG2E};
use super::{ROW_THREADS, SoftmaxStrategy, SumStrategy};
use crate::compile::Binding;
use crate::pipelines::PipelineKey;
use crate::wgsl::{EXACT, ROUND16, barriers};

/// The layout of the uniform `RowParams` (four `u32`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct RowParams {
    /// Rows in this dispatch (all inputs of a batch together).
    pub(crate) rows: u32,
    /// Length of every row.
    pub(crate) len: u32,
    pub(crate) pad: [u32; 2],
}

/// A row kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RowKernel {
    /// A row sum.
    Sum(SumStrategy),
    /// A softmax over each row.
    Softmax(SoftmaxStrategy),
}

/// An `f32` constant, written by its bits (no decimal rounding on the way).
pub(crate) fn c(x: f32) -> String {
    format!("bitcast<f32>({:#010x}u)", x.to_bits())
}

impl PipelineKey for RowKernel {
    fn label(self) -> &'static str {
        "reductions"
    }

    fn bindings(self) -> &'static [Binding] {
        use Binding::{Read, ReadWrite, Uniform};
        &[Uniform, Read, ReadWrite, ReadWrite]
    }

    fn source(self, native: bool) -> String {
        source(self, native)
    }
}

/// The WGSL source of `kernel` for the native-`f16` path or the fallback.
pub(crate) fn source(kernel: RowKernel, native: bool) -> String {
    let mut s = String::new();
    let elem = if native { "f16" } else { "u32" };
    if native {
        s.push_str("enable f16;\n\n");
    }
    let _ = writeln!(
        s,
        "struct RowParams {{ rows: u32, len: u32, pad0: u32, pad1: u32 }}
@group(0) @binding(0) var<uniform> p: RowParams;
@group(0) @binding(1) var<storage, read> x: array<{elem}>;
@group(0) @binding(2) var<storage, read_write> out: array<{elem}>;
@group(0) @binding(3) var<storage, read_write> scratch: array<f32>;
var<workgroup> wa: array<f32, {ROW_THREADS}>;
var<workgroup> wb: array<f32, {ROW_THREADS}>;
"
    );
    if native {
        s.push_str(
            "fn ld(i: u32) -> f32 { return f32(x[i]); }\n\
             fn st(i: u32, v: f32) { out[i] = f16(round16(v)); }\n",
        );
    } else {
        s.push_str(
            "fn ld(i: u32) -> f32 { return unpack2x16float(x[i >> 1u] >> ((i & 1u) << 4u)).x; }\n\
             fn st(i: u32, v: f32) { out[i] = pack2x16float(vec2<f32>(round16(v), 0.0)); }\n",
        );
    }
    s.push_str(ROUND16);
    s.push_str(EXACT);
    exp_fn(&mut s, "p.pad0");
    let _ = writeln!(
        s,
        "@compute @workgroup_size({ROW_THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {{
    let row = wid.x + wid.y * nwg.x;
    if (row >= p.rows) {{ return; }}
    let base = row * p.len;"
    );
    match kernel {
        RowKernel::Sum(SumStrategy::Pairwise) => pairwise(&mut s),
        RowKernel::Sum(strategy) => strided_sum(&mut s, strategy),
        RowKernel::Softmax(strategy) => softmax(&mut s, strategy),
    }
    s.push_str("}\n");
    s
}

/// The bit barriers `unfused` and `pinned` (see `crate::wgsl::barriers`),
/// built from `zero` (a uniform that is always 0), and `ex(x)`: the
/// kernels' `exp`, the same `f32` operations as
/// [`kernel_exp`](super::kernel_exp). NaN is told by its bits (a driver
/// may fold `v != v` to false), every inexact product is `unfused`
/// (`k * LN2_HI` is exact, so fusing it changes nothing), and Cody–Waite's
/// first difference is `pinned`, so that no driver reassociates
/// `(v − k·hi) − k·lo` into `v − (k·hi + k·lo)`.
pub(crate) fn exp_fn(s: &mut String, zero: &str) {
    s.push_str(&barriers(zero));
    let _ = writeln!(
        s,
        "fn ex(v: f32) -> f32 {{
    if ((bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u) {{ return v; }}
    if (v < {lo}) {{ return 0.0; }}
    if (v > {hi}) {{ return bitcast<f32>(0x7f800000u); }}
    let k = floor(unfused(v * {log2e}) + 0.5);
    let ki = i32(k);
    let r = pinned(v - k * {hi2}) - unfused(f32(ki) * {lo2});
    var q = {c0};",
        lo = c(EXP_LO),
        hi = c(EXP_HI),
        log2e = c(LOG2E),
        hi2 = c(LN2_HI),
        lo2 = c(LN2_LO),
        c0 = c(EXP_C[0]),
    );
    for &coef in &EXP_C[1..] {
        let _ = writeln!(s, "    q = unfused(q * r) + {};", c(coef));
    }
    s.push_str("    return q * bitcast<f32>(u32(ki + 127) << 23u);\n}\n\n");
}

/// The tree over the workgroup slots `wa`, combining with `op(a, b)`.
fn tree(s: &mut String, op: &str) {
    let _ = writeln!(
        s,
        "    workgroupBarrier();
    for (var h = {}u; h > 0u; h = h >> 1u) {{
        if (t < h) {{ let a = wa[t]; let b = wa[t + h]; wa[t] = {op}; }}
        workgroupBarrier();
    }}",
        ROW_THREADS / 2
    );
}

fn strided_sum(s: &mut String, strategy: SumStrategy) {
    let (threads, round) = match strategy {
        SumStrategy::F16Serial => (1, "round16"),
        SumStrategy::F16 => (ROW_THREADS, "round16"),
        // The running sum in `f32`, pinned at each step: the order of the
        // elements is the order summed, whatever the driver.
        _ => (ROW_THREADS, "pinned"),
    };
    let _ = writeln!(
        s,
        "    var acc = 0.0;
    if (t < {threads}u) {{
        for (var j = t; j < p.len; j += {threads}u) {{ acc = {round}(acc + ld(base + j)); }}
    }}"
    );
    if threads == 1 {
        s.push_str("    if (t == 0u) { st(row, acc); }\n");
    } else {
        s.push_str("    wa[t] = acc;\n");
        tree(s, &format!("{round}(a + b)"));
        s.push_str("    if (t == 0u) { st(row, wa[0]); }\n");
    }
}

fn pairwise(s: &mut String) {
    let _ = writeln!(
        s,
        "    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ scratch[base + j] = ld(base + j); }}
    storageBarrier();
    var n = p.len;
    loop {{
        if (n <= 1u) {{ break; }}
        let h = (n + 1u) / 2u;
        for (var i = t; i < n - h; i += {ROW_THREADS}u) {{
            scratch[base + i] = scratch[base + i] + scratch[base + i + h];
        }}
        storageBarrier();
        n = h;
    }}
    if (t == 0u) {{ st(row, scratch[base]); }}"
    );
}

fn softmax(s: &mut String, strategy: SoftmaxStrategy) {
    let neg_inf = "bitcast<f32>(0xff800000u)";
    if strategy == SoftmaxStrategy::Online {
        let _ = writeln!(
            s,
            "    var m = {neg_inf};
    var d = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{
        let v = ld(base + j);
        let mn = max(m, v);
        d = unfused(d * ex(m - mn)) + ex(v - mn);
        m = mn;
    }}
    wa[t] = m;
    wb[t] = d;
    workgroupBarrier();
    for (var h = {half}u; h > 0u; h = h >> 1u) {{
        if (t < h) {{
            let m1 = wa[t]; let m2 = wa[t + h];
            let mn = max(m1, m2);
            var dn = 0.0;
            if (bitcast<u32>(mn) != 0xff800000u) {{
                dn = unfused(wb[t] * ex(m1 - mn)) + unfused(wb[t + h] * ex(m2 - mn));
            }}
            wa[t] = mn;
            wb[t] = dn;
        }}
        workgroupBarrier();
    }}
    let mx = wa[0];
    let den = wb[0];
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ st(base + j, div_rn(ex(ld(base + j) - mx), den)); }}",
            half = ROW_THREADS / 2
        );
        return;
    }
    if strategy == SoftmaxStrategy::NoMaxSubtraction {
        s.push_str("    let mx = 0.0;\n");
    } else {
        let _ = writeln!(
            s,
            "    var m = {neg_inf};
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ m = max(m, ld(base + j)); }}
    wa[t] = m;"
        );
        tree(s, "max(a, b)");
        s.push_str("    let mx = wa[0];\n    workgroupBarrier();\n");
    }
    // The exponential of element j, and how the denominator accumulates.
    let (e, round) = match strategy {
        SoftmaxStrategy::Careful => ("ex(ld(base + j) - mx)", "pinned"),
        SoftmaxStrategy::NoMaxSubtraction => ("round16(ex(ld(base + j)))", "pinned"),
        _ => ("round16(ex(ld(base + j) - mx))", "round16"),
    };
    let _ = writeln!(
        s,
        "    var d = 0.0;
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ d = {round}(d + {e}); }}
    wa[t] = d;"
    );
    tree(s, &format!("{round}(a + b)"));
    let _ = writeln!(
        s,
        "    let den = wa[0];
    for (var j = t; j < p.len; j += {ROW_THREADS}u) {{ st(base + j, div_rn({e}, den)); }}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_generated_for_every_row_kernel_and_path() {
        let kernels = SumStrategy::ALL
            .map(RowKernel::Sum)
            .into_iter()
            .chain(SoftmaxStrategy::ALL.map(RowKernel::Softmax));
        for kernel in kernels {
            for native in [true, false] {
                let src = source(kernel, native);
                assert_eq!(src.starts_with("enable f16;"), native);
                assert!(src.contains("fn main("), "{kernel:?}");
                // No fused operations and no builtin exp (see kernel_exp).
                assert!(
                    !src.contains("fma(") && !src.contains(" exp("),
                    "{kernel:?}"
                );
            }
        }
    }
}
