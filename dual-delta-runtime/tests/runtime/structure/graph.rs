//! The file-level import graph of a crate's `src`, and its layer table in
//! `ARCHITECTURE.md`: what the structure test checks of each crate.
//!
//! Every `crate::`, `super::` and `self::` path in `src/` is resolved to the
//! file of the module it names (the longest module prefix that is a file);
//! the files and those references form the graph. `mod` declarations are
//! not references (a parent declaring its children is the tree itself), nor
//! is a parent's `pub use self::child::Item` (the parent is the child's
//! facade, not its user). Unit tests are no part of it: a module declared
//! under `#[cfg(test)]` (with every file below it), a `tests.rs` file, and
//! an item under `#[cfg(test)]` inside a file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
pub(crate) fn files(dir: &Path, out: &mut Vec<PathBuf>) {
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
/// groups expand to each member. A visibility (`pub(in crate::a)`) names
/// no module it uses.
fn references(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut code = line.split("//").next().unwrap_or("").to_owned();
    while let Some(i) = code.find("pub(in ") {
        let end = code[i..].find(')').map_or(code.len(), |j| i + j + 1);
        code.replace_range(i..end, "pub");
    }
    let code = code.as_str();
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

/// The lines of `text` outside its unit tests, and the modules it declares
/// under `#[cfg(test)]` (`mod tests;`): an item under `#[cfg(test)]` is
/// left out, one line ending in `;` or a block up to the `}` at its
/// indentation.
fn without_tests(text: &str) -> (Vec<&str>, Vec<String>) {
    let mut code = Vec::new();
    let mut test_modules = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            code.push(line);
            continue;
        }
        let Some(item) = lines.by_ref().find(|l| !l.trim_start().starts_with("#[")) else {
            break;
        };
        let words: Vec<&str> = item.split_whitespace().collect();
        if let Some(name) = words
            .iter()
            .position(|w| *w == "mod")
            .and_then(|i| words.get(i + 1)?.strip_suffix(';'))
        {
            test_modules.push(name.to_owned());
        }
        if !item.trim_end().ends_with(';') {
            let indent = &item[..item.len() - item.trim_start().len()];
            let end = format!("{indent}}}");
            lines
                .by_ref()
                .find(|l| l.trim_end().trim_end_matches(';') == end);
        }
    }
    (code, test_modules)
}

/// A crate's files and the references between them.
pub(crate) struct Graph {
    /// Each file's module path and name (`stats/sign.rs`), unit tests
    /// aside.
    pub(crate) modules: BTreeMap<Vec<String>, String>,
    /// The files each file refers to, `lib.rs` included where a path goes
    /// through the crate root's re-exports.
    pub(crate) edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// The import graph of the crate whose sources are `src`.
    pub(crate) fn of(src: &Path) -> Graph {
        let mut all = Vec::new();
        files(src, &mut all);
        all.sort();
        let texts: BTreeMap<Vec<String>, (String, String)> = all
            .iter()
            .map(|f| {
                let name = f.strip_prefix(src).unwrap().display().to_string();
                let text = std::fs::read_to_string(f).unwrap();
                (module_of(src, f), (name, text))
            })
            .collect();
        // The modules declared under `#[cfg(test)]`, and every module
        // below them.
        let mut tests: BTreeSet<Vec<String>> = BTreeSet::new();
        for (module, (_, text)) in &texts {
            for child in without_tests(text).1 {
                // A child of `a.rs` or `a/mod.rs` is `a::child`.
                let mut path = module.clone();
                path.push(child);
                tests.insert(path);
            }
        }
        let is_test = |module: &[String], name: &str| {
            name.ends_with("tests.rs") || tests.iter().any(|t| module.starts_with(t))
        };
        let modules: BTreeMap<Vec<String>, String> = texts
            .iter()
            .filter(|(module, (name, _))| !is_test(module, name))
            .map(|(module, (name, _))| (module.clone(), name.clone()))
            .collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, name) in &modules {
            let text = &texts[module].1;
            for line in without_tests(text).0 {
                let trimmed = line.trim_start();
                let facade = ["pub use self::", "pub(crate) use self::"]
                    .iter()
                    .any(|p| trimmed.starts_with(p));
                if trimmed.starts_with("//") || trimmed.starts_with("mod ") || facade {
                    continue;
                }
                for path in references(line, module) {
                    // The longest prefix that is a file's module.
                    let target = (1..=path.len())
                        .rev()
                        .find_map(|k| modules.get(&path[..k]))
                        .or_else(|| modules.get(&Vec::new()));
                    if let Some(target) = target
                        && target != name
                    {
                        edges
                            .entry(name.clone())
                            .or_default()
                            .insert(target.clone());
                    }
                }
            }
        }
        Graph { modules, edges }
    }

    /// A loop of files that import each other, if there is one (paths
    /// through the crate root aside: the root only re-exports).
    pub(crate) fn cycle(&self) -> Option<Vec<String>> {
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
        let mut edges = self.edges.clone();
        for targets in edges.values_mut() {
            targets.remove("lib.rs");
        }
        let mut state = BTreeMap::new();
        self.modules.values().find_map(|node| {
            if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
                visit(node, &edges, &mut state, &mut Vec::new())
            } else {
                None
            }
        })
    }

    /// The top-level modules (`stats` for `stats/sign.rs`), the crate root
    /// and a binary's folder (`bin`) aside.
    pub(crate) fn top_modules(&self) -> BTreeSet<String> {
        self.modules
            .values()
            .map(|f| top(f))
            .filter(|m| m != "lib" && m != "bin")
            .collect()
    }
}

/// The top-level module of a file under `src` (`stats` for
/// `stats/sign.rs`, `run` for `run.rs`).
pub(crate) fn top(file: &str) -> String {
    file.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_owned()
}

/// The layer of each top-level module of the crate in folder `dir`, from
/// its table in `architecture` (the text of `ARCHITECTURE.md`): the rows
/// `| 3 | `verdict` | ... |` under the heading that names `` `dir/src` ``,
/// up to the next heading.
pub(crate) fn layers(architecture: &str, dir: &str) -> BTreeMap<String, u32> {
    let heading = format!("`{dir}/src`");
    architecture
        .lines()
        .skip_while(|l| !(l.starts_with('#') && l.contains(&heading)))
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let layer = cells.get(1)?.parse().ok()?;
            let module = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((module.to_owned(), layer))
        })
        .collect()
}
