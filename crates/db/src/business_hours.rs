//! Business hours with their destination lists and holidays. A record and everything it
//! owns is written and deleted in one transaction.

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::declare::{OptionalRef, ToColumn};
use switchboard_domain::ids::{BranchId, BusinessHourId, HolidayId, MediaFileId, TenantId};
use switchboard_domain::list::{BranchedFilter, ListQuery, Listed};
use switchboard_domain::records::business_hour::{
    BranchRef, BusinessHour, CreateBusinessHour, CreateHoliday, Holiday, HolidayPatch,
    UpdateBusinessHour, When, stored_hours,
};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud::{self, Changes};
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

const MATCH: &str = "match";
const NOT_MATCH: &str = "notMatch";

/// A business-hours row before its lists and holidays are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: BusinessHourId,
    tenant_id: TenantId,
    branch_id: BranchId,
    branch_name: String,
    name: String,
    timezone: String,
    hours: String,
}

#[derive(switchboard_domain::declare::FromRow)]
struct HolidayRow {
    id: HolidayId,
    business_hour_id: BusinessHourId,
    name: String,
    date: Option<String>,
    starts: Option<String>,
    ends: Option<String>,
    media_file_id: OptionalRef<MediaFileId>,
}

impl From<HolidayRow> for Holiday {
    fn from(row: HolidayRow) -> Holiday {
        Holiday {
            id: row.id,
            name: row.name,
            date: row.date,
            from: row.starts,
            to: row.ends,
            media_file_id: row.media_file_id,
        }
    }
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .column(("h", "id"))
        .column(("h", "tenant_id"))
        .column(("h", "branch_id"))
        .expr_as(Expr::col(("b", "name")), "branch_name")
        .column(("h", "name"))
        .column(("h", "timezone"))
        .column(("h", "hours"))
        .from_as("business_hours", "h")
        .inner_join(
            TableRef::from("branches").alias("b"),
            Expr::col(("b", "id")).equals(("h", "branch_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("h", "tenant_id"))))
        .cond_where(scope::branch(scope, Expr::col(("h", "branch_id"))))
        .take()
}

/// The holidays as read, no bound value, so that the read of a page's holidays keeps its
/// rendered head ([`HolidaysOf`]).
fn holidays_select() -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "business_hour_id",
            "name",
            "date",
            "starts",
            "ends",
            "media_file_id",
        ])
        .from("holidays")
        .take()
}

/// The statement reading the holidays of the business hours `ids`, by id: its head
/// rendered once per backend ([`crud::KeptHead`]), the `IN` list written per read, rather
/// than built and rendered by sea-query on every read (issue 32).
struct HolidaysOf<'a> {
    ids: &'a [i64],
}

