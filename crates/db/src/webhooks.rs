//! Webhooks: rows with their sealed credentials and signing secrets, each sealed here
//! bound to its row (`crate::seal`); masking happens in the HTTP layer.

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{TenantId, WebhookId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::webhook::{MASK, Webhook, WebhookFilter};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;
use crate::seal::{self, Sealer, Seat};

/// A webhook as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct WebhookRow {
    /// Id.
    pub id: WebhookId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// Event type.
    #[sqlx(rename = "type")]
    pub kind: String,
    /// Callback URL.
    pub url: String,
    /// Basic user name.
    pub username: String,
    /// Sealed Basic password.
    pub password_sealed: Option<String>,
    /// Sealed bearer token.
    pub authtoken_sealed: Option<String>,
    /// Sealed signing secret.
    pub signing_secret_sealed: String,
    /// Sealed previous signing secret.
    pub previous_secret_sealed: Option<String>,
    /// When the previous secret stops signing (Unix seconds).
    pub previous_secret_expires_at: Option<i64>,
    /// When deliveries stopped (Unix seconds): after a 410 Gone or 5 days of failures.
    pub disabled_at: Option<i64>,
    /// Why deliveries stopped.
    pub disabled_reason: Option<String>,
}

impl WebhookRow {
    /// The webhook as the API answers it: credentials masked (`********` when set).
    pub fn into_webhook(self) -> Webhook {
        let mask = |sealed: &Option<String>| {
            if sealed.is_some() {
                MASK.to_owned()
            } else {
                String::new()
            }
        };
        Webhook {
            id: self.id,
            tenant_id: self.tenant_id,
            password: mask(&self.password_sealed),
            authtoken: mask(&self.authtoken_sealed),
            kind: self.kind,
            url: self.url,
            username: self.username,
            disabled_at: self.disabled_at.and_then(|at| {
                chrono::DateTime::from_timestamp(at, 0)
                    .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            }),
            disabled_reason: self.disabled_reason,
        }
    }
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "tenant_id",
            "type",
            "url",
            "username",
            "password_sealed",
            "authtoken_sealed",
            "signing_secret_sealed",
            "previous_secret_sealed",
            "previous_secret_expires_at",
            "disabled_at",
            "disabled_reason",
        ])
        .from("webhooks")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the webhooks the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &WebhookFilter,
    query: &ListQuery,
) -> Result<Listing<WebhookRow>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    if let Some(kind) = &filter.kind {
        select.and_where(Expr::col("type").eq(kind.as_str()));
    }
    list::run(db, select, Webhook::SPEC, query).await
}

/// One webhook.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: WebhookId) -> Result<WebhookRow> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Webhook>> {
    let row: Option<WebhookRow> = crud::find_on(tx, select(&Scope::Platform), "id", id).await?;
    Ok(row.map(WebhookRow::into_webhook))
}

/// What to store for a webhook: `None` leaves a field unchanged.
#[derive(Clone, Debug, Default)]
pub struct WebhookWrite {
    /// Event type.
    pub kind: Option<String>,
    /// Callback URL.
    pub url: Option<String>,
    /// Basic user name.
    pub username: Option<String>,
    /// Basic password, sealed when written; `Some(None)` clears it.
    pub password: Option<Option<String>>,
    /// Bearer token, sealed when written; `Some(None)` clears it.
    pub authtoken: Option<Option<String>>,
    /// Clears a disabling (and the run of failures behind it), so deliveries resume.
    pub enable: bool,
}

impl WebhookWrite {
    /// The columns to write for row `id`, credentials sealed by `seal`.
    fn changes(self, id: i64, seal: &dyn Fn(Seat, &str) -> String) -> Changes {
        let mut changes: Changes = Vec::new();
        if let Some(kind) = self.kind {
            changes.push(("type", kind.into()));
        }
        if let Some(url) = self.url {
            changes.push(("url", url.into()));
        }
        if let Some(username) = self.username {
            changes.push(("username", username.into()));
        }
        if let Some(password) = self.password {
            let sealed = password.map(|p| seal(seal::webhook_password(id), &p));
            changes.push(("password_sealed", sealed.into()));
        }
        if let Some(token) = self.authtoken {
            let sealed = token.map(|t| seal(seal::webhook_authtoken(id), &t));
            changes.push(("authtoken_sealed", sealed.into()));
        }
        if self.enable {
            changes.push(("disabled_at", Option::<i64>::None.into()));
            changes.push(("disabled_reason", Option::<String>::None.into()));
            changes.push(("failing_since", Option::<i64>::None.into()));
        }
        changes
    }
}

/// Creates a webhook of `tenant` with its signing secret, sealing the secrets.
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    write: WebhookWrite,
    sealer: &Sealer,
    signing_secret: &str,
    now: i64,
) -> Result<WebhookRow> {
    // Sealed values bind the row's id, known only once it is inserted: the row is
    // written with its sealed columns empty (the audit entry notes them as set), then
    // they are sealed, in the same transaction.
    let mut tx = db.begin().await?;
    let mut changes = write.clone().changes(0, &|_, _| String::new());
    changes.push(("tenant_id", tenant.get().into()));
    changes.push(("signing_secret_sealed", String::new().into()));
    changes.push(("created_at", now.into()));
    let id = crud::insert_in(&mut tx, "webhooks", changes).await?;
    let mut sealed: Changes = write
        .changes(id, &|seat, value| sealer.seal(seat, value.as_bytes()))
        .into_iter()
        .filter(|(column, _)| column.ends_with("_sealed"))
        .collect();
    sealed.push((
        "signing_secret_sealed",
        sealer
            .seal(seal::webhook_signing_secret(id), signing_secret.as_bytes())
            .into(),
    ));
    let update = Query::update()
        .table("webhooks")
        .values(sealed)
        .and_where(Expr::col("id").eq(id))
        .take();
    tx.execute(&update).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, WebhookId(id)).await
}

/// Changes a webhook, sealing its new credentials.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: WebhookId,
    write: WebhookWrite,
    sealer: &Sealer,
) -> Result<WebhookRow> {
    let changes = write.changes(id.get(), &|seat, value| sealer.seal(seat, value.as_bytes()));
    crud::update(db, select(scope), "id", "webhooks", id.get(), changes).await
}

/// Replaces the signing secret, keeping the old one signing until `previous_expires_at`.
#[boxed]
pub async fn rotate(
    db: &Db,
    scope: &Scope,
    id: WebhookId,
    sealer: &Sealer,
    new_secret: &str,
    previous_expires_at: i64,
) -> Result<WebhookRow> {
    // The previous secret keeps its seat: both are the webhook's signing secret.
    let new_sealed = sealer.seal(
        seal::webhook_signing_secret(id.get()),
        new_secret.as_bytes(),
    );
    // One statement: the secret being replaced is read by the write itself (SET sees the
    // row as it was), so concurrent rotations chain — each answered secret is the
    // current or the previous one — instead of one silently dropping another's.
    let changes: Changes = vec![
        ("signing_secret_sealed", new_sealed.into()),
        ("previous_secret_sealed", Expr::col("signing_secret_sealed")),
        (
            "previous_secret_expires_at",
            Some(previous_expires_at).into(),
        ),
    ];
    crud::update(db, select(scope), "id", "webhooks", id.get(), changes).await
}

/// Deletes a webhook.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: WebhookId) -> Result<WebhookRow> {
    crud::delete(db, select(scope), "id", "webhooks", id.get()).await
}
