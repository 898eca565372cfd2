//! The workspace's layout rules (issue 31), checked on every test run: no files of a
//! crate import each other around a loop, no Rust file of `crates/` or `src/` is longer
//! than 800 lines outside its tests, and the binary's library calls the use cases of
//! `switchboard-app`, never the API's route handlers. (Crates cannot import each other
//! around a loop: cargo refuses it.)

use std::collections::{BTreeMap, BTreeSet};
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

/// A module's path inside its crate (`["backend", "rows"]`; empty for the crate's root).
type ModulePath = Vec<String>;

/// The module `file` is, inside the crate whose sources are under `src`.
fn module_of(src: &Path, file: &Path) -> ModulePath {
    let relative = file.strip_prefix(src).expect("a file of the crate");
    let mut path: ModulePath = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        path.pop();
    }
    path
}

/// `text` without its tests, comments, strings and character literals: what is left
/// names the modules the file imports.
fn code_of(text: &str) -> String {
    let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1).copied() == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1).copied() == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1).copied() == Some('*') {
                        depth += 1;
                        i += 1;
                    } else if chars[i] == '*' && chars.get(i + 1).copied() == Some('/') {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    i += 1;
                }
            }
            'r' if (chars.get(i + 1).copied() == Some('"')
                || chars.get(i + 1).copied() == Some('#'))
                && !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                if chars.get(i + 1 + hashes).copied() != Some('"') {
                    code.push('r');
                    i += 1;
                    continue;
                }
                i += 2 + hashes;
                while i < chars.len() {
                    if chars[i] == '"'
                        && chars[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|c| **c == '#')
                            .count()
                            == hashes
                    {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
                code.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push_str("\"\"");
            }
            // A character literal ('x', '\n', '\''), not a lifetime ('a).
            '\'' if chars.get(i + 1).copied() == Some('\\')
                || chars.get(i + 2).copied() == Some('\'') =>
            {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push_str("' '");
            }
            c => {
                code.push(c);
                i += 1;
            }
        }
    }
    code
}

/// The paths a `use` tree names, each whole (`a::{b, c::d}` is `a::b` and `a::c::d`).
fn use_paths(prefix: &[String], tree: &str) -> Vec<ModulePath> {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut head: ModulePath = prefix.to_vec();
        head.extend(segments(&tree[..open]));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (at, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        parts
            .into_iter()
            .filter(|part| !part.trim().is_empty())
            .flat_map(|part| use_paths(&head, part))
            .collect()
    } else {
        let mut path = prefix.to_vec();
        path.extend(segments(tree.split(" as ").next().unwrap_or_default()));
        vec![path]
    }
}

/// The names of a path written `a::b::c`.
fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Every path of `code` that starts at the crate's root or a parent module (`crate::`,
/// `$crate::`, `super::`, `self::` in a `use`), as written.
fn crate_paths(code: &str) -> Vec<ModulePath> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let statement = &rest[..rest.find(';').unwrap_or(rest.len())];
        let statement = statement.trim();
        if ["crate::", "super::", "self::"]
            .iter()
            .any(|root| statement.starts_with(root))
        {
            paths.extend(use_paths(&[], statement));
        }
    }
    let words: Vec<char> = code.chars().collect();
    let text: String = words.iter().collect();
    for root in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            if text[..start]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let path: String = text[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let path: ModulePath = segments(&path).collect();
            if path.len() > 1 {
                paths.push(path);
            }
        }
    }
    paths
}

/// The files of the crate under `src`, each with the files it imports.
fn import_graph(src: &Path) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let files: BTreeMap<ModulePath, PathBuf> = rust_files(src)
        .into_iter()
        .map(|file| (module_of(src, &file), file))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &files {
        let code = code_of(&std::fs::read_to_string(file).expect("a readable file"));
        let mut imports = BTreeSet::new();
        for path in crate_paths(&code) {
            let (base, names): (ModulePath, &[String]) = match path.first().map(String::as_str) {
                Some("crate") => (Vec::new(), &path[1..]),
                Some("self") => (module.clone(), &path[1..]),
                Some("super") => {
                    let supers = path.iter().take_while(|name| *name == "super").count();
                    let depth = module.len().saturating_sub(supers);
                    (module[..depth].to_vec(), &path[supers..])
                }
                _ => continue,
            };
            let whole: ModulePath = base.into_iter().chain(names.iter().cloned()).collect();
            // The longest part of the path that is a file of the crate (not its root,
            // which every file reaches for the crate's own re-exports).
            let target = (1..=whole.len())
                .rev()
                .map(|n| whole[..n].to_vec())
                .find(|prefix| files.contains_key(prefix));
            if let Some(target) = target.filter(|target| target != module) {
                imports.insert(target);
            }
        }
        graph.insert(module.clone(), imports);
    }
    graph
}

/// The sets of files that import each other around a loop (Tarjan's strongly connected
/// components of more than one file).
fn circles(graph: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<ModulePath, BTreeSet<ModulePath>>,
        index: BTreeMap<&'g ModulePath, usize>,
        low: BTreeMap<&'g ModulePath, usize>,
        stack: Vec<&'g ModulePath>,
        circles: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, file: &'g ModulePath) {
            let at = self.index.len();
            self.index.insert(file, at);
            self.low.insert(file, at);
            self.stack.push(file);
            for next in self.graph.get(file).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next]);
                    self.low.insert(file, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[file].min(self.index[next]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut circle = Vec::new();
                while let Some(member) = self.stack.pop() {
                    circle.push(member.join("/"));
                    if member == file {
                        break;
                    }
                }
                if circle.len() > 1 {
                    circle.sort();
                    self.circles.push(circle);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for file in graph.keys() {
        if !walk.index.contains_key(file) {
            walk.visit(file);
        }
    }
    walk.circles
}

#[test]
fn imports_are_read_from_use_trees_and_paths_but_not_comments_or_strings() {
    let code = code_of(
        "use crate::{a::B, c::{d, e::F}};\nuse super::g;\n// crate::h::I\nlet s = \"crate::j\";\nlet c = '\"'; crate::k::l(); $crate::m::N\n#[cfg(test)]\nuse crate::o;",
    );
    let mut names: Vec<String> = crate_paths(&code).iter().map(|p| p.join("::")).collect();
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        [
            "crate::a::B",
            "crate::c::d",
            "crate::c::e::F",
            "crate::k::l",
            "crate::m::N",
            "super::g"
        ]
    );
}

#[test]
fn a_loop_of_imports_is_found() {
    let path = |name: &str| vec![name.to_owned()];
    let graph: BTreeMap<ModulePath, BTreeSet<ModulePath>> = [
        (path("a"), [path("b")].into()),
        (path("b"), [path("c")].into()),
        (path("c"), [path("a")].into()),
        (path("d"), [path("a")].into()),
    ]
    .into();
    assert_eq!(circles(&graph), [vec!["a", "b", "c"]]);
}

#[test]
fn no_files_of_a_crate_import_each_other_around_a_loop() {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("the crates")
        .map(|entry| entry.expect("an entry").path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    sources.push(root().join("src"));
    assert!(sources.len() > 10, "the crates were found: {sources:?}");
    let found: Vec<String> = sources
        .iter()
        .flat_map(|src| {
            circles(&import_graph(src))
                .into_iter()
                .map(move |circle| format!("{}: {}", src.display(), circle.join(", ")))
        })
        .collect();
    assert!(
        found.is_empty(),
        "files importing each other around a loop: {found:?}"
    );
}
