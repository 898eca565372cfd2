//! Where a written record lands, decided once for every resource (interface §3): the
//! caller's own tenant when it is bound to one, a `tenantId` it names when it spans
//! several, and 403 for a tenant or branch outside its scope.
//!
//! Every check takes the use case's [`Services`] and answers the use cases' [`Error`]; the
//! API answers it as the contract says (a 400 naming the field, a 403). Return types are
//! spelled `Result<_, Error>`: cargo-mutants generates a check's `Ok(())` mutant (a check
//! that checks nothing) for that spelling, and `scripts/mutants.sh` must see it caught.

use switchboard_db::{branches, tenants};
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::{Error, Services};

/// The tenant a new record belongs to, from the body's `tenantId` (if any).
pub async fn tenant_for_write(
    services: &impl Services,
    caller: &Principal,
    requested: Option<TenantId>,
) -> Result<TenantId, Error> {
    tenant_named_at(services, caller, requested, Location::Body).await
}

/// The tenant an engine's report names, when the caller may push for it; otherwise
/// `None`, with the problem (an unknown tenant) added to `problems` so that it is answered
/// with every other broken rule of the report (issue 29). A scope refused is a 403 on its
/// own.
pub async fn reported_tenant(
    services: &impl Services,
    caller: &Principal,
    named: TenantId,
    problems: &mut Problems,
) -> Result<Option<TenantId>, Error> {
    match tenant_for_write(services, caller, Some(named)).await {
        Ok(tenant) => Ok(Some(tenant)),
        Err(Error::Invalid(found)) => {
            problems.extend_messages(&found.into_messages());
            Ok(None)
        }
        Err(refused) => Err(refused),
    }
}

/// The tenant a request concerns, from a `tenantId` given at `location` (the query of
/// a read such as `GET /v2/admin/faxes/retry-policy`, the body of a write): a missing or
/// unknown one is reported where the caller put it, or should have.
pub async fn tenant_named_at(
    services: &impl Services,
    caller: &Principal,
    requested: Option<TenantId>,
    location: Location,
) -> Result<TenantId, Error> {
    match (caller.scope.own_tenant(), requested) {
        (Some(own), None) => Ok(own),
        (Some(own), Some(t)) if t == own => Ok(own),
        (Some(_), Some(_)) => Err(Error::outside_scope("tenantId")),
        (None, None) => Err(Error::invalid(location, "tenantId", "is required")),
        (None, Some(t)) => {
            if tenants::in_scope(services.db(), &caller.scope, t).await? {
                Ok(t)
            } else if caller.scope == Scope::Platform {
                Err(Error::invalid(
                    location,
                    "tenantId",
                    "must name an existing tenant",
                ))
            } else {
                Err(Error::outside_scope("tenantId"))
            }
        }
    }
}

/// Checks a list's `tenantId` filter: naming a tenant outside the scope is a 403.
pub async fn check_tenant_filter(
    services: &impl Services,
    caller: &Principal,
    requested: Option<TenantId>,
) -> Result<(), Error> {
    let Some(tenant) = requested else {
        return Ok(());
    };
    let allowed = match caller.scope.own_tenant() {
        Some(own) => own == tenant,
        None => {
            caller.scope == Scope::Platform
                || tenants::in_scope(services.db(), &caller.scope, tenant).await?
        }
    };
    if allowed {
        Ok(())
    } else {
        Err(Error::outside_scope("tenantId"))
    }
}

/// The branch of a new or changed branch-bearing record in `tenant`: a branch admin's own
/// (naming another is a 403), otherwise the one named, which must be of the tenant (a
/// problem of `body/branchId` otherwise, added to `problems`).
pub async fn branch_for_write(
    services: &impl Services,
    caller: &Principal,
    tenant: TenantId,
    requested: Option<BranchId>,
    problems: &mut Problems,
) -> Result<Option<BranchId>, Error> {
    if let Some(own) = caller.scope.own_branch() {
        return match requested {
            None => Ok(Some(own)),
            Some(b) if b == own => Ok(Some(own)),
            Some(_) => Err(Error::outside_scope("branchId")),
        };
    }
    if let Some(branch) = requested
        && !branches::of_tenant(services.db(), tenant, branch).await?
    {
        problems.add(
            Location::Body,
            "branchId",
            "must name a branch of the tenant",
        );
    }
    Ok(requested)
}

/// Checks that `caller` may take a record out of every branch (a change's `branchId:
/// null`): a branch admin keeps what it writes in its own branch.
pub fn check_leaving_branch(caller: &Principal) -> Result<(), Error> {
    match caller.scope.own_branch() {
        Some(_) => Err(Error::outside_scope("branchId")),
        None => Ok(()),
    }
}

