//! The workspace's layout rules (issue 31), checked on every test run: no files of a
//! crate import each other around a loop, no Rust file of `crates/` or `src/` is longer
//! than 800 lines outside its tests, and the binary's library calls the use cases of
//! `switchboard-app`, never the API's route handlers. (Crates cannot import each other
//! around a loop: cargo refuses it.)
//!
//! The files are read as text. What a file imports is every path it writes from the
//! crate's root (`crate::`, `$crate::`), a parent (`super::`) or itself (`self::`, or a
//! `use` of one of its own child modules), resolved to the longest part of it that is a
//! file of the crate, and through that file's re-exports (`pub use`) to the file that
//! holds the item. A folder's front door (`mod.rs`, `lib.rs`, or `name.rs` beside a
//! `name/` folder) declares its files and re-exports what they make public: its arrows
//! down into its own folder are the folder's structure, not imports, so a child using
//! what its front door holds is no loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a file may hold before its tests.
const MOST_LINES: usize = 800;

/// How many re-exports a path is followed through before it is taken where it stands.
const MOST_REEXPORTS: usize = 8;

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

/// Where the tests of `text` begin: the first `#[cfg(test)]` that opens a module with a
/// body (`mod tests {`), which by the house's habit closes a file. A `#[cfg(test)]` on a
/// module declared elsewhere (`mod house_rules;`) does not end the file's code.
fn tests_start(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        from = start + "#[cfg(test)]".len();
        let at_line_start = start == 0 || text[..start].ends_with('\n');
        // The item it is on, past any further attributes.
        let item = text[from..]
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty() && !line.starts_with("#["))
            .unwrap_or_default();
        if at_line_start && item.starts_with("mod ") && item.ends_with('{') {
            return Some(start);
        }
    }
    None
}

/// The lines of `text` before its tests.
fn lines_outside_tests(text: &str) -> usize {
    text[..tests_start(text).unwrap_or(text.len())]
        .lines()
        .count()
}

/// `text` without its tests, comments, strings and character literals: what is left
/// names the modules the file imports.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut code = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let follows_a_name = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        match chars[i] {
            '/' if at(i + 1) == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            // A raw string, or a raw byte or C string (`r#"…"#`, `br"…"`, `cr"…"`).
            'b' | 'c' | 'r' if !follows_a_name && raw_string_at(&chars, i).is_some() => {
                let (hashes, body) = raw_string_at(&chars, i).unwrap_or_default();
                i = body;
                while i < chars.len() {
                    let closes = chars[i] == '"' && (1..=hashes).all(|n| at(i + n) == Some('#'));
                    i += 1;
                    if closes {
                        i += hashes;
                        break;
                    }
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
            '\'' if at(i + 1) == Some('\\') || at(i + 2) == Some('\'') => {
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
    match tests_start(&code) {
        Some(start) => code[..start].to_owned(),
        None => code,
    }
}

/// At `i`, a raw string's opening (`r`, `br` or `cr`, then `#`s and `"`): how many `#`s,
/// and where its text begins.
fn raw_string_at(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let r = if chars[i] == 'r' { i } else { i + 1 };
    if chars.get(r) != Some(&'r') {
        return None;
    }
    let hashes = chars[r + 1..].iter().take_while(|c| **c == '#').count();
    (chars.get(r + 1 + hashes) == Some(&'"')).then_some((hashes, r + 2 + hashes))
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
    if matches!(path.last().map(String::as_str), Some("lib" | "mod")) {
        path.pop();
    }
    path
}

/// The names of a path written `a::b::c`.
fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The paths a `use` tree names, each whole, with the name it is known by in the file
/// (`a::{b, c::d as e}` is `a::b` as `b` and `a::c::d` as `e`).
fn use_paths(prefix: &[String], tree: &str) -> Vec<(ModulePath, String)> {
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
        let mut parts = tree.split(" as ");
        let mut path = prefix.to_vec();
        path.extend(segments(parts.next().unwrap_or_default()));
        let known_as = match parts.next() {
            Some(alias) => alias.trim().to_owned(),
            None => path.last().cloned().unwrap_or_default(),
        };
        vec![(path, known_as)]
    }
}

/// What one file names of its crate, each path made whole from the crate's root.
#[derive(Default)]
struct Imports {
    /// Every path the file writes into its crate.
    paths: Vec<ModulePath>,
    /// What it re-exports (`pub use`), by the name it gives.
    reexports: BTreeMap<String, ModulePath>,
}

/// `path` (starting `crate`, `super` or `self`) made whole from the crate's root, as
/// written in `module`; `None` for a path that does not start in the crate.
fn whole_path(module: &[String], path: &[String]) -> Option<ModulePath> {
    let (base, names): (&[String], &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (&[], &path[1..]),
        Some("self") => (module, &path[1..]),
        Some("super") => {
            let supers = path.iter().take_while(|name| *name == "super").count();
            (
                &module[..module.len().saturating_sub(supers)],
                &path[supers..],
            )
        }
        _ => return None,
    };
    Some(base.iter().chain(names).cloned().collect())
}

/// The paths `code` (a file's, as [`code_of`] leaves it) writes into its crate, as
/// `module` of a crate whose modules are `files`.
fn imports_of(code: &str, module: &[String], files: &BTreeSet<ModulePath>) -> Imports {
    let mut imports = Imports::default();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        rest = &rest[at + "use ".len()..];
        if before
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let public = before.trim_end().ends_with("pub") || before.trim_end().ends_with(')');
        let statement = rest[..rest.find(';').unwrap_or(rest.len())].trim();
        let statement = statement.strip_prefix('$').unwrap_or(statement);
        let first = statement
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or_default();
        let child = || [module, &[first.to_owned()]].concat();
        let tree = match first {
            "crate" | "super" | "self" => statement.to_owned(),
            _ if files.contains(&child()) => format!("self::{statement}"),
            _ => continue,
        };
        for (path, known_as) in use_paths(&[], &tree) {
            if let Some(whole) = whole_path(module, &path) {
                if public && known_as != "*" {
                    imports.reexports.insert(known_as, whole.clone());
                }
                imports.paths.push(whole);
            }
        }
    }
    for root in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            let before = code[..start].chars().last();
            // Inside a longer path (`super::super::x`, `a::crate`) or a name.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let path: ModulePath = segments(&path).collect();
            if path.len() > 1 {
                imports.paths.extend(whole_path(module, &path));
            }
        }
    }
    imports
}

