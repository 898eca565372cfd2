//! Tenants: the customer businesses, each under one partner.

use switchboard_db::{partners, tenants};
use switchboard_domain::ids::PartnerId;
use switchboard_domain::records::tenant::{CreateTenant, Tenant};
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::{Error, Result, Services};

/// Creates a tenant on behalf of `caller`: platform admins name its partner, partner
/// admins create in their own.
pub async fn create_tenant(
    services: &impl Services,
    caller: &Principal,
    body: CreateTenant,
) -> Result<Tenant> {
    let mut problems = Problems::new();
    let partner = partner_of(services, caller, body.partner_id, &mut problems).await?;
    Error::answer(problems)?;
    write_tenant(services, partner, body).await
}

/// Writes a checked new tenant under `partner` (from [`partner_of`]).
pub async fn write_tenant(
    services: &impl Services,
    partner: PartnerId,
    body: CreateTenant,
) -> Result<Tenant> {
    Ok(tenants::create(services.db(), partner, body).await?)
}

/// The partner a new tenant belongs to: a partner admin's own (naming another is a
/// 403), the one a platform admin names (a problem of `body/partnerId` when it names
/// none, or one that does not exist).
pub async fn partner_of(
    services: &impl Services,
    caller: &Principal,
    requested: Option<PartnerId>,
    problems: &mut Problems,
) -> Result<PartnerId> {
    match (caller.scope, requested) {
        (Scope::Partner(own), None) => Ok(own),
        (Scope::Partner(own), Some(p)) if p == own => Ok(own),
        (Scope::Platform, Some(p)) => {
            match partners::get(services.db(), &Scope::Platform, p).await {
                Ok(_) => Ok(p),
                Err(switchboard_db::Error::NotFound) => {
                    problems.add(Location::Body, "partnerId", "must name an existing partner");
                    Ok(p)
                }
                Err(e) => Err(e.into()),
            }
        }
        (Scope::Platform, None) => {
            problems.add(Location::Body, "partnerId", "is required");
            Ok(PartnerId(0))
        }
        _ => Err(Error::outside_scope("partnerId")),
    }
}