/// The branch of a new record that must have one: [`branch_for_write`]'s, and a problem
/// of `body/branchId` when there is none (once: a caller that had to send one has it
/// reported already by the reader).
pub async fn required_branch(
    services: &impl Services,
    caller: &Principal,
    tenant: TenantId,
    requested: Option<BranchId>,
    problems: &mut Problems,
) -> Result<Option<BranchId>, Error> {
    let branch = branch_for_write(services, caller, tenant, requested, problems).await?;
    if branch.is_none() && !problems.names(Location::Body, "branchId") {
        problems.add(Location::Body, "branchId", "is required");
    }
    Ok(branch)
}

/// Checks that every destination of a list at body `field` names a record of `tenant`,
/// adding one problem per foreign or missing target.
pub async fn check_destinations(
    services: &impl Services,
    tenant: TenantId,
    field: &str,
    items: &[DestinationInput],
    problems: &mut Problems,
) -> Result<(), Error> {
    let foreign =
        switchboard_db::destinations::foreign_targets(services.db(), tenant, items).await?;
    for (index, message) in foreign {
        problems.add(Location::Body, &format!("{field}/{index}/id"), message);
    }
    Ok(())
}

/// Checks that the single destination at body `field` (when one is sent) names a record
/// of `tenant`.
pub async fn check_destination(
    services: &impl Services,
    tenant: TenantId,
    field: &str,
    item: Option<&DestinationInput>,
    problems: &mut Problems,
) -> Result<(), Error> {
    let Some(item) = item else {
        return Ok(());
    };
    let foreign = switchboard_db::destinations::foreign_targets(
        services.db(),
        tenant,
        std::slice::from_ref(item),
    )
    .await?;
    if let Some((_, message)) = foreign.into_iter().next() {
        problems.add(Location::Body, &format!("{field}/id"), message);
    }
    Ok(())
}

/// A kind of record a body names by id, which must be the writing tenant's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Referenced {
    /// An announcement.
    Announcement,
    /// Business hours.
    BusinessHours,
    /// A conduit.
    Conduit,
    /// An extension.
    Extension,
    /// An IVR.
    Ivr,
    /// A media file.
    MediaFile,
    /// A music on hold.
    MusicOnHold,
    /// A paging group.
    PagingGroup,
    /// A queue.
    Queue,
}

impl Referenced {
    /// The table its records are in, and how a refusal names one.
    const fn table_and_name(self) -> (&'static str, &'static str) {
        match self {
            Referenced::Announcement => ("announcements", "an announcement"),
            Referenced::BusinessHours => ("business_hours", "a business hour"),
            Referenced::Conduit => ("conduits", "a conduit"),
            Referenced::Extension => ("extensions", "an extension"),
            Referenced::Ivr => ("ivrs", "an IVR"),
            Referenced::MediaFile => ("media_files", "a media file"),
            Referenced::MusicOnHold => ("music_on_hold", "a music on hold"),
            Referenced::PagingGroup => ("paging_groups", "a paging group"),
            Referenced::Queue => ("queues", "a queue"),
        }
    }
}

/// Checks that record `id` of kind `kind` (when given) belongs to `tenant`, else adds a
/// problem on body `field` saying it `must name {a kind} of the tenant`. "None" reaches
/// here as `None`: a body's 0 is read as none by its rule (`OptionalRef`). A record
/// deleted after this check and before the write is refused by the write's foreign key.
/// The id is any id type (`MediaFileId`, …): `kind` says which table it is looked up in.
pub async fn check_reference(
    services: &impl Services,
    tenant: TenantId,
    kind: Referenced,
    field: &str,
    id: Option<impl Into<i64>>,
    problems: &mut Problems,
) -> Result<(), Error> {
    let Some(id) = id.map(Into::into) else {
        return Ok(());
    };
    let (table, name) = kind.table_and_name();
    let condition = switchboard_db::scope::of_tenant(tenant);
    if !switchboard_db::crud::exists(services.db(), table, id, condition).await? {
        problems.add(
            Location::Body,
            field,
            format!("must name {name} of the tenant"),
        );
    }
    Ok(())
}

/// Every stored spelling of the phone number `text` as `tenant` writes it: read in the
/// tenant's default country (`phone::spellings`, the one rule of which stored values are
/// the same number), for comparing it with the tenant's lines.
pub async fn number_spellings(
    services: &impl Services,
    tenant: TenantId,
    text: &str,
) -> Result<Vec<String>, Error> {
    let country = switchboard_db::call_campaigns::tenant_country(services.db(), tenant).await?;
    Ok(switchboard_domain::phone::spellings(text, Some(&country)))
}
