//! WGSL sources of the matmul kernels, generated with their register-block
//! loops fully unrolled.
//!
//! Bindings:
//!
//! | binding | tile kernels                          | split-K reduction        |
//! |---------|---------------------------------------|--------------------------|
//! | 0       | `Params` (uniform)                    | `Params` (uniform)       |
//! | 1       | `A`, `texture_2d<u32>`                | the partials (read)      |
//! | 2       | `B`, `texture_2d<u32>`                | unused                   |
//! | 3       | `C` or the split-K partials (write)   | `C` (write)              |
//!
//! Input format. `A` and `B` are `Rgba32Uint` textures seen as flat arrays
//! of texels ([`TEXTURE_WIDTH`] per row), the matmuls of a batch one after
//! another (`Params::la` and `Params::lb` texels apart); a texel holds
//! eight `f16` (four `u32`, two `f16` each), unpacked exactly with
//! `unpack2x16float`. They are uploaded in the padded layout of
//! `matmul/dispatch.rs`: every split-K chunk of `k` (all of `k` without
//! split-K) and every row of `B` padded with zeros (`-0` in `A`, `+0` in
//! `B`) to a multiple of 8, so that no texel straddles a chunk or a row.
//!
//! Why textures: llvmpipe loads a storage buffer one lane and one 32-bit
//! word at a time, inserting each word into the SIMD vector through the
//! stack (about 25 cycles per word), which made the kernels load-bound;
//! texel fetches are vectorised (one 128-bit load per lane, then a
//! transpose), several times cheaper per word. On GPUs texture reads are
//! as fast as storage reads.
//!
//! Output format. With `SHADER_F16` (the *native* path) outputs and
//! partials are `array<f16>`. Without it (the *fallback* path) they are one
//! `u32` per element whose low half holds the `f16` bits, written with
//! `pack2x16float`. On both paths all arithmetic is `f32` on values read
//! exactly from `f16`, and every rounding to `f16` is an `f32 → f16`
//! conversion (`f16(x)` or `pack2x16float`), so the two paths give
//! identical results wherever the device rounds those conversions to
//! nearest-even.
//!
//! Work decomposition of the tile kernels ([`Tiling`]): each work item owns
//! one block of `C`, for one split of `k` and one matmul of the batch, in
//! the order `(batch, split, block row, block column)`, and steps through
//! its chunk of `k` eight products at a time (one texel of each of its rows
//! of `A`, one texel per eight columns of each of eight rows of `B`). With
//! [`Tiling::Lanes`] a work item is one invocation and its `TM × TN` block;
//! with [`Tiling::Subgroup`] it is a workgroup of eight invocations in one
//! subgroup, owning `8·SUBGROUP_TM × SUBGROUP_TN`: invocation `l` owns
//! `SUBGROUP_TM` rows, reads row `l` of each step's eight rows of `B`, and
//! the eight invocations share those values with `subgroupBroadcast`, so
//! `B` is read once per workgroup instead of once per invocation. The
//! `f16`-accumulating kernel uses `F16_TM × F16_TN` in place of both
//! blocks. Every
//! sum adds its products in the order of `k` either way, so the two
//! tilings give identical results. Loads are clamped to the last
//! row/column, so the inner loop has no bounds checks; stores outside `C`
//! are skipped.

mod shared;
mod tile;

use core::fmt::Write as _;

use super::K_BLOCK;
use crate::compile::Binding;
use crate::device::adapter::{AdapterSummary, SUBGROUP_MIN};
use crate::pipelines::PipelineKey;
use crate::wgsl::{ROUND16, barriers};

pub(crate) use self::shared::{SHARED_TILE, SHARED_WORKGROUP};

/// Invocations per workgroup of the register-block tile kernels
/// ([`Tiling::Lanes`], [`Tiling::Subgroup`]). llvmpipe runs each
/// workgroup on one thread, eight invocations per 256-bit SIMD vector, so
/// small workgroups spread the few blocks of a `128 × 128` output over
/// every core. On a GPU a workgroup of 8 fills a quarter of a warp: GPUs
/// get [`Tiling::Shared`] instead. A subgroup shares `B` with the whole
/// workgroup only where it holds one: the device's rule
/// ([`SUBGROUP_MIN`]) is this size.
pub(crate) const TILE_WORKGROUP: u32 = 8;
const _: () = assert!(TILE_WORKGROUP == SUBGROUP_MIN);

/// Invocations per workgroup of the split-K reduction (one output element
/// each).
pub(crate) const REDUCE_WORKGROUP: u32 = 64;

/// Texels per row of the input textures (a power of two): the kernels see
/// each texture as one array of texels, row after row.
pub(crate) const TEXTURE_WIDTH: u32 = 2048;