/// The file of the crate that holds what `path` names: the longest part of it that is a
/// file, followed through that file's re-exports while they lead to a file of the crate.
fn holder(
    path: &[String],
    imports: &BTreeMap<ModulePath, Imports>,
    followed: usize,
) -> Option<ModulePath> {
    let file = (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| imports.contains_key(prefix))?;
    let reexported = path
        .get(file.len())
        .and_then(|name| imports[&file].reexports.get(name));
    match reexported {
        Some(target) if followed < MOST_REEXPORTS => {
            let further: ModulePath = target
                .iter()
                .chain(&path[file.len() + 1..])
                .cloned()
                .collect();
            // A re-export from outside the crate is held where it is re-exported.
            holder(&further, imports, followed + 1).or(Some(file))
        }
        _ => Some(file),
    }
}

/// The files of the crate under `src`, each with the files it imports.
fn import_graph(src: &Path) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let mut sources: BTreeMap<ModulePath, PathBuf> = BTreeMap::new();
    for file in rust_files(src) {
        // A binary's `main.rs` beside a `lib.rs` is a crate of its own.
        let beside_a_library = file.file_name().is_some_and(|name| name == "main.rs")
            && file.with_file_name("lib.rs").exists();
        if !beside_a_library {
            sources.insert(module_of(src, &file), file);
        }
    }
    let files: BTreeSet<ModulePath> = sources.keys().cloned().collect();
    let imports: BTreeMap<ModulePath, Imports> = sources
        .iter()
        .map(|(module, file)| {
            let code = code_of(&std::fs::read_to_string(file).expect("a readable file"));
            (module.clone(), imports_of(&code, module, &files))
        })
        .collect();
    imports
        .iter()
        .map(|(module, of)| {
            let targets = of
                .paths
                .iter()
                .filter_map(|path| holder(path, &imports, 0))
                // Not itself, nor a file of its own folder (a front door's structure).
                .filter(|target| !target.starts_with(module))
                .collect();
            (module.clone(), targets)
        })
        .collect()
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

