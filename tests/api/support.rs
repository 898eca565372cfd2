//! The test harness: the real application on a random port, over a fresh database per
//! test (a temporary SQLite file, or a new PostgreSQL database), spoken to over HTTP.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::Connection;
use switchboard::Config;
use switchboard_api::AppState;
use tokio::sync::oneshot;

/// The signing key of test servers, so tests can forge tokens with it and without it.
pub const JWT_SECRET: &str = "test-signing-key-of-at-least-32-bytes!!";

/// The password of every fixture account.
pub const PASSWORD: &str = "correct horse battery staple";

/// Which database a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A temporary SQLite file.
    Sqlite,
    /// A fresh PostgreSQL database.
    Postgres,
}

/// A running application.
pub struct TestApp {
    /// Base URL, `http://127.0.0.1:PORT`.
    pub base: String,
    /// The HTTP client.
    pub client: reqwest::Client,
    /// The application state, for seeding through the library.
    pub state: AppState,
    /// The configuration it was started with (a second process starts from it).
    pub config: Config,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    postgres_database: Option<(String, String)>,
    _dir: tempfile::TempDir,
}

/// An HTTP answer: status, headers and JSON body (`Value::Null` when not JSON).
pub struct Answer {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: reqwest::header::HeaderMap,
    /// Body as JSON.
    pub body: Value,
}

impl Answer {
    /// Asserts the status and answers the body.
    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected answer: {}",
            self.body
        );
        self.body
    }

    /// Asserts an Error body of `status` and `name` whose message says `says` (a refusal
    /// naming what stands in the way: the record holding one in use, the number's owner).
    #[track_caller]
    pub fn refusal_saying(self, status: u16, name: &str, says: &str) {
        let body = self.body.to_string();
        let message = self.body["message"].as_str().unwrap_or_default().to_owned();
        self.error(status, name);
        assert!(
            message.contains(says),
            "the message does not say {says:?}: {body}"
        );
    }

    /// Asserts an Error body of `status` and `name`, answering its validation errors.
    #[track_caller]
    pub fn error(self, status: u16, name: &str) -> Vec<String> {
        let body = self.expect(status);
        assert_eq!(body["name"], name, "{body}");
        assert_eq!(body["code"], status, "{body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        let keys: Vec<_> = body
            .as_object()
            .expect("an object")
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys.len(),
            4,
            "error body has exactly name, message, code, validationErrors: {body}"
        );
        body["validationErrors"]
            .as_array()
            .expect("validationErrors is an array")
            .iter()
            .map(|v| v.as_str().expect("strings").to_owned())
            .collect()
    }
}

/// `postgres://…/NAME` for `admin` with its database replaced by `name`.
pub fn with_database(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (admin, None),
    };
    let prefix = match base.rfind('/') {
        Some(i) if i > "postgres://".len() => &base[..i],
        _ => base,
    };
    match query {
        Some(q) => format!("{prefix}/{name}?{q}"),
        None => format!("{prefix}/{name}"),
    }
}

/// A new, empty PostgreSQL database: its admin URL and its name.
pub async fn create_postgres_database() -> (String, String) {
    create_postgres_database_from(None).await
}

/// A new PostgreSQL database with every migration applied: a copy of the migrated
/// template (see [`migrated_template`]), so a test pays a file copy, not the migrations.
pub async fn create_migrated_postgres_database() -> (String, String) {
    let template = migrated_template().await;
    match try_create_postgres_database_from(Some(&template)).await {
        Ok(created) => created,
        // Dropped by a test process of another checkout, whose migrations differ: make
        // ours again.
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("3D000") => {
            forget_template().await;
            let template = migrated_template().await;
            create_postgres_database_from(Some(&template)).await
        }
        Err(e) => panic!("creating the test database: {e}"),
    }
}

/// A connection to the harness's PostgreSQL as its admin.
async fn postgres_admin(admin: &str) -> sqlx::PgConnection {
    // The harness probed PostgreSQL before running this test (or was told to run it anyway
    // with `--ignored`): unreachable now is a failure.
    sqlx::PgConnection::connect(admin)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL unreachable at {admin}: {e}"))
}

