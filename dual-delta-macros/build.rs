//! Writes the attribute's key table and its claim from the one table of
//! settings (`dual-delta-settings`), for the attribute's documentation to
//! include: they cannot drift from the settings or from the runtime's
//! claim.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("keys.md"), dual_delta_settings::attribute_table())
        .expect("OUT_DIR is writable");
    std::fs::write(out.join("claim.md"), dual_delta_settings::CLAIM).expect("OUT_DIR is writable");
}
