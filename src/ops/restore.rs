//! `switchboard restore DIR`: a backup checked against its manifest and its signing key
//! before anything is touched, then copied into place (what was there moved aside).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::backend::Backend;
use switchboard_storage::{CONTENT_TYPE_DIR, Storage};

use crate::Config;
use crate::hold::Held;
use crate::key::{self, SigningKey};

use super::backup::MANIFEST;
use super::{
    BACKUP_DATABASE, BACKUP_OBJECTS, BACKUP_PG_DUMP, copy_file, open_migrated, open_plain,
    pg_program, private_dir, run_pg_program, sqlite_path,
};

/// Refuses to restore the backup `checked` into an installation (`config`) whose signing
/// key does not open the backup's sealed secrets — or that has no key while the backup
/// holds sealed secrets — before anything is touched: the service would otherwise start on
/// it and answer 500 wherever a secret is needed. Answers what was checked.
async fn check_key(config: &Config, checked: &Checked) -> anyhow::Result<Value> {
    let installed = key::installed(config)?;
    let needed = match &checked.key_fingerprint {
        Some(fingerprint) => format!("the key of fingerprint {fingerprint}"),
        None => "the key of the installation it came from".to_owned(),
    };
    let how = "run `switchboard export-key` there and pipe what it prints into `switchboard import-key` here (or set SWITCHBOARD_JWT_SECRET to it), then restore again; nothing was changed";
    let unopened = match checked.backend {
        Backend::Sqlite => {
            let backup = Db::open_sqlite_at_rest(&checked.database)
                .await
                .context("opening the backup's database")?;
            // With no key here, a key just made stands in: it opens nothing, so any sealed
            // value of the backup is reported.
            let trial = match &installed {
                Some((key, _)) => key.clone(),
                None => SigningKey::generate(),
            };
            let unopened = switchboard_db::seal::first_unopened(&backup, &trial.sealer()).await;
            backup.close().await;
            unopened
                .context("reading the backup's sealed secrets")?
                .map(|seat| format!("{}.{} of row {}", seat.table, seat.column, seat.id))
        }
        // A dump is not read before it is restored: the manifest's fingerprint is what is
        // compared (and the restored database is tried again after).
        Backend::Postgres => match (&installed, &checked.key_fingerprint) {
            (Some((key, _)), Some(fingerprint)) if key.fingerprint() == *fingerprint => None,
            (_, Some(_)) => Some("the key its manifest names".to_owned()),
            (_, None) => None,
        },
    };
    match (installed, unopened) {
        (None, Some(_)) => bail!(
            "the backup holds sealed secrets (webhook credentials, TOTP secrets) and this installation has no signing key to open them: it needs {needed}; {how}"
        ),
        (Some((key, source)), Some(what)) => bail!(
            "the signing key of {source} (fingerprint {}) does not open the backup's sealed secrets ({what}): it needs {needed}; {how}",
            key.fingerprint(),
        ),
        (Some((key, _)), None) => {
            Ok(json!({"fingerprint": key.fingerprint(), "opensTheSealedSecrets": true}))
        }
        (None, None) => Ok(
            json!({"fingerprint": null, "note": "no sealed secrets in the backup; a key is generated on first start (tokens of the source are not accepted)"}),
        ),
    }
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
    /// The backend backed up: `database` is a SQLite file, or a `pg_dump` archive.
    backend: Backend,
    /// The fingerprint of the signing key of the installation backed up, when the
    /// manifest says it.
    key_fingerprint: Option<String>,
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
    // A manifest naming no file is of a backup written before PostgreSQL had backups.
    let (name, backend) = match manifest["database"]["file"].as_str() {
        None | Some(BACKUP_DATABASE) => (BACKUP_DATABASE, Backend::Sqlite),
        Some(BACKUP_PG_DUMP) => (BACKUP_PG_DUMP, Backend::Postgres),
        Some(other) => bail!("{MANIFEST} names {other:?}, which is no backup's database"),
    };
    let database = dir.join(name);
    let file = open_plain(&database)
        .map_err(|e| not_a_backup(format!("no readable {name} ({e})")))?
        .ok_or_else(|| not_a_backup(format!("{name} is not a plain file")))?;
    if copy_file(file, None)?.1 != expected {
        bail!(
            "{}: the database's SHA-256 differs from the manifest's: the backup is damaged",
            database.display()
        );
    }
    let (schema, known) = match backend {
        Backend::Sqlite => (
            Db::sqlite_schema_version(&database)
                .await
                .context("reading the backup's schema version")?,
            Db::latest_sqlite_migration(),
        ),
        // A dump cannot be read without restoring it: the manifest says its schema, and
        // the checksum above stands for the manifest's word.
        Backend::Postgres => (
            manifest["schemaVersion"]
                .as_i64()
                .ok_or_else(|| not_a_backup(format!("{MANIFEST} has no schema version")))?,
            Db::latest_postgres_migration(),
        ),
    };
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
    let key_fingerprint = manifest["signingKey"]["fingerprint"]
        .as_str()
        .map(str::to_owned);
    Ok(Checked {
        database,
        backend,
        key_fingerprint,
        objects,
    })
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

/// `switchboard restore DIR [--force]`, with the service stopped (refused while another
/// process holds the data folder, [`Held`]): the backup is checked against its manifest
/// first (checksums, schema, the signing key); then its database and objects take the
/// place of the configured ones — a SQLite file copied into place, a dump restored into
/// an empty PostgreSQL database (`pg_restore`, one transaction). An installation already
/// there is refused unless `force`, and then moved aside (never deleted); a PostgreSQL
/// database holding anything is always refused (it is never emptied here).
pub async fn restore(
    config: &Config,
    objects: &Storage,
    dir: &Path,
    force: bool,
) -> anyhow::Result<Value> {
    let url = config.database_url();
    let backend = Db::backend_of(&url);
    // Never under a live process: it would go on writing into the file moved aside.
    // (Processes on PostgreSQL hold no data folder: its restore goes into a new database.)
    let _held = (backend == Backend::Sqlite)
        .then(|| Held::take(&config.data_dir, "restore"))
        .transpose()?;
    let checked = check_backup(dir).await?;
    if checked.backend != backend {
        bail!(
            "the backup is of {}, and this installation's database is {}: restore it into an installation of its kind (from SQLite to PostgreSQL, restore it first and then run migrate-data)",
            name_of(checked.backend),
            name_of(backend)
        );
    }
    let signing_key = check_key(config, &checked).await?;
    let root = objects.local_root();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let mut moved = Vec::new();
    let sqlite_target = match backend {
        Backend::Sqlite => Some(sqlite_path(config, "restore")?),
        Backend::Postgres => None,
    };
    let restored = match &sqlite_target {
        Some(target) => {
            if !force && holds_data(target, root)? {
                bail!(
                    "{} already holds an installation: restore into an empty one, or pass --force to move it aside",
                    target.display()
                );
            }
            for suffix in ["", "-wal", "-shm"] {
                let mut path = target.as_os_str().to_owned();
                path.push(suffix);
                if let Some(aside) = move_aside(Path::new(&path), &stamp)? {
                    moved.push(aside.display().to_string());
                }
            }
            target.display().to_string()
        }
        None => {
            // A database is never moved aside nor emptied here: the dump goes into a new one.
            let relations = Db::postgres_relations(&url)
                .await
                .context("reading the target database")?;
            if let Some(first) = relations.first() {
                bail!(
                    "the database {} is not empty (it holds {first} and {} more): restore into a new, empty database (createdb), then point SWITCHBOARD_DATABASE_URL at it",
                    crate::config::without_password(&url),
                    relations.len() - 1
                );
            }
            if !force && root.map(holds_entries).transpose()?.unwrap_or(false) {
                bail!(
                    "the object folder already holds objects: restore into an empty one, or pass --force to move it aside"
                );
            }
            crate::config::without_password(&url)
        }
    };
    // Into S3: what the bucket already holds is compared with the backup first, so a
    // clash stops the restore before anything is written.
    let present = match (root, &checked.objects) {
        (None, Some(listed)) => Some(objects_present(objects, dir, listed).await?),
        _ => None,
    };
    match &sqlite_target {
        Some(target) => {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let database =
                open_plain(&checked.database)?.context("the backup's database changed")?;
            copy_file(database, Some(target))?;
        }
        None => pg_restore(&url, &checked.database)?,
    }
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
    // The restored database opens and is brought to this version's schema; its sealed
    // secrets open with the key (a dump's were compared by fingerprint only, before).
    let db = open_migrated(&url).await?;
    let unopened = match key::installed(config)? {
        Some((key, _)) => switchboard_db::seal::first_unopened(&db, &key.sealer()).await?,
        None => None,
    };
    db.close().await;
    if let Some(seat) = unopened {
        bail!(
            "the database is restored, but this installation's signing key does not open its sealed secrets ({}.{} of row {}): the service will not start on it until it has the key of the installation backed up (`switchboard export-key` there, `switchboard import-key` or SWITCHBOARD_JWT_SECRET here)",
            seat.table,
            seat.column,
            seat.id
        );
    }
    Ok(
        json!({"restored": restored, "objects": objects, "signingKey": signing_key, "movedAside": moved}),
    )
}

/// How a person calls `backend`'s database.
fn name_of(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "the embedded SQLite database",
        Backend::Postgres => "PostgreSQL",
    }
}

/// Restores the `pg_dump` archive `file` into the (empty) PostgreSQL database at `url`,
/// in one transaction: all of it or nothing. Objects are owned by the role connecting.
fn pg_restore(url: &str, file: &Path) -> anyhow::Result<()> {
    let mut command = pg_program("pg_restore", url);
    command
        .args([
            "--single-transaction",
            "--exit-on-error",
            "--no-owner",
            "--no-privileges",
        ])
        .arg(file);
    run_pg_program(command, "restoring the database")
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
