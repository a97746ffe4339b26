//! Every published crate's public surface, checked in: each crate's
//! `public-api.txt` lists, file by file, the lines that declare a `pub`
//! item (a re-export, a module, a type, a field, a function, a method) in
//! the modules its root makes public, and this test keeps the listing equal
//! to the code, so that every change to the surface shows in review.
//! `DUAL_DELTA_BLESS=1` writes the listings anew.

use std::path::{Path, PathBuf};

/// The crates whose surface is listed: their folders under the workspace.
const CRATES: [&str; 4] = [
    "dual-delta-runtime",
    "dual-delta-runtime/settings",
    "dual-delta-macros",
    "gpu-backend",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The file of module `name` declared in `parent`.
fn module_file(parent: &Path, name: &str) -> Option<PathBuf> {
    let stem = parent.file_stem()?.to_str()?;
    let dir = match stem {
        "lib" | "mod" => parent.parent()?.to_path_buf(),
        _ => parent.parent()?.join(stem),
    };
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// The `pub` declarations of `file` and of the public modules it declares,
/// as `file: line` rows.
fn listing(root: &Path, file: &Path, rows: &mut Vec<String>) {
    let text = std::fs::read_to_string(file).unwrap();
    let name = file.strip_prefix(root).unwrap().display().to_string();
    // Unit tests at the end of a file (`#[cfg(test)] mod tests { … }`)
    // are not the surface.
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
    for line in code.lines() {
        let line = line.trim();
        if !line.starts_with("pub ") {
            continue;
        }
        rows.push(format!("{name}: {line}"));
        let module = line
            .strip_prefix("pub mod ")
            .and_then(|m| m.strip_suffix(';'));
        if let Some(module) = module
            && let Some(child) = module_file(file, module)
        {
            listing(root, &child, rows);
        }
    }
}

fn surface(krate: &str) -> String {
    let root = workspace().join(krate);
    let lib = root.join("src/lib.rs");
    let mut rows = Vec::new();
    listing(&root, &lib, &mut rows);
    rows.join("\n") + "\n"
}

#[test]
fn each_crates_public_surface_is_the_listing_checked_in() {
    let bless = std::env::var("DUAL_DELTA_BLESS").is_ok_and(|v| v == "1");
    for krate in CRATES {
        let path = workspace().join(krate).join("public-api.txt");
        let now = surface(krate);
        if bless {
            std::fs::write(&path, &now).unwrap();
            continue;
        }
        let listed = std::fs::read_to_string(&path).unwrap_or_default();
        if listed != now {
            let added: Vec<&str> = now.lines().filter(|l| !listed.contains(l)).collect();
            let removed: Vec<&str> = listed.lines().filter(|l| !now.contains(l)).collect();
            panic!(
                "{}: the public surface changed; review it and run with DUAL_DELTA_BLESS=1 to \
                 write the listing anew.\nadded:\n  {}\nremoved:\n  {}",
                path.display(),
                added.join("\n  "),
                removed.join("\n  ")
            );
        }
    }
}
