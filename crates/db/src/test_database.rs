//! A fresh database for this crate's own tests.

use crate::backend::{ConnectOptions, Db};

/// A fresh, migrated SQLite database in the temporary folder, with its file (to remove
/// once the test is done).
#[allow(clippy::unwrap_used)]
pub(crate) async fn fresh_sqlite(name: &str) -> (Db, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("{name}-{}.db", uuid::Uuid::new_v4()));
    let db = Db::connect(&ConnectOptions {
        url: format!("sqlite://{}", path.display()),
        max_connections: 2,
        statement_timeout: Some(crate::circuit::DEFAULT_STATEMENT_TIMEOUT),
    })
    .await
    .unwrap();
    db.migrate().await.unwrap();
    (db, path)
}
