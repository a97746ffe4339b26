//! The GPU crate's variables (`dual-delta-gpu`): which adapter its shared
//! context takes and how its kernels are compiled, read from the
//! environment only, when a context is created. A table of their own
//! beside [`SETTINGS`](crate::SETTINGS), read by the same rules
//! ([`Kind`]), so that an invalid value gets the same [`Invalid`] message.
//!
//! Each row is a constant named after its variable without the
//! `DUAL_DELTA_` prefix ([`GPU_F16`] is `DUAL_DELTA_GPU_F16`); the GPU
//! crate reads each through its row and names no variable itself, and its
//! crate docs hold [`markdown_table`] (tests in both crates check it).

use crate::{Invalid, Kind, Value};

/// One environment variable of the GPU crate: everything written about
/// it, in one place.
#[derive(Clone, Copy, Debug)]
pub struct Variable {
    /// The environment variable.
    pub env: &'static str,
    /// The rule its value follows. The names of a [`Kind::Choice`] or a
    /// [`Kind::List`] are read in any case.
    pub kind: Kind,
    /// What unset (or blank) means, in words.
    pub default: &'static str,
    /// What a valid value looks like: the values of the docs' table, and
    /// of error messages.
    pub expected: &'static str,
    /// What it does, in one line of Markdown (its links are the GPU
    /// crate's).
    pub doc: &'static str,
}

impl Variable {
    /// Reads `text`, a value of this variable, by its rule: `None` where it
    /// is blank (the default), as where it is unset.
    ///
    /// # Errors
    ///
    /// When `text` breaks the rule: [`Invalid`], whose message names the
    /// variable, quotes `text` and says what [`Variable::expected`] is.
    pub fn parse(&self, text: &str) -> Result<Option<Value>, Invalid> {
        let t = text.trim();
        if t.is_empty() {
            return Ok(None);
        }
        let t = match self.kind {
            Kind::Choice(_) | Kind::List(_) => t.to_ascii_lowercase(),
            _ => t.to_owned(),
        };
        self.kind.read(&t).map(Some).ok_or_else(|| Invalid {
            source: self.env.to_owned(),
            value: text.to_owned(),
            expected: self.expected,
        })
    }
}

/// `DUAL_DELTA_GPU`: the policy of GPU tests where no GPU is usable, and
/// whether a CPU adapter counts as one.
pub const GPU: Variable = Variable {
    env: "DUAL_DELTA_GPU",
    kind: Kind::Choice(&[
        ("require", "Require"),
        ("skip", "Skip"),
        ("require-hardware", "RequireHardware"),
    ]),
    default: "`require`",
    expected: "`skip`, `require` or `require-hardware`",
    doc: "With `skip`, [`require_gpu`] skips a GPU test (printing why to stderr) when no GPU is usable; by default such a test fails, never passes silently. With `require-hardware`, a CPU adapter (llvmpipe) fails too ([`GpuOptions::require_hardware`]).",
};

/// `DUAL_DELTA_ADAPTER`: which adapter the shared context uses.
pub const ADAPTER: Variable = Variable {
    env: "DUAL_DELTA_ADAPTER",
    kind: Kind::Text,
    default: "the best adapter: discrete, integrated, virtual GPUs, then CPU drivers",
    expected: "a backend (`vulkan`, `metal`, `dx12`, `gl`; `gl` needs the crate's `gles` feature) or part of an adapter's name or driver (`llvmpipe`)",
    doc: "Which adapter [`Gpu::shared`] uses ([`GpuOptions::adapter`]).",
};

/// `DUAL_DELTA_GPU_F16`: the `f16` path.
pub const GPU_F16: Variable = Variable {
    env: "DUAL_DELTA_GPU_F16",
    kind: Kind::Choice(&[
        ("auto", "Auto"),
        ("native", "Native"),
        ("fallback", "Fallback"),
    ]),
    default: "`auto`",
    expected: "`auto`, `native` or `fallback`",
    doc: "The `f16` path ([`F16Path`](device::F16Path)).",
};

/// `DUAL_DELTA_GPU_SUBGROUPS`: whether the matmul kernels share `B`
/// through subgroup operations.
pub const GPU_SUBGROUPS: Variable = Variable {
    env: "DUAL_DELTA_GPU_SUBGROUPS",
    kind: Kind::Choice(&[("auto", "Auto"), ("off", "Off")]),
    default: "`auto`",
    expected: "`auto` or `off`",
    doc: "Whether the matmul kernels share `B` through subgroup operations ([`Subgroups`](device::Subgroups)); the same bits either way.",
};