/// A new database, a copy of `template` when given.
async fn create_postgres_database_from(template: Option<&str>) -> (String, String) {
    try_create_postgres_database_from(template)
        .await
        .unwrap_or_else(|e| panic!("creating the test database: {e}"))
}

/// A new database, a copy of `template` when given, or why PostgreSQL refused it.
async fn try_create_postgres_database_from(
    template: Option<&str>,
) -> Result<(String, String), sqlx::Error> {
    let admin = switchboard_testing::postgres_url();
    let mut conn = postgres_admin(&admin).await;
    let name = format!("switchboard_test_{}", uuid::Uuid::new_v4().simple());
    let copy = template.map_or_else(String::new, |t| format!(" TEMPLATE {t}"));
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}{copy}")))
        .execute(&mut conn)
        .await?;
    Ok((admin, name))
}

/// The template this process made or found, once known ([`migrated_template`]).
static TEMPLATE: tokio::sync::Mutex<Option<String>> = tokio::sync::Mutex::const_new(None);

/// Forgets the template this process knew, so the next test looks for it again.
async fn forget_template() {
    *TEMPLATE.lock().await = None;
}

/// The name of a database holding this checkout's PostgreSQL migrations and nothing else,
/// made the first time a test asks (in this process or any other) and kept between runs.
/// Its name carries a digest of the migration files, so a changed or added migration gets
/// a template of its own (the older ones are dropped as it is made). Applying 40-odd
/// migrations statement by statement took about 2 s per test; copying the template takes
/// a tenth of that, and the migrations still run for real, once, on the template.
async fn migrated_template() -> String {
    let mut made = TEMPLATE.lock().await;
    if let Some(name) = made.as_ref() {
        return name.clone();
    }
    let digest = migrations_digest();
    let name = format!("switchboard_template_{digest:016x}");
    let admin = switchboard_testing::postgres_url();
    let mut conn = postgres_admin(&admin).await;
    // One process builds it while the others wait (the lock ends with the connection).
    let lock = i64::from_ne_bytes(digest.to_ne_bytes());
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(lock)
        .execute(&mut conn)
        .await
        .expect("the template's lock");
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT datname FROM pg_database WHERE datname LIKE 'switchboard_template_%'",
    )
    .fetch_all(&mut conn)
    .await
    .expect("the templates");
    if !names.contains(&name) {
        let building = format!("{name}_building");
        for statement in [
            format!("DROP DATABASE IF EXISTS {building} WITH (FORCE)"),
            format!("CREATE DATABASE {building}"),
        ] {
            sqlx::query(sqlx::AssertSqlSafe(statement))
                .execute(&mut conn)
                .await
                .expect("making the template");
        }
        migrate_on_a_runtime_of_its_own(with_database(&admin, &building));
        // Renamed only once whole, so no process ever copies a half-migrated template. The
        // migrating connections are closed; PostgreSQL may take a moment to see them go.
        let rename = format!("ALTER DATABASE {building} RENAME TO {name}");
        let mut attempts = 0;
        while let Err(e) = sqlx::query(sqlx::AssertSqlSafe(rename.as_str()))
            .execute(&mut conn)
            .await
        {
            attempts += 1;
            assert!(attempts < 100, "naming the template: {e}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for old in names.iter().filter(|old| !old.ends_with("_building")) {
            // Another process copying it at this instant keeps it until the next run.
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {old}"
            )))
            .execute(&mut conn)
            .await;
        }
    }
    let _ = conn.close().await;
    *made = Some(name.clone());
    name
}

/// Applies the migrations to the database at `url` from a runtime that is shut down
/// afterwards, so that no task of the database handle (its health probe) keeps a
/// connection to it.
fn migrate_on_a_runtime_of_its_own(url: String) {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let db = switchboard_db::Db::connect(&switchboard_db::backend::ConnectOptions {
                url,
                max_connections: 1,
                statement_timeout: None,
            })
            .await
            .expect("opening the template");
            db.migrate().await.expect("migrating the template");
            db.close().await;
        });
    })
    .join()
    .expect("migrating the template");
}

