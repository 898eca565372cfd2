//! Pharmacy agents: their media files, fallback, after-hours rule and conduit are records
//! of the agent's tenant, and the conduit is the tenant's pharmacy system.

use switchboard_db::crud::Recorded;
use switchboard_db::{conduits, pharmacy_agents};
use switchboard_domain::ids::{ConduitId, MediaFileId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::pharmacy_agent::{
    AfterHoursInput, CreatePharmacyAgent, IngestRefillRequest, PHARMACY_SYSTEM, PharmacyAgent,
    UpdatePharmacyAgent,
};
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::tenancy::{self, Referenced};
use crate::{Error, Result, Services};

/// The references of an agent body, each `None` when the body leaves it unchanged or
/// clears it.
struct References<'a> {
    greeting: Option<MediaFileId>,
    prompt: Option<MediaFileId>,
    fallback: Option<&'a DestinationInput>,
    after_hours: Option<&'a AfterHoursInput>,
    conduit: Option<ConduitId>,
}

/// Checks a new agent of `caller`: the tenant it lands in (answered) and its references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreatePharmacyAgent,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let references = References {
        greeting: body.greeting_media_file_id,
        prompt: body.prompt_media_file_id,
        fallback: body.fallback_destination.as_ref(),
        after_hours: body.after_hours.as_ref(),
        conduit: body.conduit_id,
    };
    check_references(services, tenant, references, problems).await?;
    Ok(tenant)
}

/// Checks a change to `current`: what it names is of the agent's tenant.
pub async fn check_change(
    services: &impl Services,
    current: &PharmacyAgent,
    body: &UpdatePharmacyAgent,
    problems: &mut Problems,
) -> Result<()> {
    let references = References {
        greeting: body.greeting_media_file_id.flatten(),
        prompt: body.prompt_media_file_id.flatten(),
        fallback: body.fallback_destination.as_ref().and_then(Option::as_ref),
        after_hours: body.after_hours.as_ref().and_then(Option::as_ref),
        conduit: body.conduit_id.flatten(),
    };
    check_references(services, current.tenant_id, references, problems).await
}

/// Checks every reference an agent body makes belongs to `tenant`: the media files, the
/// fallback, the after-hours business hours and destination, and the conduit.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    refs: References<'_>,
    problems: &mut Problems,
) -> Result<()> {
    let field = "greetingMediaFileId";
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        field,
        refs.greeting,
        problems,
    )
    .await?;
    let field = "promptMediaFileId";
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        field,
        refs.prompt,
        problems,
    )
    .await?;
    let field = "fallbackDestination";
    tenancy::check_destination(services, tenant, field, refs.fallback, problems).await?;
    if let Some(rule) = refs.after_hours {
        let (field, hours) = ("afterHours/businessHourId", Some(rule.business_hour_id));
        tenancy::check_reference(
            services,
            tenant,
            Referenced::BusinessHours,
            field,
            hours,
            problems,
        )
        .await?;
        let (field, destination) = ("afterHours/destination", rule.destination.as_ref());
        tenancy::check_destination(services, tenant, field, destination, problems).await?;
    }
    if let Some(id) = refs.conduit {
        // Only a pharmacy system: a SIP trunk or a CRM cannot take a refill.
        match conduits::get(services.db(), &Scope::Tenant(tenant), id).await {
            Ok(conduit) if conduit.kind == PHARMACY_SYSTEM => {}
            Ok(_) => problems.add(
                Location::Body,
                "conduitId",
                "must name a conduit of kind pharmacy-system",
            ),
            Err(switchboard_db::Error::NotFound) => problems.add(
                Location::Body,
                "conduitId",
                "must name a conduit of the tenant",
            ),
            Err(error) => return Err(error.into()),
        }
    }
    Ok(())
}

/// Records a refill request a pharmacy agent took, reported by `caller` (the engine's
/// token, or a platform admin): the agent named by `agentId` or `agentNumber` in the
/// request's tenant, each prescription number of the agent's length, several only where
/// the agent takes them in bulk; REFILL_REQUESTED is emitted once per agent and request
/// (a repeat changes nothing).
pub async fn record_refill_request(
    services: &impl Services,
    caller: &Principal,
    mut body: IngestRefillRequest,
) -> Result<Recorded> {
    body.tenant = tenancy::tenant_for_write(services, caller, Some(body.tenant)).await?;
    let agent = match (body.agent_id, body.agent_number.as_deref()) {
        (Some(id), number) => {
            let scope = Scope::Tenant(body.tenant);
            match pharmacy_agents::get(services.db(), &scope, id).await {
                Ok(agent) if number.is_none_or(|n| n == agent.number) => agent,
                Ok(_) => {
                    return Err(Error::invalid(
                        Location::Body,
                        "agentNumber",
                        "must be the number of the agent agentId names",
                    ));
                }
                Err(switchboard_db::Error::NotFound) => {
                    return Err(Error::invalid(
                        Location::Body,
                        "agentId",
                        "must name a pharmacy agent of the tenant",
                    ));
                }
                Err(error) => return Err(error.into()),
            }
        }
        (None, Some(number)) => pharmacy_agents::find_by_number(services.db(), body.tenant, number)
            .await?
            .ok_or_else(|| {
                Error::invalid(
                    Location::Body,
                    "agentNumber",
                    "must be the number of a pharmacy agent of the tenant",
                )
            })?,
        // The body's own check requires one of the two.
        (None, None) => return Err(Error::internal("a refill request without an agent")),
    };
    let mut problems = Problems::new();
    let length = usize::try_from(agent.rx_number_length).unwrap_or(usize::MAX);
    for (index, rx) in body.rx_numbers.iter().enumerate() {
        if rx.len() != length {
            problems.add(
                Location::Body,
                &format!("rxNumbers/{index}"),
                format!("must be {length} digits (the agent's rxNumberLength)"),
            );
        }
    }
    if agent.ivr_bulk == 0 && body.rx_numbers.len() > 1 {
        problems.add(
            Location::Body,
            "rxNumbers",
            "must hold at most 1 number: the agent takes one prescription per call (ivrBulk 0)",
        );
    }
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let mut tx = services.db().begin().await?;
    let recorded =
        pharmacy_agents::record_refill(&mut tx, &agent, &body, chrono::Utc::now().timestamp())
            .await?;
    tx.commit().await?;
    Ok(recorded)
}