impl sea_query_sqlx::SqlxBinder for HolidaysOf<'_> {
    fn build_sqlx<T: sea_query::QueryBuilder>(
        &self,
        builder: T,
    ) -> (String, sea_query_sqlx::SqlxValues) {
        static HEAD: crud::KeptHead = crud::KeptHead::new(holidays_select);
        let (mut sql, mut placeholders) = HEAD.start(builder);
        sql.push_str(r#" WHERE "business_hour_id" IN "#);
        placeholders.list(&mut sql, self.ids);
        sql.push_str(r#" ORDER BY "id" ASC"#);
        let values = self.ids.iter().map(|&id| sea_query::Value::from(id));
        (
            sql,
            sea_query_sqlx::SqlxValues(sea_query::Values(values.collect())),
        )
    }
}

async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<BusinessHour>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<BusinessHour>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lists = destinations::load_on(reader, Owner::BusinessHour, &ids).await?;
    let mut holidays: HashMap<BusinessHourId, Vec<Holiday>> = HashMap::new();
    if !ids.is_empty() {
        let rows: Vec<HolidayRow> = reader.read_all(&HolidaysOf { ids: &ids }).await?;
        for row in rows {
            holidays
                .entry(row.business_hour_id)
                .or_default()
                .push(row.into());
        }
    }
    Ok(rows
        .into_iter()
        .map(|row| BusinessHour {
            id: row.id,
            name: row.name,
            tenant_id: row.tenant_id,
            timezone: row.timezone,
            hours: stored_hours(row.hours),
            match_destinations: lists
                .remove(&(row.id.get(), MATCH.to_owned()))
                .unwrap_or_default(),
            not_match_destinations: lists
                .remove(&(row.id.get(), NOT_MATCH.to_owned()))
                .unwrap_or_default(),
            branch: BranchRef {
                id: row.branch_id,
                name: row.branch_name,
            },
            holidays: holidays.remove(&row.id).unwrap_or_default(),
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<BusinessHour>> {
    let row: Option<Row> = READ.find_on(tx, &Scope::Platform, id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the business hours the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &BranchedFilter,
    query: &ListQuery,
) -> Result<Listing<BusinessHour>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant.tenant_id {
        select.and_where(Expr::col(("h", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.branch_id {
        select.and_where(Expr::col(("h", "branch_id")).eq(branch.get()));
    }
    list::run_completed(db, select, BusinessHour::SPEC, query, complete).await
}

/// A business-hours record's own row, its read rendered once per kind of scope.
static READ: crud::ScopedRead = crud::ScopedRead::new(select, "h.id");

/// One business-hours record with its lists and holidays.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: BusinessHourId) -> Result<BusinessHour> {
    // The row and its lists on one connection: one acquire and release, not two.
    let mut held = db.held().await?;
    let row: Row = READ
        .find_on(&mut held, scope, id.get())
        .await?
        .ok_or(Error::NotFound)?;
    complete_on(&mut held, vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

async fn insert_holiday(
    tx: &mut Tx,
    tenant: TenantId,
    owner: i64,
    holiday: &CreateHoliday,
) -> Result<i64> {
    crud::insert_in(
        tx,
        "holidays",
        vec![
            ("business_hour_id", owner.into()),
            ("tenant_id", tenant.get().into()),
            ("name", holiday.name.clone().into()),
            ("date", holiday.date.clone().into()),
            ("starts", holiday.from.clone().into()),
            ("ends", holiday.to.clone().into()),
            (
                "media_file_id",
                changes::expr(holiday.media_file_id.to_column()),
            ),
        ],
    )
    .await
}

async fn replace_holidays(
    tx: &mut Tx,
    tenant: TenantId,
    owner: i64,
    holidays: &[CreateHoliday],
) -> Result<()> {
    let delete = Query::delete()
        .from_table("holidays")
        .and_where(Expr::col("business_hour_id").eq(owner))
        .take();
    tx.execute(&delete).await?;
    for holiday in holidays {
        insert_holiday(tx, tenant, owner, holiday).await?;
    }
    Ok(())
}

/// Creates a business-hours record of `tenant` in `branch`, with its lists and holidays
/// (targets and media checked by the caller).
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    branch: BranchId,
    mut body: CreateBusinessHour,
) -> Result<BusinessHour> {
    body.branch_id = Some(branch);
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "business_hours",
        changes::with_tenant(tenant, &body),
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::BusinessHour,
        id,
        MATCH,
        &body.match_destinations,
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::BusinessHour,
        id,
        NOT_MATCH,
        &body.not_match_destinations,
    )
    .await?;
    replace_holidays(&mut tx, tenant, id, &body.holidays).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, BusinessHourId(id)).await
}

/// Changes a business-hours record; sent lists and holidays replace the current ones.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: BusinessHourId,
    body: UpdateBusinessHour,
) -> Result<BusinessHour> {
    let current = get(db, scope, id).await?;
    let tenant = current.tenant_id;
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "business_hours", id.get(), changes::of(&body)).await?;
    if let Some(list) = &body.match_destinations {
        destinations::replace(&mut tx, tenant, Owner::BusinessHour, id.get(), MATCH, list).await?;
    }
    if let Some(list) = &body.not_match_destinations {
        destinations::replace(
            &mut tx,
            tenant,
            Owner::BusinessHour,
            id.get(),
            NOT_MATCH,
            list,
        )
        .await?;
    }
    if let Some(holidays) = &body.holidays {
        // Holidays sent back as they were read stay as they are, ids and all (interface
        // §2); a list that differs replaces them.
        let kept: Vec<CreateHoliday> = current.holidays.iter().map(as_sent).collect();
        if *holidays != kept {
            replace_holidays(&mut tx, tenant, id.get(), holidays).await?;
        }
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// A holiday as a body would send it.
fn as_sent(holiday: &Holiday) -> CreateHoliday {
    CreateHoliday {
        name: holiday.name.clone(),
        date: holiday.date.clone(),
        from: holiday.from.clone(),
        to: holiday.to.clone(),
        media_file_id: holiday.media_file_id,
    }
}

/// Deletes a business-hours record with its destinations and holidays in one transaction,
/// answering it as it was.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: BusinessHourId) -> Result<BusinessHour> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "business_hours", Owner::BusinessHour, id.get()).await?;
    Ok(current)
}

/// One holiday of a business-hours record the caller reaches.
#[boxed]
pub async fn holiday(
    db: &Db,
    scope: &Scope,
    owner: BusinessHourId,
    id: HolidayId,
) -> Result<Holiday> {
    get(db, scope, owner).await?;
    let mut select = holidays_select();
    select
        .and_where(Expr::col("business_hour_id").eq(owner.get()))
        .and_where(Expr::col("id").eq(id.get()));
    let row: HolidayRow = db.conn().fetch_one(&select).await?;
    Ok(row.into())
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present_holiday(tx: &mut Tx, id: i64) -> Result<Option<Holiday>> {
    let row: Option<HolidayRow> = crud::find_on(tx, holidays_select(), "id", id).await?;
    Ok(row.map(Holiday::from))
}

/// Adds a holiday.
#[boxed]
pub async fn add_holiday(
    db: &Db,
    scope: &Scope,
    owner: BusinessHourId,
    holiday: CreateHoliday,
) -> Result<Holiday> {
    let current = get(db, scope, owner).await?;
    let mut tx = db.begin().await?;
    let id = insert_holiday(&mut tx, current.tenant_id, owner.get(), &holiday).await?;
    tx.commit().await?;
    self::holiday(db, scope, owner, HolidayId(id)).await
}

/// Changes a holiday.
#[boxed]
pub async fn update_holiday(
    db: &Db,
    scope: &Scope,
    owner: BusinessHourId,
    id: HolidayId,
    patch: HolidayPatch,
) -> Result<Holiday> {
    holiday(db, scope, owner, id).await?;
    let mut changes: Changes = Vec::new();
    if let Some(name) = patch.name {
        changes.push(("name", name.into()));
    }
    match patch.when {
        Some(When::Day(date)) => {
            changes.push(("date", Some(date).into()));
            changes.push(("starts", Option::<String>::None.into()));
            changes.push(("ends", Option::<String>::None.into()));
        }
        Some(When::Range(from, to)) => {
            changes.push(("date", Option::<String>::None.into()));
            changes.push(("starts", Some(from).into()));
            changes.push(("ends", Some(to).into()));
        }
        None => {}
    }
    if let Some(media_file) = patch.media_file_id {
        changes.push(("media_file_id", changes::expr(media_file.to_column())));
    }
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "holidays", id.get(), changes).await?;
    tx.commit().await?;
    holiday(db, scope, owner, id).await
}

/// Deletes a holiday, answering it as it was.
#[boxed]
pub async fn delete_holiday(
    db: &Db,
    scope: &Scope,
    owner: BusinessHourId,
    id: HolidayId,
) -> Result<Holiday> {
    let current = holiday(db, scope, owner, id).await?;
    let mut tx = db.begin().await?;
    if crud::delete_in(&mut tx, "holidays", id.get()).await? == 0 {
        return Err(crate::Error::NotFound);
    }
    tx.commit().await?;
    Ok(current)
}