/// A digest of the PostgreSQL migration files (names and contents), stable between
/// processes of a build: the template's version.
fn migrations_digest() -> u64 {
    use std::hash::{Hash, Hasher};
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/db/migrations/postgres");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("reading {}: {e}", folder.display()))
        .map(|entry| entry.expect("a migration file").path())
        .collect();
    files.sort();
    let mut hasher = std::hash::DefaultHasher::new();
    for file in files {
        file.file_name().hash(&mut hasher);
        std::fs::read(&file).expect("a migration").hash(&mut hasher);
    }
    hasher.finish()
}

impl TestApp {
    /// Starts the application on `backend`. Always `Some` (an unreachable PostgreSQL fails
    /// the test: the harness reports PostgreSQL tests ignored before they start); the
    /// `Option` stays so that existing `let Some(app) = … else` call sites keep compiling.
    pub async fn start(backend: Backend) -> Option<TestApp> {
        Self::start_with(backend, |_| {}).await
    }

    /// Starts the application on `backend` with `configure` applied to its configuration.
    pub async fn start_with(
        backend: Backend,
        configure: impl FnOnce(&mut Config),
    ) -> Option<TestApp> {
        Self::start_on(backend, configure, None).await
    }

    /// Starts the application on `backend` with its objects in `storage` (an S3 bucket).
    pub async fn start_with_storage(
        backend: Backend,
        storage: switchboard_storage::Storage,
    ) -> Option<TestApp> {
        Self::start_on(backend, |_| {}, Some(storage)).await
    }

    /// Starts the application on `backend` with `configure` applied and, when given, its
    /// objects in `storage`.
    pub async fn start_on(
        backend: Backend,
        configure: impl FnOnce(&mut Config),
        storage: Option<switchboard_storage::Storage>,
    ) -> Option<TestApp> {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let postgres_database = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(create_migrated_postgres_database().await),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let mut config = Config {
            data_dir: dir.path().join("data"),
            database_url: Some(match &postgres_database {
                Some((admin, name)) => with_database(admin, name),
                None => format!("sqlite://{}", dir.path().join("test.db").display()),
            }),
            jwt_secret: Some(switchboard::config::Secret(JWT_SECRET.into())),
            db_max_connections: 5,
            public_url: Some(base.clone()),
            // Short locks, so a test can see one end; 2 s so that whole-second clocks
            // never end a lock in the instant it starts.
            lockout_base_seconds: 2,
            // argon2's least cost: a fifth of the suite's CPU went to hashing at OWASP's
            // (docs/benchmarks.md, "The test suite's password hashes"); the tests whose
            // subject is the hashing's cost or time set it back (`owasp_hashing`).
            password_hash_memory_kib: 8,
            password_hash_passes: 1,
            ..Config::default()
        };
        configure(&mut config);
        let (state, shutdown, server) = serve(listener, &config, storage).await;
        Some(TestApp {
            base,
            client: reqwest::Client::new(),
            state,
            config,
            shutdown: Some(shutdown),
            server: Some(server),
            postgres_database,
            _dir: dir,
        })
    }

    /// Starts a second `serve` process on this one's database (a PostgreSQL one, for
    /// tests of several processes); it stops when dropped.
    pub async fn start_sibling(&self) -> Sibling {
        self.start_sibling_with(|_| {}).await
    }

    /// [`TestApp::start_sibling`] with `configure` applied to its configuration (another
    /// host: another data folder, another key).
    pub async fn start_sibling_with(&self, configure: impl FnOnce(&mut Config)) -> Sibling {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let mut config = self.config.clone();
        config.public_url = Some(base.clone());
        configure(&mut config);
        let (state, shutdown, server) =
            serve(listener, &config, Some(self.state.storage.clone())).await;
        Sibling {
            base,
            state,
            shutdown: Some(shutdown),
            _server: server,
        }
    }

