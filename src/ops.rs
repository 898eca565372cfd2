//! Operating an installation: `backup` and `restore` of the embedded installation (its
//! SQLite database and local objects), and `migrate-data` from it to PostgreSQL and
//! another object store. Each prints what it did as one line of JSON.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use futures::StreamExt;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::backend::{Backend, ConnectOptions};
use switchboard_storage::{CONTENT_TYPE_DIR, Storage};

use crate::Config;

/// The file name of the database inside a backup folder.
pub const BACKUP_DATABASE: &str = "switchboard.db";
/// The folder of the objects inside a backup folder.
pub const BACKUP_OBJECTS: &str = "objects";

/// The SQLite file of `config`'s database, or an error naming why there is none.
fn sqlite_path(config: &Config, command: &str) -> anyhow::Result<PathBuf> {
    let url = config.database_url();
    if Db::backend_of(&url) != Backend::Sqlite {
        bail!(
            "{command} works on the embedded SQLite database; for PostgreSQL follow docs/operations.md (pg_dump / base backups)"
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

/// The file name of a backup's manifest.
pub const MANIFEST: &str = "backup.json";

/// `switchboard backup DIR`: an online, consistent copy of the database (`VACUUM INTO`,
/// one read transaction: writes go on meanwhile) and then of the objects — the local
/// folder, or every object of the S3 bucket (prefix), downloaded into the local layout —
/// in a folder only the owner can read, with a manifest of every file's SHA-256 for the
/// restore to check. Objects written after the database copy are extra (unreferenced) in
/// the backup; an object is only deleted by the job queue after its record is gone, so
/// the copy holds every object a record of the database copy names unless such a delete
/// ran between the two steps.
pub async fn backup(config: &Config, objects: &Storage, dir: &Path) -> anyhow::Result<Value> {
    let source = sqlite_path(config, "backup")?;
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        bail!(
            "{} is a symbolic link: back up into a real folder",
            dir.display()
        );
    }
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        bail!("{} is not empty: back up into a new folder", dir.display());
    }
    private_dir(dir)?;
    let db = open_migrated(&config.database_url()).await?;
    let target = std::path::absolute(dir.join(BACKUP_DATABASE))?;
    let started = chrono::Utc::now();
    // SQLite creates the copy with the umask's mode: an empty private file first, which
    // VACUUM INTO fills (it accepts an empty file as the target).
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&target)
        .with_context(|| format!("creating {}", target.display()))?;
    db.vacuum_into(&target.to_string_lossy())
        .await
        .context("copying the database (VACUUM INTO)")?;
    db.close().await;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600))?;
    let copied = open_plain(&target)?.context("the database copy is not a plain file")?;
    let (database_bytes, database_sha256) = copy_file(copied, None)?;
    let schema = Db::sqlite_schema_version(&target).await?;
    let tree = match objects.local_root() {
        Some(root) => copy_tree(root, &dir.join(BACKUP_OBJECTS))?,
        None => copy_store(objects, &dir.join(BACKUP_OBJECTS)).await?,
    };
    let from = if objects.is_s3() { "s3" } else { "folder" };
    let objects = json!({"from": from, "files": tree.files, "bytes": tree.bytes, "sha256": tree.digests, "skipped": tree.skipped});
    let manifest = json!({
        "startedAt": started.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "source": source.display().to_string(),
        "schemaVersion": schema,
        "database": {"file": BACKUP_DATABASE, "bytes": database_bytes, "sha256": database_sha256},
        "objects": objects,
    });
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(MANIFEST))
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, serde_json::to_string_pretty(&manifest)?.as_bytes())
        })
        .context("writing the manifest")?;
    Ok(manifest)
}

/// Moves `path` aside (to `path.before-restore-<time>`) when it exists.
fn move_aside(path: &Path, stamp: &str) -> anyhow::Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".before-restore-{stamp}"));
    let aside = PathBuf::from(aside);
    std::fs::rename(path, &aside).with_context(|| format!("moving {} aside", path.display()))?;
    Ok(Some(aside))
}

/// A backup checked against its manifest: what a restore copies.
struct Checked {
    database: PathBuf,
    /// The objects' paths under the backup's object folder (with their SHA-256), or `None`
    /// when the backup holds no objects (they are in S3).
    objects: Option<BTreeMap<String, String>>,
}

