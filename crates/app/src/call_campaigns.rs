//! Call campaigns: placed in their tenant, dialling from a number of the tenant, their
//! answered calls connected to one record of the tenant; and their records, added one by
//! one or imported, each number read in the tenant's default country first (the one rule
//! of a record's number beyond its characters), checked against the opt-out lists and the
//! campaign's own numbers. The campaign scheduler is woken when a running campaign gains
//! records or starts running.

use switchboard_db::call_campaigns::{self, Added, NewRecord};
use switchboard_domain::ids::{BranchId, CallCampaignId, CampaignRecordId, TenantId};
use switchboard_domain::phone;
use switchboard_domain::records::call_campaign::{
    CallCampaign, CampaignRecord, CampaignStatus, CreateCallCampaign, ImportResult, ImportSummary,
    UpdateCallCampaign,
};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::opt_out::list_name;
use switchboard_domain::{Location, Principal, Problems};

use crate::{Error, Result, Services, tenancy};

/// The campaign `id` in `caller`'s scope, whose records are read or changed; when
/// `adding`, refused (a conflict) once it is completed or cancelled.
pub async fn campaign_of(
    services: &impl Services,
    caller: &Principal,
    id: CallCampaignId,
    adding: bool,
) -> Result<CallCampaign> {
    let campaign = call_campaigns::get(services.db(), &caller.scope, id).await?;
    if adding
        && matches!(
            campaign.status,
            CampaignStatus::Completed | CampaignStatus::Cancelled
        )
    {
        return Err(Error::Conflict(format!(
            "records cannot be added to a {} campaign",
            campaign.status
        )));
    }
    Ok(campaign)
}

/// A record's number in E.164, read in the tenant's `country`; `None`, with the problem
/// added at body `path`, when it is not a dialable number there. The one rule of a
/// record's number beyond its characters, for a record added, changed or imported.
pub fn record_number(
    text: &str,
    country: &str,
    path: &str,
    problems: &mut Problems,
) -> Option<String> {
    match phone::normalise(text, Some(country)) {
        Ok(number) => Some(number),
        Err(reason) => {
            problems.add(Location::Body, path, reason);
            None
        }
    }
}

/// A campaign open to new records, with its tenant's default country, in which the
/// numbers added to it are read.
#[derive(Debug)]
pub struct Adding {
    /// The campaign.
    pub campaign: CallCampaign,
    /// Its tenant's default country (ISO 3166 alpha-2).
    pub country: String,
}

impl Adding {
    /// `text` as a number of this campaign's records ([`record_number`] in its country).
    pub fn number(&self, text: &str, path: &str, problems: &mut Problems) -> Option<String> {
        record_number(text, &self.country, path, problems)
    }
}

/// The campaign `id` of `caller`'s scope, open to new records.
pub async fn open_for_records(
    services: &impl Services,
    caller: &Principal,
    id: CallCampaignId,
) -> Result<Adding> {
    let campaign = campaign_of(services, caller, id, true).await?;
    let country = call_campaigns::tenant_country(services.db(), campaign.tenant_id).await?;
    Ok(Adding { campaign, country })
}

/// The refusal of a number on an opt-out list: which list, never whose.
pub fn opted_out(number: &str, level: &str) -> Error {
    Error::Forbidden(format!(
        "{number} is on {}: it may not be called",
        list_name(level)
    ))
}

/// Adds the number `number` (read by [`Adding::number`]) named `name` to the campaign:
/// refused when an opt-out list holds it (naming the list's level) and when the campaign
/// already holds it (naming the record).
pub async fn add_record(
    services: &impl Services,
    adding: &Adding,
    number: String,
    name: Option<String>,
) -> Result<CampaignRecord> {
    let campaign = &adding.campaign;
    let new = NewRecord {
        number: number.clone(),
        name,
    };
    let added =
        call_campaigns::add_records(services.db(), campaign.tenant_id, campaign.id, vec![new])
            .await?;
    match added.into_iter().next() {
        Some(Added::Created(record)) => {
            woken(services, campaign, 1);
            let record = CampaignRecordId(record);
            Ok(call_campaigns::get_record(services.db(), campaign.id, record).await?)
        }
        Some(Added::Duplicate(existing)) => Err(Error::Conflict(format!(
            "the campaign already holds {number} (record {existing})"
        ))),
        Some(Added::OptedOut(level)) => Err(opted_out(&number, &level)),
        None => Err(Error::internal("an added record answered nothing")),
    }
}