    /// The full URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Sends a request with an optional bearer token and JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        let mut request = self.client.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        Self::answer(request.send().await.expect("the server answers")).await
    }

    /// Reads an answer.
    pub async fn answer(response: reqwest::Response) -> Answer {
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.expect("a body");
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Answer {
            status,
            headers,
            body,
        }
    }

    /// GET with a token.
    pub async fn get(&self, path: &str, token: &str) -> Answer {
        self.call(Method::GET, path, Some(token), None).await
    }

    /// POST JSON with a token.
    pub async fn post(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(token), Some(body)).await
    }

    /// POST JSON with a token that must succeed (200), answering the body: the record
    /// created, for a test whose subject is not the create itself.
    pub async fn create(&self, path: &str, token: &str, body: Value) -> Value {
        self.post(path, token, body).await.expect(200)
    }

    /// PATCH JSON with a token.
    pub async fn patch(&self, path: &str, token: &str, body: Value) -> Answer {
        self.call(Method::PATCH, path, Some(token), Some(body))
            .await
    }

    /// DELETE with a token.
    pub async fn delete(&self, path: &str, token: &str) -> Answer {
        self.call(Method::DELETE, path, Some(token), None).await
    }

    /// Logs in, answering the whole login result.
    pub async fn login_answer(&self, email: &str, password: &str) -> Answer {
        self.call(
            Method::POST,
            "/v2/authentication/",
            None,
            Some(json!({"email": email, "password": password})),
        )
        .await
    }

    /// Logs in, answering the access token.
    pub async fn login(&self, email: &str) -> String {
        let body = self.login_answer(email, PASSWORD).await.expect(200);
        body["accessToken"].as_str().expect("a token").to_owned()
    }

    /// Turns on the TOTP second factor of the user `token` belongs to (enrolment with the
    /// password, then confirmation with the current code), answering its secret.
    pub async fn enable_totp(&self, token: &str) -> Vec<u8> {
        let enrolment = self
            .post(
                "/v2/users/me/mfa/totp",
                token,
                json!({"password": PASSWORD}),
            )
            .await
            .expect(200);
        let secret = enrolment["secret"].as_str().expect("a secret");
        let secret = switchboard_api::auth::totp::from_base32(secret).expect("base32");
        self.post(
            "/v2/users/me/mfa/totp/confirm",
            token,
            json!({"code": totp_code(&secret, 0)}),
        )
        .await
        .expect(200);
        secret
    }

    /// Sends the shutdown signal without waiting.
    pub fn signal_shutdown(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }

    /// Runs `sqlite` or `postgres` (several statements allowed) on this app's database
    /// from a connection of its own.
    pub async fn raw_sql(&self, sqlite: &str, postgres: &str) {
        let url = self.config.database_url.clone().expect("a database URL");
        if url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&url).await.expect("the database");
            sqlx::raw_sql(sqlx::AssertSqlSafe(sqlite.to_owned()))
                .execute(&pool)
                .await
                .expect("the SQL runs");
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(&url).await.expect("the database");
            sqlx::raw_sql(sqlx::AssertSqlSafe(postgres.to_owned()))
                .execute(&pool)
                .await
                .expect("the SQL runs");
            pool.close().await;
        }
    }

    /// Makes every `event` (`INSERT`, `UPDATE` or `DELETE`) on `table` fail with
    /// "injected failure" — a trigger that raises, inside whatever transaction runs the
    /// statement — until [`TestApp::remove_failure`].
    pub async fn inject_failure(&self, event: &str, table: &str) {
        self.raw_sql(
            &format!(
                "CREATE TRIGGER injected_failure_{table} BEFORE {event} ON {table} \
                 BEGIN SELECT RAISE(ABORT, 'injected failure'); END;"
            ),
            &format!(
                "CREATE OR REPLACE FUNCTION injected_failure() RETURNS trigger \
                 LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$; \
                 CREATE TRIGGER injected_failure_{table} BEFORE {event} ON {table} \
                 FOR EACH ROW EXECUTE FUNCTION injected_failure();"
            ),
        )
        .await;
    }

    /// Removes the failure [`TestApp::inject_failure`] put on `table`.
    pub async fn remove_failure(&self, table: &str) {
        self.raw_sql(
            &format!("DROP TRIGGER injected_failure_{table};"),
            &format!("DROP TRIGGER injected_failure_{table} ON {table};"),
        )
        .await;
    }

    /// Waits for the server to finish.
    pub async fn join(&mut self) -> std::io::Result<()> {
        match self.server.take() {
            Some(server) => server.await.expect("the server task"),
            None => Ok(()),
        }
    }
}

type Server = tokio::task::JoinHandle<std::io::Result<()>>;