/// `DUAL_DELTA_GPU_TILING`: the matmul tile kernels.
pub const GPU_TILING: Variable = Variable {
    env: "DUAL_DELTA_GPU_TILING",
    kind: Kind::Choice(&[
        ("auto", "Auto"),
        ("registers", "Registers"),
        ("shared", "Shared"),
    ]),
    default: "`auto`",
    expected: "`auto`, `registers` or `shared`",
    doc: "The matmul tile kernels ([`MatmulTiling`](device::MatmulTiling)): workgroup-shared tiles on discrete and integrated GPUs, register blocks on llvmpipe; the same bits either way.",
};

/// `DUAL_DELTA_GPU_ROUND_TRIPS`: whether every shader is compiled with its
/// conversion round trips removed.
pub const GPU_ROUND_TRIPS: Variable = Variable {
    env: "DUAL_DELTA_GPU_ROUND_TRIPS",
    kind: Kind::Choice(&[("keep", "Keep"), ("strip", "Strip")]),
    default: "`keep`",
    expected: "`keep` or `strip`",
    doc: "With `strip`, every shader is compiled with its conversion round trips removed, as NVIDIA's Vulkan driver does ([`GpuOptions::strip_round_trips`]): on lavapipe, the results such a driver gives.",
};

/// `DUAL_DELTA_GPU_IMITATE`: the driver freedoms every shader is compiled
/// with.
pub const GPU_IMITATE: Variable = Variable {
    env: "DUAL_DELTA_GPU_IMITATE",
    kind: Kind::List(&[
        ("none", "none"),
        ("all", "all"),
        ("strip", "strip"),
        ("div-sqrt", "div-sqrt"),
        ("nan-fold", "nan-fold"),
        ("contract", "contract"),
        ("f16-store", "f16-store"),
        ("ftz32", "ftz32"),
        ("ftz16", "ftz16"),
        ("fold-identities", "fold-identities"),
        ("nan-times-zero", "nan-times-zero"),
        ("reassoc", "reassoc"),
    ]),
    default: "`none`",
    expected: "`all`, `none` or a comma-separated list of `strip`, `div-sqrt`, `nan-fold`, `contract`, `f16-store`, `ftz32`, `ftz16`, `fold-identities`, `nan-times-zero`, `reassoc`",
    doc: "Every shader compiled with these driver freedoms imitated on its WGSL ([`SourceTransform`](device::SourceTransform), [`GpuOptions::imitate`]).",
};

/// `DUAL_DELTA_WGSL_DUMP`: where the ignored unit test `dump_wgsl` writes
/// the WGSL of every kernel.
pub const WGSL_DUMP: Variable = Variable {
    env: "DUAL_DELTA_WGSL_DUMP",
    kind: Kind::Directory,
    default: "none",
    expected: "a folder",
    doc: "For the ignored unit test `dump_wgsl` (`DUAL_DELTA_WGSL_DUMP=DIR cargo test -p dual-delta-gpu --lib dump_wgsl -- --ignored`): writes the compiled WGSL of every kernel there, to compare two versions byte for byte.",
};

/// Every variable of the GPU crate, in the order its docs list them.
pub const VARIABLES: &[Variable] = &[
    GPU,
    ADAPTER,
    GPU_F16,
    GPU_SUBGROUPS,
    GPU_TILING,
    GPU_ROUND_TRIPS,
    GPU_IMITATE,
    WGSL_DUMP,
];

/// [`VARIABLES`] as a Markdown table, one row per variable: the table of
/// the GPU crate's docs, which a test there keeps equal to this.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| variable | values | default | effect |\n\
         |----------|--------|---------|--------|\n",
    );
    for v in VARIABLES {
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            v.env, v.expected, v.default, v.doc
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_in_any_case_and_blank_is_the_default() {
        assert_eq!(
            GPU_F16.parse(" Native ").unwrap(),
            Some(Value::Variant("Native"))
        );
        assert_eq!(GPU.parse("").unwrap(), None);
        assert_eq!(GPU.parse("  ").unwrap(), None);
        assert_eq!(
            GPU_IMITATE.parse("Strip, ,reassoc").unwrap(),
            Some(Value::List(vec!["strip", "reassoc"]))
        );
        assert_eq!(
            ADAPTER.parse(" NVIDIA ").unwrap(),
            Some(Value::Text("NVIDIA".into()))
        );
    }

    #[test]
    fn an_invalid_value_names_the_variable_and_what_it_takes() {
        for (v, bad) in [
            (GPU, "skipp"),
            (GPU_TILING, "tiles"),
            (GPU_IMITATE, "strip,ftz"),
        ] {
            let e = v.parse(bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("invalid {}={bad:?}: expected {}", v.env, v.expected)
            );
        }
    }

    #[test]
    fn each_variable_is_listed_once() {
        let mut seen: Vec<&str> = VARIABLES.iter().map(|v| v.env).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), VARIABLES.len());
    }
}
