//! Opt-out entries: the platform's list (platform admins only), a tenant's and a
//! campaign's — each entry's owner checked and its number normalised in that owner's
//! country.

use std::collections::HashMap;

use switchboard_db::call_campaigns;
use switchboard_db::opt_outs::NewOptOut;
use switchboard_domain::ids::{CallCampaignId, TenantId};
use switchboard_domain::phone;
use switchboard_domain::records::call_campaign::CallCampaign;
use switchboard_domain::records::opt_out::CreateOptOut;
use switchboard_domain::validation::iso;
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::{Error, Result, Services, tenancy};

/// What reading an import's rows has looked up already: the countries of tenants, the
/// campaigns and the tenants found in the caller's scope, so an import of 10,000 rows
/// of one list reads each once, not once per row.
#[derive(Debug, Default)]
pub struct Known {
    countries: HashMap<TenantId, String>,
    campaigns: HashMap<CallCampaignId, CallCampaign>,
    tenants: HashMap<Option<TenantId>, TenantId>,
}

/// The rules of an entry beyond its own fields, each broken one added to `problems` so
/// that a body answers every reason at once (issue 29): the level's owner — the campaign
/// in the caller's scope, the tenant the caller may write to — and the number normalised
/// in that tenant's country (the platform's list: E.164). Answers the entry when its
/// owner is known (its problems, if any, refuse it all the same); a scope refused is a
/// 403 on its own, as everywhere.
pub async fn check_entry(
    services: &impl Services,
    caller: &Principal,
    body: &CreateOptOut,
    known: &mut Known,
    problems: &mut Problems,
) -> Result<Option<NewOptOut>> {
    let (tenant, campaign): (Option<TenantId>, _) = match body.level.as_str() {
        "platform" => {
            if caller.scope != Scope::Platform {
                return Err(Error::Forbidden(
                    "only platform admins may change the platform's opt-out list".into(),
                ));
            }
            if body.tenant_id.is_some() || body.campaign_id.is_some() {
                problems.add(
                    Location::Body,
                    "level",
                    "platform entries name no tenantId or campaignId",
                );
            }
            (None, None)
        }
        "campaign" => {
            let Some(id) = body.campaign_id else {
                problems.add(
                    Location::Body,
                    "campaignId",
                    "is required for campaign entries",
                );
                return Ok(None);
            };
            let found = match known.campaigns.get(&id) {
                Some(campaign) => Ok(campaign.clone()),
                None => call_campaigns::get(services.db(), &caller.scope, id).await,
            };
            let campaign = match found {
                Ok(campaign) => {
                    known.campaigns.insert(id, campaign.clone());
                    campaign
                }
                Err(switchboard_db::Error::NotFound) => {
                    problems.add(
                        Location::Body,
                        "campaignId",
                        "must name a call campaign in your scope",
                    );
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
            };
            if body.tenant_id.is_some_and(|t| t != campaign.tenant_id) {
                problems.add(Location::Body, "tenantId", "must be the campaign's tenant");
            }
            (Some(campaign.tenant_id), Some(campaign.id))
        }
        _ => {
            if body.campaign_id.is_some() {
                problems.add(Location::Body, "campaignId", "is only for campaign entries");
            }
            let tenant = match known.tenants.get(&body.tenant_id) {
                Some(tenant) => *tenant,
                None => tenancy::tenant_for_write(services, caller, body.tenant_id).await?,
            };
            known.tenants.insert(body.tenant_id, tenant);
            (Some(tenant), None)
        }
    };
    let country = match tenant {
        Some(tenant) => Some(match known.countries.get(&tenant) {
            Some(country) => country.clone(),
            None => {
                let country = call_campaigns::tenant_country(services.db(), tenant).await?;
                known.countries.insert(tenant, country.clone());
                country
            }
        }),
        None => None,
    };
    let number = match phone::normalise(&body.number, country.as_deref()) {
        Ok(number) => number,
        Err(reason) => {
            problems.add(Location::Body, "number", reason);
            return Ok(None);
        }
    };
    Ok(Some(NewOptOut {
        level: body.level.as_str().to_owned(),
        tenant,
        campaign,
        number,
        source: body.source.as_str().to_owned(),
        reason: body.reason.clone(),
        expires_at: body.expires_at.map(iso),
    }))
}