/// Rows of `C` per invocation with [`Tiling::Lanes`].
pub(crate) const TM: u32 = 8;

/// Columns of `C` per invocation with [`Tiling::Lanes`] (a multiple of 8:
/// `B` is read eight columns per texel). `8 × 16` (128 `f32` sums, twice
/// that with the `K_BLOCK` block sums) spills on AVX2's 16 vector
/// registers, but spills are cheaper than the texel fetches a smaller
/// block needs (see the crate docs for the measurements).
pub(crate) const TN: u32 = 16;

/// Rows of `C` per invocation with [`Tiling::Subgroup`] (a workgroup owns
/// eight times as many). `4`, not `8`: on llvmpipe (2-core AMD EPYC,
/// Mesa 22.3, `128×4096×128`, `f32` accumulation, batches of 8, the two
/// builds alternating) `4 × 32` took 7.0–7.8 ms a matmul against 8.7–9.2
/// ms for `8 × 32` on the AVX2 path and about as long on the AVX-512 path,
/// and its unrolled body (128 sums instead of 256) compiles in a third of
/// the time (4.6–5 s against 13–15 s on AVX-512), paid again for each
/// imitated driver freedom on a machine whose shader cache is empty.
pub(crate) const SUBGROUP_TM: u32 = 4;

/// Columns of `C` per workgroup with [`Tiling::Subgroup`] (a multiple of
/// 8). Measured on llvmpipe (AVX2), relative to `8 × 32`: `8 × 16` 1.3×
/// slower, `16 × 16` 1.2×, `4 × 32` 1.1×; `16 × 32` and `8 × 64` up to 7%
/// faster in one run and slower in another, and their unrolled bodies take
/// three to four times longer to compile.
pub(crate) const SUBGROUP_TN: u32 = 32;

/// Rows of `C` per invocation of the `f16`-accumulating kernel, either
/// tiling.
pub(crate) const F16_TM: u32 = 4;

/// Columns of `C` per invocation (lanes) or workgroup (subgroup) of the
/// `f16`-accumulating kernel. Each of its steps waits for the previous
/// one's rounding, so its time goes to those chains, and small blocks do
/// best (llvmpipe, AVX2, `128×4096×128`, subgroups: `4 × 8` 26–30 ms,
/// `2 × 8` 28 ms, `4 × 16` and `8 × 8` 33 ms, `8 × 16` 47 ms), and compile
/// fastest: LLVM's register allocator takes 0.7 s for `4 × 8`, 3.3 s for
/// `8 × 16`, and took 28 s for the `f32` kernel's `8 × 32`, in every
/// process that uses the kernel.
pub(crate) const F16_TN: u32 = 8;

/// How the invocations of a tile kernel divide `C` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Tiling {
    /// One invocation per `TM × TN` block, each reading its own inputs.
    Lanes,
    /// One workgroup (one subgroup of eight or more invocations) per
    /// `8·SUBGROUP_TM × SUBGROUP_TN` block, sharing `B` through
    /// `subgroupBroadcast`.
    Subgroup,
    /// One workgroup of [`SHARED_WORKGROUP`] invocations per
    /// [`SHARED_TILE`]` × `[`SHARED_TILE`] block, `A` and `B` staged in
    /// workgroup memory 32 products at a time (the GPUs' kernel, see
    /// `shared`).
    Shared,
}

impl Tiling {
    /// The tiling of the matmuls on the adapter `summary` describes: the
    /// choice made when its context was created, from its options and the
    /// device's facts.
    pub(crate) fn of(summary: &AdapterSummary) -> Tiling {
        if summary.shared_tiles {
            Tiling::Shared
        } else if summary.subgroups {
            Tiling::Subgroup
        } else {
            Tiling::Lanes
        }
    }

    /// Rows and columns of `C` per work item of `kernel`.
    pub(crate) fn block(self, kernel: MatmulKernel) -> (u32, u32) {
        let (tm, tn) = match (self, kernel) {
            (Tiling::Shared, _) => return (SHARED_TILE, SHARED_TILE),
            (_, MatmulKernel::TileF16) => (F16_TM, F16_TN),
            (Tiling::Lanes, _) => (TM, TN),
            (Tiling::Subgroup, _) => (SUBGROUP_TM, SUBGROUP_TN),
        };
        (tm * self.invocations(), tn)
    }

    /// Invocations per work item.
    pub(crate) fn invocations(self) -> u32 {
        match self {
            Tiling::Lanes => 1,
            Tiling::Subgroup => TILE_WORKGROUP,
            Tiling::Shared => SHARED_WORKGROUP,
        }
    }

    /// Invocations per workgroup.
    pub(crate) fn workgroup(self) -> u32 {
        match self {
            Tiling::Lanes | Tiling::Subgroup => TILE_WORKGROUP,
            Tiling::Shared => SHARED_WORKGROUP,
        }
    }
}

