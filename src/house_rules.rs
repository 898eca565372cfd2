//! The workspace's layout rules (issue 31), checked on every test run: no files of a
//! crate import each other around a loop, no Rust file of `crates/` or `src/` is longer
//! than 800 lines outside its tests, and the binary's library calls the use cases of
//! `switchboard-app`, never the API's route handlers. (Crates cannot import each other
//! around a loop: cargo refuses it.)
//!
//! The files are read as text, without comments, strings and test modules. What a file
//! imports is every path its code writes from the crate's root (`crate::`, `$crate::`),
//! a parent (`super::`) or itself (`self::`, or one of its own child modules), resolved to
//! the longest part of it that is a file of the crate and followed through that file's
//! re-exports (`pub use`, by name or glob) to the file that holds the item. A front
//! door's (`mod.rs`, `lib.rs`) re-exports of its own folder are its structure, no import,
//! unless its own code uses them.

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

/// The spans of the test modules of `code` (a file as [`lexed`] leaves it): each
/// `#[cfg(test)]` at a line's start on a module with a body (`mod tests { … }`), from the
/// attribute to the module's closing brace. A `#[cfg(test)]` on a module declared
/// elsewhere (`mod house_rules;`) is no span: the file it names is read on its own.
fn test_modules(code: &str) -> Vec<(usize, usize)> {
    const TEST: &str = "#[cfg(test)]";
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(TEST) {
        let start = from + at;
        from = start + TEST.len();
        if start != 0 && !code[..start].ends_with('\n') {
            continue;
        }
        // The item it is on, past any further attributes.
        let item = code[from..]
            .lines()
            .find(|line| !line.trim().is_empty() && !line.trim().starts_with("#["));
        let Some(item) = item.map(str::trim) else {
            break;
        };
        if !(item.starts_with("mod ") && item.ends_with('{')) {
            continue;
        }
        let Some(open) = code[from..].find('{').map(|at| from + at) else {
            break;
        };
        let mut depth = 0;
        let mut end = code.len();
        for (at, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + at + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        if code[end..].starts_with('\n') {
            end += 1;
        }
        spans.push((start, end));
        from = end;
    }
    spans
}

/// `text` without comments, strings and character literals (their lines kept, so lines
/// count as in the file): what is left is code, in which braces, paths and `#[cfg(test)]`
/// mean what they say.
fn lexed(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut code = String::with_capacity(text.len());
    // What is skipped leaves its line breaks.
    let skip = |from: usize, to: usize, code: &mut String| {
        let to = to.min(chars.len());
        code.extend(chars[from.min(to)..to].iter().filter(|c| **c == '\n'));
    };
    let mut i = 0;
    while i < chars.len() {
        let follows_a_name = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let start = i;
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
                skip(start, i, &mut code);
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
                skip(start, i, &mut code);
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push_str("\"\"");
                skip(start, i, &mut code);
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
    code
}

/// The code of `text` ([`lexed`]) without its test modules.
fn code_of(text: &str) -> String {
    let code = lexed(text);
    let mut kept = String::with_capacity(code.len());
    let mut from = 0;
    for (start, end) in test_modules(&code) {
        kept.push_str(&code[from..start]);
        from = end;
    }
    kept.push_str(&code[from..]);
    kept
}

/// The lines of `text` outside its test modules.
fn lines_outside_tests(text: &str) -> usize {
    code_of(text).lines().count()
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
/// (`a::{b, c::d as e}` is `a::b` as `b` and `a::c::d` as `e`; `a::*` is `a` as `*`).
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
        if known_as == "*" {
            path.pop();
        }
        vec![(path, known_as)]
    }
}

/// What one file names of its crate, each path made whole from the crate's root.
#[derive(Default)]
struct Imports {
    /// The paths its code uses (its `use` lines but its re-exports, and paths written in
    /// place).
    paths: Vec<ModulePath>,
    /// The paths it re-exports (`pub use`).
    reexported: Vec<ModulePath>,
    /// What it re-exports by name, by the name it gives.
    reexports: BTreeMap<String, ModulePath>,
    /// The modules whose every public item it re-exports (`pub use a::*`).
    globs: Vec<ModulePath>,
    /// The names it declares (functions, types, constants, modules, macros).
    declares: BTreeSet<String>,
    /// The macros it exports at the crate's root (`#[macro_export]`).
    exported_macros: Vec<String>,
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

/// The words of `code` (its names).
fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !in_name(c))
        .filter(|word| !word.is_empty())
}

