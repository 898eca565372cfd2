//! The process's one TLS crypto provider: ring. Outgoing HTTPS (S3, webhook deliveries)
//! goes through reqwest built without a provider of its own (`rustls-no-provider`: its
//! `rustls` feature would bring aws-lc-rs, a second provider and a long C build, issue 33),
//! so one must be installed before the first client is built, or building it panics.
//! PostgreSQL's TLS (sqlx, `tls-rustls-ring-native-roots`) names ring itself; Redis's
//! (`tokio-rustls-comp`) takes the process's provider too.

/// Makes ring the process's default TLS crypto provider unless one is already installed:
/// idempotent and cheap, so every place that builds an HTTP client calls it first.
pub fn install_ring() {
    // An error only says a provider is already installed (by an earlier call).
    let _ = rustls::crypto::ring::default_provider().install_default();
}