/// Whether `code` names the API's `routes` module: a path into it, or an import of it
/// (`use switchboard_api::{routes, …}`).
fn names_routes(code: &str) -> bool {
    code.split("switchboard_api::").skip(1).any(|after| {
        let path = after.split(';').next().unwrap_or_default();
        path.starts_with("routes")
            || path.starts_with('{')
                && path
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|word| word == "routes")
    })
}

/// A module path from its names.
fn module(names: &[&str]) -> ModulePath {
    names.iter().map(|name| (*name).to_owned()).collect()
}

#[test]
fn a_file_counts_what_stands_before_its_tests_module() {
    assert_eq!(
        lines_outside_tests("a\nb\n#[cfg(test)]\nmod tests {\n}\n"),
        2
    );
    assert_eq!(
        lines_outside_tests("a\n#[cfg(test)]\nmod elsewhere;\nb\n"),
        4
    );
    assert_eq!(
        lines_outside_tests("a\n#[cfg(test)]\n#[allow(unused)]\nmod tests {\n}\n"),
        1
    );
    assert_eq!(lines_outside_tests("a\nb\nc\n"), 3);
}

#[test]
fn code_is_read_without_comments_strings_and_tests() {
    let code = code_of(
        "a /* crate::x /* nested */ crate::y */ b // crate::z\n\
         \"crate::s\" r#\"crate::\"r\"#  br\"crate::t\" 'x' '\\'' &'a c\n\
         #[cfg(test)]\nmod tests {\n crate::u\n}\n",
    );
    assert!(!code.contains("crate::"), "{code}");
    assert!(
        code.contains("a ") && code.contains(" b") && code.contains("&'a c"),
        "{code}"
    );
}

#[test]
fn imports_are_read_from_use_trees_and_paths() {
    let files: BTreeSet<ModulePath> = [module(&["m"]), module(&["m", "child"])].into();
    let code = code_of(
        "use crate::{a::B, c::{d, e::F}};\nuse super::g;\npub use child::H as I;\n\
         crate::k::l(); $crate::m::N; super::super::o::P\n",
    );
    let imports = imports_of(&code, &module(&["m"]), &files);
    let mut names: Vec<String> = imports.paths.iter().map(|p| p.join("::")).collect();
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        [
            "a::B",
            "c::d",
            "c::e::F",
            "g",
            "k::l",
            "m::N",
            "m::child::H",
            "o::P"
        ]
    );
    assert_eq!(
        imports.reexports.get("I"),
        Some(&module(&["m", "child", "H"]))
    );
}

#[test]
fn a_path_is_held_where_its_reexport_leads() {
    let mut imports: BTreeMap<ModulePath, Imports> = BTreeMap::new();
    imports.insert(
        module(&["folder"]),
        Imports {
            paths: Vec::new(),
            reexports: [
                ("Thing".to_owned(), module(&["folder", "inner", "Thing"])),
                ("Outside".to_owned(), module(&["serde", "Outside"])),
            ]
            .into(),
        },
    );
    imports.insert(module(&["folder", "inner"]), Imports::default());
    let held = |path: &[&str]| holder(&module(path), &imports, 0).map(|m| m.join("/"));
    assert_eq!(held(&["folder", "Thing"]), Some("folder/inner".to_owned()));
    assert_eq!(held(&["folder", "Outside"]), Some("folder".to_owned()));
    assert_eq!(held(&["folder", "own_fn"]), Some("folder".to_owned()));
}

#[test]
fn a_loop_of_imports_is_found() {
    let graph: BTreeMap<ModulePath, BTreeSet<ModulePath>> = [
        (module(&["a"]), [module(&["b"])].into()),
        (module(&["b"]), [module(&["c"])].into()),
        (module(&["c"]), [module(&["a"])].into()),
        (module(&["d"]), [module(&["a"])].into()),
    ]
    .into();
    assert_eq!(circles(&graph), [vec!["a", "b", "c"]]);
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

#[test]
fn the_binary_calls_no_route_handler() {
    let calling: Vec<String> = rust_files(&root().join("src"))
        .iter()
        .filter(|path| !path.ends_with("house_rules.rs"))
        .filter(|path| {
            names_routes(&code_of(
                &std::fs::read_to_string(path).expect("a readable file"),
            ))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(calling.is_empty(), "calling route handlers: {calling:?}");
}
