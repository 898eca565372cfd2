//! What each command of the binary does (`switchboard --help`), run from `main`.
//!
//! Here rather than in the binary's own crate, runtime and all: an async function's body is
//! compiled by the crate that polls it, so with `block_on` in the binary, every command's
//! code (the server's connections, the demo's seeding, the importers) was compiled in the
//! binary's crate, after everything else and alone at the end of a release build (45 s
//! of it, issue 33). Polled here, it is compiled with the library, beside the API's crate.

use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use switchboard_db::Db;
use switchboard_db::audit::acting_as;
use switchboard_db::backend::Backend;
use switchboard_domain::ids::TenantId;

use crate::cli::{self, Cli, Command, ImportCommand, NewUser, TenantCommand, UserCommand};
use crate::{Config, build_state, demo, hold, import, key, ops, shutdown_signal, telemetry};

/// The binary's `main`: reads the command line and runs its command on a multi-threaded
/// runtime, answering the process's exit code (a failure printed on stderr).
#[tokio::main]
pub async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `cli`'s command to its end (for `serve`, until a shutdown signal).
async fn run(cli: Cli) -> anyhow::Result<()> {
    let config = Config::load()?;
    if let Command::Openapi = cli.command {
        println!("{}", switchboard_api::openapi().to_pretty_json()?);
        return Ok(());
    }
    let _logs = telemetry::init(config.log_format);
    // On stderr: stdout carries the commands' JSON. Said every time, so that a database
    // created in whatever folder the command runs from is never a surprise.
    eprintln!("switchboard: {}", config.describe_storage());
    // These work on the files and databases themselves, not through a running service's
    // state (a restore must not open the database it replaces).
    let report = match &cli.command {
        Command::Backup { dir } => {
            Some(ops::backup(&config, &ops::open_store(&config)?, dir).await?)
        }
        Command::Restore { dir, force } => {
            Some(ops::restore(&config, &ops::open_store(&config)?, dir, *force).await?)
        }
        Command::MigrateData { to, storage_to } => {
            let target = match storage_to {
                Some(url) => Some(ops::open_target_store(&config, url)?),
                None => None,
            };
            let objects = ops::open_store(&config)?;
            Some(ops::migrate_data(&config, &objects, to, target.as_ref()).await?)
        }
        Command::ExportKey => {
            let Some((key, source)) = key::installed(&config)? else {
                anyhow::bail!(
                    "this installation has no signing key yet (SWITCHBOARD_JWT_SECRET is unset and the data folder holds no key file): `serve` makes one on first start"
                );
            };
            eprintln!(
                "switchboard: the signing key of {source}, fingerprint {}",
                key.fingerprint()
            );
            println!("{}", key.written());
            return Ok(());
        }
        Command::ImportKey { force } => {
            let _held = hold::Held::take(&config.data_dir, "import-key")?;
            let written = cli::secret_from_stdin()?;
            let key =
                key::SigningKey::parse(&written).context("the key read from standard input")?;
            Some(key::import(&config, &key, *force)?)
        }
        _ => None,
    };
    if let Some(report) = report {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    // The embedded database is one `serve`'s: held before it is opened, until this
    // process ends (PostgreSQL is served by several).
    let _held = match cli.command {
        Command::Serve { .. } if Db::backend_of(&config.database_url()) == Backend::Sqlite => {
            Some(hold::Held::take(&config.data_dir, "serve")?)
        }
        _ => None,
    };
    let state = build_state(&config).await?;
    match cli.command {
        Command::Serve { demo: seed_demo } => {
            let outcome = if seed_demo {
                Some(demo::prepare(&state).await?)
            } else {
                None
            };
            let listener = tokio::net::TcpListener::bind(config.listen).await?;
            let address = listener.local_addr()?;
            if let Some(outcome) = &outcome {
                print_demo(&config, address, outcome);
            }
            tracing::info!(%address, "serving");
            let stop = {
                let config = config.clone();
                async move { shutdown_signal(&config).await }
            };
            crate::serve(listener, state.clone(), &config, stop).await?;
            state.db.close().await;
        }
        Command::Migrate => {
            println!("migrations applied");
        }
        Command::Tenant {
            command: TenantCommand::Create { name, partner },
        } => {
            let created = acting_as(cli::actor(), cli::create_tenant(&state, name, partner));
            println!("{}", created.await?);
        }
        Command::User {
            command:
                UserCommand::Create {
                    email,
                    password,
                    password_stdin,
                    role,
                    tenant,
                    partner,
                    branch,
                },
        } => {
            let password = match (password, password_stdin) {
                (Some(p), false) => p,
                (None, true) => cli::secret_from_stdin()?,
                _ => anyhow::bail!("give --password or --password-stdin"),
            };
            let user = NewUser {
                email,
                password,
                role,
                tenant,
                partner,
                branch,
            };
            println!(
                "{}",
                acting_as(cli::actor(), cli::create_user(&state, user)).await?
            );
        }
        Command::User {
            command:
                UserCommand::ResetPassword {
                    email,
                    password_stdin,
                },
        } => {
            let password = if password_stdin {
                Some(cli::secret_from_stdin()?)
            } else {
                None
            };
            println!(
                "{}",
                acting_as(cli::actor(), cli::reset_password(&state, &email, password)).await?
            );
        }
        Command::Demo {
            scale,
            devices,
            calls,
            routing,
        } => {
            let sizes = demo::Scale {
                messages: scale,
                devices,
                calls,
                routing,
            };
            println!("{}", demo::scale(&state, sizes).await?);
        }
        Command::Import { command } => {
            let report = acting_as(cli::actor(), async {
                match command {
                    ImportCommand::AsteriskVoicemail { dir, tenant } => {
                        import::asterisk_voicemail(&state, &dir, TenantId(tenant)).await
                    }
                    ImportCommand::AsteriskCdr {
                        file,
                        tenant,
                        recordings,
                        timezone,
                    } => {
                        import::asterisk_cdr(
                            &state,
                            &file,
                            TenantId(tenant),
                            recordings.as_deref(),
                            timezone,
                        )
                        .await
                    }
                }
            })
            .await?;
            println!("{}", serde_json::to_string(&report)?);
        }
        Command::Openapi
        | Command::Backup { .. }
        | Command::Restore { .. }
        | Command::MigrateData { .. }
        | Command::ExportKey
        | Command::ImportKey { .. } => {}
    }
    Ok(())
}

/// What `serve --demo` says on start: where it serves, and the logins of the demo (the
/// platform admin's password only when it was just made: it is kept nowhere in the
/// clear, and `user reset-password` sets a new one), or why nothing was seeded.
fn print_demo(config: &Config, address: std::net::SocketAddr, outcome: &demo::Outcome) {
    if let Some(said) = outcome.describe() {
        eprintln!("{said}");
    }
    if let demo::Outcome::NotDemo { .. } = outcome {
        println!("Switchboard is serving on http://{address} (no demo seeded)");
        return;
    }
    println!("Switchboard demo is serving on http://{address}");
    println!("  console:       {}/console/", config.public_url());
    println!("  API reference: {}/docs", config.public_url());
    println!(
        "  tenant admin:   {} / {}",
        demo::ADMIN_EMAIL,
        demo::PASSWORD
    );
    match outcome {
        demo::Outcome::Seeded(seeded) => {
            println!(
                "  platform admin: {} / {}",
                demo::PLATFORM_EMAIL,
                seeded.platform_password
            );
            println!(
                "  (printed this once; `switchboard user reset-password --email {}` sets a new one)",
                demo::PLATFORM_EMAIL
            );
            for note in &seeded.notes {
                eprintln!("switchboard: --demo: {note}");
            }
        }
        _ => println!(
            "  platform admin: {} (its password was printed when the demo was first seeded; `switchboard user reset-password --email {}` sets a new one)",
            demo::PLATFORM_EMAIL,
            demo::PLATFORM_EMAIL
        ),
    }
    println!(
        "  try: curl -s {}/v2/authentication/ -H 'content-type: application/json' -d '{{\"email\":\"{}\",\"password\":\"{}\"}}'",
        config.public_url(),
        demo::ADMIN_EMAIL,
        demo::PASSWORD
    );
    println!("  a tour of the demo: docs/tour.md");
}
