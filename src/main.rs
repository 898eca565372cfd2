//! The `switchboard` binary: see `switchboard --help`.

use std::process::ExitCode;

use clap::Parser;
use switchboard::cli::Cli;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match switchboard::commands::run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: {error:#}");
            ExitCode::FAILURE
        }
    }
}
