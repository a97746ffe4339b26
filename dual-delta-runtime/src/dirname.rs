//! The directory name of a test's report (and of its baseline file).

/// Longest directory name [`test_dir_name`] produces, in bytes.
pub(crate) const MAX_DIR_NAME: usize = 120;

/// The name of a test's report directory: the test's path with `::`
/// replaced by `.` (`summation::sum_naive` → `summation.sum_naive`).
///
/// In each `::`-separated segment, characters other than ASCII letters,
/// digits, `_` and `-` become `_`, and empty segments are dropped. If that
/// changed anything besides the separators, or the name is longer than 120
/// bytes (and is cut there), a hash of the full name is appended
/// (`-1a2b3c4d`), so distinct names keep distinct directories. A name with
/// nothing left becomes `_` plus the hash. The result never starts with a
/// `.`, so it never collides with the hidden temporaries of a write.
pub fn test_dir_name(test: &str) -> String {
    let mut changed = false;
    let mut segments: Vec<String> = Vec::new();
    for segment in test.split("::") {
        if segment.is_empty() {
            changed = true;
            continue;
        }
        let clean: String = segment
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        changed |= clean != segment;
        segments.push(clean);
    }
    let mut name = segments.join(".");
    if name.is_empty() {
        name.push('_');
        changed = true;
    }
    if name.len() > MAX_DIR_NAME {
        name.truncate(MAX_DIR_NAME);
        changed = true;
    }
    if changed {
        let hash = crate::rng::seed_from_name(test);
        name.push_str(&format!("-{:08x}", hash >> 32));
    }
    name
}