/// The layout of the uniform `Params` (sixteen `u32`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) n: u32,
    /// Number of K chunks (1 for the non-split kernels).
    pub(crate) splits: u32,
    /// Length of each K chunk, `⌈k / splits⌉`.
    pub(crate) chunk: u32,
    pub(crate) tiles_m: u32,
    pub(crate) tiles_n: u32,
    /// Number of matmuls in this dispatch.
    pub(crate) batch: u32,
    /// Length of each K chunk in the uploaded layout, `chunk` rounded up to
    /// a multiple of 8.
    pub(crate) kc: u32,
    /// Row length of the uploaded `A`, `splits · kc`.
    pub(crate) kt: u32,
    /// Row length of the uploaded `B`, `n` rounded up to a multiple of 8.
    pub(crate) np: u32,
    /// Texels from one matmul's `A` to the next in the `A` texture.
    pub(crate) la: u32,
    /// Texels from one matmul's `B` to the next in the `B` texture.
    pub(crate) lb: u32,
    /// Always 0: the bit barrier `pinned` ORs it in, a value no compiler
    /// can see (see [`barriers`]).
    pub(crate) zero: u32,
    pub(crate) pad: [u32; 2],
}

/// Which matmul kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MatmulKernel {
    /// Tile kernel accumulating in `f32` over one K chunk, in blocks of
    /// [`K_BLOCK`] products, rounding once to `f16` (serves both [`Accumulation::F32`](crate::matmul::Accumulation::F32)
    /// with one chunk, and the split-K partials).
    TileF32,
    /// Tile kernel accumulating in `f16` throughout. Each step is the fused
    /// `fma(a, b, acc)` rounded to `f16`, computed as an `f32` FMA (the
    /// product is exact) converted to `f16`: native `f16` `fma` is not fused
    /// on every driver (llvmpipe rounds the product to `f16` first), so the
    /// kernel does not rely on it, and both paths give the same result (the
    /// rounding is `round16`, integer operations on the bits).
    TileF16,
    /// Sums the `f16` split-K partials of each element in `f32`, rounds once.
    ReduceSplits,
}

const PARAMS: &str = "struct Params {
    m: u32, k: u32, n: u32, splits: u32,
    chunk: u32, tiles_m: u32, tiles_n: u32, batch: u32,
    kc: u32, kt: u32, np: u32, la: u32,
    lb: u32, zero: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> p: Params;
";

/// The WGSL source of `kernel`, for the native-`f16` path or the packed
/// fallback (`tiling` is ignored by the reduction).
pub(crate) fn source(kernel: MatmulKernel, native_f16: bool, tiling: Tiling) -> String {
    let mut s = String::new();
    if native_f16 {
        s.push_str("enable f16;\n\n");
    }
    s.push_str(PARAMS);
    match kernel {
        MatmulKernel::TileF32 | MatmulKernel::TileF16 if tiling == Tiling::Shared => {
            shared::tile(&mut s, kernel, native_f16)
        }
        MatmulKernel::TileF32 | MatmulKernel::TileF16 => {
            tile::tile(&mut s, kernel, native_f16, tiling)
        }
        MatmulKernel::ReduceSplits => reduce(&mut s, native_f16),
    }
    s
}

/// The matmul family's pipeline key: a kernel and the tiling its source is
/// generated for (the context's; the reduction ignores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MatmulKey {
    /// Which kernel.
    pub(crate) kernel: MatmulKernel,
    /// How the tile kernels divide `C`.
    pub(crate) tiling: Tiling,
}

impl PipelineKey for MatmulKey {
    fn label(self) -> &'static str {
        "matmul"
    }

    fn bindings(self) -> &'static [Binding] {
        use Binding::{Read, ReadWrite, Texture, Uniform};
        match self.kernel {
            MatmulKernel::ReduceSplits => &[Uniform, Read, Read, ReadWrite],
            _ => &[Uniform, Texture, Texture, ReadWrite],
        }
    }

    fn source(self, native: bool) -> String {
        source(self.kernel, native, self.tiling)
    }
}

/// The lines every tile kernel starts with after `let id = ...;` (no
/// trailing newline): its tile (`tm`, `tn`), split (`sp`) and batch entry
/// (`bi`) from the workgroup's `id`, the block's first row `r0` and column
/// `c0` (WGSL expressions), its share of K (`k0 .. k1`), and the number of
/// 8-wide column groups `nv`.
fn grid_prologue(r0: &str, c0: &str) -> String {
    format!(
        "    let tiles = p.tiles_m * p.tiles_n;
    if (id >= tiles * p.splits * p.batch) {{ return; }}
    let tn = id % p.tiles_n;
    let tm = (id / p.tiles_n) % p.tiles_m;
    let sp = (id / tiles) % p.splits;
    let bi = id / (tiles * p.splits);
    let r0 = {r0};
    let c0 = {c0};
    let k0 = sp * p.kc;
    let k1 = k0 + p.kc;
    let nv = p.np / 8u;"
    )
}