/// What a new campaign's check found: where it lands and the caller id it dials from
/// (none only when a problem says why).
#[derive(Debug)]
pub struct NewCampaign {
    tenant: TenantId,
    branch: Option<BranchId>,
    caller_id: Option<String>,
}

/// Checks a new campaign of `caller`: where it lands (answered), its answered-call
/// destination, and its caller id, a number of the tenant.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateCallCampaign,
    problems: &mut Problems,
) -> Result<NewCampaign> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let branch =
        tenancy::branch_for_write(services, caller, tenant, body.branch_id, problems).await?;
    check_destination(services, tenant, &body.destination, problems).await?;
    let caller_id = caller_id(services, tenant, &body.caller_id_number, problems).await?;
    Ok(NewCampaign {
        tenant,
        branch,
        caller_id,
    })
}

/// Writes a new campaign checked by [`check_new`].
pub async fn write_new(
    services: &impl Services,
    checked: NewCampaign,
    mut body: CreateCallCampaign,
) -> Result<CallCampaign> {
    body.branch_id = checked.branch;
    let caller_id = checked
        .caller_id
        .ok_or_else(|| Error::internal("a checked campaign has a caller id"))?;
    Ok(call_campaigns::create(services.db(), checked.tenant, caller_id, body).await?)
}

/// What a change's check found: the branch it moves to (when sent) and its new caller id
/// (when sent).
#[derive(Debug, Default)]
pub struct CampaignChange {
    branch: Option<Option<BranchId>>,
    caller_id: Option<String>,
}

/// Checks a change of `caller` to `current`: a branch it moves to, a new destination and a
/// new caller id, as for a new campaign.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &CallCampaign,
    body: &UpdateCallCampaign,
    problems: &mut Problems,
) -> Result<CampaignChange> {
    let tenant = current.tenant_id;
    let mut change = CampaignChange::default();
    if let Some(requested) = body.branch_id {
        let branch =
            tenancy::branch_for_write(services, caller, tenant, requested, problems).await?;
        change.branch = Some(branch);
    }
    if let Some(destination) = &body.destination {
        check_destination(services, tenant, destination, problems).await?;
    }
    if let Some(text) = &body.caller_id_number {
        change.caller_id = caller_id(services, tenant, text, problems).await?;
    }
    Ok(change)
}

/// Writes a change checked by [`check_change`]; a campaign now running has its due
/// records queued at once rather than at the scheduler's next tick.
pub async fn write_change(
    services: &impl Services,
    caller: &Principal,
    id: CallCampaignId,
    mut body: UpdateCallCampaign,
    change: CampaignChange,
) -> Result<CallCampaign> {
    if body.branch_id.is_some() {
        body.branch_id = change.branch;
    }
    let updated =
        call_campaigns::update(services.db(), &caller.scope, id, change.caller_id, body).await?;
    if updated.status == CampaignStatus::Running {
        services.wake_campaigns();
    }
    Ok(updated)
}

/// The tenant's phone number `text` names, as E.164: read in the tenant's country, and
/// held by the tenant (stored as E.164, without its `+`, or as written); `None`, with the
/// problem added, otherwise.
async fn caller_id(
    services: &impl Services,
    tenant: TenantId,
    text: &str,
    problems: &mut Problems,
) -> Result<Option<String>> {
    let country = call_campaigns::tenant_country(services.db(), tenant).await?;
    let Some(e164) = record_number(text, &country, "callerIdNumber", problems) else {
        return Ok(None);
    };
    let spellings = phone::spellings(text, Some(&country));
    if call_campaigns::tenant_has_number(services.db(), tenant, &spellings).await? {
        Ok(Some(e164))
    } else {
        problems.add(
            Location::Body,
            "callerIdNumber",
            "must be a phone number of the tenant",
        );
        Ok(None)
    }
}

