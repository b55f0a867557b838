//! Reading the repository's test data (`tests/data/`): a missing or unreadable file fails the
//! test with the path it wanted, so a clone without the data can never pass by skipping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/data/<rel>` in this checkout.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

pub fn read_to_string(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("test data {}: {e}", path.display()))
}

pub fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("test data {}: {e}", path.display()))
}

/// The entries of a data directory, sorted by name; fails if it is missing or empty (an empty
/// corpus would make every loop over it pass vacuously).
pub fn list(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    let dir = dir.as_ref();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("test data directory {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("test data directory {}: {e}", dir.display()))
                .path()
        })
        .collect();
    assert!(
        !paths.is_empty(),
        "test data directory {} is empty",
        dir.display()
    );
    paths.sort();
    paths
}