/// Whether `c` may stand in a name.
fn in_name(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The names `code` declares after any of `keywords`.
fn declared(code: &str, keywords: &[&str]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for keyword in keywords {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            let after = &code[from..];
            if code[..start].chars().last().is_some_and(in_name)
                || !after.starts_with(char::is_whitespace)
            {
                continue;
            }
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|c| in_name(*c))
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// The paths `code` (a file's, as [`code_of`] leaves it) writes into its crate, as
/// `module` of a crate whose modules are `files`.
fn imports_of(code: &str, module: &[String], files: &BTreeSet<ModulePath>) -> Imports {
    let mut imports = Imports {
        declares: declared(
            code,
            &[
                "fn",
                "struct",
                "enum",
                "trait",
                "type",
                "const",
                "static",
                "union",
                "mod",
                "macro_rules!",
            ],
        ),
        exported_macros: code
            .split("#[macro_export]")
            .skip(1)
            .filter_map(|after| {
                // Past any further attributes (`#[doc(hidden)]`).
                let mut after = after.trim_start();
                while after.starts_with("#[") {
                    after = after[after.find(']')? + 1..].trim_start();
                }
                let after = after.strip_prefix("macro_rules!")?;
                let name: String = after
                    .trim_start()
                    .chars()
                    .take_while(|c| in_name(*c))
                    .collect();
                (!name.is_empty()).then_some(name)
            })
            .collect(),
        ..Imports::default()
    };
    // The code with its `use` lines blanked, for the paths written in place.
    let mut in_place = code.to_owned();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + "use ".len();
        let before = &code[..start];
        if before.chars().last().is_some_and(in_name) {
            continue;
        }
        let end = code[from..].find(';').map_or(code.len(), |at| from + at);
        let public = before.trim_end().ends_with("pub") || before.trim_end().ends_with(')');
        let statement = code[from..end].trim();
        let statement = statement.strip_prefix('$').unwrap_or(statement);
        let first: String = statement.chars().take_while(|c| in_name(*c)).collect();
        let tree = match first.as_str() {
            "crate" | "super" | "self" => statement.to_owned(),
            _ if files.contains(&[module, std::slice::from_ref(&first)].concat()) => {
                format!("self::{statement}")
            }
            _ => continue,
        };
        in_place.replace_range(start..end, &" ".repeat(end - start));
        for (path, known_as) in use_paths(&[], &tree) {
            let Some(whole) = whole_path(module, &path) else {
                continue;
            };
            match (public, known_as.as_str()) {
                (false, _) => imports.paths.push(whole),
                (true, "*") => {
                    imports.globs.push(whole.clone());
                    imports.reexported.push(whole);
                }
                (true, _) => {
                    imports.reexports.insert(known_as, whole.clone());
                    imports.reexported.push(whole);
                }
            }
        }
    }
    // Its module declarations (`mod backup;`) name files, not what they hold.
    let mut from = 0;
    while let Some(at) = in_place[from..].find("mod ") {
        let start = from + at;
        from = start + "mod ".len();
        if in_place[..start].chars().last().is_some_and(in_name) {
            continue;
        }
        let name_end = from + in_place[from..].chars().take_while(|c| in_name(*c)).count();
        if in_place[name_end..].trim_start().starts_with(';') {
            let end = name_end + in_place[name_end..].find(';').unwrap_or(0) + 1;
            in_place.replace_range(start..end, &" ".repeat(end - start));
        }
    }
    // A name the file re-exports and also uses in its own code is an import of it.
    for (name, path) in &imports.reexports {
        if words(&in_place).any(|word| word == name) {
            imports.paths.push(path.clone());
        }
    }
    // A path from one of its own child modules, written in place (`search::mac_prefix`).
    let mut from = 0;
    while let Some(at) = in_place[from..].find("::") {
        let start = from + at;
        from = start + 2;
        let first: String = in_place[..start]
            .chars()
            .rev()
            .take_while(|c| in_name(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let first_at = start - first.len();
        let before = in_place[..first_at].chars().last();
        if first.is_empty() || before.is_some_and(|c| in_name(c) || c == ':' || c == '$') {
            continue;
        }
        let child = [module, std::slice::from_ref(&first)].concat();
        if files.contains(&child) {
            let rest: String = in_place[from..]
                .chars()
                .take_while(|c| in_name(*c) || *c == ':')
                .collect();
            imports
                .paths
                .push(child.into_iter().chain(segments(&rest)).collect());
        }
    }
    for root in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = in_place[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            // Inside a longer path (`super::super::x`, `a::crate`) or a name.
            let before = in_place[..start].chars().last();
            if before.is_some_and(|c| in_name(c) || c == ':') {
                continue;
            }
            let path: String = in_place[start..]
                .chars()
                .take_while(|c| in_name(*c) || *c == ':')
                .collect();
            let path: ModulePath = segments(&path).collect();
            if path.len() > 1 {
                imports.paths.extend(whole_path(module, &path));
            }
        }
    }
    imports
}

/// A crate's files, read.
struct Crate {
    /// Each file's imports, by module.
    files: BTreeMap<ModulePath, Imports>,
    /// The file of each macro exported at the crate's root.
    macros: BTreeMap<String, ModulePath>,
}

impl Crate {
    /// The file of the crate that holds what `path` names: the longest part of it that
    /// is a file, followed through that file's re-exports — by name, then through its
    /// globs to a module declaring the name — while they lead to a file of the crate; a
    /// macro exported at the root, the file that writes it.
    fn holder(&self, path: &[String], followed: usize) -> Option<ModulePath> {
        let file = (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|prefix| self.files.contains_key(prefix))?;
        let Some(name) = path.get(file.len()) else {
            return Some(file);
        };
        let rest = &path[file.len() + 1..];
        let imports = &self.files[&file];
        if followed >= MOST_REEXPORTS || imports.declares.contains(name) {
            return Some(file);
        }
        if file.is_empty()
            && let Some(writer) = self.macros.get(name)
        {
            return Some(writer.clone());
        }
        if let Some(target) = imports.reexports.get(name) {
            let further: ModulePath = target.iter().chain(rest).cloned().collect();
            return self.holder(&further, followed + 1).or(Some(file));
        }
        for glob in &imports.globs {
            let Some(module) = self.holder(glob, followed + 1) else {
                continue;
            };
            let further: ModulePath = module.iter().chain([name]).chain(rest).cloned().collect();
            match self.holder(&further, followed + 1) {
                // Deeper: a file of its own, or followed on through the module.
                Some(held) if held != module => return Some(held),
                _ if self.files[&module].declares.contains(name) => return Some(module),
                _ => {}
            }
        }
        Some(file)
    }
}

/// The files of the crate under `src`, each with the files it imports. A front door's
/// re-exports of its own folder's files are the folder's structure, not imports.
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
    let modules: BTreeSet<ModulePath> = sources.keys().cloned().collect();
    let files: BTreeMap<ModulePath, Imports> = sources
        .iter()
        .map(|(module, file)| {
            let code = code_of(&std::fs::read_to_string(file).expect("a readable file"));
            (module.clone(), imports_of(&code, module, &modules))
        })
        .collect();
    let macros = files
        .iter()
        .flat_map(|(module, imports)| {
            imports
                .exported_macros
                .iter()
                .map(move |name| (name.clone(), module.clone()))
        })
        .collect();
    let krate = Crate { files, macros };
    let mut graph: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (module, imports) in &krate.files {
        let used = imports
            .paths
            .iter()
            .filter_map(|path| krate.holder(path, 0));
        let reexported = imports
            .reexported
            .iter()
            .filter_map(|path| krate.holder(path, 0))
            .filter(|target| !target.starts_with(module));
        let targets = graph.entry(module.clone()).or_default();
        targets.extend(used.chain(reexported).filter(|target| target != module));
    }
    graph
}

/// The sets of files that import each other around a loop (Tarjan's strongly connected
/// components of more than one file).
fn components(graph: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<ModulePath, BTreeSet<ModulePath>>,
        index: BTreeMap<&'g ModulePath, usize>,
        low: BTreeMap<&'g ModulePath, usize>,
        stack: Vec<&'g ModulePath>,
        found: Vec<Vec<ModulePath>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, file: &'g ModulePath) {
            let at = self.index.len();
            self.index.insert(file, at);
            self.low.insert(file, at);
            self.stack.push(file);
            for next in self.graph.get(file).into_iter().flatten() {
                if !self.graph.contains_key(next) {
                    continue;
                }
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
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    component.push(member.clone());
                    if member == file {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for file in graph.keys() {
        if !walk.index.contains_key(file) {
            walk.visit(file);
        }
    }
    walk.found
}

/// The loops of `graph` (files importing each other), each by its files' names.
fn circles(graph: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<String>> {
    components(graph)
        .into_iter()
        .map(|component| component.iter().map(|file| file.join("/")).collect())
        .collect()
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

/// The readers' own tests.
#[cfg(test)]
mod tests {
    use super::*;

    /// A module path from its names.
    fn module(names: &[&str]) -> ModulePath {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn a_file_counts_its_lines_outside_its_test_modules() {
        let lines = |text: &str| lines_outside_tests(text);
        assert_eq!(lines("a\nb\n#[cfg(test)]\nmod tests {\n}\n"), 2);
        assert_eq!(
            lines("a\n#[cfg(test)]\nmod tests {\n    let s = \"}\";\n}\nb\n"),
            2
        );
        assert_eq!(
            lines("a\n#[cfg(test)]\n#[allow(unused)]\nmod tests {\n}\n"),
            1
        );
        assert_eq!(lines("a\n#[cfg(test)]\nmod elsewhere;\nb\n"), 4);
        assert_eq!(
            lines("a\n/* one\ntwo */\nb\n"),
            4,
            "a comment's lines are lines"
        );
    }

    #[test]
    fn code_is_read_without_comments_strings_and_tests() {
        let code = code_of(
            "a /* crate::x /* nested */ crate::y */ b // crate::z\n\
             \"crate::s\" r#\"crate::\"r\"#  br\"crate::t\" 'x' '\\'' &'a c\n\
             #[cfg(test)]\nmod tests {\n crate::u\n}\nd crate::v\n",
        );
        assert_eq!(code.matches("crate::").count(), 1, "{code}");
        assert!(
            code.contains("a ") && code.contains(" b") && code.contains("&'a c"),
            "{code}"
        );
        assert!(
            code.contains("d crate::v"),
            "code after the tests is read: {code}"
        );
    }

    #[test]
    fn imports_are_read_from_use_trees_and_paths() {
        let files: BTreeSet<ModulePath> = [
            module(&["m"]),
            module(&["m", "child"]),
            module(&["m", "rules"]),
        ]
        .into();
        let code = code_of(
            "use crate::{a::B, c::{d, e::F}};\nuse super::g;\npub use child::H as I;\n\
             pub(crate) use rules::*;\nuse child::J;\nchild::K();\n\
             crate::k::l(); $crate::m::N; super::super::o::P\n\
             pub struct Q;\n#[macro_export]\n#[doc(hidden)]\nmacro_rules! r { () => {} }\n",
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
                "m::child::J",
                "m::child::K",
                "o::P"
            ]
        );
        assert_eq!(
            imports.reexports.get("I"),
            Some(&module(&["m", "child", "H"]))
        );
        assert_eq!(imports.globs, [module(&["m", "rules"])]);
        assert_eq!(imports.reexported.len(), 2);
        assert!(imports.declares.contains("Q") && imports.declares.contains("r"));
        assert_eq!(imports.exported_macros, ["r"]);
    }

    #[test]
    fn a_path_is_held_where_its_reexport_leads() {
        let file = |declares: &[&str], reexports: &[(&str, &[&str])], globs: &[&[&str]]| Imports {
            declares: declares.iter().map(|name| (*name).to_owned()).collect(),
            reexports: reexports
                .iter()
                .map(|(name, path)| ((*name).to_owned(), module(path)))
                .collect(),
            globs: globs.iter().map(|path| module(path)).collect(),
            ..Imports::default()
        };
        let krate = Crate {
            files: [
                (module(&[]), file(&[], &[], &[])),
                (
                    module(&["folder"]),
                    file(
                        &["own_fn"],
                        &[("Thing", &["folder", "inner", "Thing"])],
                        &[&["folder", "rules"]],
                    ),
                ),
                (module(&["folder", "inner"]), file(&["Thing"], &[], &[])),
                (
                    module(&["folder", "rules"]),
                    file(&[], &[], &[&["folder", "rules", "number"]]),
                ),
                (
                    module(&["folder", "rules", "number"]),
                    file(&["Int", "closed_set"], &[], &[]),
                ),
            ]
            .into(),
            macros: [(
                "closed_set".to_owned(),
                module(&["folder", "rules", "number"]),
            )]
            .into(),
        };
        let held = |path: &[&str]| krate.holder(&module(path), 0).map(|m| m.join("/"));
        assert_eq!(held(&["folder", "Thing"]).as_deref(), Some("folder/inner"));
        assert_eq!(held(&["folder", "own_fn"]).as_deref(), Some("folder"));
        assert_eq!(
            held(&["folder", "Int", "MAX"]).as_deref(),
            Some("folder/rules/number"),
            "through two globs"
        );
        assert_eq!(
            held(&["closed_set"]).as_deref(),
            Some("folder/rules/number")
        );
        assert_eq!(held(&["folder", "Nothing"]).as_deref(), Some("folder"));
    }

    /// The loops of a crate made of `files` (path, text), written to a folder.
    fn loops_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = tempfile::tempdir().expect("a folder");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
            std::fs::write(path, text).expect("written");
        }
        circles(&import_graph(dir.path()))
    }

    #[test]
    fn a_loop_through_a_folder_is_found() {
        let found = loops_of(&[
            ("lib.rs", "mod a;\nmod c;\n"),
            ("a/mod.rs", "mod b;\npub fn helper() { crate::c::x(); }\n"),
            ("a/b.rs", "pub struct T;\nfn f() { super::helper(); }\n"),
            ("c.rs", "pub fn x() {}\nfn g(_: crate::a::b::T) {}\n"),
        ]);
        assert_eq!(
            found,
            [vec!["a", "a/b", "c"]],
            "a folder's file, its door, outside"
        );
        let inside = loops_of(&[
            ("lib.rs", "mod a;\n"),
            (
                "a/mod.rs",
                "mod b;\nmod c;\nuse b::T;\npub fn helper() {}\n",
            ),
            (
                "a/b.rs",
                "pub struct T;\nfn f() { super::helper(); super::c::g(); }\n",
            ),
            ("a/c.rs", "pub fn g() {}\nfn h(_: super::b::T) {}\n"),
        ]);
        assert_eq!(inside, [vec!["a", "a/b", "a/c"]], "two files of a folder");
        let own = loops_of(&[
            ("lib.rs", "mod a;\n"),
            ("a/mod.rs", "mod b;\nuse b::T;\npub fn helper() {}\n"),
            ("a/b.rs", "pub struct T;\nfn f() { super::helper(); }\n"),
        ]);
        assert_eq!(
            own,
            [vec!["a", "a/b"]],
            "a door and its file, using each other"
        );
    }

    #[test]
    fn the_root_may_reexport_what_uses_it_but_not_use_it() {
        let crate_with = |lib: &str| {
            loops_of(&[
                ("lib.rs", lib),
                (
                    "a.rs",
                    "use crate::helper;\npub struct Thing;\npub fn k() {}\n",
                ),
            ])
        };
        let re_exporting = "mod a;\npub use a::Thing;\npub fn helper() {}\n";
        assert!(crate_with(re_exporting).is_empty());
        // A module named as the item it re-exports is declared, not used.
        let same_name = "mod a;\npub use a::k as a;\npub fn helper() {}\n";
        assert!(crate_with(same_name).is_empty());
        assert!(crate_with(re_exporting).is_empty());
        for using in [
            "mod a;\nuse a::Thing;\npub fn helper() -> Thing { Thing }\n",
            "mod a;\npub use a::Thing;\npub fn helper() -> Thing { Thing }\n",
            "mod a;\npub fn helper() { a::k() }\n",
        ] {
            assert_eq!(crate_with(using), [vec!["", "a"]], "{using}");
        }
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
}
