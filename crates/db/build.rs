//! Embeds the migrations: each backend's folder of `<version>_<description>.sql` files
//! becomes a list of `(version, description, SQL)` in `$OUT_DIR/migrations.rs`, which
//! `backend::schema` hands to sqlx's migrator, as `sqlx::migrate!` did without compiling
//! sqlx's macros. A file added to a folder builds the crate again.

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let mut out = String::new();
    for (constant, folder) in [("SQLITE", "sqlite"), ("POSTGRES", "postgres")] {
        let folder = Path::new(&manifest).join("migrations").join(folder);
        println!("cargo:rerun-if-changed={}", folder.display());
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("reading {}: {e}", folder.display()))
            .map(|entry| entry.expect("a migration folder entry").path())
            .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "sql"))
            .collect();
        files.sort();
        writeln!(out, "/// The {folder:?} migrations, by version.").expect("writing to a String");
        writeln!(
            out,
            "pub(crate) const {constant}: &[(i64, &str, &str)] = &["
        )
        .expect("writing to a String");
        for path in files {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("a UTF-8 file name");
            // sqlx reads `.up.sql`/`.down.sql` as a reversible pair; these migrations are
            // forward only, and a down script read as one would run forward.
            assert!(
                !name.ends_with(".up") && !name.ends_with(".down"),
                "{name}.sql: migrations here are forward only (no .up/.down pairs)"
            );
            let (version, description) = name
                .split_once('_')
                .unwrap_or_else(|| panic!("{name}: a migration is <version>_<description>.sql"));
            let version: i64 = version
                .parse()
                .unwrap_or_else(|_| panic!("{name}: a migration's version is a number"));
            let description = description.replace('_', " ");
            let path = path.display().to_string();
            writeln!(
                out,
                "    ({version}, {description:?}, include_str!({path:?})),"
            )
            .expect("writing to a String");
        }
        writeln!(out, "];").expect("writing to a String");
    }
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    std::fs::write(target, out).expect("writing migrations.rs");
}