/// Builds the state for `config` (with its objects in `storage` when given) and serves it
/// on `listener` until the sender is used.
async fn serve(
    listener: tokio::net::TcpListener,
    config: &Config,
    storage: Option<switchboard_storage::Storage>,
) -> (AppState, oneshot::Sender<()>, Server) {
    let mut state = switchboard::build_state(config)
        .await
        .expect("application state");
    if let Some(storage) = storage {
        // The background work deletes objects: it works on the same store.
        let shared = state.shared_mut();
        shared.jobs = switchboard_jobs::Jobs::new(
            shared.db.clone(),
            storage.clone(),
            shared.sealer.clone(),
            shared.jobs.settings().clone(),
        )
        .expect("the background work");
        shared.storage = storage;
    }
    let (shutdown, stop) = oneshot::channel::<()>();
    let config = config.clone();
    let served = state.clone();
    // The binary's own composition: the API and the console on one listener.
    let server = tokio::spawn(async move {
        switchboard::serve(listener, served, &config, async move {
            let _ = stop.await;
            switchboard_api::Stopping {
                drain: Duration::ZERO,
                grace: Duration::from_secs(10),
            }
        })
        .await
        .map_err(std::io::Error::other)
    });
    (state, shutdown, server)
}

/// A second `serve` process on a [`TestApp`]'s database.
pub struct Sibling {
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub base: String,
    /// Its state (its own pool, worker name and settings).
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    _server: Server,
}

impl Drop for Sibling {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some((admin, name)) = self.postgres_database.take() {
            // Dropped from inside a runtime: do the async clean-up on a thread of its own.
            let cleanup = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                if let Ok(runtime) = runtime {
                    runtime.block_on(async {
                        if let Ok(mut conn) = sqlx::PgConnection::connect(&admin).await {
                            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                            )))
                            .execute(&mut conn)
                            .await;
                        }
                    });
                }
            });
            let _ = cleanup.join();
        }
    }
}

/// Registers, for each named `async fn(TestApp)`, one test on SQLite
/// (`module::sqlite::name`) and one on PostgreSQL (`module::postgres::name`, reported
/// ignored when PostgreSQL is unreachable); `with CONFIGURE;` first applies
/// `fn(&mut Config)` to the configuration of each; `needs SERVICE, …;` before it names
/// further outside services (reported ignored when absent, as PostgreSQL is).
#[macro_export]
macro_rules! on_both_backends {
    (needs $($service:path),+; with $configure:expr; $($name:ident),* $(,)?) => {
        $crate::on_both_backends!(@register [$(&$service),+]; $configure; $($name),*);
    };
    (needs $($service:path),+; $($name:ident),* $(,)?) => {
        $crate::on_both_backends!(@register [$(&$service),+]; |_: &mut switchboard::Config| {}; $($name),*);
    };
    (with $configure:expr; $($name:ident),* $(,)?) => {
        $crate::on_both_backends!(@register []; $configure; $($name),*);
    };
    (@postgres [$($service:expr),*]) => {
        &[&switchboard_testing::POSTGRES $(, $service)*]
    };
    (@register $services:tt; $configure:expr; $($name:ident),*) => {
        $(
            switchboard_testing::inventory::submit! {
                switchboard_testing::Case {
                    path: concat!(module_path!(), "::sqlite::", stringify!($name)),
                    services: &$services,
                    run: || switchboard_testing::run_async(async {
                        let app = $crate::support::TestApp::start_with($crate::support::Backend::Sqlite, $configure).await;
                        $name(app.expect("a SQLite app")).await;
                    }),
                }
            }
            switchboard_testing::inventory::submit! {
                switchboard_testing::Case {
                    path: concat!(module_path!(), "::postgres::", stringify!($name)),
                    services: $crate::on_both_backends!(@postgres $services),
                    run: || switchboard_testing::run_async(async {
                        let app = $crate::support::TestApp::start_with($crate::support::Backend::Postgres, $configure).await;
                        $name(app.expect("a PostgreSQL app")).await;
                    }),
                }
            }
        )*
    };
    ($($name:ident),* $(,)?) => {
        $crate::on_both_backends!(with |_: &mut switchboard::Config| {}; $($name),*);
    };
}

