//! The module structure of the runtime, the GPU crate and the attribute's
//! crate against their layer tables in `ARCHITECTURE.md`: every module
//! named, no import cycle between their files, few references back up the
//! layers and none through a crate root where the map forbids it (the
//! import graph is read by [`graph`]). Then the runtime's one table of
//! environment variables (its crate docs and guide), and the GPU crate's
//! (its table in the settings crate, and its crate docs).

#[path = "structure/graph.rs"]
mod graph;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dual_delta_settings::gpu::VARIABLES as GPU_VARIABLES;

use self::graph::{Graph, files, layers, top};

/// A crate on the architecture map: its folder, how many of its references
/// may run back up its layers, and whether a path through its root's
/// re-exports may be one of them (else none may go through the root: a
/// module names another by its own path).
struct Mapped {
    dir: &'static str,
    most_back_up: usize,
    through_root: bool,
}

/// The crates whose modules `ARCHITECTURE.md` sets in layers.
const MAPPED: [Mapped; 3] = [
    Mapped {
        dir: "dual-delta-runtime",
        most_back_up: 4,
        through_root: true,
    },
    Mapped {
        dir: "gpu-backend",
        most_back_up: 1,
        through_root: false,
    },
    Mapped {
        dir: "dual-delta-macros",
        most_back_up: 1,
        through_root: false,
    },
];

/// The package's directory, read when the test runs (Cargo and nextest set
/// it), so that the sources are found wherever the workspace is, also when
/// an archived test binary runs on another machine.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR is set by cargo test and nextest")
        .into()
}

/// The `src` folder of the crate in the workspace's folder `dir`.
fn src_of(dir: &str) -> PathBuf {
    manifest_dir().join("..").join(dir).join("src")
}

#[test]
fn no_import_cycle_between_the_files_of_a_mapped_crate() {
    for mapped in &MAPPED {
        let graph = Graph::of(&src_of(mapped.dir));
        if let Some(cycle) = graph.cycle() {
            panic!("{}: import cycle: {}", mapped.dir, cycle.join(" -> "));
        }
        let count: usize = graph.edges.values().map(BTreeSet::len).sum();
        assert!(
            count >= graph.modules.len() / 2,
            "{}: only {count} references found: the scan is broken",
            mapped.dir
        );
    }
}

/// The variables named in the cells of the Markdown table rows of `text`
/// (lines starting with `prefix` then `|`): a cell that is one name in
/// backticks, `` `DUAL_DELTA_N` `` or `` `GITHUB_SHA` ``.
fn table_variables(text: &str, prefix: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix).map(str::trim_start))
        .filter(|l| l.starts_with('|'))
        .flat_map(|l| l.split('|').map(str::trim))
        .filter_map(|cell| cell.strip_prefix('`')?.strip_suffix('`'))
        .filter(|v| v.starts_with("DUAL_DELTA_") || v.starts_with("GITHUB_"))
        .filter(|v| {
            v.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .map(str::to_owned)
        .collect()
}

/// The names in capitals (`GPU_F16`) right after each `marker` in the
/// `.rs` files under `dir` (in their code alone where `code`), with what
/// follows each.
fn names_after(dir: &Path, marker: &str, code: bool) -> Vec<(String, String)> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut out = Vec::new();
    for f in all {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines() {
            let line = if code {
                line.split("//").next().unwrap_or("")
            } else {
                line
            };
            for piece in line.split(marker).skip(1) {
                let name: String = piece
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                let rest = piece[name.len()..].to_owned();
                out.push((name, rest));
            }
        }
    }
    out
}

/// The `"DUAL_DELTA_..."` string literals in the `.rs` files under `dir`.
fn variables_in_code(dir: &Path) -> BTreeSet<String> {
    names_after(dir, "\"DUAL_DELTA_", false)
        .into_iter()
        .filter(|(_, rest)| rest.starts_with('"'))
        .map(|(name, _)| format!("DUAL_DELTA_{name}"))
        .collect()
}

/// The rows of `dual_delta_settings::gpu` that the `.rs` files under `dir`
/// name (`gpu::GPU_F16` is `DUAL_DELTA_GPU_F16`'s), comments aside.
fn rows_named_in_code(dir: &Path) -> BTreeSet<String> {
    names_after(dir, "gpu::", true)
        .into_iter()
        .filter_map(|(name, _)| {
            GPU_VARIABLES
                .iter()
                .find(|v| v.env.strip_prefix("DUAL_DELTA_") == Some(name.as_str()))
        })
        .map(|row| row.env.to_owned())
        .collect()
}

