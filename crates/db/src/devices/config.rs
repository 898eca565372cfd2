//! The configuration version a phone's provisioning file carries: grown, with a
//! `DEVICE_CONFIG_CHANGED` event in the same transaction, whenever what the file renders
//! changes (an extension it shows, a SIP account, a layout), and a tenant's every phone
//! announced in batches by the [`Reprovision`] job.

use sea_query::{Condition, Expr, ExprTrait, Query};
use serde_json::json;
use switchboard_declare::boxed;
use switchboard_domain::ids::{ButtonLayoutId, DeviceId, ExtensionId, TenantId};
use switchboard_domain::records::device::display_mac;
use switchboard_domain::serde::{Deserialize, Serialize};

use crate::backend::{Db, Tx};
use crate::crud;
use crate::error::Result;
use crate::events;
use crate::jobs::JobKind;

/// The event a changed provisioning file emits.
pub const CONFIG_CHANGED: &str = switchboard_domain::records::webhook::DEVICE_CONFIG_CHANGED;

#[derive(switchboard_domain::declare::FromRow)]
struct Changed {
    id: DeviceId,
    tenant_id: TenantId,
    mac: String,
    config_version: i64,
}

pub(super) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Grows the configuration version of `devices` and emits `DEVICE_CONFIG_CHANGED` for
/// each, inside `tx` (the transaction of the change that caused it).
#[boxed]
pub async fn config_changed(tx: &mut Tx, devices: &[i64], reason: &str) -> Result<()> {
    for id in devices {
        crud::update_in(
            tx,
            "devices",
            *id,
            vec![("config_version", Expr::cust("config_version + 1"))],
        )
        .await?;
        let read = Query::select()
            .columns(["id", "tenant_id", "mac", "config_version"])
            .from("devices")
            .and_where(Expr::col("id").eq(*id))
            .take();
        let Some(changed) = tx.fetch_optional::<Changed>(&read).await? else {
            continue;
        };
        let data = json!({
            "deviceId": changed.id,
            "mac": display_mac(&changed.mac),
            "configVersion": changed.config_version,
            "reason": reason,
        });
        events::emit(tx, changed.tenant_id, CONFIG_CHANGED, data, now()).await?;
    }
    Ok(())
}

/// The job announcing a change to every phone of a tenant, a batch at a time: the
/// tenant's phones after device `after` (`{"tenantId": …, "after": …, "reason": …}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct Reprovision {
    /// The tenant whose phones are announced.
    pub tenant_id: TenantId,
    /// The last device announced by the batches before (0 to start).
    #[serde(default)]
    pub after: i64,
    /// Why, as each phone's DEVICE_CONFIG_CHANGED event says.
    #[serde(default = "Reprovision::default_reason")]
    pub reason: String,
}

impl Reprovision {
    /// The reason a job queued before reasons were kept gives.
    fn default_reason() -> String {
        "tenant".to_owned()
    }
}

impl JobKind for Reprovision {
    const KIND: &'static str = "devices.reprovision";
}

/// Phones announced per transaction of a [`Reprovision`] job: a short transaction each,
/// however many phones the tenant has.
pub const REPROVISION_BATCH: u64 = 500;

/// Queues, in `tx`, the announcement of a change to every phone of `tenant`.
#[boxed]
pub async fn reprovision_later(tx: &mut Tx, tenant: TenantId, reason: &str) -> Result<()> {
    let job = Reprovision {
        tenant_id: tenant,
        after: 0,
        reason: reason.to_owned(),
    };
    crate::jobs::enqueue(tx, &job, now()).await
}

/// One batch of a [`Reprovision`] job: the configuration version of the next
/// [`REPROVISION_BATCH`] phones of its tenant after its device `after` grows, with an
/// event each, and the job for the rest is queued in the same transaction (a crash
/// between batches loses nothing; a batch run twice announces its phones twice,
/// harmlessly).
#[boxed]
pub async fn reprovision_batch(db: &Db, job: &Reprovision) -> Result<()> {
    let mut tx = db.begin().await?;
    let select = Query::select()
        .column("id")
        .from("devices")
        .and_where(Expr::col("tenant_id").eq(job.tenant_id.get()))
        .and_where(Expr::col("id").gt(job.after))
        .order_by("id", sea_query::Order::Asc)
        .limit(REPROVISION_BATCH)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    let phones: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
    config_changed(&mut tx, &phones, &job.reason).await?;
    if let Some(&last) = phones.last()
        && phones.len() as u64 == REPROVISION_BATCH
    {
        let rest = Reprovision {
            after: last,
            ..job.clone()
        };
        crate::jobs::enqueue(&mut tx, &rest, now()).await?;
    }
    tx.commit().await
}

/// The devices whose provisioning file shows extension `id`: those it is a line of, and
/// those whose layout has a key watching it.
#[boxed]
pub async fn showing_extension(tx: &mut Tx, id: ExtensionId) -> Result<Vec<i64>> {
    let select = Query::select()
        .column("id")
        .from("devices")
        .cond_where(
            Condition::any()
                .add(
                    Expr::col("id").in_subquery(
                        Query::select()
                            .column("device_id")
                            .from("device_lines")
                            .and_where(Expr::col("extension_id").eq(id.get()))
                            .take(),
                    ),
                )
                .add(
                    Expr::col("button_layout_id").in_subquery(
                        Query::select()
                            .column("layout_id")
                            .from("button_layout_keys")
                            .and_where(Expr::col("extension_id").eq(id.get()))
                            .take(),
                    ),
                ),
        )
        .order_by("id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The devices registering as one of `extensions` (a line of theirs): the ones whose
/// file carries the SIP account of the extension's user.
#[boxed]
pub async fn with_lines(tx: &mut Tx, extensions: &[ExtensionId]) -> Result<Vec<i64>> {
    if extensions.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .distinct()
        .column("device_id")
        .from("device_lines")
        .and_where(Expr::col("extension_id").is_in(extensions.iter().map(|e| e.get())))
        .order_by("device_id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// After a user's SIP account (peer name or secret) or extension changed inside `tx`:
/// every phone registering as its old or new extension renders another account.
#[boxed]
pub async fn sip_account_changed(tx: &mut Tx, extensions: &[ExtensionId]) -> Result<()> {
    let phones = with_lines(tx, extensions).await?;
    config_changed(tx, &phones, "sip-account").await
}

/// The devices using layout `id`.
#[boxed]
pub async fn using_layout(tx: &mut Tx, id: ButtonLayoutId) -> Result<Vec<i64>> {
    let select = Query::select()
        .column("id")
        .from("devices")
        .and_where(Expr::col("button_layout_id").eq(id.get()))
        .order_by("id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod reprovision_tests {
    use super::*;

    #[test]
    fn a_reprovision_job_queued_the_old_way_is_read() {
        // As `json!` wrote them before the payload was a struct: keys sorted, and the
        // first announcements without `after` or `reason`.
        let written = r#"{"after":500,"reason":"tenant-timezone","tenantId":7}"#;
        assert_eq!(
            Reprovision::from_payload(written).unwrap(),
            Reprovision {
                tenant_id: TenantId(7),
                after: 500,
                reason: "tenant-timezone".into(),
            }
        );
        let oldest = Reprovision::from_payload(r#"{"tenantId":7}"#).unwrap();
        assert_eq!((oldest.after, oldest.reason.as_str()), (0, "tenant"));
        assert!(Reprovision::from_payload(r#"{"after":1}"#).is_err());
        let again = Reprovision::from_payload(&oldest.to_payload().unwrap()).unwrap();
        assert_eq!(again, oldest);
    }
}