impl TestApp {
    /// A login request that owns its inputs, to run on another task.
    pub fn login_answer_owned(
        &self,
        email: String,
        password: String,
    ) -> impl std::future::Future<Output = Answer> + Send + 'static {
        let request = self
            .client
            .post(self.url("/v2/authentication/"))
            .json(&serde_json::json!({"email": email, "password": password}));
        async move { TestApp::answer(request.send().await.expect("the server answers")).await }
    }
}

/// Makes password hashes at the service's default cost (OWASP's), for a test whose subject
/// is what hashing costs or how long it takes; the others hash at argon2's least.
pub fn owasp_hashing(config: &mut Config) {
    let default = Config::default();
    config.password_hash_memory_kib = default.password_hash_memory_kib;
    config.password_hash_passes = default.password_hash_passes;
}

/// The ids of a list page's records, in order.
pub fn record_ids(page: &Value) -> Vec<i64> {
    page["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_i64().expect("an id"))
        .collect()
}

/// Reads an audio fixture of `tests/fixtures/audio/`.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/audio/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("a fixture")
}

impl TestApp {
    /// Creates an extension of the caller's tenant numbered `number`, answering its id.
    pub async fn extension(&self, token: &str, number: &str, name: &str) -> i64 {
        self.post(
            "/v2/admin/extensions/",
            token,
            json!({"number": number, "name": name}),
        )
        .await
        .expect(200)["id"]
            .as_i64()
            .unwrap()
    }

    /// Creates a SIP trunk of `tenant` named `name` (a platform's or a partner's token),
    /// answering its id.
    pub async fn sip_trunk(&self, token: &str, tenant: i64, name: &str) -> i64 {
        self.create(
            "/v2/admin/conduits/",
            token,
            json!({"tenantId": tenant, "kind": "sip-trunk", "name": name,
                   "address": "sip.carrier.example:5061"}),
        )
        .await["id"]
            .as_i64()
            .expect("an id")
    }

    /// Creates music on hold of the caller's tenant named `name`, playing `media_files`
    /// in order, answering its id.
    pub async fn music_on_hold(&self, token: &str, name: &str, media_files: &[i64]) -> i64 {
        let playlist: Vec<Value> = media_files
            .iter()
            .map(|id| json!({"id": id, "destType": "MEDIA_FILE"}))
            .collect();
        self.create(
            "/v2/admin/music-on-hold/",
            token,
            json!({"name": name, "mode": "sequential", "routingDestinations": playlist}),
        )
        .await["id"]
            .as_i64()
            .expect("an id")
    }

    /// Uploads the tone fixture as a media file of the caller's tenant named `name`,
    /// answering its id.
    pub async fn media_file(&self, token: &str, name: &str) -> i64 {
        self.upload_fixture_named(token, "tone.wav", name).await
    }

    /// Pushes, as the engine does (`engine`: a platform admin's token), an answered inbound
    /// call of `tenant` with the tone fixture as its recording, and answers its recording
    /// as `reader` gets it (`GET /v2/admin/call-recordings/{unique_id}`).
    pub async fn recorded_call(
        &self,
        engine: &str,
        reader: &str,
        tenant: i64,
        unique_id: &str,
    ) -> Value {
        let call = json!({"tenantId": tenant, "uniqueId": unique_id, "event": "ended",
            "direction": "inbound", "time": "2026-11-22T09:00:00Z",
            "answerTime": "2026-11-22T09:00:03Z", "endTime": "2026-11-22T09:01:00Z",
            "callerIdNum": "5551230000", "dialedNum": "101"});
        self.push(
            engine,
            "/v2/ingest/calls",
            ("call", call),
            Some(("recording", fixture("tone.wav"))),
        )
        .await
        .expect(200);
        self.get(&format!("/v2/admin/call-recordings/{unique_id}"), reader)
            .await
            .expect(200)
    }

    /// Uploads the audio fixture `file` as a media file named after it, answering its id.
    pub async fn upload_fixture(&self, token: &str, file: &str) -> i64 {
        self.upload_fixture_named(token, file, file).await
    }

    /// Uploads the audio fixture `file` as a media file named `name`, answering its id.
    pub async fn upload_fixture_named(&self, token: &str, file: &str, name: &str) -> i64 {
        self.upload(token, &[("name", name)], Some((file, fixture(file))))
            .await
            .expect(200)["id"]
            .as_i64()
            .unwrap()
    }

