//! Runs the official JSON-Schema-Test-Suite (draft 2020-12, vendored under
//! `tests/fixtures/json-schema-test-suite`) against `validate::Rules`.
//!
//! A test group runs only if its schema uses nothing but `validate::SUPPORTED_KEYWORDS`
//! (checked recursively through `properties` and `items`); any other group is reported as
//! skipped together with the first unsupported keyword it uses. Format assertion is always on
//! in `Rules`, which is what `optional/format/*` needs. The last line printed is
//! `N passed, M failed, K skipped` (test cases, not groups); any failure exits with status 1.

use std::fs;
use std::path::Path;
use std::process;

use koder_mcp_elicitation_core::validate::{Rules, SUPPORTED_KEYWORDS};
use serde_json::Value;

#[path = "common/fixture_files.rs"]
mod fixture_files;
use fixture_files::collect_json_files;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json-schema-test-suite");
    let mut files = Vec::new();
    collect_json_files(&root.join("draft2020-12"), &mut files);
    files.sort();
    if files.is_empty() {
        eprintln!("no test files under {}", root.display());
        process::exit(1);
    }

    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let groups = match fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()))
        {
            Ok(Value::Array(groups)) => groups,
            Ok(_) => {
                println!("FAILED: {name}: not an array of test groups");
                failed += 1;
                continue;
            }
            Err(e) => {
                println!("FAILED: {name}: {e}");
                failed += 1;
                continue;
            }
        };
        for group in &groups {
            let description = group["description"].as_str().unwrap_or("?");
            let schema = &group["schema"];
            let cases = group["tests"].as_array().map(Vec::as_slice).unwrap_or(&[]);

            if let Some(keyword) = first_unsupported_keyword(schema) {
                println!("skipped: {name} / {description}: unsupported keyword {keyword}");
                skipped += cases.len();
                continue;
            }
            let rules = match Rules::compile(schema, "schema") {
                Ok(rules) => rules,
                Err(e) => {
                    println!(
                        "FAILED: {name} / {description}: schema refused: {}",
                        e.message
                    );
                    failed += cases.len();
                    continue;
                }
            };
            for case in cases {
                let case_description = case["description"].as_str().unwrap_or("?");
                let expected = case["valid"].as_bool().unwrap_or(false);
                let violations = rules.validate(&case["data"]);
                if violations.is_empty() == expected {
                    passed += 1;
                } else {
                    failed += 1;
                    println!(
                        "FAILED: {name} / {description} / {case_description}: expected {}, got {violations:?}",
                        if expected { "valid" } else { "invalid" },
                    );
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        process::exit(1);
    }
}

/// The first keyword outside the supported subset, looking into `properties` and `items`
/// (the only subschema positions in the subset); `None` if the group can run.
fn first_unsupported_keyword(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else {
        return None;
    };
    for (keyword, value) in map {
        if !SUPPORTED_KEYWORDS.contains(&keyword.as_str()) {
            return Some(keyword.clone());
        }
        let found = match (keyword.as_str(), value) {
            ("properties", Value::Object(children)) => {
                children.values().find_map(first_unsupported_keyword)
            }
            ("items", child) => first_unsupported_keyword(child),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}
