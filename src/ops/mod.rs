//! Operating an installation: `backup` and `restore` of its database (the embedded SQLite
//! file, or PostgreSQL through `pg_dump` / `pg_restore`) and its objects, and
//! `migrate-data` from the embedded installation to PostgreSQL and another object store.
//! Each prints what it did as one line of JSON.

mod backup;
mod migrate;
mod restore;

pub use backup::{MANIFEST, backup};
pub use migrate::migrate_data;
pub use restore::restore;

use std::collections::BTreeMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use futures::StreamExt;
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::backend::{Backend, ConnectOptions};
use switchboard_storage::{CONTENT_TYPE_DIR, Storage};

use crate::Config;

/// The file name of the database inside a backup folder of the embedded installation.
pub const BACKUP_DATABASE: &str = "switchboard.db";
/// The file name of the database inside a backup folder of a PostgreSQL installation: a
/// `pg_dump --format=custom` archive.
pub const BACKUP_PG_DUMP: &str = "switchboard.pgdump";
/// The folder of the objects inside a backup folder.
pub const BACKUP_OBJECTS: &str = "objects";

/// The SQLite file of `config`'s database, or an error naming why there is none.
fn sqlite_path(config: &Config, command: &str) -> anyhow::Result<PathBuf> {
    let url = config.database_url();
    if Db::backend_of(&url) != Backend::Sqlite {
        bail!(
            "{command} works on the embedded SQLite database, and this installation's is PostgreSQL"
        );
    }
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    Ok(PathBuf::from(path.split('?').next().unwrap_or(path)))
}

/// Opens and migrates the configured database (so a backup or a copy is of the current
/// schema).
async fn open_migrated(url: &str) -> anyhow::Result<Db> {
    let db = Db::connect(&ConnectOptions {
        url: url.to_owned(),
        max_connections: 2,
        // Copies of whole tables run as long as they take: no request waits on them.
        statement_timeout: None,
    })
    .await
    .with_context(|| format!("opening {}", crate::config::without_password(url)))?;
    db.migrate().await.context("running migrations")?;
    Ok(db)
}

/// Creates `dir` (and any missing parent) readable by the owner only: a backup holds
/// every tenant's data and the sealed secrets, whatever the process's umask.
fn private_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("making {} private", dir.display()))
}

/// What a copy of a folder of objects did.
#[derive(Default)]
struct Tree {
    files: u64,
    bytes: u64,
    /// Each file's SHA-256 by its path under the folder (`/`-separated).
    digests: BTreeMap<String, String>,
    /// Entries not copied because they are not plain files or folders (symbolic links
    /// above all: followed, they would copy whatever they point at, outside the folder).
    skipped: Vec<String>,
}

/// Opens `path` for reading only if it is the plain file `entry` said it was: a symbolic
/// link (or a file swapped for one since it was listed) is refused, never followed.
fn open_plain(path: &Path) -> anyhow::Result<Option<std::fs::File>> {
    let listed = std::fs::symlink_metadata(path)?;
    if !listed.file_type().is_file() {
        return Ok(None);
    }
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let opened = file.metadata()?;
    if (opened.dev(), opened.ino()) != (listed.dev(), listed.ino()) {
        return Ok(None);
    }
    Ok(Some(file))
}

/// Reads `from` to its end, writing it to `to` (a new private file) when given; answers
/// its size and SHA-256.
fn copy_file(mut from: std::fs::File, to: Option<&Path>) -> anyhow::Result<(u64, String)> {
    use std::io::{Read, Write};
    let mut out = match to {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .with_context(|| format!("creating {}", path.display()))?,
        ),
        None => None,
    };
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = from.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        if let Some(out) = out.as_mut() {
            out.write_all(&buffer[..n])?;
        }
        bytes += n as u64;
    }
    if let Some(out) = out {
        out.sync_all()?;
    }
    Ok((bytes, hex::encode(hasher.finalize())))
}

/// Copies every plain file under `from` into `to` (created private), hashing each;
/// symbolic links and other special files are skipped, never followed.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<Tree> {
    let mut tree = Tree::default();
    private_dir(to)?;
    if from.exists() {
        walk(from, to, "", &mut tree)?;
    }
    Ok(tree)
}

