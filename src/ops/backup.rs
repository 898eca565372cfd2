//! `switchboard backup DIR`: the database and the objects copied into a private folder
//! with a manifest of every file's SHA-256.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use switchboard_db::Db;
use switchboard_db::backend::Backend;
use switchboard_storage::Storage;

use crate::Config;
use crate::key::{self};

use super::{
    BACKUP_DATABASE, BACKUP_OBJECTS, BACKUP_PG_DUMP, copy_file, copy_store, copy_tree,
    open_migrated, open_plain, pg_program, private_dir, run_pg_program, sqlite_path,
};

/// The file name of a backup's manifest.
pub const MANIFEST: &str = "backup.json";

/// `switchboard backup DIR`: an online, consistent copy of the database (SQLite: `VACUUM
/// INTO`; PostgreSQL: `pg_dump --format=custom`; each one read snapshot: writes go on
/// meanwhile) and then of the objects — the local
/// folder, or every object of the S3 bucket (prefix), downloaded into the local layout —
/// in a folder only the owner can read, with a manifest of every file's SHA-256 for the
/// restore to check. Objects written after the database copy are extra (unreferenced) in
/// the backup; an object is only deleted by the job queue after its record is gone, so
/// the copy holds every object a record of the database copy names unless such a delete
/// ran between the two steps.
pub async fn backup(config: &Config, objects: &Storage, dir: &Path) -> anyhow::Result<Value> {
    let url = config.database_url();
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
    let db = open_migrated(&url).await?;
    let started = chrono::Utc::now();
    let (source, file, format) = match db.backend() {
        Backend::Sqlite => (
            sqlite_path(config, "backup")?.display().to_string(),
            BACKUP_DATABASE,
            "sqlite",
        ),
        Backend::Postgres => (
            crate::config::without_password(&url),
            BACKUP_PG_DUMP,
            "pg_dump --format=custom",
        ),
    };
    let target = std::path::absolute(dir.join(file))?;
    // SQLite and pg_dump create their file with the umask's mode: an empty private file
    // first, which VACUUM INTO fills (it accepts an empty file) or pg_dump truncates.
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&target)
        .with_context(|| format!("creating {}", target.display()))?;
    let schema = match db.backend() {
        Backend::Sqlite => {
            db.vacuum_into(&target.to_string_lossy())
                .await
                .context("copying the database (VACUUM INTO)")?;
            db.close().await;
            Db::sqlite_schema_version(&target).await?
        }
        Backend::Postgres => {
            let schema = db.schema_version().await?;
            db.close().await;
            pg_dump(&url, &target)?;
            schema
        }
    };
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600))?;
    let copied = open_plain(&target)?.context("the database copy is not a plain file")?;
    let (database_bytes, database_sha256) = copy_file(copied, None)?;
    let tree = match objects.local_root() {
        Some(root) => copy_tree(root, &dir.join(BACKUP_OBJECTS))?,
        None => copy_store(objects, &dir.join(BACKUP_OBJECTS)).await?,
    };
    let from = if objects.is_s3() { "s3" } else { "folder" };
    let objects = json!({"from": from, "files": tree.files, "bytes": tree.bytes, "sha256": tree.digests, "skipped": tree.skipped});
    let manifest = json!({
        "startedAt": started.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "source": source,
        "schemaVersion": schema,
        "database": {"file": file, "format": format, "bytes": database_bytes, "sha256": database_sha256},
        "objects": objects,
        "signingKey": key_note(config)?,
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
    record_backup(&url, database_bytes).await;
    Ok(manifest)
}

/// Records the finished backup in the database, for every process's metrics (the last
/// backup's age, which the shipped alert watches). The backup itself is complete either
/// way: a failure is warned about, and the alert then fires as for a missed backup.
async fn record_backup(url: &str, database_bytes: u64) {
    let recorded = async {
        let db = open_migrated(url).await?;
        let bytes = i64::try_from(database_bytes).unwrap_or(i64::MAX);
        let done =
            switchboard_db::backups::record(&db, chrono::Utc::now().timestamp(), bytes).await;
        db.close().await;
        done.context("recording the backup")
    };
    if let Err(error) = recorded.await {
        tracing::warn!(
            error = format!("{error:#}"),
            "the backup is complete but was not recorded: the metrics still show the previous one"
        );
    }
}

/// Dumps the PostgreSQL database at `url` into `file` with `pg_dump --format=custom`: one
/// snapshot, consistent while writes go on.
fn pg_dump(url: &str, file: &Path) -> anyhow::Result<()> {
    let mut command = pg_program("pg_dump", url);
    command.arg("--format=custom").arg("--file").arg(file);
    run_pg_program(command, "dumping the database")
}

/// What a backup's manifest says of the signing key: never the key itself (a backup that
/// held it would open its own sealed secrets), but its fingerprint, so that a restore can
/// say which key it needs.
fn key_note(config: &Config) -> anyhow::Result<Value> {
    let fingerprint = key::installed(config)?.map(|(key, _)| key.fingerprint());
    Ok(json!({
        "fingerprint": fingerprint,
        "included": false,
        "travels": "by `switchboard export-key` on the source and `switchboard import-key` (or SWITCHBOARD_JWT_SECRET) where it is restored",
    }))
}
