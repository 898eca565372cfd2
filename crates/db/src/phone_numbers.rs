//! Phone numbers with their tenant's name resolved.

use sea_query::{Condition, Expr, ExprTrait, Func, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, ExtensionId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::phone_number::{
    PhoneNumber, PhoneNumberFilter, PhoneNumberSettings,
};

use crate::backend::Db;
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

const PLAIN: &[&str] = &[
    "id",
    "tenant_id",
    "in_use",
    "number",
    "registered_cnam",
    "di_comment_name",
    "recording",
    "fax",
    "fax_email",
    "fax_store",
    "name_prefix",
    "unconditional_status",
    "email_recording",
    "store_and_forward_number",
];

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
    let mut select = Query::select();
    select.from_as("phone_numbers", "p");
    for column in PLAIN {
        select.column(("p", *column));
    }
    select
        .expr_as(
            Func::coalesce([Expr::col(("p", "branch_id")), Expr::val(0i64)]),
            "branch_id",
        )
        .expr_as(
            Func::coalesce([Expr::col(("p", "sms_ext_id")), Expr::val(0i64)]),
            "sms_ext_id",
        )
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
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &PhoneNumberFilter,
    query: &ListQuery,
) -> Result<Listing<PhoneNumber>> {
    let mut select = select(conditions(scope, filter));
    if let Some(number) = &filter.number {
        select.and_where(list::contains("p.number", number));
    }
    let counted = filter.number.is_none() && query.search.is_none() && query.paginated;
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
    list::run_counted(db, select, PhoneNumber::SPEC, query, total).await
}

/// One phone number.
pub async fn get(db: &Db, scope: &Scope, id: i64) -> Result<PhoneNumber> {
    crud::get(db, scoped(scope), "p.id", id).await
}

fn changes(settings: PhoneNumberSettings) -> Changes {
    let mut changes: Changes = Vec::new();
    if let Some(branch) = settings.branch_id {
        changes.push(("branch_id", branch.map(BranchId::get).into()));
    }
    if let Some(ext) = settings.sms_ext_id {
        changes.push(("sms_ext_id", ext.map(ExtensionId::get).into()));
    }
    if let Some(in_use) = settings.in_use {
        changes.push(("in_use", in_use.into()));
    }
    for (column, value) in [
        ("registered_cnam", settings.registered_cnam),
        ("di_comment_name", settings.di_comment_name),
        ("recording", settings.recording),
        ("fax", settings.fax),
        ("fax_email", settings.fax_email),
        ("fax_store", settings.fax_store),
        ("name_prefix", settings.name_prefix),
        ("unconditional_status", settings.unconditional_status),
        ("email_recording", settings.email_recording),
        (
            "store_and_forward_number",
            settings.store_and_forward_number,
        ),
    ] {
        if let Some(value) = value {
            changes.push((column, value.into()));
        }
    }
    changes
}

/// Provisions `number` to `tenant` (references checked by the caller).
pub async fn create(
    db: &Db,
    tenant: TenantId,
    number: String,
    settings: PhoneNumberSettings,
    now: i64,
) -> Result<PhoneNumber> {
    let mut values = changes(settings);
    values.push(("tenant_id", tenant.get().into()));
    values.push(("number", number.into()));
    values.push(("created_at", now.into()));
    let id = crud::insert(db, "phone_numbers", values).await?;
    get(db, &Scope::Platform, id).await
}

/// Changes a number's settings.
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: i64,
    settings: PhoneNumberSettings,
) -> Result<PhoneNumber> {
    crud::update(
        db,
        scoped(scope),
        "p.id",
        "phone_numbers",
        id,
        changes(settings),
    )
    .await
}

/// Releases a number.
pub async fn delete(db: &Db, scope: &Scope, id: i64) -> Result<PhoneNumber> {
    crud::delete(db, scoped(scope), "p.id", "phone_numbers", id).await
}
