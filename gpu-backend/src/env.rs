//! The environment variables that choose the device and its paths (see the
//! crate documentation's table): their names, and the one place they are
//! read, each by its row of the settings table
//! (`dual_delta_settings::gpu`), so that an invalid value gets the same
//! message as dual-delta's own settings.

use dual_delta_settings::Value;
use dual_delta_settings::gpu::{self, Variable};

use crate::error::GpuError;

/// Environment variable: the GPU test policy (`require`, the default,
/// `skip` or `require-hardware`). See [`GpuPolicy`](crate::device::GpuPolicy).
pub const ENV_GPU: &str = gpu::GPU.env;
/// Environment variable: which adapter to use (a substring of its name or
/// driver, or a backend name). See [`GpuOptions::adapter`](crate::GpuOptions::adapter).
pub const ENV_ADAPTER: &str = gpu::ADAPTER.env;
/// Environment variable: which `f16` path to use (`auto`, the default,
/// `native` or `fallback`). See [`F16Path`](crate::device::F16Path).
pub const ENV_F16: &str = gpu::GPU_F16.env;
/// Environment variable: whether the matmul kernels use subgroup
/// operations (`auto`, the default, or `off`). See [`Subgroups`](crate::device::Subgroups).
pub const ENV_SUBGROUPS: &str = gpu::GPU_SUBGROUPS.env;
/// Environment variable: which tile kernels the matmuls use (`auto`, the
/// default, `registers` or `shared`). See [`MatmulTiling`](crate::device::MatmulTiling).
pub const ENV_TILING: &str = gpu::GPU_TILING.env;
/// Environment variable: `strip` compiles every shader with its conversion
/// round trips removed, as NVIDIA's Vulkan driver does (`keep`, the
/// default, compiles them as written). See
/// [`GpuOptions::strip_round_trips`](crate::GpuOptions::strip_round_trips).
pub const ENV_ROUND_TRIPS: &str = gpu::GPU_ROUND_TRIPS.env;
/// Environment variable: the driver freedoms every shader is compiled
/// with, imitated on its WGSL (`all`, `none`, the default, or a
/// comma-separated list of `strip`, `div-sqrt`, `nan-fold`, `contract`,
/// `f16-store`, `ftz32`, `ftz16`, `fold-identities`, `nan-times-zero`, `reassoc`). See
/// [`GpuOptions::imitate`](crate::GpuOptions::imitate).
pub const ENV_IMITATE: &str = gpu::GPU_IMITATE.env;

/// The text of `variable` in the environment (empty where it is unset).
pub(crate) fn text(variable: &Variable) -> String {
    std::env::var(variable.env).unwrap_or_default()
}

/// `text`, a value of `variable`, read by its row's rule: `None` where it
/// is blank (the default).
pub(crate) fn parse(variable: &Variable, text: &str) -> Result<Option<Value>, GpuError> {
    variable.parse(text).map_err(|e| GpuError::InvalidSetting {
        name: variable.env,
        value: e.value,
        expected: e.expected,
    })
}

/// The value of `variable` in the environment, read by its row's rule:
/// `None` where it is unset or blank (the default).
pub(crate) fn read(variable: &Variable) -> Result<Option<Value>, GpuError> {
    parse(variable, &text(variable))
}

/// The choice `text` names by `variable`'s rule: `variant` of the name's
/// variant, or the default where `text` is blank.
pub(crate) fn choice<T: Default>(
    variable: &Variable,
    text: &str,
    variant: impl Fn(&str) -> T,
) -> Result<T, GpuError> {
    Ok(parse(variable, text)?.map_or_else(T::default, |v| variant(v.variant())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crate_docs_hold_the_table_row_by_row() {
        let docs: Vec<&str> = include_str!("lib.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! "))
            .skip_while(|l| !l.starts_with("| variable |"))
            .take_while(|l| l.starts_with('|'))
            .collect();
        let table = gpu::markdown_table();
        let want: Vec<&str> = table.lines().collect();
        for (i, (row, want)) in docs.iter().zip(&want).enumerate() {
            assert_eq!(
                row, want,
                "row {i} of the crate docs' environment variables"
            );
        }
        assert_eq!(docs.len(), want.len(), "rows in the crate docs' table");
    }

    #[test]
    fn an_invalid_value_is_an_error_naming_the_variable() {
        let e = parse(&gpu::GPU_TILING, "tiles").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid DUAL_DELTA_GPU_TILING=\"tiles\": expected `auto`, `registers` or `shared`"
        );
        assert!(!e.is_unavailable());
    }
}
