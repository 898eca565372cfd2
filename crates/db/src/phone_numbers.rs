//! Phone numbers with their tenant's name resolved.

use sea_query::{Condition, Expr, ExprTrait, Func, Query, SelectStatement, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{PhoneNumberId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::phone_number::{
    PhoneNumber, PhoneNumberFilter, PhoneNumberSettings,
};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::destinations::{self, Owner};
use crate::error::{Error, PROVISIONED, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The numbers `scope` reaches that match `filter`'s exact filters, as conditions on
/// the columns of alias `p`: the numbers themselves, or their counters (which share the
/// columns). The `number` filter, a substring match, is applied separately.
fn conditions(scope: &Scope, filter: &PhoneNumberFilter) -> Condition {
    let mut all = Condition::all()
        .add(scope::tenants(scope, Expr::col(("p", "tenant_id"))))
        .add(scope::branch(scope, Expr::col(("p", "branch_id"))));
    if let Some(tenant) = filter.place.tenant.tenant_id {
        all = all.add(Expr::col(("p", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        all = all.add(Expr::col(("p", "branch_id")).eq(branch.get()));
    }
    if let Some(fax) = filter.fax {
        all = all.add(Expr::col(("p", "fax")).eq(if fax { "yes" } else { "no" }));
    }
    if let Some(in_use) = filter.in_use {
        all = all.add(Expr::col(("p", "in_use")).eq(i64::from(in_use)));
    }
    all
}

fn select(condition: Condition) -> SelectStatement {
    crud::select_stored::<PhoneNumber>()
        .expr_as(Expr::col(("t", "name")), "tenant_name")
        .inner_join(
            TableRef::from("tenants").alias("t"),
            Expr::col(("t", "id")).equals(("p", "tenant_id")),
        )
        .cond_where(condition)
        .take()
}

fn scoped(scope: &Scope) -> SelectStatement {
    select(conditions(scope, &PhoneNumberFilter::default()))
}

/// Lists the phone numbers the caller reaches. Without a substring match (the `number`
/// filter, a search), the total comes from the counters the database keeps per tenant,
/// branch and state, so a page of a hundred thousand numbers costs what a page of a
/// hundred does.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &PhoneNumberFilter,
    query: &ListQuery,
) -> Result<Listing<PhoneNumber>> {
    let mut select = select(conditions(scope, filter));
    if let Some(number) = &filter.number {
        select.and_where(number_contains(number));
    }
    narrow_by_conduit(&mut select, filter);
    list_matching(db, scope, filter, query, select).await
}

/// The `number` filter: numbers holding the digits of `text` when it is a number in some
/// formatting (`+1 202` finds `12025550252` and `+12025550252`: one number however
/// written, and still served by the number's text index), holding `text` otherwise.
fn number_contains(text: &str) -> Expr {
    let digits = switchboard_domain::phone::digits(text);
    list::contains("p.number", digits.as_deref().unwrap_or(text))
}

/// Numbers whose digits (their dial characters but `+`, `*` and `#`) hold `digits`.
fn digits_contain(digits: &str) -> Expr {
    let bare = Func::cust("REPLACE").args([
        Func::cust("REPLACE")
            .args([
                Func::cust("REPLACE")
                    .args([Expr::col(("p", "number")), Expr::val("+"), Expr::val("")])
                    .into(),
                Expr::val("*"),
                Expr::val(""),
            ])
            .into(),
        Expr::val("#"),
        Expr::val(""),
    ]);
    Expr::expr(bare).like(sea_query::LikeExpr::new(format!("%{digits}%")).escape('\\'))
}

/// The numbers `scope` reaches matching `filter` and `search`: the text against the
/// comment name and the CNAM, case-insensitively, and — when it reads as a number in some
/// formatting — its digits against the number's (its dial characters but `+`, `*` and
/// `#`), so `+1 (555) 010-2030` finds `15550102030`. Without a search it is the list,
/// counted from the maintained counters.
#[boxed]
pub async fn search(
    db: &Db,
    scope: &Scope,
    filter: &PhoneNumberFilter,
    query: &ListQuery,
    search: Option<&str>,
) -> Result<Listing<PhoneNumber>> {
    let Some(text) = search else {
        return list(db, scope, filter, query).await;
    };
    let mut select = select(conditions(scope, filter));
    if let Some(number) = &filter.number {
        select.and_where(number_contains(number));
    }
    narrow_by_conduit(&mut select, filter);
    let mut any = Condition::any()
        .add(list::contains("p.di_comment_name", text))
        .add(list::contains("p.registered_cnam", text));
    if let Some(digits) = switchboard_domain::phone::digits(text) {
        any = any.add(digits_contain(&digits));
    }
    select.cond_where(any);
    let query = ListQuery {
        search: None,
        ..query.clone()
    };
    list::run_completed_counted(db, select, PhoneNumber::SPEC, &query, None, complete).await
}

/// Applies the `conduitId` filter: a condition on the numbers themselves, which the
/// maintained counters (kept per tenant, branch and state) cannot count.
fn narrow_by_conduit(select: &mut SelectStatement, filter: &PhoneNumberFilter) {
    if let Some(conduit) = filter.conduit_id {
        select.and_where(Expr::col(("p", "conduit_id")).eq(conduit.get()));
    }
}

/// Answers `query` over `select`, counted from the maintained counters when nothing but
/// the exact filters they hold narrows it.
async fn list_matching(
    db: &Db,
    scope: &Scope,
    filter: &PhoneNumberFilter,
    query: &ListQuery,
    select: SelectStatement,
) -> Result<Listing<PhoneNumber>> {
    let counted = filter.number.is_none()
        && filter.conduit_id.is_none()
        && query.search.is_none()
        && query.paginated;
    let total = if counted {
        let count = Query::select()
            .expr(Expr::cust("CAST(COALESCE(SUM(p.numbers), 0) AS BIGINT)"))
            .from_as("phone_number_counts", "p")
            .cond_where(conditions(scope, filter))
            .take();
        Some(db.conn().scalar(&count).await?)
    } else {
        None
    };
    list::run_completed_counted(db, select, PhoneNumber::SPEC, query, total, complete).await
}

/// The destination's list name.
const DESTINATION: &str = "destination";

/// Attaches the destination of every number in `rows`, with one query.
async fn complete(db: Db, rows: Vec<PhoneNumber>) -> Result<Vec<PhoneNumber>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(
    reader: &mut impl Reader,
    mut rows: Vec<PhoneNumber>,
) -> Result<Vec<PhoneNumber>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lists = destinations::load_on(reader, Owner::PhoneNumber, &ids).await?;
    for row in &mut rows {
        row.destination = lists
            .remove(&(row.id.get(), DESTINATION.to_owned()))
            .and_then(|list| list.into_iter().next());
    }
    Ok(rows)
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<PhoneNumber>> {
    let row: Option<PhoneNumber> = crud::find_on(tx, scoped(&Scope::Platform), "p.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// One phone number with its destination.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: PhoneNumberId) -> Result<PhoneNumber> {
    let row: PhoneNumber = crud::get(db, scoped(scope), "p.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Checks in `tx` that the conduit `settings` names (if any) is still `tenant`'s, before
/// the number is written to name it.
async fn lock_conduit(
    tx: &mut crate::backend::Tx,
    tenant: TenantId,
    settings: &PhoneNumberSettings,
) -> Result<()> {
    if let Some(Some(conduit)) = settings.conduit_id {
        // Read with a share lock in this transaction, as destinations read their
        // targets: a concurrent delete of the conduit either finished first (refused
        // here) or waits and then leaves this number without it (ON DELETE SET NULL).
        let target = Query::select()
            .column("id")
            .from("conduits")
            .and_where(Expr::col("id").eq(conduit.get()))
            .and_where(Expr::col("tenant_id").eq(tenant.get()))
            .lock(sea_query::LockType::Share)
            .take();
        if tx.fetch_optional::<(i64,)>(&target).await?.is_none() {
            return Err(Error::Conflict(format!(
                "conduitId names conduit {} that no longer exists in the tenant",
                conduit.get()
            )));
        }
    }
    Ok(())
}

/// Writes the destination `settings` sets (if it sets one) in `tx`.
async fn write_destination(
    tx: &mut crate::backend::Tx,
    tenant: TenantId,
    id: i64,
    settings: &PhoneNumberSettings,
) -> Result<()> {
    if let Some(destination) = &settings.destination {
        let items: Vec<_> = destination.iter().cloned().collect();
        destinations::replace(tx, tenant, Owner::PhoneNumber, id, DESTINATION, &items).await?;
    }
    Ok(())
}

/// Provisions `number` to `tenant` (references checked by the caller).
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    number: String,
    settings: PhoneNumberSettings,
    now: i64,
) -> Result<PhoneNumber> {
    let mut tx = db.begin().await?;
    let destination = PhoneNumberSettings {
        destination: settings.destination.clone(),
        ..PhoneNumberSettings::default()
    };
    lock_conduit(&mut tx, tenant, &settings).await?;
    // One number is one number: `+12025550252` is refused while `12025550252` is held
    // (the unique constraint sees equal text only), with the unique index's own answer.
    // A concurrent provision of the other spelling, which this read cannot see, fails
    // on the index of the number without its `+` (migration 0039) with the same answer.
    let spellings = switchboard_domain::phone::spellings(&number, None);
    let held = Query::select()
        .column("id")
        .from("phone_numbers")
        .and_where(Expr::col("number").is_in(spellings))
        .limit(1)
        .take();
    if tx.fetch_optional::<(i64,)>(&held).await?.is_some() {
        return Err(Error::Conflict(PROVISIONED.into()));
    }
    let mut values = changes::of(&settings);
    values.push(("tenant_id", tenant.get().into()));
    values.push(("number", number.into()));
    values.push(("created_at", now.into()));
    let id = crud::insert_in(&mut tx, "phone_numbers", values).await?;
    write_destination(&mut tx, tenant, id, &destination).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, PhoneNumberId(id)).await
}

/// Changes a number's settings.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: PhoneNumberId,
    settings: PhoneNumberSettings,
) -> Result<PhoneNumber> {
    let current = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    let destination = PhoneNumberSettings {
        destination: settings.destination.clone(),
        ..PhoneNumberSettings::default()
    };
    lock_conduit(&mut tx, current.tenant_id, &settings).await?;
    crud::update_in(&mut tx, "phone_numbers", id.get(), changes::of(&settings)).await?;
    write_destination(&mut tx, current.tenant_id, id.get(), &destination).await?;
    tx.commit().await?;
    get(db, scope, id).await
}

/// Releases a number, with its destination.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: PhoneNumberId) -> Result<PhoneNumber> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "phone_numbers", Owner::PhoneNumber, id.get()).await?;
    Ok(current)
}