/// The texture bindings `ta` (`A`) and `tb` (`B`) with their loaders
/// `lda` and `ldb`, then the output's ([`storage_decls`]).
fn texture_decls(s: &mut String, native: bool) {
    let w = TEXTURE_WIDTH;
    let shift = w.trailing_zeros();
    let _ = writeln!(
        s,
        "@group(0) @binding(1) var ta: texture_2d<u32>;
@group(0) @binding(2) var tb: texture_2d<u32>;
fn lda(i: u32, l: u32) -> vec4<u32> {{ let t = i + l * p.la; return textureLoad(ta, vec2<u32>(t & {}u, t >> {shift}u), 0); }}
fn ldb(i: u32, l: u32) -> vec4<u32> {{ let t = i + l * p.lb; return textureLoad(tb, vec2<u32>(t & {}u, t >> {shift}u), 0); }}",
        w - 1,
        w - 1
    );
    storage_decls(s, native, &[], "out");
}

fn storage_decls(s: &mut String, native: bool, inputs: &[(u32, &str)], output: &str) {
    let elem = if native { "f16" } else { "u32" };
    for (binding, name) in inputs {
        let _ = writeln!(
            s,
            "@group(0) @binding({binding}) var<storage, read> {name}: array<{elem}>;"
        );
    }
    let _ = writeln!(
        s,
        "@group(0) @binding(3) var<storage, read_write> {output}: array<{elem}>;\n"
    );
    s.push_str(ROUND16);
    s.push_str(&barriers("p.zero"));
    if native {
        s.push_str("fn st(i: u32, v: f32) { out[i] = f16(round16(v)); }\n");
    } else {
        // One u32 per output element; pack2x16float converts a value
        // round16 has made exact, so no driver's rounding can change it.
        s.push_str(
            "fn st(i: u32, v: f32) { out[i] = pack2x16float(vec2<f32>(round16(v), 0.0)); }\n",
        );
    }
}

fn reduce(s: &mut String, native: bool) {
    storage_decls(s, native, &[(1, "part")], "out");
    let ld = if native {
        "f32(part[i])"
    } else {
        "unpack2x16float(part[i]).x"
    };
    let _ = writeln!(
        s,
        "@compute @workgroup_size({REDUCE_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let id = gid.x + gid.y * (nwg.x * {REDUCE_WORKGROUP}u);
    let mn = p.m * p.n;
    if (id >= mn * p.batch) {{ return; }}
    let bi = id / mn;
    let e = id % mn;
    var sum = 0.0;
    for (var sp = 0u; sp < p.splits; sp = sp + 1u) {{
        let i = (bi * p.splits + sp) * mn + e;
        sum = pinned(sum + {ld});
    }}
    st(id, sum);
}}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_generated_for_every_kernel_and_path() {
        for native in [true, false] {
            for tiling in [Tiling::Lanes, Tiling::Subgroup, Tiling::Shared] {
                for kernel in [
                    MatmulKernel::TileF32,
                    MatmulKernel::TileF16,
                    MatmulKernel::ReduceSplits,
                ] {
                    let src = source(kernel, native, tiling);
                    assert_eq!(src.starts_with("enable f16;"), native);
                    assert!(src.contains("fn main("), "{kernel:?}");
                    let shares = tiling == Tiling::Subgroup && kernel != MatmulKernel::ReduceSplits;
                    assert_eq!(src.contains("subgroupBroadcast"), shares, "{kernel:?}");
                }
            }
        }
    }

    #[test]
    fn tilings_cover_their_blocks() {
        assert_eq!(Tiling::Lanes.block(MatmulKernel::TileF32), (TM, TN));
        assert_eq!(Tiling::Lanes.block(MatmulKernel::TileF16), (F16_TM, F16_TN));
        assert_eq!(
            Tiling::Subgroup.block(MatmulKernel::TileF32),
            (8 * SUBGROUP_TM, SUBGROUP_TN)
        );
        assert_eq!(
            Tiling::Subgroup.block(MatmulKernel::TileF16),
            (8 * F16_TM, F16_TN)
        );
        assert_eq!(Tiling::Subgroup.invocations(), TILE_WORKGROUP);
        assert_eq!(Tiling::Shared.block(MatmulKernel::TileF16), (16, 16));
        assert_eq!(Tiling::Shared.invocations(), Tiling::Shared.workgroup());
        assert_eq!(TN % 8, 0);
        assert_eq!(SUBGROUP_TN % 8, 0);
        assert_eq!(F16_TN % 8, 0);
    }
}
