//! `switchboard migrate-data`: the embedded installation copied into PostgreSQL and
//! another object store, verified, all or nothing.

use anyhow::{Context, bail};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::backend::Backend;
use switchboard_storage::Storage;

use crate::Config;
use crate::hold::Held;
use crate::key::{self};

use super::{open_migrated, sqlite_path};

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
