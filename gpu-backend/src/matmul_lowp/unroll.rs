//! The register-block unrolling shared by the low-precision WGSL generators
//! ([`shader`](super::shader) and [`hopper`](super::hopper)): each emits a
//! line of WGSL once per element, row or column of a
//! [`LOWP_ROWS`]` × `[`LOWP_COLS`] block.

use super::{LOWP_COLS, LOWP_ROWS};

/// Emits `line` once per element `(i, j)` of the block, with `{i}` and
/// `{j}` replaced.
pub(super) fn each(s: &mut String, line: &str) {
    for i in 0..LOWP_ROWS {
        for j in 0..LOWP_COLS {
            let l = line
                .replace("{i}", &i.to_string())
                .replace("{j}", &j.to_string());
            s.push_str(&l);
            s.push('\n');
        }
    }
}

/// Emits `line` once per row `i` of the block (`{i}` replaced), then once
/// per column `j` with `line_b` (`{j}` replaced).
pub(super) fn rows_cols(s: &mut String, line_a: &str, line_b: &str) {
    for i in 0..LOWP_ROWS {
        s.push_str(&line_a.replace("{i}", &i.to_string()));
        s.push('\n');
    }
    for j in 0..LOWP_COLS {
        s.push_str(&line_b.replace("{j}", &j.to_string()));
        s.push('\n');
    }
}
