//! Webhooks: rows with their sealed credentials and signing secrets (sealing and masking
//! happen in the HTTP layer, which holds the key).

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_domain::Scope;
use switchboard_domain::ids::TenantId;
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::webhook::{Webhook, WebhookFilter};

use crate::backend::Db;
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

/// A webhook as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct WebhookRow {
    /// Id.
    pub id: i64,
    /// Tenant.
    pub tenant_id: i64,
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
pub async fn get(db: &Db, scope: &Scope, id: i64) -> Result<WebhookRow> {
    crud::get(db, select(scope), "id", id).await
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
    /// Sealed password; `Some(None)` clears it.
    pub password_sealed: Option<Option<String>>,
    /// Sealed bearer token; `Some(None)` clears it.
    pub authtoken_sealed: Option<Option<String>>,
    /// Clears a disabling (and the run of failures behind it), so deliveries resume.
    pub enable: bool,
}

impl WebhookWrite {
    fn changes(self) -> Changes {
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
        if let Some(password) = self.password_sealed {
            changes.push(("password_sealed", password.into()));
        }
        if let Some(token) = self.authtoken_sealed {
            changes.push(("authtoken_sealed", token.into()));
        }
        if self.enable {
            changes.push(("disabled_at", Option::<i64>::None.into()));
            changes.push(("disabled_reason", Option::<String>::None.into()));
            changes.push(("failing_since", Option::<i64>::None.into()));
        }
        changes
    }
}

/// Creates a webhook of `tenant` with its sealed signing secret.
pub async fn create(
    db: &Db,
    tenant: TenantId,
    write: WebhookWrite,
    secret_sealed: String,
    now: i64,
) -> Result<WebhookRow> {
    let mut changes = write.changes();
    changes.push(("tenant_id", tenant.get().into()));
    changes.push(("signing_secret_sealed", secret_sealed.into()));
    changes.push(("created_at", now.into()));
    let id = crud::insert(db, "webhooks", changes).await?;
    get(db, &Scope::Platform, id).await
}

/// Changes a webhook.
pub async fn update(db: &Db, scope: &Scope, id: i64, write: WebhookWrite) -> Result<WebhookRow> {
    crud::update(db, select(scope), "id", "webhooks", id, write.changes()).await
}

/// Replaces the signing secret, keeping the old one signing until `previous_expires_at`.
pub async fn rotate(
    db: &Db,
    scope: &Scope,
    id: i64,
    new_sealed: String,
    previous_expires_at: i64,
) -> Result<WebhookRow> {
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
    crud::update(db, select(scope), "id", "webhooks", id, changes).await
}

/// Deletes a webhook.
pub async fn delete(db: &Db, scope: &Scope, id: i64) -> Result<WebhookRow> {
    crud::delete(db, select(scope), "id", "webhooks", id).await
}
