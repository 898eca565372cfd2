//! Structured logs with `tracing`: text for people, JSON for collectors.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber; `RUST_LOG` overrides the default `info` level (at
/// which every request is logged once answered), colour only on a terminal.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    // Colour codes only for a person at a terminal, never into a file or a collector.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}