    /// Uploads a media file: `fields` as text parts, then `file` (if any) named `filename`.
    pub async fn upload(
        &self,
        token: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, Vec<u8>)>,
    ) -> Answer {
        self.upload_at("/v2/admin/media-files/", token, fields, file)
            .await
    }

    /// [`TestApp::upload`] to the collection at `path`.
    pub async fn upload_at(
        &self,
        path: &str,
        token: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, Vec<u8>)>,
    ) -> Answer {
        let mut form = reqwest::multipart::Form::new();
        for (name, value) in fields {
            form = form.text(name.to_string(), value.to_string());
        }
        if let Some((filename, bytes)) = file {
            let part = reqwest::multipart::Part::bytes(bytes)
                .file_name(filename.to_owned())
                .mime_str("application/octet-stream")
                .expect("a MIME type");
            form = form.part("file", part);
        }
        self.post_form(path, token, form).await
    }

    /// Posts `form` as `multipart/form-data` to `path`.
    pub async fn post_form(
        &self,
        path: &str,
        token: &str,
        form: reqwest::multipart::Form,
    ) -> Answer {
        let response = self
            .client
            .post(self.url(path))
            .bearer_auth(token)
            .multipart(form)
            .send()
            .await
            .expect("the server answers");
        TestApp::answer(response).await
    }
}

impl TestApp {
    /// Pushes a record to an ingest path as multipart: `fields` as the JSON part named
    /// `fields_part`, then `audio` (if any) as the part named `audio_part`.
    pub async fn push(
        &self,
        token: &str,
        path: &str,
        (fields_part, fields): (&str, Value),
        audio: Option<(&str, Vec<u8>)>,
    ) -> Answer {
        let mut form =
            reqwest::multipart::Form::new().text(fields_part.to_owned(), fields.to_string());
        if let Some((name, bytes)) = audio {
            let part = reqwest::multipart::Part::bytes(bytes)
                .file_name("audio")
                .mime_str("application/octet-stream")
                .expect("a MIME type");
            form = form.part(name.to_owned(), part);
        }
        self.post_form(path, token, form).await
    }

    /// Fetches a URL handed out by the service (a signed media link), with an optional
    /// `Range` header, answering status, headers and bytes.
    pub async fn fetch(
        &self,
        url: &str,
        range: Option<&str>,
    ) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
        let mut request = self.client.get(url);
        if let Some(range) = range {
            request = request.header(reqwest::header::RANGE, range);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.expect("a body").to_vec();
        (status, headers, bytes)
    }
}

