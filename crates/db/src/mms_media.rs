//! MMS media uploads as records: recorded with a reservation against the tenant's quota
//! in one transaction (a conditional update, so concurrent uploads cannot together go
//! over it), listed in scope, deleted (the object through the job table) and expired by
//! retention, each release of bytes in the transaction that removes the record.

use sea_query::{Condition, Expr, ExprTrait, Func, OnConflict, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{MmsMediaId, TenantId, UserId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::mms_media::{MmsMedia, MmsMediaFilter};

use crate::backend::{Db, Tx};
use crate::crud;
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// An upload as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct MmsMediaRow {
    /// Id.
    pub id: MmsMediaId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// Uploader.
    pub user_id: UserId,
    /// Uploader's e-mail address then.
    pub uploaded_by: String,
    /// Object key.
    pub object_key: String,
    /// Content type.
    pub content_type: String,
    /// Size in bytes.
    pub bytes: i64,
    /// Upload time, Unix seconds.
    pub created_at: i64,
    /// Expiry, Unix seconds.
    pub expires_at: i64,
}

impl MmsMediaRow {
    /// The upload as the API answers it, with the link to it that the caller made.
    pub fn into_media(self, url: String) -> MmsMedia {
        let iso = |unix: i64| crate::calls::iso_at(Some(unix)).unwrap_or_default();
        MmsMedia {
            url,
            id: self.id,
            tenant_id: self.tenant_id,
            user_id: self.user_id,
            uploaded_by: self.uploaded_by,
            content_type: self.content_type,
            size: self.bytes,
            object_key: self.object_key,
            created_at: iso(self.created_at),
            expires_at: iso(self.expires_at),
        }
    }
}

const COLUMNS: &[&str] = &[
    "id",
    "tenant_id",
    "user_id",
    "uploaded_by",
    "object_key",
    "content_type",
    "bytes",
    "created_at",
    "expires_at",
];

/// A file of an upload, stored and about to be recorded.
#[derive(Clone, Debug)]
pub struct StoredFile {
    /// Its object key.
    pub key: String,
    /// Its content type.
    pub content_type: String,
    /// Its size in bytes.
    pub bytes: i64,
    /// The deletion pledged before it was stored ([`crate::jobs::pledge_object_deletion`]),
    /// cancelled when it is recorded.
    pub pledge: i64,
}

/// Who uploaded.
#[derive(Clone, Debug)]
pub struct Uploader {
    /// The user's id.
    pub user_id: UserId,
    /// Its e-mail address.
    pub email: String,
}

/// An upload refused because the tenant's quota would be exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverQuota {
    /// Bytes the tenant holds.
    pub used: i64,
    /// Its quota.
    pub quota: i64,
    /// Bytes the upload needed.
    pub wanted: i64,
}

/// The uploads `scope` reaches: a branch admin, those of its branch's users; a user, its
/// own.
fn select(scope: &Scope) -> SelectStatement {
    let mut select = Query::select();
    select.from_as("mms_media", "m");
    for column in COLUMNS {
        select.column(("m", *column));
    }
    select.cond_where(scope::tenants(scope, Expr::col(("m", "tenant_id"))));
    match *scope {
        Scope::Branch(tenant, branch) => {
            select.and_where(
                Expr::col(("m", "user_id")).in_subquery(
                    Query::select()
                        .column("id")
                        .from("users")
                        .and_where(Expr::col("tenant_id").eq(tenant.get()))
                        .and_where(Expr::col("branch_id").eq(branch.get()))
                        .take(),
                ),
            );
        }
        Scope::User(_, user, _) => {
            select.and_where(Expr::col(("m", "user_id")).eq(user.get()));
        }
        _ => {}
    }
    select
}