/// Checks the answered-call destination: exactly one, a record of the tenant.
async fn check_destination(
    services: &impl Services,
    tenant: TenantId,
    items: &[DestinationInput],
    problems: &mut Problems,
) -> Result<()> {
    if items.len() != 1 {
        problems.add(
            Location::Body,
            "destination",
            "must hold exactly one destination",
        );
        return Ok(());
    }
    tenancy::check_destinations(services, tenant, "destination", items, problems).await
}

/// One row of an import as its caller read it.
#[derive(Debug)]
pub struct ImportedRow {
    /// The number as sent (empty when the row sent none).
    pub input: String,
    /// The record it stands for, or every rule it breaks, for its `invalid` result.
    pub read: std::result::Result<NewRecord, String>,
}

/// Imports `rows` into the campaign: every row is answered in order — `created` (with
/// its id), `duplicate` (with the existing record's id), `opted-out` (naming the list's
/// level) or `invalid` (with the reason); each created record is audited.
pub async fn import_records(
    services: &impl Services,
    adding: &Adding,
    rows: Vec<ImportedRow>,
) -> Result<ImportSummary> {
    let campaign = &adding.campaign;
    let mut summary = ImportSummary::default();
    let mut valid = Vec::new();
    for (index, row) in rows.into_iter().enumerate() {
        match row.read {
            Ok(record) => valid.push((index, row.input, record)),
            Err(reason) => summary.results.push(ImportResult {
                row: index + 1,
                input: row.input,
                number: None,
                result: "invalid".into(),
                id: None,
                reason: Some(reason),
            }),
        }
    }
    let mut records = Vec::with_capacity(valid.len());
    let mut rows = Vec::with_capacity(valid.len());
    for (index, input, record) in valid {
        rows.push((index, input, record.number.clone()));
        records.push(record);
    }
    let added =
        call_campaigns::add_records(services.db(), campaign.tenant_id, campaign.id, records)
            .await?;
    for ((index, input, number), added) in rows.into_iter().zip(added) {
        let (result, id, reason) = match added {
            Added::Created(id) => ("created", Some(id), None),
            Added::Duplicate(id) => ("duplicate", Some(id), None),
            Added::OptedOut(level) => ("opted-out", None, Some(list_name(&level).to_owned())),
        };
        summary.results.push(ImportResult {
            row: index + 1,
            input,
            number: Some(number),
            result: result.into(),
            id,
            reason,
        });
    }
    summary.results.sort_by_key(|r| r.row);
    for result in &summary.results {
        match result.result.as_str() {
            "created" => summary.created += 1,
            "duplicate" => summary.duplicates += 1,
            "opted-out" => summary.opted_out += 1,
            _ => summary.invalid += 1,
        }
    }
    woken(services, campaign, summary.created);
    Ok(summary)
}

/// Wakes the campaign scheduler when `campaign` is running and gained `created` records,
/// so they are queued now rather than at its next tick.
fn woken(services: &impl Services, campaign: &CallCampaign, created: usize) {
    if created > 0 && campaign.status == CampaignStatus::Running {
        services.wake_campaigns();
    }
}

#[cfg(test)]
mod tests {
    use switchboard_domain::{Location, Problems};

    use super::record_number;

    #[test]
    fn a_record_number_is_read_in_the_tenant_country() {
        let mut problems = Problems::new();
        let national = record_number("020 7946 0018", "GB", "number", &mut problems);
        assert_eq!(national.as_deref(), Some("+442079460018"));
        let international = record_number("+1 202 555 0143", "GB", "number", &mut problems);
        assert_eq!(international.as_deref(), Some("+12025550143"));
        assert!(problems.is_empty());
    }

    #[test]
    fn a_number_that_is_not_dialable_is_a_problem_at_its_path() {
        let mut problems = Problems::new();
        assert_eq!(record_number("12", "US", "3/number", &mut problems), None);
        assert!(problems.names(Location::Body, "3/number"));
    }
}
