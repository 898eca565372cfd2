//! The workspace's layout rules (issue 31), checked on every test run: no Rust file of
//! `crates/` or `src/` is longer than 800 lines outside its tests, and the binary's
//! library calls the use cases of `switchboard-app`, never the API's route handlers.
//! (That no files import each other around a loop is checked by `farm-studio look`,
//! which this machine's tools hold; see docs/decisions.md.)

use std::path::{Path, PathBuf};

/// The most lines a file may hold before its tests.
const MOST_LINES: usize = 800;

/// The workspace's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, build output left out.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name != "target") {
                    folders.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The lines of `text` before its tests (its first `#[cfg(test)]`, which by the
/// house's habit opens the tests at the end of a file).
fn lines_outside_tests(text: &str) -> usize {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .count()
}

#[test]
fn a_file_with_tests_counts_only_what_stands_before_them() {
    assert_eq!(lines_outside_tests("a\nb\n#[cfg(test)]\nmod tests {}\n"), 2);
    assert_eq!(lines_outside_tests("a\nb\nc\n"), 3);
}

#[test]
fn no_file_is_longer_than_800_lines_outside_its_tests() {
    let files: Vec<PathBuf> = ["crates", "src"]
        .iter()
        .flat_map(|dir| rust_files(&root().join(dir)))
        .collect();
    assert!(
        files.len() > 100,
        "the walk found the sources: {}",
        files.len()
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("a readable file");
            let lines = lines_outside_tests(&text);
            (lines > MOST_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "longer than {MOST_LINES} lines: {long:?}");
}

/// Whether `text` names the API's `routes` module: a path into it, or an import of it
/// (`use switchboard_api::{routes, …}`).
fn names_routes(text: &str) -> bool {
    text.split("switchboard_api::").skip(1).any(|after| {
        let path = after.split(';').next().unwrap_or_default();
        path.starts_with("routes")
            || path.starts_with('{')
                && path
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|word| word == "routes")
    })
}

#[test]
fn a_route_is_named_by_path_or_by_import() {
    assert!(names_routes("switchboard_api::routes::users::create(x);"));
    assert!(names_routes("use switchboard_api::{engine, routes};"));
    assert!(!names_routes("use switchboard_api::{engine, state};"));
    assert!(!names_routes(
        "let routes = switchboard_api::router(state);"
    ));
}

#[test]
fn the_binary_calls_no_route_handler() {
    let calling: Vec<String> = rust_files(&root().join("src"))
        .iter()
        .filter(|path| !path.ends_with("house_rules.rs"))
        .filter(|path| names_routes(&std::fs::read_to_string(path).expect("a readable file")))
        .map(|path| path.display().to_string())
        .collect();
    assert!(calling.is_empty(), "calling route handlers: {calling:?}");
}
