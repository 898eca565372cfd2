//! The command line of interface §1. Writes go through the same rules as the HTTP API,
//! acting as the platform operator.

use std::io::Read;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use serde_json::json;
use switchboard_api::AppState;
use switchboard_api::error::ApiError;
use switchboard_app::{tenants, users};
use switchboard_db::list::Listing;
use switchboard_domain::Principal;
use switchboard_domain::Role;
use switchboard_domain::ids::PartnerId;
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::partner::{CreatePartner, Partner};
use switchboard_domain::records::tenant::CreateTenant;
use switchboard_domain::records::user::CreateUser;
use switchboard_domain::validation::FromBody;

/// Switchboard: the administration API of a multi-tenant business telephony platform.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands, in the order a newcomer needs them: `switchboard --help` lists them
/// so, each with the first line of its doc (the rest is its own `--help`).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run migrations, then serve HTTP (--demo: seed a demo tenant first).
    Serve {
        /// Seed the demo tenant and its accounts into an empty database; a database
        /// already holding the demo is served as it is, one holding other accounts is
        /// served without the demo (said on start).
        #[arg(long)]
        demo: bool,
    },
    /// Manage user accounts: create one, reset a password.
    User {
        /// The user command.
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manage tenants.
    Tenant {
        /// The tenant command.
        #[command(subcommand)]
        command: TenantCommand,
    },
    /// Import Asterisk's voicemail spool or CDRs.
    Import {
        /// The import command.
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Print the OpenAPI document.
    Openapi,
    /// Run migrations and exit.
    Migrate,
    /// Copy the database and the objects into a backup folder.
    ///
    /// Online and consistent: SQLite's VACUUM INTO, or pg_dump.
    Backup {
        /// A new or empty folder.
        dir: std::path::PathBuf,
    },
    /// Put a backup in place of the database and objects (service stopped).
    ///
    /// PostgreSQL: into an empty database, with pg_restore. The backup is checked
    /// against its manifest and the signing key against its sealed secrets first.
    Restore {
        /// A folder written by `backup`.
        dir: std::path::PathBuf,
        /// Replace an installation that holds data (moved aside, never deleted).
        #[arg(long)]
        force: bool,
    },
    /// Print this installation's signing key (for a restore or another host).
    ///
    /// Prints it in its written form (what SWITCHBOARD_JWT_SECRET or `import-key`
    /// takes); its fingerprint goes to standard error. Backups never hold the key.
    ExportKey,
    /// Keep the signing key read from standard input in the data folder.
    ///
    /// The key as `export-key` prints it, so the secrets sealed under it open here.
    ImportKey {
        /// Replace a different key already there (moved aside, never deleted).
        #[arg(long)]
        force: bool,
    },
    /// Copy this SQLite installation into an empty PostgreSQL database.
    ///
    /// One transaction; with --storage-to, its objects into another store too;
    /// verifies and prints counts.
    MigrateData {
        /// The PostgreSQL database, `postgres://…` (migrated here; must hold no rows).
        #[arg(long)]
        to: String,
        /// The object store to copy the objects into, `s3://bucket[/prefix]` or
        /// `file://folder`.
        #[arg(long)]
        storage_to: Option<String>,
    },
    /// Build a large synthetic tenant for benchmarks (--scale N).
    ///
    /// Voicemail messages, phone numbers, desk phones and calls, with a tenant admin;
    /// copies of the demo's routing records; prints the tenant and its login as one line
    /// of JSON.
    Demo {
        /// How many voicemail messages (a tenth as many phone numbers).
        #[arg(long)]
        scale: usize,
        /// How many desk phones (none by default).
        #[arg(long, default_value_t = 0)]
        devices: usize,
        /// How many calls, a thousand a day up to 2026-11-01 (none by default).
        #[arg(long, default_value_t = 0)]
        calls: usize,
        /// How many copies of each of the demo tenant's records that carry destination
        /// lists, in the demo tenant (seeded first when the database is empty; none by
        /// default).
        #[arg(long, default_value_t = 0)]
        routing: usize,
    },
}

/// Import commands: each prints what it did as one line of JSON, and imports nothing
/// from a malformed file.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Import an `app_voicemail` spool (`DIR/<context>/<mailbox>/<folder>/msgNNNN.txt`).
    AsteriskVoicemail {
        /// The spool folder (usually /var/spool/asterisk/voicemail).
        dir: std::path::PathBuf,
        /// The tenant the mailboxes belong to.
        #[arg(long)]
        tenant: i64,
    },
    /// Import `cdr_csv` rows (with the uniqueid and userfield columns) as call records.
    AsteriskCdr {
        /// The CSV file (usually /var/log/asterisk/cdr-csv/Master.csv).
        file: std::path::PathBuf,
        /// The tenant the calls belong to.
        #[arg(long)]
        tenant: i64,
        /// A folder of recordings whose file names hold the calls' uniqueids (searched
        /// recursively); attached as MP3.
        #[arg(long)]
        recordings: Option<std::path::PathBuf>,
        /// The time zone the CSV's times are in (cdr_csv writes local time unless
        /// `usegmtime` is set).
        #[arg(long, default_value = "UTC")]
        timezone: chrono_tz::Tz,
    },
}

