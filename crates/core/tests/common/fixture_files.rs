//! Finding fixture files, shared by the native harnesses (the JSON-Schema suite and the fuzzer).

use std::fs;
use std::path::{Path, PathBuf};

/// Every `*.json` file below `dir`, recursively.
pub fn collect_json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_json_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
}
