//! Operating an installation: `backup` and `restore` of the embedded installation (its
//! SQLite database and local objects), and `migrate-data` from it to PostgreSQL and
//! another object store. Each prints what it did as one line of JSON.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::backend::{Backend, ConnectOptions};
use switchboard_storage::Storage;

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
    })
    .await
    .with_context(|| format!("opening {}", crate::config::without_password(url)))?;
    db.migrate().await.context("running migrations")?;
    Ok(db)
}

/// Copies every file under `from` into `to` (created), answering files and bytes.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<(u64, u64)> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let (mut files, mut bytes) = (0, 0);
    if !from.exists() {
        return Ok((0, 0));
    }
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            let (f, b) = copy_tree(&entry.path(), &target)?;
            files += f;
            bytes += b;
        } else {
            bytes += std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
            files += 1;
        }
    }
    Ok((files, bytes))
}

/// `switchboard backup DIR`: an online, consistent copy of the database (`VACUUM INTO`,
/// one read transaction: writes go on meanwhile) and then of the local objects. Objects
/// written after the database copy are extra (unreferenced) in the backup; an object is
/// only deleted by the job queue after its record is gone, so the copy holds every
/// object a record of the database copy names unless such a delete ran between the two
/// steps.
pub async fn backup(config: &Config, dir: &Path) -> anyhow::Result<Value> {
    let source = sqlite_path(config, "backup")?;
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        bail!("{} is not empty: back up into a new folder", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let db = open_migrated(&config.database_url()).await?;
    let target = std::path::absolute(dir.join(BACKUP_DATABASE))?;
    let started = chrono::Utc::now();
    db.vacuum_into(&target.to_string_lossy())
        .await
        .context("copying the database (VACUUM INTO)")?;
    db.close().await;
    let storage_url = config.storage_url();
    let objects = match storage_url.strip_prefix("file://") {
        Some(root) => {
            let (files, bytes) = copy_tree(Path::new(root), &dir.join(BACKUP_OBJECTS))?;
            json!({"files": files, "bytes": bytes})
        }
        None => {
            json!({"copied": false, "why": "objects are in S3: keep them with the bucket's versioning (docs/operations.md)"})
        }
    };
    let manifest = json!({
        "startedAt": started.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "source": source.display().to_string(),
        "database": BACKUP_DATABASE,
        "objects": objects,
    });
    std::fs::write(
        dir.join("backup.json"),
        serde_json::to_string_pretty(&manifest)?,
    )?;
    Ok(manifest)
}

/// Moves `path` aside (to `path.before-restore-<time>`) when it exists.
fn move_aside(path: &Path, stamp: &str) -> anyhow::Result<Option<PathBuf>> {
    if !path.exists() {
        return Ok(None);
    }
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".before-restore-{stamp}"));
    let aside = PathBuf::from(aside);
    std::fs::rename(path, &aside).with_context(|| format!("moving {} aside", path.display()))?;
    Ok(Some(aside))
}

/// `switchboard restore DIR`, with the service stopped: the backup's database and objects
/// take the place of the configured ones, which are moved aside (never deleted).
pub async fn restore(config: &Config, dir: &Path) -> anyhow::Result<Value> {
    let target = sqlite_path(config, "restore")?;
    let backup = dir.join(BACKUP_DATABASE);
    if !backup.is_file() {
        bail!(
            "{} holds no {BACKUP_DATABASE}: not a backup folder",
            dir.display()
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
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(&backup, &target).with_context(|| format!("copying {}", backup.display()))?;
    let objects = match config.storage_url().strip_prefix("file://") {
        Some(root) => {
            let root = Path::new(root);
            if let Some(aside) = move_aside(root, &stamp)? {
                moved.push(aside.display().to_string());
            }
            let (files, bytes) = copy_tree(&dir.join(BACKUP_OBJECTS), root)?;
            json!({"files": files, "bytes": bytes})
        }
        None => {
            json!({"restored": false, "why": "objects are in S3: restore them from the bucket's versions"})
        }
    };
    // The restored database opens and is brought to this version's schema.
    open_migrated(&config.database_url()).await?.close().await;
    Ok(json!({"restored": target.display().to_string(), "objects": objects, "movedAside": moved}))
}

/// `switchboard migrate-data --to postgres://… [--storage-to URL]`: the objects first
/// (re-runnable: each is written again under its key and read back), then the database
/// in one PostgreSQL transaction (all or nothing), each verified: row counts per table,
/// and every object's SHA-256 read back from the target.
pub async fn migrate_data(
    config: &Config,
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
    let objects = match storage_to {
        Some(target) => copy_objects(config, target).await?,
        None => {
            json!({"copied": false, "why": "no --storage-to: the objects stay where SWITCHBOARD_STORAGE_URL points"})
        }
    };
    let tables = switchboard_db::transfer::sqlite_to_postgres(&source_url, to).await?;
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
    Storage::open(url, &[0u8; 32], &config.public_url()).context("opening the target object store")
}

/// Copies every object of the configured store into `target`, reading each back and
/// comparing its SHA-256.
async fn copy_objects(config: &Config, target: &Storage) -> anyhow::Result<Value> {
    let source = Storage::open(&config.storage_url(), &[0u8; 32], &config.public_url())
        .context("opening the source object store")?;
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
