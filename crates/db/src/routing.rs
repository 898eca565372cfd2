//! Loads a tenant's routing records for the routing graph in a fixed number of queries
//! (twelve whatever the tenant's size, two more for a branch admin): the records that are
//! nodes, every destination list of the tenant, queue members and holidays, never one
//! query per node.

use std::collections::{BTreeMap, HashMap, HashSet};
use switchboard_declare::boxed;

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::declare::OptionalRef;
use switchboard_domain::ids::{HolidayId, MediaFileId, TenantId};
use switchboard_domain::records::business_hour::{Holiday, HoursInterval, weekly_hours};
use switchboard_domain::routing::{Link, Node, Routing, Schedule};

use crate::backend::Db;
use crate::error::Result;
use crate::scope;

#[derive(switchboard_domain::declare::FromRow)]
struct Named {
    id: i64,
    name: String,
    number: String,
}

#[derive(switchboard_domain::declare::FromRow)]
struct HoursRow {
    id: i64,
    name: String,
    timezone: String,
    hours: String,
}

#[derive(switchboard_domain::declare::FromRow)]
struct HolidayRow {
    id: i64,
    business_hour_id: i64,
    name: String,
    date: Option<String>,
    starts: Option<String>,
    ends: Option<String>,
    media_file_id: OptionalRef<MediaFileId>,
}

#[derive(switchboard_domain::declare::FromRow)]
struct ListRow {
    owner_type: String,
    owner_id: i64,
    list: String,
    dest_type: String,
    target_id: i64,
    number: Option<String>,
    sort_order: i64,
    type_src: Option<String>,
}

#[derive(switchboard_domain::declare::FromRow)]
struct MemberRow {
    queue_id: i64,
    extension_id: i64,
    position: i64,
}

fn named(table: &'static str, tenant: TenantId) -> SelectStatement {
    Query::select()
        .columns(["id", "name", "number"])
        .from(table)
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .order_by("id", sea_query::Order::Asc)
        .take()
}

fn label(name: &str, number: &str) -> String {
    if number.is_empty() {
        name.to_owned()
    } else {
        format!("{name} ({number})")
    }
}

/// The node a destination of `dest_type` naming `target` (or dialling `number`) is.
fn node_of(dest_type: &str, target: i64, number: Option<&str>) -> String {
    match dest_type {
        "EXT" => format!("extension:{target}"),
        "VOICEMAIL" => format!("voicemail:{target}"),
        "IVR" => format!("ivr:{target}"),
        "PAGING_GROUP" => format!("paging-group:{target}"),
        "QUEUE" => format!("queue:{target}"),
        "BUSINESS_HOUR" => format!("business-hours:{target}"),
        "PHARMACY_AGENT" => format!("pharmacy-agent:{target}"),
        "EXTERNAL" => format!("external:{}", number.unwrap_or_default()),
        "HANGUP" => "hangup".to_owned(),
        other => format!("{}:{target}", other.to_lowercase().replace('_', "-")),
    }
}

/// The node owning a destination list, and the edge kind of the list.
fn owner_of(row: &ListRow) -> Option<(String, String)> {
    let id = row.owner_id;
    Some(match (row.owner_type.as_str(), row.list.as_str()) {
        ("phone_number", _) => (format!("number:{id}"), "route".into()),
        ("business_hour", "match") => (format!("business-hours:{id}"), "open".into()),
        ("business_hour", "notMatch") => (format!("business-hours:{id}"), "closed".into()),
        ("ivr", "options") => (
            format!("ivr:{id}"),
            format!("digit:{}", row.type_src.as_deref().unwrap_or("?")),
        ),
        ("ivr", "timeout") => (format!("ivr:{id}"), "timeout".into()),
        ("ivr", "invalid") => (format!("ivr:{id}"), "invalid".into()),
        ("queue", "timeout") => (format!("queue:{id}"), "overflow".into()),
        ("paging_group", "members") => (format!("paging-group:{id}"), "member".into()),
        ("pharmacy_agent", "fallback") => (format!("pharmacy-agent:{id}"), "fallback".into()),
        ("pharmacy_agent", "afterHours") => (format!("pharmacy-agent:{id}"), "closed".into()),
        _ => return None,
    })
}

