//! `serve --demo`: a small, realistic tenant to explore the API with, seeded only into an
//! empty database.

use serde_json::json;
use switchboard_api::AppState;
use switchboard_api::routes::{tenants, users};
use switchboard_db::{branches, extensions, partners};
use switchboard_domain::Principal;
use switchboard_domain::records::branch::CreateBranch;
use switchboard_domain::records::extension::CreateExtension;
use switchboard_domain::records::partner::CreatePartner;
use switchboard_domain::records::tenant::CreateTenant;
use switchboard_domain::records::user::CreateUser;
use switchboard_domain::validation::FromBody;

/// The demo tenant admin's e-mail address.
pub const ADMIN_EMAIL: &str = "admin@demo.switchboard.test";
/// The demo platform admin's e-mail address.
pub const PLATFORM_EMAIL: &str = "platform@demo.switchboard.test";
/// The demo accounts' password: this is demo data on a local machine, printed on start.
pub const PASSWORD: &str = "switchboard-demo-2026";

/// Whether the database holds no accounts yet.
pub async fn is_empty(state: &AppState) -> anyhow::Result<bool> {
    Ok(
        switchboard_db::users::credentials_by_email(&state.db, ADMIN_EMAIL)
            .await?
            .is_none()
            && switchboard_db::users::credentials_by_email(&state.db, PLATFORM_EMAIL)
                .await?
                .is_none()
            && switchboard_db::users::count(&state.db).await? == 0,
    )
}

fn body<T: FromBody>(value: serde_json::Value) -> anyhow::Result<T> {
    T::from_body(&value)
        .map_err(|p| anyhow::anyhow!("demo data breaks a rule: {:?}", p.into_messages()))
}

fn refused(error: switchboard_api::error::ApiError) -> anyhow::Error {
    anyhow::anyhow!(
        "demo data refused: {} {:?}",
        error.status(),
        error.validation_errors()
    )
}

/// Seeds a partner, a tenant with a branch and extensions, a tenant admin and a
/// platform admin.
pub async fn seed(state: &AppState) -> anyhow::Result<()> {
    let operator = Principal::operator();
    let partner = partners::create(
        &state.db,
        body::<CreatePartner>(json!({"name": "Demo Telecom"}))?,
    )
    .await?;
    let tenant = tenants::create_tenant(
        state,
        &operator,
        body::<CreateTenant>(json!({"name": "Riverside Pharmacy", "partnerId": partner.id}))?,
    )
    .await
    .map_err(refused)?;
    let branch = branches::create(
        &state.db,
        tenant.id,
        body::<CreateBranch>(json!({"name": "Main Street"}))?,
    )
    .await?;
    let mut front_desk = None;
    for (number, name) in [
        ("101", "Front desk"),
        ("102", "Pharmacist"),
        ("103", "Drive-through"),
        ("200", "Back office"),
    ] {
        let extension = extensions::create(
            &state.db,
            tenant.id,
            body::<CreateExtension>(
                json!({"number": number, "name": name, "branchId": branch.id}),
            )?,
        )
        .await?;
        front_desk.get_or_insert(extension.id);
    }
    users::create_account(
        state,
        &operator,
        body::<CreateUser>(json!({
            "email": ADMIN_EMAIL, "password": PASSWORD, "userRole": 3,
            "tenantId": tenant.id, "branchId": branch.id, "extId": front_desk,
            "title": "Office manager", "timezone": "America/New_York",
        }))?,
    )
    .await
    .map_err(refused)?;
    users::create_account(
        state,
        &operator,
        body::<CreateUser>(json!({"email": PLATFORM_EMAIL, "password": PASSWORD, "userRole": 1}))?,
    )
    .await
    .map_err(refused)?;
    Ok(())
}