/// Checks the backup in `dir` before anything is touched: its manifest, the database's
/// SHA-256, that this release knows its schema, and every object's SHA-256; no file is
/// read through a symbolic link.
async fn check_backup(dir: &Path) -> anyhow::Result<Checked> {
    let not_a_backup = |why: String| anyhow::anyhow!("{}: {why}", dir.display());
    let manifest = open_plain(&dir.join(MANIFEST))
        .map_err(|e| not_a_backup(format!("no readable {MANIFEST} ({e})")))?
        .ok_or_else(|| not_a_backup(format!("{MANIFEST} is not a plain file")))?;
    let manifest: Value = serde_json::from_reader(manifest)
        .map_err(|e| not_a_backup(format!("{MANIFEST} is not a manifest ({e})")))?;
    let expected = manifest["database"]["sha256"]
        .as_str()
        .ok_or_else(|| not_a_backup(format!("{MANIFEST} has no database checksum")))?;
    let database = dir.join(BACKUP_DATABASE);
    let file = open_plain(&database)
        .map_err(|e| not_a_backup(format!("no readable {BACKUP_DATABASE} ({e})")))?
        .ok_or_else(|| not_a_backup(format!("{BACKUP_DATABASE} is not a plain file")))?;
    if copy_file(file, None)?.1 != expected {
        bail!(
            "{}: the database's SHA-256 differs from the manifest's: the backup is damaged",
            database.display()
        );
    }
    let schema = Db::sqlite_schema_version(&database)
        .await
        .context("reading the backup's schema version")?;
    let known = Db::latest_sqlite_migration();
    if schema > known {
        bail!(
            "the backup is of a newer schema (migration {schema}) than this release knows ({known}): restore it with the release that wrote it"
        );
    }
    let objects = match manifest["objects"]["sha256"].as_object() {
        None => None,
        Some(listed) => {
            let root = dir.join(BACKUP_OBJECTS);
            let mut objects = BTreeMap::new();
            for (path, digest) in listed {
                let digest = digest.as_str().unwrap_or_default();
                // Paths as backup wrote them: relative, no `..`, so none leads out.
                let relative = Path::new(path);
                if !relative
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
                {
                    bail!("{MANIFEST} names {path:?}, outside the backup's objects");
                }
                let file = open_plain(&root.join(relative))
                    .with_context(|| format!("object {path} of the manifest"))?
                    .with_context(|| format!("object {path} is not a plain file"))?;
                if copy_file(file, None)?.1 != digest {
                    bail!(
                        "object {path}: its SHA-256 differs from the manifest's: the backup is damaged"
                    );
                }
                objects.insert(path.clone(), digest.to_owned());
            }
            Some(objects)
        }
    };
    Ok(Checked { database, objects })
}

/// Whether the installation at `database` and `objects` holds anything a restore would
/// replace.
fn holds_data(database: &Path, objects: Option<&Path>) -> anyhow::Result<bool> {
    let database = std::fs::symlink_metadata(database).is_ok_and(|m| m.len() > 0);
    Ok(database || objects.map(holds_entries).transpose()?.unwrap_or(false))
}

/// Whether the folder `root` exists and holds anything.
fn holds_entries(root: &Path) -> anyhow::Result<bool> {
    Ok(root.is_dir() && std::fs::read_dir(root)?.next().is_some())
}

/// `switchboard restore DIR [--force]`, with the service stopped: the backup is checked
/// against its manifest first (checksums, schema); then its database and objects take
/// the place of the configured ones. An installation already there is refused unless
/// `force`, and then moved aside (never deleted).
pub async fn restore(
    config: &Config,
    objects: &Storage,
    dir: &Path,
    force: bool,
) -> anyhow::Result<Value> {
    let target = sqlite_path(config, "restore")?;
    let checked = check_backup(dir).await?;
    let root = objects.local_root();
    if !force && holds_data(&target, root)? {
        bail!(
            "{} already holds an installation: restore into an empty one, or pass --force to move it aside",
            target.display()
        );
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let mut moved = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let mut path = target.as_os_str().to_owned();
        path.push(suffix);
        if let Some(aside) = move_aside(Path::new(&path), &stamp)? {
            moved.push(aside.display().to_string());
        }
    }
    // Into S3: what the bucket already holds is compared with the backup first, so a
    // clash stops the restore before anything is written.
    let present = match (root, &checked.objects) {
        (None, Some(listed)) => Some(objects_present(objects, dir, listed).await?),
        _ => None,
    };
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let database = open_plain(&checked.database)?.context("the backup's database changed")?;
    copy_file(database, Some(&target))?;
    let objects = match (root, &checked.objects) {
        (Some(root), Some(listed)) => {
            // An empty folder (opening the store creates it) is used as it is.
            if holds_entries(root)?
                && let Some(aside) = move_aside(root, &stamp)?
            {
                moved.push(aside.display().to_string());
            }
            private_dir(root)?;
            let from = dir.join(BACKUP_OBJECTS);
            let mut bytes = 0;
            for (path, digest) in listed {
                let to = root.join(path);
                if let Some(parent) = to.parent() {
                    private_dir(parent)?;
                }
                let file = open_plain(&from.join(path))?
                    .with_context(|| format!("object {path} changed during the restore"))?;
                let (n, copied) = copy_file(file, Some(&to))?;
                if &copied != digest {
                    bail!("object {path} changed during the restore");
                }
                bytes += n;
            }
            json!({"files": listed.len(), "bytes": bytes, "verified": "every object's SHA-256 as the manifest says"})
        }
        (None, Some(listed)) => {
            restore_into_store(objects, dir, listed, &present.unwrap_or_default()).await?
        }
        (Some(_), None) => json!({"restored": false, "why": "the backup holds no objects"}),
        (None, None) => {
            json!({"restored": false, "why": "the backup holds no objects (an older backup of objects in S3): restore them from the bucket's versions"})
        }
    };
    // The restored database opens and is brought to this version's schema.
    open_migrated(&config.database_url()).await?.close().await;
    Ok(json!({"restored": target.display().to_string(), "objects": objects, "movedAside": moved}))
}