/// Tenant commands.
#[derive(Debug, Subcommand)]
pub enum TenantCommand {
    /// Create a tenant and print it as one line of JSON.
    Create {
        /// The tenant's name.
        #[arg(long)]
        name: String,
        /// The owning partner; when omitted, the only partner (created if there is none).
        #[arg(long)]
        partner: Option<i64>,
    },
}

/// User commands.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account and print it as one line of JSON.
    Create {
        /// Login e-mail address.
        #[arg(long)]
        email: String,
        /// The password (prefer --password-stdin: arguments are visible to other users).
        #[arg(long, conflicts_with = "password_stdin")]
        password: Option<String>,
        /// Read the password from standard input.
        #[arg(long)]
        password_stdin: bool,
        /// platform-admin, partner-admin, tenant-admin, branch-admin or user.
        #[arg(long)]
        role: String,
        /// The tenant (tenant roles).
        #[arg(long)]
        tenant: Option<i64>,
        /// The partner (partner admins).
        #[arg(long)]
        partner: Option<i64>,
        /// The branch (branch admins; optional for others).
        #[arg(long)]
        branch: Option<i64>,
    },
    /// Give an account a new password, ending its sessions (a lost platform admin's).
    ///
    /// Prints the account and, unless read from standard input, the new random
    /// password as one line of JSON.
    ResetPassword {
        /// The account's login e-mail address.
        #[arg(long)]
        email: String,
        /// Read the new password from standard input instead of making a random one.
        #[arg(long)]
        password_stdin: bool,
    },
}

/// Turns an API refusal into a command-line error listing every broken rule.
fn refused(error: ApiError) -> anyhow::Error {
    let mut message = format!("refused ({})", error.status());
    for problem in error.validation_errors() {
        message.push_str(&format!("\n  {problem}"));
    }
    anyhow::anyhow!(message)
}

/// The partner a new tenant goes to when none is named: the only one, made if needed.
async fn default_partner(state: &AppState) -> anyhow::Result<PartnerId> {
    let mut problems = switchboard_domain::Problems::new();
    let params = [("recordsPerPage".to_string(), "2".to_string())]
        .into_iter()
        .collect();
    let query = ListQuery::read(<Partner as Listed>::SPEC, &params, &[], &mut problems);
    let Listing::Page(page) =
        switchboard_db::partners::list(&state.db, &switchboard_domain::Scope::Platform, &query)
            .await?
    else {
        bail!("unexpected streamed listing");
    };
    match page.records.as_slice() {
        [] => Ok(switchboard_db::partners::create(
            &state.db,
            CreatePartner {
                name: "Default partner".into(),
            },
        )
        .await?
        .id),
        [only] => Ok(only.id),
        _ => bail!("several partners exist: name one with --partner"),
    }
}

/// `tenant create`.
pub async fn create_tenant(
    state: &AppState,
    name: String,
    partner: Option<i64>,
) -> anyhow::Result<String> {
    let partner = match partner {
        Some(p) => PartnerId(p),
        None => default_partner(state).await?,
    };
    let body = CreateTenant::from_body(&json!({"name": name, "partnerId": partner.get()}))
        .map_err(|p| refused(ApiError::validation(p)))?;
    let tenant = tenants::create_tenant(state, &Principal::operator(), body)
        .await
        .map_err(|e| refused(e.into()))?;
    Ok(serde_json::to_string(&tenant)?)
}

