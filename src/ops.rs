//! Operating an installation: `backup` and `restore` of its database (the embedded SQLite
//! file, or PostgreSQL through `pg_dump` / `pg_restore`) and its objects, and
//! `migrate-data` from the embedded installation to PostgreSQL and another object store.
//! Each prints what it did as one line of JSON.

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
use crate::hold::Held;
use crate::key::{self, SigningKey};

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
    // The copy reads a stopped installation: what a live one wrote meanwhile would be lost.
    let _held = Held::take(&config.data_dir, "migrate-data")?;
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
    let fingerprint = key::installed(config)?.map(|(key, _)| key.fingerprint());
    Ok(json!({
        // The copied secrets stay sealed under this installation's key.
        "signingKey": {
            "fingerprint": fingerprint,
            "needed": "every process on the new database needs this installation's key: SWITCHBOARD_JWT_SECRET set to what `switchboard export-key` prints here",
        },
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
