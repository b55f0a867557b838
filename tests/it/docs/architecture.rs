//! docs/architecture.md's layout stays true to the code: every module under `src/` is in it.
//!
//! The layout is the first code block of the "Layout" section: one entry per line, a name at
//! an indentation of two spaces per level (`src/`, then `  rpc/`, then `    mod.rs`), then its
//! description, which may go on over lines indented past the names. A file counts as listed
//! when it has an entry of its own, or when its directory's entry names it (`sqlite.rs`).

use std::collections::BTreeMap;
use std::path::Path;

/// The layout's entries under `src/`: path (`rpc/methods/`) → the entry's whole text.
fn layout() -> BTreeMap<String, String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/docs/architecture.md"))
        .expect("docs/architecture.md");
    let section = doc
        .split("\n## Layout\n")
        .nth(1)
        .expect("a Layout section in docs/architecture.md");
    let block = section
        .split("```")
        .nth(1)
        .expect("a code block in the Layout section");
    let mut entries = BTreeMap::new();
    // The names from the top down to the current entry, by level.
    let mut stack: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in block.lines().skip(1) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        // A continuation of the description above: indented past every name.
        if indent >= 16 {
            if let Some(path) = &current {
                let e: &mut String = entries.entry(path.clone()).or_default();
                e.push(' ');
                e.push_str(text);
            }
            continue;
        }
        assert!(indent % 2 == 0, "odd indentation in the layout: {line:?}");
        let level = indent / 2;
        let name = text
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        stack.truncate(level);
        stack.push(name);
        if stack[0] != "src/" {
            current = None;
            continue;
        }
        let path: String = stack[1..].concat();
        if path.is_empty() {
            // `src/` itself.
            current = None;
            continue;
        }
        entries.insert(path.clone(), text.to_string());
        current = Some(path);
    }
    entries
}

/// The source files under `src/`, as paths relative to it (`rpc/methods/system.rs`).
fn sources(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let mut items: Vec<_> = std::fs::read_dir(dir)
        .expect("read src/")
        .map(|e| e.expect("dir entry").path())
        .collect();
    items.sort();
    for p in items {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            out.push(format!("{prefix}{name}/"));
            sources(&p, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".rs") {
            out.push(format!("{prefix}{name}"));
        }
    }
}

#[test]
fn every_module_under_src_is_in_the_architecture_layout() {
    let entries = layout();
    assert!(
        entries.contains_key("rpc/") && entries.contains_key("lib.rs"),
        "the layout was not read: {:?}",
        entries.keys().collect::<Vec<_>>()
    );
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut files,
    );
    let mut missing = Vec::new();
    for f in &files {
        if entries.contains_key(f) {
            continue;
        }
        // A file may be named in its directory's entry instead (mod.rs is the directory).
        let (dir, name) = match f.trim_end_matches('/').rsplit_once('/') {
            Some((d, n)) => (format!("{d}/"), n.to_string()),
            None => (String::new(), f.clone()),
        };
        let named_by_dir = entries
            .get(&dir)
            .is_some_and(|text| name == "mod.rs" || mentions(text, &name));
        if !named_by_dir {
            missing.push(f.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "modules under src/ missing from docs/architecture.md's layout: {missing:?}"
    );
    // And nothing listed that is not there any more.
    let gone: Vec<_> = entries.keys().filter(|p| !files.contains(p)).collect();
    assert!(
        gone.is_empty(),
        "docs/architecture.md's layout lists what src/ does not have: {gone:?}"
    );
}

/// Whether `text` names `name` (`sqlite.rs`, `assets/`) as a word of its own.
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        edge(before) && edge(after)
    })
}
