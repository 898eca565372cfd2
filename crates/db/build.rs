//! Builds the crate again when a migration is added: `sqlx::migrate!` embeds the files of
//! `migrations/`, and without this a new file would not be seen by an incremental build.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