/// Records the files of one upload for `tenant`, reserving their bytes against its
/// quota (`default_quota` unless the tenant has its own) in the same transaction; answers
/// their ids in order, or [`OverQuota`] with nothing written.
#[boxed]
pub async fn record(
    db: &Db,
    tenant: TenantId,
    uploader: &Uploader,
    files: &[StoredFile],
    (now, expires_at): (i64, i64),
    default_quota: i64,
) -> Result<std::result::Result<Vec<MmsMediaId>, OverQuota>> {
    let wanted: i64 = files.iter().map(|f| f.bytes).sum();
    let mut tx = db.begin().await?;
    let create = Query::insert()
        .into_table("mms_usage")
        .columns(["tenant_id", "bytes"])
        .values_panic([tenant.get().into(), 0i64.into()])
        .on_conflict(OnConflict::column("tenant_id").do_nothing().to_owned())
        .take();
    tx.execute(&create).await?;
    // One statement reads and moves the counter: PostgreSQL re-checks the condition on
    // the row as a concurrent upload left it, SQLite runs writers one at a time.
    let quota = Expr::from(Func::coalesce([
        Expr::col("quota_bytes"),
        Expr::val(default_quota),
    ]));
    let reserve = Query::update()
        .table("mms_usage")
        .value("bytes", Expr::col("bytes").add(wanted))
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("bytes").add(wanted).lte(quota.clone()))
        .take();
    if tx.execute(&reserve).await? == 0 {
        let usage: (i64, i64) = tx
            .fetch_one(
                &Query::select()
                    .column("bytes")
                    .expr(quota)
                    .from("mms_usage")
                    .and_where(Expr::col("tenant_id").eq(tenant.get()))
                    .take(),
            )
            .await?;
        return Ok(Err(OverQuota {
            used: usage.0,
            quota: usage.1,
            wanted,
        }));
    }
    let mut ids = Vec::with_capacity(files.len());
    for file in files {
        ids.push(MmsMediaId(
            crud::insert_in(
                &mut tx,
                "mms_media",
                vec![
                    ("tenant_id", tenant.get().into()),
                    ("user_id", uploader.user_id.get().into()),
                    ("uploaded_by", uploader.email.clone().into()),
                    ("object_key", file.key.clone().into()),
                    ("content_type", file.content_type.clone().into()),
                    ("bytes", file.bytes.into()),
                    ("created_at", now.into()),
                    ("expires_at", expires_at.into()),
                ],
            )
            .await?,
        ));
        crate::jobs::keep_object(&mut tx, file.pledge).await?;
    }
    tx.commit().await?;
    Ok(Ok(ids))
}

/// Lists the uploads the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &MmsMediaFilter,
    query: &ListQuery,
) -> Result<Listing<MmsMediaRow>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("m", "tenant_id")).eq(tenant.get()));
    }
    list::run(db, select, MmsMedia::SPEC, query).await
}

/// One upload.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: MmsMediaId) -> Result<MmsMediaRow> {
    crud::get(db, select(scope), "m.id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it), without its link (signed for one reader).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<MmsMedia>> {
    let row: Option<MmsMediaRow> = crud::find_on(tx, select(&Scope::Platform), "m.id", id).await?;
    Ok(row.map(|row| row.into_media(String::new())))
}

/// Removes upload `row` in `tx`: its record, its bytes from the tenant's usage, and its
/// object through the job table. `false` when a concurrent removal got there first.
async fn remove(tx: &mut Tx, row: &MmsMediaRow) -> Result<bool> {
    // Through crud, so a caller's delete is audited like every other write.
    if crud::delete_in(tx, "mms_media", row.id.get()).await? == 0 {
        return Ok(false);
    }
    let release = Query::update()
        .table("mms_usage")
        .value("bytes", Expr::col("bytes").sub(row.bytes))
        .and_where(Expr::col("tenant_id").eq(row.tenant_id.get()))
        .take();
    tx.execute(&release).await?;
    crate::jobs::delete_object(tx, &row.object_key).await?;
    Ok(true)
}

/// Deletes an upload the caller reaches, answering it as it was (its object goes through
/// the job table).
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: MmsMediaId) -> Result<MmsMediaRow> {
    let mut tx = db.begin().await?;
    let mut visible = select(scope);
    visible.and_where(Expr::col(("m", "id")).eq(id.get()));
    let row: MmsMediaRow = tx.fetch_one(&visible).await?;
    if !remove(&mut tx, &row).await? {
        return Err(Error::NotFound);
    }
    tx.commit().await?;
    Ok(row)
}

/// Removes up to `limit` uploads expired at `now` (records, usage and objects), answering
/// how many went. Several processes may sweep at once: each upload goes once.
#[boxed]
pub async fn expire(db: &Db, now: i64, limit: u64) -> Result<usize> {
    let due = select(&Scope::Platform)
        .and_where(Expr::col(("m", "expires_at")).lte(now))
        .order_by(("m", "expires_at"), sea_query::Order::Asc)
        .limit(limit)
        .take();
    let rows: Vec<MmsMediaRow> = db.conn().fetch_all(&due).await?;
    let mut removed = 0;
    for row in rows {
        let mut tx = db.begin().await?;
        if remove(&mut tx, &row).await? {
            removed += 1;
        }
        tx.commit().await?;
    }
    Ok(removed)
}

/// The bytes `tenant` holds in MMS media.
#[boxed]
pub async fn usage(db: &Db, tenant: TenantId) -> Result<i64> {
    let select = Query::select()
        .column("bytes")
        .from("mms_usage")
        .cond_where(Condition::all().add(Expr::col("tenant_id").eq(tenant.get())))
        .take();
    let found: Option<(i64,)> = db.conn().fetch_optional(&select).await?;
    Ok(found.map_or(0, |(bytes,)| bytes))
}