impl TestApp {
    /// Rows of `table`, all or those whose `column` equals a value: for checking what
    /// the service wrote where no endpoint shows it (the webhook outbox).
    pub async fn count(&self, table: &'static str, equal: Option<(&'static str, &str)>) -> i64 {
        match equal {
            Some((column, value)) => self.count_where(table, column, value).await,
            None => self.count_rows(table, None).await,
        }
    }

    /// How many rows of `table` have `column` equal to `value` (of the column's own type,
    /// so an integer column is compared with an integer on PostgreSQL).
    pub async fn count_where(
        &self,
        table: &'static str,
        column: &'static str,
        value: impl Into<sea_query::Value>,
    ) -> i64 {
        self.count_rows(table, Some((column, value.into()))).await
    }

    async fn count_rows(
        &self,
        table: &'static str,
        equal: Option<(&'static str, sea_query::Value)>,
    ) -> i64 {
        use sea_query::{Expr, ExprTrait, Query};
        let mut select = Query::select()
            .expr(Expr::cust("COUNT(*)"))
            .from(table)
            .take();
        if let Some((column, value)) = equal {
            select.and_where(Expr::col(column).eq(value));
        }
        self.state.db.conn().scalar(&select).await.expect("a count")
    }

    /// Where the local store keeps the object at `key`.
    pub fn object_path(&self, key: &str) -> std::path::PathBuf {
        self._dir.path().join("data").join("objects").join(key)
    }

    /// The keys of the objects the local store holds under `prefix` (a folder of keys).
    pub fn stored_objects(&self, prefix: &str) -> Vec<String> {
        fn walk(folder: &std::path::Path, key: &str, found: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(folder) else {
                return;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let key = format!("{key}/{name}");
                if entry.path().is_dir() {
                    walk(&entry.path(), &key, found);
                } else {
                    found.push(key);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.object_path(prefix), prefix, &mut found);
        found.sort();
        found
    }

    /// Waits (up to a minute) until the job queue has nothing pending, so that the work a
    /// request queued (an object to delete, a tenant's phones announced) is done. The bound
    /// only decides how long a broken queue takes to fail: announcing 1,201 phones took
    /// 21 s in a debug build on a slow day of this 2-core machine, alone.
    pub async fn jobs_done(&self) {
        for _ in 0..1200 {
            if self.count("jobs", Some(("state", "pending"))).await == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("jobs still pending after a minute");
    }

    /// Every record of the list at `path` (which may carry its own filters) as `token`
    /// reads it, unpaged (`paginated=0`).
    pub async fn records(&self, path: &str, token: &str) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let list = self
            .get(&format!("{path}{separator}paginated=0"), token)
            .await
            .expect(200);
        list["records"]
            .as_array()
            .expect("a list's records")
            .clone()
    }

    /// The newest audit entry of `entity` (its name in the audit log's `entities`
    /// filter), as `token` sees the audit log.
    pub async fn newest_audit_entry(&self, entity: &str, token: &str) -> Value {
        let page = self
            .get(
                &format!(
                    "/v2/admin/audit-log/?entities={entity}&sortBy=id&sortDirection=desc&recordsPerPage=1"
                ),
                token,
            )
            .await
            .expect(200);
        assert_eq!(page["records"].as_array().map(Vec::len), Some(1), "{page}");
        page["records"][0].clone()
    }

    /// The audit entries `token` reads for the audit log's filters `query` (`entities=…`,
    /// `action=…`), oldest first, up to a thousand.
    pub async fn audit_entries(&self, token: &str, query: &str) -> Vec<Value> {
        let page = self
            .get(
                &format!("/v2/admin/audit-log/?sortBy=id&recordsPerPage=1000&{query}"),
                token,
            )
            .await
            .expect(200);
        page["records"]
            .as_array()
            .expect("a page of entries")
            .clone()
    }

    /// Record `id`'s audit trail under `entity`, oldest entry first.
    pub async fn audit_trail(&self, entity: &str, id: i64, token: &str) -> Vec<Value> {
        self.audit_entries(token, &format!("entities={entity}&entityId={id}"))
            .await
    }

    /// The `data` of every stored webhook event of `kind`, oldest first.
    pub async fn event_data(&self, kind: &str) -> Vec<serde_json::Value> {
        use sea_query::{Expr, ExprTrait, Query};
        let select = Query::select()
            .column("payload")
            .from("webhook_events")
            .and_where(Expr::col("type").eq(kind))
            .order_by("id", sea_query::Order::Asc)
            .take();
        let rows: Vec<(String,)> = self.state.db.conn().fetch_all(&select).await.unwrap();
        rows.into_iter()
            .map(|(text,)| {
                serde_json::from_str::<serde_json::Value>(&text).unwrap()["data"].clone()
            })
            .collect()
    }
}

/// The action of each entry of an audit trail.
pub fn actions(trail: &[Value]) -> Vec<&str> {
    trail
        .iter()
        .map(|entry| entry["action"].as_str().expect("an action"))
        .collect()
}

/// A signed link with the last character of its signature changed.
pub fn tamper(url: &str) -> String {
    let at = url.find("signature=").expect("a signed link") + "signature=".len();
    let end = url[at..].find('&').map_or(url.len(), |i| at + i);
    let last = if url[..end].ends_with('0') { "1" } else { "0" };
    format!("{}{last}{}", &url[..end - 1], &url[end..])
}

/// The TOTP code of `secret` at the step `step_offset` steps from now.
pub fn totp_code(secret: &[u8], step_offset: i64) -> String {
    use switchboard_api::auth::totp;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_secs();
    let step = (now / totp::STEP).saturating_add_signed(step_offset);
    format!("{:06}", totp::code_at(secret, step))
}
