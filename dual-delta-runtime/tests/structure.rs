//! The runtime's module structure (no import cycle between its files), its
//! one table of environment variables (the crate docs and the guide), and
//! the GPU crate's (its table in the settings crate, and its crate docs).
//!
//! Every `crate::`, `super::` and `self::` path in `src/` is resolved to the
//! file of the module it names (the longest module prefix that is a file);
//! the files and those references form a graph that must have no cycle.
//! `mod` declarations are not references (a parent declaring its children
//! is the tree itself), nor is a parent's `pub use self::child::Item`
//! (the parent is the child's facade, not its user).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use dual_delta_settings::gpu::VARIABLES as GPU_VARIABLES;

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src` (`["stats", "sequential"]` for
/// `stats/sequential/mod.rs`, `[]` for `lib.rs`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The paths a line of code names: after `crate::`, `super::` (relative to
/// `module`'s parent) or `self::`, as absolute module paths; `{a, b}`
/// groups expand to each member.
fn references(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let code = line.split("//").next().unwrap_or("");
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            // `super` names the parent module (of a `mod.rs`, the parent
            // of the folder's module).
            let mut m = module.to_vec();
            m.pop();
            m
        }),
        ("self::", module.to_vec()),
    ] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            // `$crate::` is a path of a macro's expansion site, not of
            // the file.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
                continue;
            }
            let mut path = base.clone();
            let mut tail = rest;
            while let Some(seg) = tail
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .filter(|s| !s.is_empty())
            {
                path.push(seg.to_owned());
                tail = &tail[seg.len()..];
                match tail.strip_prefix("::") {
                    Some(t) if t.starts_with('{') => {
                        let group = &t[1..t.find('}').unwrap_or(t.len())];
                        for member in group.split(',') {
                            let name = member.trim().split("::").next().unwrap_or("").trim();
                            if !name.is_empty() && name != "self" {
                                let mut p = path.clone();
                                p.push(name.to_owned());
                                out.push(p);
                            }
                        }
                        break;
                    }
                    Some(t) => tail = t,
                    None => break,
                }
            }
            out.push(path);
        }
    }
    out
}

/// The package's directory, read when the test runs (Cargo and nextest set
/// it), so that the sources are found wherever the workspace is, also when
/// an archived test binary runs on another machine.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("CARGO_MANIFEST_DIR is set by cargo test and nextest")
        .into()
}

/// The file-level import graph of `src`: each file's module path and name,
/// and the files each file's code (unit tests aside) refers to, the crate
/// root `lib.rs` included where a path goes through its re-exports.
fn import_graph(
    src: &Path,
) -> (
    BTreeMap<Vec<String>, String>,
    BTreeMap<String, BTreeSet<String>>,
) {
    let mut all = Vec::new();
    files(src, &mut all);
    let modules: BTreeMap<Vec<String>, String> = all
        .iter()
        .map(|f| {
            (
                module_of(src, f),
                f.strip_prefix(src).unwrap().display().to_string(),
            )
        })
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Unit-test modules (`tests.rs`) are not part of the structure.
    for file in all.iter().filter(|f| !f.ends_with("tests.rs")) {
        let module = module_of(src, file);
        let name = modules[&module].clone();
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests inside a file are not part of its structure.
        let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
        for line in code.lines() {
            let trimmed = line.trim_start();
            let facade = ["pub use self::", "pub(crate) use self::"]
                .iter()
                .any(|p| trimmed.starts_with(p));
            if trimmed.starts_with("//") || trimmed.starts_with("mod ") || facade {
                continue;
            }
            for path in references(line, &module) {
                // The longest prefix that is a file's module.
                let target = (1..=path.len())
                    .rev()
                    .find_map(|k| modules.get(&path[..k]))
                    .or_else(|| modules.get(&Vec::new()));
                if let Some(target) = target
                    && *target != name
                {
                    edges
                        .entry(name.clone())
                        .or_default()
                        .insert(target.clone());
                }
            }
        }
    }
    (modules, edges)
}

#[test]
fn no_import_cycle_between_the_runtimes_files() {
    let src = manifest_dir().join("src");
    let (modules, mut edges) = import_graph(&src);
    // The root only re-exports: a path through it is no cycle of files.
    for targets in edges.values_mut() {
        targets.remove("lib.rs");
    }
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|s| s == next).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in modules.values() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0
            && let Some(cycle) = visit(node, &edges, &mut state, &mut Vec::new())
        {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
    let count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(
        count > 50,
        "only {count} references found: the scan is broken"
    );
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

/// The `"DUAL_DELTA_..."` string literals in the `.rs` files under `dir`.
fn variables_in_code(dir: &Path) -> BTreeSet<String> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut out = BTreeSet::new();
    for f in all {
        let text = std::fs::read_to_string(f).unwrap();
        for piece in text.split("\"DUAL_DELTA_").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if piece[name.len()..].starts_with('"') {
                out.insert(format!("DUAL_DELTA_{name}"));
            }
        }
    }
    out
}

/// The rows of `dual_delta_settings::gpu` that the `.rs` files under `dir`
/// name (`gpu::GPU_F16` is `DUAL_DELTA_GPU_F16`'s), comments aside.
fn rows_named_in_code(dir: &Path) -> BTreeSet<String> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut out = BTreeSet::new();
    for f in all {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for piece in code.split("gpu::").skip(1) {
                let name: String = piece
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if let Some(row) = GPU_VARIABLES
                    .iter()
                    .find(|v| v.env.strip_prefix("DUAL_DELTA_") == Some(name.as_str()))
                {
                    out.insert(row.env.to_owned());
                }
            }
        }
    }
    out
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

/// The layer of each top-level module, from the table of `ARCHITECTURE.md`
/// (rows `| 3 | `verdict` | ... |`).
fn layers() -> BTreeMap<String, u32> {
    let text = std::fs::read_to_string(manifest_dir().join("../ARCHITECTURE.md")).unwrap();
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let layer = cells.get(1)?.parse().ok()?;
            let module = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((module.to_owned(), layer))
        })
        .collect()
}

/// The top-level module of a file under `src` (`stats` for
/// `stats/sign.rs`, `run` for `run.rs`).
fn top(file: &str) -> String {
    file.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_owned()
}

#[test]
fn the_architecture_map_names_every_module_and_the_layers_hold() {
    let src = manifest_dir().join("src");
    let layers = layers();
    let mut on_disk: BTreeSet<String> = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let module = name.trim_end_matches(".rs").to_owned();
        if module != "lib" && module != "bin" {
            on_disk.insert(module);
        }
    }
    let mapped: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(
        on_disk, mapped,
        "ARCHITECTURE.md's table and the modules of src differ"
    );
    let (_, edges) = import_graph(&src);
    let mut up = Vec::new();
    for (from, targets) in &edges {
        let Some(&low) = layers.get(&top(from)) else {
            continue;
        };
        for to in targets {
            // A path through the root's re-exports reaches above every
            // module.
            let high = if to == "lib.rs" {
                u32::MAX
            } else {
                layers[&top(to)]
            };
            if high > low && top(from) != top(to) {
                up.push(format!("{from} -> {to}"));
            }
        }
    }
    println!("references running back up the layers: {up:#?}");
    assert!(up.len() <= 4, "{} run back up: {up:#?}", up.len());
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
    for s in dual_delta_runtime::SETTINGS {
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
