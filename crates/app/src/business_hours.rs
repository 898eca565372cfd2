//! Business hours: placed in a branch of their tenant, routing to records of the tenant,
//! holidays playing media files of the tenant (no more than [`MAX_HOLIDAYS`]), and the
//! exact open-now answer.

use chrono::{DateTime, SecondsFormat, Utc};
use switchboard_db::business_hours;
use switchboard_domain::ids::{BusinessHourId, TenantId};
use switchboard_domain::records::business_hour::{
    BusinessHour, BusinessHourStatus, CreateBusinessHour, CreateHoliday, Holiday, HolidayRef,
    MAX_HOLIDAYS, UpdateBusinessHour, UpdateHoliday,
};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::schedule::{self, Reason};
use switchboard_domain::{Location, Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{BranchMove, Error, Placement, Result, Services};

/// Checks new business hours of `caller`: where they land (answered) and their references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateBusinessHour,
    problems: &mut Problems,
) -> Result<Placement> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let branch =
        tenancy::required_branch(services, caller, tenant, body.branch_id, problems).await?;
    let lists = (
        Some(body.match_destinations.as_slice()),
        Some(body.not_match_destinations.as_slice()),
    );
    check_references(services, tenant, lists, Some(&body.holidays), problems).await?;
    Ok(Placement::checked(tenant, branch))
}

/// Writes new business hours where [`check_new`] placed them.
pub async fn write_new(
    services: &impl Services,
    placement: Placement,
    body: CreateBusinessHour,
) -> Result<BusinessHour> {
    let branch = placement
        .branch()
        .ok_or_else(|| Error::internal("checked business hours have a branch"))?;
    Ok(business_hours::create(services.db(), placement.tenant(), branch, body).await?)
}

/// Checks a change of `caller` to `current`: a branch it moves to (answered, when sent)
/// and its references.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &BusinessHour,
    body: &UpdateBusinessHour,
    problems: &mut Problems,
) -> Result<BranchMove> {
    let tenant = current.tenant_id;
    let branch = match body.branch_id {
        Some(_) => {
            tenancy::branch_for_write(services, caller, tenant, body.branch_id, problems).await?
        }
        None => None,
    };
    let lists = (
        body.match_destinations.as_deref(),
        body.not_match_destinations.as_deref(),
    );
    check_references(services, tenant, lists, body.holidays.as_deref(), problems).await?;
    Ok(BranchMove::checked(branch))
}

/// Writes a change checked by [`check_change`], in the branch it answered.
pub async fn write_change(
    services: &impl Services,
    caller: &Principal,
    id: BusinessHourId,
    mut body: UpdateBusinessHour,
    branch: BranchMove,
) -> Result<BusinessHour> {
    if body.branch_id.is_some() {
        body.branch_id = branch.branch();
    }
    Ok(business_hours::update(services.db(), &caller.scope, id, body).await?)
}

/// Checks a holiday added to `record`: room for it, and its media file of the tenant.
pub async fn check_new_holiday(
    services: &impl Services,
    record: &BusinessHour,
    holiday: &CreateHoliday,
    problems: &mut Problems,
) -> Result<()> {
    if record.holidays.len() >= MAX_HOLIDAYS {
        problems.add(
            Location::Path,
            "id",
            format!("already holds {MAX_HOLIDAYS} holidays, the most a record may hold"),
        );
    }
    let holidays = std::slice::from_ref(holiday);
    check_holiday_media(services, record.tenant_id, "", holidays, problems).await
}

/// Checks a change to a holiday of `record`: its media file is of the tenant.
pub async fn check_holiday_change(
    services: &impl Services,
    record: &BusinessHour,
    change: &UpdateHoliday,
    problems: &mut Problems,
) -> Result<()> {
    let media = change.media_file_id.and_then(|m| m.get());
    tenancy::check_reference(
        services,
        record.tenant_id,
        Referenced::MediaFile,
        "mediaFileId",
        media,
        problems,
    )
    .await
}

/// Whether business hours `id` of `caller`'s scope are open at `at`, which holiday closes
/// them, which destination list applies, and when that next changes: exact across
/// daylight-saving changes and midnight.
pub async fn status(
    services: &impl Services,
    caller: &Principal,
    id: BusinessHourId,
    at: DateTime<Utc>,
) -> Result<BusinessHourStatus> {
    let record = business_hours::get(services.db(), &caller.scope, id).await?;
    let tz: chrono_tz::Tz = record
        .timezone
        .parse()
        .map_err(|_| Error::internal("stored time zone does not parse"))?;
    // The schedule names a closing holiday by its index among the closures, so keep the
    // holidays that made them in the same order.
    let (holidays, closures): (Vec<&Holiday>, Vec<_>) = record
        .holidays
        .iter()
        .filter_map(|h| Some((h, h.closure()?)))
        .unzip();
    // Bounded (MAX_INTERVALS_PER_DAY, MAX_HOLIDAYS, a 400-day horizon) but not free: off
    // the request threads, so a burst of evaluations cannot stall other requests.
    let weekly = record.weekly();
    let answer = tokio::task::spawn_blocking(move || schedule::status(&weekly, &closures, tz, at))
        .await
        .map_err(Error::internal)?;
    let (reason, holiday) = match &answer.reason {
        Reason::InsideHours => ("inside-hours", None),
        Reason::OutsideHours => ("outside-hours", None),
        Reason::Holiday { index, .. } => (
            "holiday",
            holidays.get(*index).map(|h| HolidayRef {
                id: h.id,
                name: h.name.clone(),
            }),
        ),
    };
    let (destinations, list) = if answer.open {
        (record.match_destinations, "match")
    } else {
        (record.not_match_destinations, "notMatch")
    };
    Ok(BusinessHourStatus {
        open: answer.open,
        reason: reason.into(),
        holiday,
        destinations,
        destination_list: list.into(),
        at: at.to_rfc3339_opts(SecondsFormat::Secs, true),
        local_time: at
            .with_timezone(&tz)
            .to_rfc3339_opts(SecondsFormat::Secs, false),
        next_change_at: answer
            .next_change_at
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
    })
}

/// Checks the media files named by `holidays` (at `field/<index>/mediaFileId`, or
/// `mediaFileId` for a holiday sent alone).
async fn check_holiday_media(
    services: &impl Services,
    tenant: TenantId,
    field: &str,
    holidays: &[CreateHoliday],
    problems: &mut Problems,
) -> Result<()> {
    for (index, holiday) in holidays.iter().enumerate() {
        let path = if field.is_empty() {
            "mediaFileId".to_owned()
        } else {
            format!("{field}/{index}/mediaFileId")
        };
        let media = holiday.media_file_id.get();
        tenancy::check_reference(
            services,
            tenant,
            Referenced::MediaFile,
            &path,
            media,
            problems,
        )
        .await?;
    }
    Ok(())
}

/// Checks every reference a business-hours body makes belongs to `tenant`: both
/// destination lists and the holidays' media files.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    (matching, not_matching): (Option<&[DestinationInput]>, Option<&[DestinationInput]>),
    holidays: Option<&[CreateHoliday]>,
    problems: &mut Problems,
) -> Result<()> {
    if let Some(list) = matching {
        let field = "matchDestinations";
        tenancy::check_destinations(services, tenant, field, list, problems).await?;
    }
    if let Some(list) = not_matching {
        let field = "notMatchDestinations";
        tenancy::check_destinations(services, tenant, field, list, problems).await?;
    }
    if let Some(holidays) = holidays {
        check_holiday_media(services, tenant, "holidays", holidays, problems).await?;
    }
    Ok(())
}