fn walk(from: &Path, to: &Path, prefix: &str, tree: &mut Tree) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = format!("{prefix}{name}");
        // The entry itself, not what a link points at.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let target = to.join(entry.file_name());
            private_dir(&target)?;
            walk(&entry.path(), &target, &format!("{relative}/"), tree)?;
        } else if let Some(file) = kind
            .is_file()
            .then(|| open_plain(&entry.path()))
            .transpose()?
            .flatten()
        {
            let (bytes, digest) = copy_file(file, Some(&to.join(entry.file_name())))?;
            tree.files += 1;
            tree.bytes += bytes;
            tree.digests.insert(relative, digest);
        } else {
            tree.skipped.push(relative);
        }
    }
    Ok(())
}

/// Writes `chunks` to `to` (a new private file), answering their size and SHA-256.
async fn write_stream(
    mut chunks: futures::stream::BoxStream<
        'static,
        Result<bytes::Bytes, switchboard_storage::StorageError>,
    >,
    to: &Path,
) -> anyhow::Result<(u64, String)> {
    use std::io::Write;
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
        .with_context(|| format!("creating {}", to.display()))?;
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        hasher.update(&chunk);
        out.write_all(&chunk)?;
        bytes += chunk.len() as u64;
    }
    out.sync_all()?;
    Ok((bytes, hex::encode(hasher.finalize())))
}

/// Copies every object of the configured S3 store into `to` (created private) in a local
/// store's layout — each object at its key, its content type beside it under
/// [`CONTENT_TYPE_DIR`] — hashing each, so the backup restores into either kind of store.
/// A key this service would not write is skipped (listed); an object deleted since it
/// was listed is left out, as a local backup leaves out a file deleted meanwhile.
async fn copy_store(source: &Storage, to: &Path) -> anyhow::Result<Tree> {
    let mut tree = Tree::default();
    private_dir(to)?;
    for key in source.keys().await.context("listing the objects")? {
        if !Storage::valid_key(&key) {
            tree.skipped.push(key);
            continue;
        }
        let object = match source.get(&key, None).await {
            Ok(object) => object,
            Err(switchboard_storage::StorageError::NotFound) => continue,
            Err(error) => return Err(error).with_context(|| format!("reading {key}")),
        };
        let content_type = object
            .content_type
            .clone()
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        let note = format!("{CONTENT_TYPE_DIR}/{key}");
        for relative in [&key, &note] {
            if let Some(parent) = to.join(relative).parent() {
                private_dir(parent)?;
            }
        }
        let (bytes, digest) = write_stream(object.body, &to.join(&key)).await?;
        tree.files += 1;
        tree.bytes += bytes;
        tree.digests.insert(key.clone(), digest);
        let typed =
            futures::stream::once(async move { Ok(bytes::Bytes::from(content_type.into_bytes())) })
                .boxed();
        let (bytes, digest) = write_stream(typed, &to.join(&note)).await?;
        tree.files += 1;
        tree.bytes += bytes;
        tree.digests.insert(note, digest);
    }
    Ok(tree)
}

/// One of PostgreSQL's client programs (`pg_dump`, `pg_restore`) for the database at
/// `url`: the URL without its password on the command line (where `ps` shows it to every
/// user of the host), the password in the program's environment.
fn pg_program(program: &str, url: &str) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command
        .arg("--dbname")
        .arg(crate::config::without_password(url))
        .stdin(std::process::Stdio::null());
    if let Some(password) = crate::config::password_of(url) {
        command.env("PGPASSWORD", password);
    }
    command
}

/// Runs `command` (a [`pg_program`]) to its end, or says why it failed: not installed, or
/// what it wrote on standard error.
fn run_pg_program(mut command: std::process::Command, what: &str) -> anyhow::Result<()> {
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command.output().map_err(|error| {
        anyhow::anyhow!(
            "{what}: cannot run {program} ({error}): install PostgreSQL's client programs (Debian: postgresql-client), of the server's major version or newer"
        )
    })?;
    if !output.status.success() {
        bail!(
            "{what}: {program} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

/// Opens the store a copy goes to (`--storage-to`): S3 settings from the usual `AWS_*`
/// variables. It signs no links here, so any key of the right length will do.
pub fn open_target_store(config: &Config, url: &str) -> anyhow::Result<Storage> {
    Ok(Storage::open(url, &[0u8; 32], &config.public_url())
        .context("opening the target object store")?
        .with_timeout(Duration::from_secs(config.storage_timeout_seconds)))
}

/// Opens the configured object store (`SWITCHBOARD_STORAGE_URL`), for the commands that
/// copy it; like [`open_target_store`], it signs no links.
pub fn open_store(config: &Config) -> anyhow::Result<Storage> {
    Ok(
        Storage::open(&config.storage_url(), &[0u8; 32], &config.public_url())
            .context("opening the object store")?
            .with_timeout(Duration::from_secs(config.storage_timeout_seconds)),
    )
}