/// The arguments of `user create`.
#[derive(Debug)]
pub struct NewUser {
    /// E-mail address.
    pub email: String,
    /// Password.
    pub password: String,
    /// Role name.
    pub role: String,
    /// Tenant.
    pub tenant: Option<i64>,
    /// Partner.
    pub partner: Option<i64>,
    /// Branch.
    pub branch: Option<i64>,
}

/// `user create`.
pub async fn create_user(state: &AppState, user: NewUser) -> anyhow::Result<String> {
    let role = Role::from_name(&user.role).with_context(|| {
        format!(
            "--role must be one of: {}",
            Role::ALL.map(Role::name).join(", ")
        )
    })?;
    let mut body =
        json!({"email": user.email, "password": user.password, "userRole": role.number()});
    for (key, value) in [
        ("tenantId", user.tenant),
        ("partnerId", user.partner),
        ("branchId", user.branch),
    ] {
        if let Some(v) = value {
            body[key] = json!(v);
        }
    }
    let body = CreateUser::from_body(&body).map_err(|p| refused(ApiError::validation(p)))?;
    let created = users::create_account(state, &Principal::operator(), body)
        .await
        .map_err(|e| refused(e.into()))?;
    let id = created.id;
    Ok(serde_json::to_string(&created.shown_to(id))?)
}

/// A random password of 24 letters and digits (143 bits).
pub fn random_password() -> String {
    use rand::Rng;
    rand::rng()
        .sample_iter(rand::distr::Alphanumeric)
        .take(24)
        .map(char::from)
        .collect()
}

/// `user reset-password`: the account of `email` gets `password` (a random one when
/// `None`, then printed), with the API's password rule; its sessions end.
pub async fn reset_password(
    state: &AppState,
    email: &str,
    password: Option<String>,
) -> anyhow::Result<String> {
    let Some(account) = switchboard_db::users::credentials_by_email(&state.db, email).await? else {
        bail!("no account has the e-mail address {email}");
    };
    let generated = password.is_none();
    let password = password.unwrap_or_else(random_password);
    let updated = users::reset_password(
        state,
        &Principal::operator(),
        account.id,
        password.clone(),
        actor().client_address,
    )
    .await
    .map_err(|e| refused(e.into()))?;
    let mut answer = json!({"id": updated.id, "email": updated.email});
    if generated {
        answer["password"] = json!(password);
    }
    Ok(answer.to_string())
}

/// Who the command line's writes are audited as: the operator at this machine, named
/// `cli:` and the OS user (`cli` when the environment names none), from `local`.
pub fn actor() -> switchboard_db::audit::Actor {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_default();
    switchboard_db::audit::Actor {
        user_id: None,
        user_email: if user.is_empty() {
            "cli".to_owned()
        } else {
            format!("cli:{user}")
        },
        client_address: "local".to_owned(),
    }
}

/// Reads a secret (a password, a signing key) from standard input, without its line
/// ending.
pub fn secret_from_stdin() -> anyhow::Result<String> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    Ok(input.trim_end_matches(['\r', '\n']).to_owned())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// The commands in the order `--help` must list them: first what a newcomer runs,
    /// last what an operator moving or measuring an installation does.
    const ORDER: [&str; 12] = [
        "serve",
        "user",
        "tenant",
        "import",
        "openapi",
        "migrate",
        "backup",
        "restore",
        "export-key",
        "import-key",
        "migrate-data",
        "demo",
    ];

    /// `switchboard --help` lists every command once, one line each, in [`ORDER`].
    #[test]
    fn help_lists_every_command_on_one_line_in_a_newcomers_order() {
        let help = Cli::command().render_help().to_string();
        let listing: Vec<&str> = help
            .split("Commands:\n")
            .nth(1)
            .expect("a Commands section")
            .lines()
            .take_while(|line| !line.trim().is_empty())
            .collect();
        let names: Vec<&str> = listing
            .iter()
            .filter_map(|line| line.split_whitespace().next())
            .filter(|name| *name != "help")
            .collect();
        assert_eq!(names, ORDER, "{help}");
        let declared: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        assert_eq!(declared, ORDER, "a command is missing from ORDER");
        for line in &listing {
            // A command's name, then its summary: no continuation lines, none too long.
            assert!(
                line.starts_with("  ") && !line.starts_with("   "),
                "{line:?}"
            );
            assert!(line.split_whitespace().count() > 1, "no summary: {line:?}");
            assert!(line.len() <= 100, "too long for one line: {line:?}");
        }
    }
}