#[test]
fn every_variable_read_is_in_one_table_and_every_table_row_is_read() {
    let root = &manifest_dir();
    let chapter = table_variables(
        &std::fs::read_to_string(root.join("src/guide/configuration.md")).unwrap(),
        "",
    );
    // The settings crate's two tables: the runtime's settings and the GPU
    // crate's variables.
    let gpu_table: BTreeSet<String> = GPU_VARIABLES.iter().map(|v| v.env.to_owned()).collect();
    let in_tables = variables_in_code(&root.join("settings/src"));
    assert!(gpu_table.is_subset(&in_tables), "{gpu_table:?}");
    // The library and the `cargo dual-delta` command (src/bin), and the
    // settings' variables in their table.
    let mut read = variables_in_code(&root.join("src"));
    read.extend(in_tables.difference(&gpu_table).cloned());
    assert!(read.len() >= 8, "{read:?}");
    for v in &read {
        assert!(
            chapter.contains(v),
            "{v} is read but not in the configuration chapter's tables"
        );
    }
    for v in chapter.iter().filter(|v| v.starts_with("DUAL_DELTA_")) {
        assert!(
            read.contains(v),
            "the configuration chapter lists {v}, which nothing reads"
        );
        assert!(!gpu_table.contains(v), "{v} is in two tables");
    }
    // dual-delta-gpu's variables: read through their rows (`gpu::GPU_F16`),
    // any other name of one in its code is a row's too, and its crate docs'
    // table lists them all.
    let gpu_root = root.join("../gpu-backend/src");
    let mut gpu = rows_named_in_code(&gpu_root);
    gpu.extend(variables_in_code(&gpu_root));
    assert!(gpu.len() >= 5, "{gpu:?}");
    assert_eq!(
        gpu, gpu_table,
        "dual-delta-gpu's variables read (left) and in its table (right)"
    );
    let gpu_docs = table_variables(
        &std::fs::read_to_string(gpu_root.join("lib.rs")).unwrap(),
        "//!",
    );
    assert_eq!(
        gpu_docs, gpu_table,
        "dual-delta-gpu's crate docs (left) and its table (right)"
    );
}

#[test]
fn the_architecture_map_names_every_module_and_the_layers_hold() {
    let architecture = std::fs::read_to_string(manifest_dir().join("../ARCHITECTURE.md")).unwrap();
    for mapped in &MAPPED {
        let dir = mapped.dir;
        let layers = layers(&architecture, dir);
        let graph = Graph::of(&src_of(dir));
        let on_the_map: BTreeSet<String> = layers.keys().cloned().collect();
        assert_eq!(
            graph.top_modules(),
            on_the_map,
            "the modules of {dir}/src (left) and its table in ARCHITECTURE.md (right)"
        );
        let (mut up, mut through_root) = (Vec::new(), Vec::new());
        for (from, targets) in &graph.edges {
            let Some(&low) = layers.get(&top(from)) else {
                continue;
            };
            for to in targets {
                // A path through the root's re-exports reaches above every
                // module.
                let high = if to == "lib.rs" {
                    through_root.push(format!("{from} -> {to}"));
                    u32::MAX
                } else {
                    layers[&top(to)]
                };
                if high > low && top(from) != top(to) {
                    up.push(format!("{from} -> {to}"));
                }
            }
        }
        assert!(
            mapped.through_root || through_root.is_empty(),
            "{dir}: modules import through the crate root, not by their own paths: \
             {through_root:#?}"
        );
        println!("{dir}: references running back up the layers: {up:#?}");
        assert!(
            up.len() <= mapped.most_back_up,
            "{dir}: {} run back up: {up:#?}",
            up.len()
        );
    }
}

/// Each setting is declared on one line, its row of the table: no field,
/// setter or string key of the modules that configure a run (the
/// runtime's `config` and `harness`, the settings crate, the attribute's
/// crate) declares it again (tests aside).
#[test]
fn each_setting_is_declared_once() {
    let root = manifest_dir();
    let mut sources = Vec::new();
    for dir in [
        "src/config",
        "src/harness",
        "settings/src",
        "../dual-delta-macros/src",
    ] {
        files(&root.join(dir), &mut sources);
    }
    sources.retain(|f| {
        let name = f.file_name().unwrap().to_string_lossy();
        !name.ends_with("tests.rs") && !f.components().any(|c| c.as_os_str() == "tests")
    });
    let texts: Vec<(PathBuf, String)> = sources
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            // Unit tests at the end of a file are not declarations.
            let code = text.split("#[cfg(test)]").next().unwrap().to_owned();
            (f, code)
        })
        .collect();
    for s in dual_delta_runtime::settings::SETTINGS {
        let name = s.name;
        let patterns = [
            format!("pub {name}:"),
            format!("pub fn {name}("),
            format!("\"{name}\" =>"),
            format!("(\"{name}\","),
        ];
        let row = format!(" {name}: ");
        let declared: Vec<String> = texts
            .iter()
            .flat_map(|(file, code)| {
                code.lines()
                    .enumerate()
                    .filter(|(_, line)| {
                        let code = line.split("//").next().unwrap_or("").trim_start();
                        !code.starts_with("let ")
                            && !code.contains(&format!(".{name}"))
                            && (patterns.iter().any(|p| code.contains(p.as_str()))
                                || (file.ends_with("table.rs")
                                    && format!(" {code}").starts_with(&row)))
                    })
                    .map(move |(i, line)| format!("{}:{}: {}", file.display(), i + 1, line.trim()))
            })
            .collect();
        let in_table = declared.iter().filter(|d| d.contains("table.rs")).count();
        assert!(
            in_table == 1 && declared.len() <= 1 + usize::from(name == "batch_size"),
            "`{name}` is declared on {} lines, the table's row alone expected:\n{}",
            declared.len(),
            declared.join("\n")
        );
    }
}

/// Without the default `html` feature the runtime depends on neither
/// plotters nor askama: a test harness builds without them (the cargo
/// metadata, read with `cargo tree`, which builds nothing).
#[test]
fn without_the_html_feature_neither_plotters_nor_askama_is_a_dependency() {
    let tree = |features: &[&str]| {
        let out = std::process::Command::new(env!("CARGO"))
            .args([
                "tree",
                "--offline",
                "-e",
                "normal",
                "-p",
                "dual-delta-runtime",
            ])
            .args(features)
            .current_dir(manifest_dir())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let with = tree(&[]);
    let without = tree(&["--no-default-features"]);
    for dependency in ["plotters ", "askama "] {
        assert!(with.contains(dependency), "{with}");
        assert!(!without.contains(dependency), "{without}");
    }
}
