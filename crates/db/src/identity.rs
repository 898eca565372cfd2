//! Who a call or a voicemail message belongs to, resolved once when the engine reports
//! it: the extension ids of its parties, from what the engine identified (an extension
//! id, a channel naming the endpoint, the internal number it dialled), never from a
//! caller id an outside caller chose. Read-time scope compares these ids only
//! ([`crate::scope::own_extension`], [`crate::scope::own_calls`]).

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::ids::{CallId, TenantId};
use switchboard_domain::records::call::CallReport;

use crate::backend::Tx;
use crate::crud;
use crate::error::Result;

/// The role of an extension in a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// It placed the call.
    Caller,
    /// The call reached it.
    Callee,
}

impl Role {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Caller => "caller",
            Role::Callee => "callee",
        }
    }
}

/// The endpoint an Asterisk channel name belongs to: `PJSIP/101-0000001a` → `101`,
/// `SIP/alice-00000005` → `alice`; `None` for what names no endpoint (empty, no
/// technology, no name) and for `Local/…` channels, which name a dialplan target (any
/// number, a DID included), not a device that registered as an extension.
pub fn channel_endpoint(channel: &str) -> Option<&str> {
    let (technology, resource) = channel.split_once('/')?;
    if technology.eq_ignore_ascii_case("local") {
        return None;
    }
    // Asterisk appends `-<hex sequence>` to the endpoint's name.
    let resource = match resource.rsplit_once('-') {
        Some((name, sequence))
            if !sequence.is_empty() && sequence.chars().all(|c| c.is_ascii_hexdigit()) =>
        {
            name
        }
        _ => resource,
    };
    (!resource.is_empty()).then_some(resource)
}

/// The id of `tenant`'s row of `table` numbered `number` now, if there is one.
async fn numbered(
    tx: &mut Tx,
    table: &'static str,
    tenant: TenantId,
    number: &str,
) -> Result<Option<i64>> {
    if number.is_empty() {
        return Ok(None);
    }
    let select = Query::select()
        .column("id")
        .from(table)
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("number").eq(number))
        .take();
    let found: Option<(i64,)> = tx.fetch_optional(&select).await?;
    Ok(found.map(|(id,)| id))
}

/// The id of `tenant`'s extension numbered `number` now, if there is one.
#[boxed]
pub async fn extension_numbered(
    tx: &mut Tx,
    tenant: TenantId,
    number: &str,
) -> Result<Option<i64>> {
    numbered(tx, "extensions", tenant, number).await
}

/// Whether `number` is one of `tenant`'s phone numbers (a DID, never an extension's
/// identity).
async fn is_phone_number_of(tx: &mut Tx, tenant: TenantId, number: &str) -> Result<bool> {
    if number.is_empty() {
        return Ok(false);
    }
    // However the engine wrote it (`+12025550252` for the line `12025550252`).
    let spellings = switchboard_domain::phone::spellings(number, None);
    let select = Query::select()
        .column("id")
        .from("phone_numbers")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("number").is_in(spellings))
        .limit(1)
        .take();
    Ok(tx.fetch_optional::<(i64,)>(&select).await?.is_some())
}

/// The extensions a call report identifies, with their roles: the caller from the
/// extension id the engine named or the calling channel's endpoint; the callee from the
/// extension id named, the called channel's endpoint, or (for a call that did not leave
/// the PBX) the number dialled. An outbound call's dialled number and any caller id are
/// the outside world's, never an extension's identity.
#[boxed]
pub async fn call_parties(tx: &mut Tx, report: &CallReport) -> Result<Vec<(i64, Role)>> {
    let mut parties = Vec::new();
    let tenant = report.tenant;
    let caller = match report.caller_extension {
        Some(id) => Some(id.get()),
        None => match channel_endpoint(&report.channel) {
            Some(endpoint) => extension_numbered(tx, tenant, endpoint).await?,
            None => None,
        },
    };
    parties.extend(caller.map(|id| (id, Role::Caller)));
    let mut callees = Vec::new();
    if let Some(id) = report.callee_extension {
        callees.push(id.get());
    }
    if let Some(endpoint) = channel_endpoint(&report.dst_channel) {
        callees.extend(extension_numbered(tx, tenant, endpoint).await?);
    }
    // The number dialled names an extension only for a call that did not leave the PBX,
    // and only when nothing better named the callee: an inbound call's dialled number is
    // usually the tenant's own phone number, which an extension may be numbered like.
    if report.direction != "outbound"
        && callees.is_empty()
        && !is_phone_number_of(tx, tenant, &report.dialed_num).await?
    {
        callees.extend(extension_numbered(tx, tenant, &report.dialed_num).await?);
    }
    callees.sort_unstable();
    callees.dedup();
    parties.extend(callees.into_iter().map(|id| (id, Role::Callee)));
    Ok(parties)
}

/// Notes the parties `report` identifies on call `call_id` in `tx`; parties noted by an
/// earlier report stay (a later step may know a party the first did not).
#[boxed]
pub async fn note_call_parties(tx: &mut Tx, call_id: CallId, report: &CallReport) -> Result<()> {
    for (extension, role) in call_parties(tx, report).await? {
        crud::insert_once(
            tx,
            "call_parties",
            &["call_id", "extension_id", "role"],
            vec![
                ("call_id", call_id.get().into()),
                ("extension_id", extension.into()),
                ("role", role.as_str().into()),
            ],
        )
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::channel_endpoint;

    #[test]
    fn endpoints_of_channel_names() {
        assert_eq!(channel_endpoint("PJSIP/101-0000001a"), Some("101"));
        assert_eq!(channel_endpoint("SIP/alice-00000005"), Some("alice"));
        assert_eq!(
            channel_endpoint("PJSIP/trunk-provider-0000000f"),
            Some("trunk-provider")
        );
        assert_eq!(channel_endpoint("Local/101@from-internal-00000002;1"), None);
        assert_eq!(
            channel_endpoint("local/+15551234567@from-trunk-0001;2"),
            None
        );
        assert_eq!(channel_endpoint("PJSIP/101"), Some("101"));
        assert_eq!(channel_endpoint(""), None);
        assert_eq!(channel_endpoint("101"), None);
        assert_eq!(channel_endpoint("PJSIP/-0000001a"), None);
    }
}