/// The keys of the backup in `dir` (`listed`) that the configured S3 store already holds.
/// Keys are written once, so an object there under a backed-up key is the backed-up
/// object — unless its size differs from the backup's copy, and then the restore stops
/// here, naming it, before anything is written, rather than leave a record pointing at
/// other bytes.
async fn objects_present(
    store: &Storage,
    dir: &Path,
    listed: &BTreeMap<String, String>,
) -> anyhow::Result<HashSet<String>> {
    let from = dir.join(BACKUP_OBJECTS);
    let mut present = HashSet::new();
    for (key, size) in store.sizes().await.context("listing the objects")? {
        if !listed.contains_key(&key) {
            continue;
        }
        let backed_up = std::fs::metadata(from.join(&key))
            .with_context(|| format!("reading {key} in the backup"))?
            .len();
        if size != backed_up {
            bail!(
                "the store already holds an object {key} of {size} bytes, and the backup's is {backed_up} bytes: it is not the backed-up object; remove it (or restore into another bucket or prefix) and run the restore again"
            );
        }
        present.insert(key);
    }
    Ok(present)
}

/// Puts the objects of the backup in `dir` (`listed`, checked) that the configured S3
/// store lacks (not in `present`) into it, each with the content type noted beside it and
/// its SHA-256 checked again as it is read.
async fn restore_into_store(
    store: &Storage,
    dir: &Path,
    listed: &BTreeMap<String, String>,
    present: &HashSet<String>,
) -> anyhow::Result<Value> {
    let from = dir.join(BACKUP_OBJECTS);
    let notes = format!("{CONTENT_TYPE_DIR}/");
    let (mut put, mut kept, mut bytes) = (0u64, 0u64, 0u64);
    for (key, digest) in listed {
        if key.starts_with(&notes) {
            continue;
        }
        if present.contains(key) {
            kept += 1;
            continue;
        }
        let read = |path: &Path| -> anyhow::Result<Vec<u8>> {
            let mut file = open_plain(path)?
                .with_context(|| format!("{} changed during the restore", path.display()))?;
            let mut content = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut content)?;
            Ok(content)
        };
        let content = read(&from.join(key))?;
        if hex::encode(Sha256::digest(&content)) != *digest {
            bail!("object {key} changed during the restore");
        }
        let note = format!("{notes}{key}");
        let content_type = match listed.get(&note) {
            Some(_) => String::from_utf8(read(&from.join(&note))?)
                .with_context(|| format!("the content type of {key}"))?,
            None => "application/octet-stream".to_owned(),
        };
        bytes += content.len() as u64;
        store
            .put(key, content.into(), &content_type)
            .await
            .with_context(|| format!("writing {key}"))?;
        put += 1;
    }
    Ok(json!({"into": "s3", "files": put, "bytes": bytes, "alreadyThere": kept}))
}

