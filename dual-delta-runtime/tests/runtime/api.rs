//! Every published crate's public surface, checked in: each crate's
//! `public-api.txt` lists, file by file, the lines that declare a `pub`
//! item (a re-export, a module, a type, a field, a function, a method),
//! every one of them reachable by a user (the workspace's lints warn of an
//! unreachable `pub`), and this test keeps the listing equal to the code,
//! so that every change to the surface shows in review.
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

/// Every source file of the library under `dir`, sorted: the binaries
/// (`src/bin`) and unit-test files aside.
fn sources(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        if path.is_dir() {
            if !matches!(name, "bin" | "tests") {
                sources(&path, files);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            files.push(path);
        }
    }
}

/// The `pub` declarations of `file`, as `file: line` rows. The workspace
/// warns of an unreachable `pub` (`unreachable_pub`), so every `pub` item
/// of any module is reachable from the crate's root: the rows are the surface, wherever
/// the item is re-exported.
fn listing(root: &Path, file: &Path, rows: &mut Vec<String>) {
    let text = std::fs::read_to_string(file).unwrap();
    let name = file.strip_prefix(root).unwrap().display().to_string();
    // Unit tests at the end of a file (`#[cfg(test)] mod tests { … }`)
    // are not the surface.
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
    let mut lines = code.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if !line.starts_with("pub ") {
            continue;
        }
        // A declaration over several lines (a `use` list, a signature) is
        // one row, so that a name added inside it shows too.
        let mut row = line.to_owned();
        let ended = |row: &str| match row.starts_with("pub use ") {
            true => row.ends_with(';'),
            false => row.ends_with([';', '{', ',', '}']),
        };
        while !ended(&row)
            && let Some(next) = lines.next()
        {
            if !row.ends_with(['(', '{', '<']) && !next.starts_with([')', '}', '>']) {
                row.push(' ');
            }
            row.push_str(next);
        }
        rows.push(format!("{name}: {row}"));
    }
}

fn surface(krate: &str) -> String {
    let root = workspace().join(krate);
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut rows = Vec::new();
    for file in &files {
        listing(&root, file, &mut rows);
    }
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