/// The ids of `table`'s records of `tenant` outside what `scope` reaches: for a branch
/// admin, those not of its branch (the branch-bound routing records are extensions and
/// business hours); nothing for tenant-wide callers.
async fn outside_branch(
    db: &Db,
    scope: &Scope,
    tenant: TenantId,
    table: &'static str,
) -> Result<HashSet<i64>> {
    let Scope::Branch(_, branch) = *scope else {
        return Ok(HashSet::new());
    };
    let select = Query::select()
        .column("id")
        .from(table)
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .cond_where(
            Condition::any()
                .add(Expr::col("branch_id").is_null())
                .add(Expr::col("branch_id").ne(branch.get())),
        )
        .take();
    let rows: Vec<(i64,)> = db.conn().fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The routing records of `tenant`, confined to what `scope` reaches: a branch admin's
/// roots are its branch's numbers, and another branch's extensions and business hours
/// are opaque nodes (where calls go, without label, link, schedule or onward paths).
#[boxed]
pub async fn load(db: &Db, scope: &Scope, tenant: TenantId) -> Result<Routing> {
    let mut routing = Routing::default();
    let hidden_extensions = outside_branch(db, scope, tenant, "extensions").await?;
    let hidden_hours = outside_branch(db, scope, tenant, "business_hours").await?;
    let numbers = Query::select()
        .columns([("p", "id"), ("p", "number")])
        .expr_as(Expr::col(("p", "di_comment_name")), "name")
        .from_as("phone_numbers", "p")
        .and_where(Expr::col(("p", "tenant_id")).eq(tenant.get()))
        .cond_where(scope::branch(scope, Expr::col(("p", "branch_id"))))
        .order_by(("p", "id"), sea_query::Order::Asc)
        .take();
    let numbers: Vec<Named> = db.conn().fetch_all(&numbers).await?;
    for n in numbers {
        let id = format!("number:{}", n.id);
        let text = if n.name.is_empty() {
            n.number.clone()
        } else {
            format!("{} ({})", n.number, n.name)
        };
        routing.numbers.push(id.clone());
        routing.dialled.insert(id.clone(), n.number.clone());
        routing.nodes.insert(
            id.clone(),
            Node::new(
                id,
                "number",
                text,
                Some(format!("/v2/admin/phone-numbers/{}", n.id)),
            ),
        );
    }
    for (table, kind, path) in [
        ("ivrs", "ivr", "ivrs"),
        ("queues", "queue", "queues"),
        ("pharmacy_agents", "pharmacy-agent", "pharmacy/agents"),
        ("paging_groups", "paging-group", "paging-groups"),
        ("extensions", "extension", "extensions"),
    ] {
        let rows: Vec<Named> = db.conn().fetch_all(&named(table, tenant)).await?;
        for row in rows {
            let id = format!("{kind}:{}", row.id);
            if kind == "extension" && hidden_extensions.contains(&row.id) {
                let mailbox = format!("voicemail:{}", row.id);
                routing
                    .nodes
                    .insert(mailbox.clone(), Node::opaque(mailbox, "voicemail"));
                routing.nodes.insert(id.clone(), Node::opaque(id, kind));
                continue;
            }
            let href = Some(format!("/v2/admin/{path}/{}", row.id));
            if kind == "extension" {
                let mailbox = format!("voicemail:{}", row.id);
                routing.nodes.insert(
                    mailbox.clone(),
                    Node::new(
                        mailbox,
                        "voicemail",
                        format!("Voicemail of {}", label(&row.name, &row.number)),
                        href.clone(),
                    ),
                );
            }
            routing.nodes.insert(
                id.clone(),
                Node::new(id, kind, label(&row.name, &row.number), href),
            );
        }
    }
    let hours = Query::select()
        .columns(["id", "name", "timezone", "hours"])
        .from("business_hours")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .take();
    let hours: Vec<HoursRow> = db.conn().fetch_all(&hours).await?;
    let holidays = Query::select()
        .columns([
            ("d", "id"),
            ("d", "business_hour_id"),
            ("d", "name"),
            ("d", "date"),
            ("d", "starts"),
            ("d", "ends"),
            ("d", "media_file_id"),
        ])
        .from_as("holidays", "d")
        .inner_join(
            TableRef::from("business_hours").alias("h"),
            Expr::col(("h", "id")).equals(("d", "business_hour_id")),
        )
        .and_where(Expr::col(("h", "tenant_id")).eq(tenant.get()))
        .order_by(("d", "id"), sea_query::Order::Asc)
        .take();
    let holidays: Vec<HolidayRow> = db.conn().fetch_all(&holidays).await?;
    let mut by_hours: HashMap<i64, Vec<HolidayRow>> = HashMap::new();
    for holiday in holidays {
        by_hours
            .entry(holiday.business_hour_id)
            .or_default()
            .push(holiday);
    }
    let media = Query::select()
        .columns(["id", "name"])
        .expr_as(Expr::val(""), "number")
        .from("media_files")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(
            Expr::col("id").in_subquery(
                Query::select()
                    .column(("d", "media_file_id"))
                    .from_as("holidays", "d")
                    .inner_join(
                        TableRef::from("business_hours").alias("h"),
                        Expr::col(("h", "id")).equals(("d", "business_hour_id")),
                    )
                    .and_where(Expr::col(("h", "tenant_id")).eq(tenant.get()))
                    .take(),
            ),
        )
        .take();
    let media: Vec<Named> = db.conn().fetch_all(&media).await?;
    for file in media {
        let id = format!("media-file:{}", file.id);
        routing.nodes.insert(
            id.clone(),
            Node::new(
                id,
                "media-file",
                file.name,
                Some(format!("/v2/admin/media-files/{}", file.id)),
            ),
        );
    }
    for row in hours {
        let id = format!("business-hours:{}", row.id);
        if hidden_hours.contains(&row.id) {
            // Neither its schedule (open or closed now) nor its holidays are shown.
            by_hours.remove(&row.id);
            routing
                .nodes
                .insert(id.clone(), Node::opaque(id, "business-hours"));
            continue;
        }
        let written: BTreeMap<String, Vec<HoursInterval>> =
            serde_json::from_str(&row.hours).unwrap_or_default();
        let mut closures = Vec::new();
        let mut holiday_orders = Vec::new();
        for (index, holiday) in by_hours
            .remove(&row.id)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let media_file_id = holiday.media_file_id;
            let holiday = Holiday {
                id: HolidayId(holiday.id),
                name: holiday.name,
                date: holiday.date,
                from: holiday.starts,
                to: holiday.ends,
                media_file_id,
            };
            let order = i64::try_from(index).unwrap_or(i64::MAX - 1) + 1;
            if let Some(closure) = holiday.closure() {
                closures.push(closure);
                holiday_orders.push(order);
            }
            if let Some(media_file_id) = media_file_id.get() {
                routing.links.entry(id.clone()).or_default().push(Link {
                    kind: "holiday".into(),
                    to: format!("media-file:{media_file_id}"),
                    order,
                });
            }
        }
        if let Ok(tz) = row.timezone.parse() {
            routing.schedules.insert(
                id.clone(),
                Schedule {
                    weekly: weekly_hours(&written),
                    closures,
                    holiday_orders,
                    tz,
                },
            );
        }
        routing.nodes.insert(
            id.clone(),
            Node::new(
                id,
                "business-hours",
                row.name,
                Some(format!("/v2/admin/business-hours/{}", row.id)),
            ),
        );
    }
    // An agent with after-hours business hours is closed exactly when they are: it takes
    // their schedule, so `?at=` marks its `closed` edge like a schedule's.
    let agents = Query::select()
        .columns(["id", "after_hours_business_hour_id"])
        .from("pharmacy_agents")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("after_hours_business_hour_id").is_not_null())
        .take();
    let agents: Vec<(i64, i64)> = db.conn().fetch_all(&agents).await?;
    for (agent, hours) in agents {
        if let Some(schedule) = routing.schedules.get(&format!("business-hours:{hours}")) {
            let schedule = schedule.clone();
            routing
                .schedules
                .insert(format!("pharmacy-agent:{agent}"), schedule);
        }
    }
    routing.nodes.insert(
        "hangup".into(),
        Node::new("hangup".into(), "hangup", "Hang up".into(), None),
    );
    let lists = Query::select()
        .columns([
            "owner_type",
            "owner_id",
            "list",
            "dest_type",
            "target_id",
            "number",
            "sort_order",
            "type_src",
        ])
        .from("destinations")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .order_by("owner_type", sea_query::Order::Asc)
        .order_by("owner_id", sea_query::Order::Asc)
        .order_by("list", sea_query::Order::Asc)
        .order_by("sort_order", sea_query::Order::Asc)
        .order_by("position", sea_query::Order::Asc)
        .take();
    let lists: Vec<ListRow> = db.conn().fetch_all(&lists).await?;
    let members = Query::select()
        .columns(["queue_id", "extension_id", "position"])
        .from("queue_members")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .order_by("queue_id", sea_query::Order::Asc)
        .order_by("position", sea_query::Order::Asc)
        .order_by("extension_id", sea_query::Order::Asc)
        .take();
    let members: Vec<MemberRow> = db.conn().fetch_all(&members).await?;
    let mut timeouts: Vec<(String, Link)> = Vec::new();
    for row in &lists {
        let Some((from, kind)) = owner_of(row) else {
            continue;
        };
        let to = node_of(&row.dest_type, row.target_id, row.number.as_deref());
        if let Some(number) = row
            .number
            .as_deref()
            .filter(|_| row.dest_type == "EXTERNAL")
        {
            routing
                .nodes
                .entry(to.clone())
                .or_insert_with(|| Node::new(to.clone(), "external", number.to_owned(), None));
        }
        let link = Link {
            kind,
            to,
            order: if row.list == "options" {
                0
            } else {
                row.sort_order
            },
        };
        // A queue's members come first, then its overflow.
        if row.owner_type == "queue" {
            timeouts.push((from, link));
        } else {
            routing.links.entry(from).or_default().push(link);
        }
    }
    for member in members {
        routing
            .links
            .entry(format!("queue:{}", member.queue_id))
            .or_default()
            .push(Link {
                kind: "member".into(),
                to: format!("extension:{}", member.extension_id),
                order: member.position,
            });
    }
    for (from, link) in timeouts {
        routing.links.entry(from).or_default().push(link);
    }
    // An IVR's links in menu order: options by key (0-9, *, #), then timeout and invalid.
    for (id, links) in routing.links.iter_mut() {
        if id.starts_with("ivr:") {
            links.sort_by_key(|l| ivr_rank(&l.kind));
        }
    }
    Ok(routing)
}

/// Where an IVR link of `kind` is shown.
fn ivr_rank(kind: &str) -> usize {
    match kind.strip_prefix("digit:") {
        Some(digit) => switchboard_domain::records::ivr::MenuKey::rank(digit).unwrap_or(12),
        None if kind == "timeout" => 13,
        None => 14,
    }
}