/// `switchboard migrate-data --to postgres://… [--storage-to URL]`: refuses a target
/// database holding rows or a target store holding anything before writing either; then
/// the objects, then the database in one PostgreSQL transaction, each verified: every
/// object's SHA-256 read back from the target, row counts per table. All or nothing: when
/// a step fails, the objects it copied are removed again, so a re-run starts from empty
/// targets.
pub async fn migrate_data(
    config: &Config,
    objects: &Storage,
    to: &str,
    storage_to: Option<&Storage>,
) -> anyhow::Result<Value> {
    let source_url = config.database_url();
    sqlite_path(config, "migrate-data")?;
    if Db::backend_of(to) != Backend::Postgres {
        bail!("--to must be a postgres:// URL");
    }
    // Both at this version's schema: the source migrated, the target created.
    open_migrated(&source_url).await?.close().await;
    open_migrated(to).await?.close().await;
    switchboard_db::transfer::check_target_empty(&source_url, to).await?;
    if let Some(target) = storage_to {
        check_store_empty(target).await?;
    }
    let mut written = Vec::new();
    let objects = match storage_to {
        Some(target) => match copy_objects(objects, target, &mut written).await {
            Ok(objects) => objects,
            Err(error) => return Err(undo_objects(target, &written, error).await),
        },
        None => {
            json!({"copied": false, "why": "no --storage-to: the objects stay where SWITCHBOARD_STORAGE_URL points"})
        }
    };
    let tables = match switchboard_db::transfer::sqlite_to_postgres(&source_url, to).await {
        Ok(tables) => tables,
        Err(error) => {
            let error = anyhow::Error::from(error);
            let Some(target) = storage_to else {
                return Err(error);
            };
            // The copy is one transaction, rolled back: rows in the target now are
            // another run's, which copied into the same store at the same time and won.
            // Its records name these keys, so its objects are not this run's to remove.
            if let Err(switchboard_db::transfer::TransferError::Refused(_)) =
                switchboard_db::transfer::check_target_empty(&source_url, to).await
            {
                return Err(error.context(format!(
                    "migrate-data failed: another migration filled the target database meanwhile, so the {} objects copied into the target store are left to its records",
                    written.len()
                )));
            }
            return Err(undo_objects(target, &written, error).await);
        }
    };
    let total: i64 = tables.iter().map(|t| t.target_rows).sum();
    Ok(json!({
        "database": {
            "to": crate::config::without_password(to),
            "atomic": "one transaction: all tables or none",
            "tables": tables.iter().map(|t| json!({"table": t.table, "sourceRows": t.source_rows, "targetRows": t.target_rows})).collect::<Vec<_>>(),
            "rows": total,
        },
        "objects": objects,
    }))
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

/// Refuses a target store that holds anything: the copy writes into an empty one only,
/// so it never overwrites an object nor mixes with another installation's, and undoing a
/// failed copy removes exactly what it wrote.
async fn check_store_empty(target: &Storage) -> anyhow::Result<()> {
    let entry = target
        .any_entry()
        .await
        .context("listing the target object store")?;
    if let Some(entry) = entry {
        bail!(
            "the target object store is not empty (it holds {entry}): migrate-data copies into an empty store only; empty it, or name another folder, bucket or prefix"
        );
    }
    Ok(())
}

/// Removes the objects `written` into `target` by a migration that failed with `error`,
/// answering the error with what became of them.
async fn undo_objects(target: &Storage, written: &[String], error: anyhow::Error) -> anyhow::Error {
    let mut left = 0;
    for key in written {
        if target.delete(key).await.is_err() {
            left += 1;
        }
    }
    if left == 0 {
        error.context(format!(
            "migrate-data failed; the {} objects it had copied were removed from the target store",
            written.len()
        ))
    } else {
        error.context(format!(
            "migrate-data failed; {left} of the {} objects it had copied could not be removed from the target store: empty it before running it again",
            written.len()
        ))
    }
}

/// Copies every object of the configured store into `target`, reading each back and
/// comparing its SHA-256; `written` collects each key once it is written.
async fn copy_objects(
    source: &Storage,
    target: &Storage,
    written: &mut Vec<String>,
) -> anyhow::Result<Value> {
    let keys = source.keys().await.context("listing the source objects")?;
    let mut all = Sha256::new();
    let mut bytes_total: u64 = 0;
    for key in &keys {
        let object = source.get(key, None).await?;
        let content_type = object
            .content_type
            .clone()
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        let bytes = object.into_bytes().await?;
        let digest = Sha256::digest(&bytes);
        bytes_total += bytes.len() as u64;
        // Noted before writing: a put that fails half-way may still leave an object.
        written.push(key.clone());
        target
            .put(key, bytes, &content_type)
            .await
            .with_context(|| format!("writing {key}"))?;
        let back = target.get(key, None).await?.into_bytes().await?;
        if Sha256::digest(&back) != digest {
            bail!("{key}: the copy's SHA-256 differs from the source's");
        }
        all.update(key.as_bytes());
        all.update(digest);
    }
    Ok(json!({
        "copied": keys.len(),
        "bytes": bytes_total,
        "verified": "every object read back with the same SHA-256",
        "sha256OfKeysAndDigests": hex::encode(all.finalize()),
    }))
}
