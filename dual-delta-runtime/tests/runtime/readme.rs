//! The README's set-up advice agrees with the workspace: the profile
//! settings it recommends are the workspace's own (`Cargo.toml` and
//! `.cargo/config.toml`), its GPU example is the one
//! `tests/tests/readme_gpu.rs` runs, and the guide's CI recipe is the
//! workflow this repository runs.

use std::collections::BTreeMap;
use std::path::Path;

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The README's fenced blocks of `language`, in order.
fn blocks<'a>(readme: &'a str, language: &str) -> Vec<&'a str> {
    readme
        .split(&format!("```{language}\n"))
        .skip(1)
        .filter_map(|rest| rest.split("\n```").next())
        .collect()
}

/// The `opt-level` of each `[profile.dev.package.NAME]` in a TOML text,
/// and of `[profile.dev]` itself (the crate's own code) as `[profile.dev]`.
fn opt_levels(toml: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut section = None;
    for line in toml.lines().map(str::trim) {
        if line == "[profile.dev]" {
            section = Some(line.to_owned());
        } else if line.starts_with('[') {
            section = line
                .strip_prefix("[profile.dev.package.")
                .and_then(|s| s.strip_suffix(']'))
                .map(|s| s.trim_matches('"').to_owned());
        } else if let (Some(name), Some(level)) = (&section, line.strip_prefix("opt-level = ")) {
            out.insert(name.clone(), level.to_owned());
        }
    }
    out
}

#[test]
fn the_recommended_profiles_are_the_workspaces() {
    // The workspace's: its manifest's, and its configuration's for the
    // packages only the GPU crates use.
    let mut workspace = opt_levels(&read("Cargo.toml"));
    workspace.extend(opt_levels(&read(".cargo/config.toml")));
    for file in ["README.md", "dual-delta-runtime/src/guide/writing_tests.md"] {
        let text = read(file);
        let recommended = blocks(&text, "toml")
            .into_iter()
            .find(|b| b.contains("[profile.dev.package."))
            .unwrap_or_else(|| panic!("{file}: a TOML block of profile settings"));
        let recommended = opt_levels(recommended);
        assert_eq!(
            recommended.get("*").map(String::as_str),
            Some("3"),
            "{file}"
        );
        // The test's own code (the kernels, the trials' loops) at level 1.
        assert_eq!(
            recommended.get("[profile.dev]").map(String::as_str),
            Some("1"),
            "{file}"
        );
        // The GPU stack stays at level 1, as in the workspace.
        for gpu in ["wgpu", "wgpu-core", "wgpu-hal", "naga", "ash"] {
            assert_eq!(
                recommended.get(gpu).map(String::as_str),
                Some("1"),
                "{file}: {gpu}"
            );
        }
        for (name, level) in &recommended {
            assert_eq!(workspace.get(name), Some(level), "{file}: {name}");
        }
    }
}

#[test]
fn the_gpu_example_is_the_one_the_tests_run_and_it_can_be_skipped() {
    let readme = read("README.md");
    let example = blocks(&readme, "rust,ignore")
        .into_iter()
        .find(|b| b.contains("fn gpu_matmul("))
        .expect("the README's GPU example");
    assert!(example.contains("shared_or_skip()"), "{example}");
    assert!(readme.contains("under `DUAL_DELTA_GPU=skip`, skips it"));
    // From the attribute on, whitespace aside, the test is the example
    // with `n = 100`.
    let from_attribute = |text: &str| {
        let start = text.find("#[dual_delta_test(").expect("the attribute");
        text[start..]
            .split_whitespace()
            .collect::<String>()
            .replace("n=100,", "")
    };
    let test = read("tests/tests/readme_gpu.rs");
    let test = from_attribute(&test);
    let example = from_attribute(example);
    assert!(test.starts_with(&example), "{example}\n{test}");
}

#[test]
fn the_guides_ci_recipe_is_the_workflow_this_repository_runs() {
    let guide = read("dual-delta-runtime/src/guide/regressions_and_suites.md");
    let recipes: Vec<&str> = blocks(&guide, "yaml");
    assert_eq!(recipes.len(), 1, "one YAML block in the guide");
    let workflow = read(".github/workflows/accuracy.yml");
    assert_eq!(format!("{}\n", recipes[0]), workflow);
    // What the requirement names: lavapipe, the script's shards and merge,
    // the reports as artifacts, the merged summary on the job's page.
    for step in [
        "apt-get install -y mesa-vulkan-drivers libvulkan1",
        "scripts/ci-accuracy.sh shard ${{ matrix.partition }} 4 --workspace",
        "path: target/dual-delta/shard-${{ matrix.partition }}",
        "scripts/ci-accuracy.sh merge shards/* --out merged",
        "cargo install --path dual-delta-runtime --features cli --locked",
    ] {
        assert!(workflow.contains(step), "{step}");
    }
}

#[test]
fn the_readme_and_the_guide_state_the_claim_the_module_states() {
    // The one text (`dual_delta_settings::CLAIM`), which the claim
    // module's documentation and the attribute's include.
    let claim = dual_delta_settings::CLAIM.trim_end();
    for file in ["README.md", "dual-delta-runtime/src/guide/claim.md"] {
        let text = read(file);
        assert!(
            text.contains(claim),
            "{file} does not quote the claim:\n{claim}"
        );
    }
}

#[test]
fn the_own_kernel_chapter_states_the_workspaces_wgpu() {
    // The workspace's requirement: `wgpu = { version = "30", ... }`.
    let manifest = read("Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.starts_with("wgpu = "))
        .expect("the workspace's wgpu dependency");
    let version = line
        .split("version = \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a version");
    // The version locked is of that requirement.
    let lock = read("Cargo.lock");
    let locked = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"wgpu\"\n"))
        .and_then(|p| p.split("version = \"").nth(1))
        .and_then(|s| s.split('"').next())
        .expect("wgpu in Cargo.lock");
    assert!(
        locked.starts_with(&format!("{version}.")),
        "{locked} {version}"
    );
    let chapter = read("gpu-backend/src/guide/own_kernel.md");
    let stated = format!("wgpu = \"{version}\"");
    assert!(chapter.contains(&format!("built on wgpu {version} (`{stated}`")));
    let toml = blocks(&chapter, "toml");
    assert!(toml.iter().any(|b| b.contains(&stated)), "{toml:?}");
    // No other major version is named.
    for other in chapter.match_indices("wgpu = \"") {
        assert!(
            chapter[other.0..].starts_with(&stated),
            "{}",
            &chapter[other.0..]
        );
    }
    assert!(read("README.md").contains("(gpu-backend/src/guide/own_kernel.md)"));
}
