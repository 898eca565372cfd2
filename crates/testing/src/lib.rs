//! The test harness of Switchboard's test binaries (each `harness = false`).
//!
//! A test registers itself with [`tests!`] (or the HTTP suite's `on_both_backends!`, built
//! on [`Case`]) and names the outside service it needs, if any: PostgreSQL, Redis or S3
//! (moto). [`main`] probes each service the selected tests need once. When one is absent,
//! its tests are reported *ignored* — never passed — and one line per service says why,
//! how many were skipped and how to run them; `SWITCHBOARD_TEST_REQUIRE_<SERVICE>=1` turns
//! the skip into failures instead (CI sets all three). It speaks libtest's command line
//! (through `libtest-mimic`), so `cargo test` filters and `cargo nextest run` work as with
//! the built-in harness. Each test runs on its own tokio runtime of two worker threads;
//! four tests per core run at once unless `--test-threads` or `RUST_TEST_THREADS` says.
//!
//! [`jwt`] forges access tokens by hand, for the tests of what the service refuses.

use std::collections::BTreeMap;
use std::future::Future;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub use inventory;

pub mod jwt;
use libtest_mimic::{Arguments, Failed, Trial};

/// An outside service some tests need.
pub struct Service {
    /// What it is called in the skip line (`PostgreSQL`).
    pub name: &'static str,
    /// The variable that turns a skip into failures (`SWITCHBOARD_TEST_REQUIRE_POSTGRES`).
    pub require_var: &'static str,
    /// How to make it available, for the skip line.
    pub how: &'static str,
    /// Whether it can be used here: `Err` says why not.
    pub probe: fn() -> Result<(), String>,
}

impl Service {
    /// Whether its `SWITCHBOARD_TEST_REQUIRE_…` variable is set (`1` or `true`).
    pub fn required(&self) -> bool {
        std::env::var(self.require_var).is_ok_and(|v| v == "1" || v == "true")
    }
}

/// One registered test.
pub struct Case {
    /// Its full path, the crate first (`api::lists::sqlite::paging`); the harness drops
    /// the crate, so the test is named as libtest would name it.
    pub path: &'static str,
    /// The services it needs (none for most).
    pub services: &'static [&'static Service],
    /// Runs it (panicking to fail).
    pub run: fn(),
}

inventory::collect!(Case);

/// Runs `test` on a thread of its own with a main thread's stack (8 MiB) instead of a test
/// thread's 2 MiB, its panic passed on: a debug build's futures are large, and a test that
/// drives the application in process (the demo's seeding) nests many of them.
fn on_a_large_stack(test: fn()) {
    let name = std::thread::current().name().unwrap_or("test").to_owned();
    let finished = std::thread::Builder::new()
        .name(name)
        .stack_size(8 << 20)
        .spawn(test)
        .expect("a thread for the test")
        .join();
    if let Err(panic) = finished {
        std::panic::resume_unwind(panic);
    }
}

/// Runs `test` to completion on a new tokio runtime with two worker threads, as
/// `#[tokio::test(flavor = "multi_thread", worker_threads = 2)]` would.
pub fn run_async(test: impl Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(test);
}

/// Registers async test functions of no argument (in the module where it is written);
/// `needs SERVICE, …;` first names the [`Service`]s they need.
#[macro_export]
macro_rules! tests {
    (needs $($service:path),+; $($name:ident),* $(,)?) => {
        $crate::tests!(@services [$(&$service),+]; $($name),*);
    };
    (@services $services:tt; $($name:ident),*) => {
        $(
            $crate::inventory::submit! {
                $crate::Case {
                    path: concat!(module_path!(), "::", stringify!($name)),
                    services: &$services,
                    run: || $crate::run_async($name()),
                }
            }
        )*
    };
    ($($name:ident),* $(,)?) => {
        $(
            $crate::inventory::submit! {
                $crate::Case {
                    path: concat!(module_path!(), "::", stringify!($name)),
                    services: &[],
                    run: || $crate::run_async($name()),
                }
            }
        )*
    };
}

/// The test binary's `main`: runs every registered test as the command line asks.
pub fn main() -> ExitCode {
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(test_threads());
    }
    let mut cases: Vec<(String, &'static Case)> = inventory::iter::<Case>
        .into_iter()
        .map(|case| (display_name(case.path), case))
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(pair) = cases.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        eprintln!("error: the test {} is registered twice", pair[0].0);
        return ExitCode::FAILURE;
    }

    // Probe each service once, and only those the selected tests need: under
    // `cargo nextest run` every test is a process of its own.
    let mut services: BTreeMap<&'static str, (&'static Service, Result<(), String>, usize)> =
        BTreeMap::new();
    for (name, case) in &cases {
        if !selected(&args, name) {
            continue;
        }
        for service in case.services {
            services
                .entry(service.name)
                .or_insert_with(|| (service, (service.probe)(), 0))
                .2 += 1;
        }
    }

    let trials = cases
        .iter()
        .map(|(name, case)| {
            let run = case.run;
            // The first absent service decides: required, the test fails; else it is ignored.
            let absent = case.services.iter().find_map(|service| {
                let why = services.get(service.name)?.1.as_ref().err()?;
                Some((*service, why.clone()))
            });
            match absent {
                Some((service, why)) if service.required() => {
                    let message = format!(
                        "{} is required ({}=1) but unavailable: {why}",
                        service.name, service.require_var
                    );
                    Trial::test(name.clone(), move || Err(Failed::from(message)))
                }
                // Run only with `--ignored`/`--include-ignored`, where it fails for real.
                Some(_) => Trial::test(name.clone(), move || {
                    on_a_large_stack(run);
                    Ok(())
                })
                .with_ignored_flag(true),
                None => Trial::test(name.clone(), move || {
                    on_a_large_stack(run);
                    Ok(())
                }),
            }
        })
        .collect();

    let conclusion = libtest_mimic::run(&args, trials);
    stop_redis();
    if !args.list {
        for (service, probe, count) in services.values() {
            if let Err(why) = probe
                && !service.required()
            {
                eprintln!(
                    "SKIPPED {count} tests needing {} (reported as ignored): {why}. {} \
                     Set {}=1 to fail instead of skipping.",
                    service.name, service.how, service.require_var
                );
            }
        }
    }
    conclusion.exit_code()
}

/// Tests run at once unless `--test-threads` says: `RUST_TEST_THREADS` as libtest reads
/// it, else four per core. A test of the HTTP suite spends most of its time waiting — on
/// its server, the database, a deadline it checks — so one per core, libtest's default,
/// left the cores half idle: the HTTP suite's 860 tests took 445 s eight at a time on two
/// cores, where one per core took about 740 s (issue 33, docs/benchmarks.md).
fn test_threads() -> usize {
    std::env::var("RUST_TEST_THREADS")
        .ok()
        .and_then(|threads| threads.parse().ok())
        .filter(|&threads| threads > 0)
        .unwrap_or_else(|| {
            4 * std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
}

/// `api::lists::sqlite::paging` → `lists::sqlite::paging`: libtest's names leave out the crate.
fn display_name(path: &str) -> String {
    path.split_once("::")
        .map_or(path, |(_, rest)| rest)
        .to_owned()
}

/// Whether the name filter and `--skip` of the command line select `name` (libtest's
/// matching: a substring, or the whole name with `--exact`).
fn selected(args: &Arguments, name: &str) -> bool {
    let matches = |pattern: &String| {
        if args.exact {
            name == pattern
        } else {
            name.contains(pattern.as_str())
        }
    };
    args.filter.as_ref().is_none_or(matches) && !args.skip.iter().any(matches)
}

fn env_flag_url(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_owned())
}

/// The PostgreSQL server to create test databases on (`SWITCHBOARD_TEST_POSTGRES_URL`).
pub fn postgres_url() -> String {
    env_flag_url(
        "SWITCHBOARD_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/postgres",
    )
}

/// PostgreSQL, at [`postgres_url`].
pub static POSTGRES: Service = Service {
    name: "PostgreSQL",
    require_var: "SWITCHBOARD_TEST_REQUIRE_POSTGRES",
    how: "Start PostgreSQL (or point SWITCHBOARD_TEST_POSTGRES_URL at one) to run them.",
    probe: probe_postgres,
};

fn probe_postgres() -> Result<(), String> {
    use sqlx::Connection;
    let url = postgres_url();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        match tokio::time::timeout(Duration::from_secs(10), sqlx::PgConnection::connect(&url)).await
        {
            Ok(Ok(connection)) => {
                let _ = connection.close().await;
                Ok(())
            }
            Ok(Err(e)) => Err(format!("unreachable at {url}: {e}")),
            Err(_) => Err(format!("no answer within 10 s at {url}")),
        }
    })
}

/// Redis: the server `SWITCHBOARD_TEST_REDIS_URL` names, or else one started from
/// `redis-server` on the PATH for this test process (see [`redis_url`]).
pub static REDIS: Service = Service {
    name: "Redis",
    require_var: "SWITCHBOARD_TEST_REQUIRE_REDIS",
    how: "Put redis-server on the PATH (the tests start their own), or point \
          SWITCHBOARD_TEST_REDIS_URL at a running Redis, to run them.",
    probe: probe_redis,
};

fn configured_redis_url() -> Option<String> {
    std::env::var("SWITCHBOARD_TEST_REDIS_URL")
        .ok()
        .filter(|v| !v.is_empty())
}

fn probe_redis() -> Result<(), String> {
    match configured_redis_url() {
        Some(url) => ping_redis(&url).map_err(|e| format!("no Redis at {url}: {e}")),
        None => {
            if on_path("redis-server") {
                Ok(())
            } else {
                Err(
                    "SWITCHBOARD_TEST_REDIS_URL is unset and there is no redis-server on the PATH"
                        .into(),
                )
            }
        }
    }
}

/// `host:port` of a `redis://host:port[/db]` URL (6379 when it names no port).
pub fn redis_address(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("redis://")
        .ok_or_else(|| format!("{url} is not a redis:// URL"))?;
    let host = rest.split('/').next().unwrap_or(rest);
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    Ok(if host.contains(':') {
        host.to_owned()
    } else {
        format!("{host}:6379")
    })
}

/// Sends `PING` and expects `+PONG` (RESP, spoken by hand so the harness needs no client).
fn ping_redis(url: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let address = redis_address(url)?
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no address")?;
    let mut stream =
        TcpStream::connect_timeout(&address, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    stream.write_all(b"PING\r\n").map_err(|e| e.to_string())?;
    let mut line = String::new();
    BufReader::new(stream)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    if line.starts_with("+PONG") {
        Ok(())
    } else {
        Err(format!("answered {:?} to PING", line.trim_end()))
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

static OWN_REDIS: OnceLock<Mutex<Option<(Child, String)>>> = OnceLock::new();

/// The Redis URL for a test that needs [`REDIS`]: `SWITCHBOARD_TEST_REDIS_URL`, or else a
/// `redis-server` this process starts on a free loopback port at the first call (without
/// persistence) and stops when the run ends.
pub fn redis_url() -> String {
    if let Some(url) = configured_redis_url() {
        return url;
    }
    let mut own = OWN_REDIS
        .get_or_init(|| Mutex::new(None))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, url)) = own.as_ref() {
        return url.clone();
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts (it is on the PATH)");
    let url = format!("redis://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while ping_redis(&url).is_err() {
        assert!(
            Instant::now() < deadline,
            "the redis-server started on port {port} did not answer within 10 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    *own = Some((child, url.clone()));
    url
}

/// Stops the `redis-server` [`redis_url`] started, if any.
fn stop_redis() {
    if let Some(own) = OWN_REDIS.get() {
        let mut own = own.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((mut child, _)) = own.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A `redis-server` speaking TLS alone (`rediss://`), for a test that needs
/// [`REDIS_TLS`]: its own, on a free loopback port, without persistence, with a
/// certificate `openssl` made for `localhost` and `127.0.0.1`, signed by an authority
/// of its own; stopped, and its
/// folder removed, when dropped.
pub struct TlsRedis {
    child: Child,
    folder: std::path::PathBuf,
    /// `rediss://localhost:PORT`.
    pub url: String,
    /// The authority that signed the server's certificate (PEM): what a client must
    /// trust to reach it.
    pub authority: std::path::PathBuf,
}

/// Redis over TLS, as [`TlsRedis`] starts it from `redis-server` and `openssl`.
pub static REDIS_TLS: Service = Service {
    name: "Redis over TLS",
    require_var: "SWITCHBOARD_TEST_REQUIRE_REDIS",
    how: "Put redis-server (built with TLS, as Debian's is) and openssl on the PATH to run them.",
    probe: probe_redis_tls,
};

fn probe_redis_tls() -> Result<(), String> {
    match ["redis-server", "openssl"]
        .into_iter()
        .find(|program| !on_path(program))
    {
        Some(missing) => Err(format!("there is no {missing} on the PATH")),
        None => Ok(()),
    }
}

impl TlsRedis {
    /// Makes the certificate and starts the server, answering once it accepts connections.
    pub fn start() -> TlsRedis {
        let folder = std::env::temp_dir().join(format!(
            "switchboard-tls-redis-{}-{}",
            std::process::id(),
            NEXT_FOLDER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&folder).expect("a folder for the certificate");
        let authority = folder.join("ca.pem");
        let (certificate, key) = (folder.join("cert.pem"), folder.join("key.pem"));
        // Run in the folder, so the files are named by their names.
        let openssl = |args: &[&str]| {
            let made = Command::new("openssl")
                .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
                .args(["ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"])
                .args(args)
                .current_dir(&folder)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .output()
                .expect("openssl runs (it is on the PATH)");
            if !made.status.success() {
                let _ = std::fs::remove_dir_all(&folder);
                panic!(
                    "openssl (3.0 or later) could not make a certificate: {}",
                    String::from_utf8_lossy(&made.stderr)
                );
            }
        };
        // An authority, and the server's own certificate signed by it (a client refuses
        // an authority's certificate presented as a server's).
        openssl(&[
            "-subj",
            "/CN=switchboard test CA",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
        ]);
        openssl(&[
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ]);
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("redis-server")
            .args(["--port", "0", "--tls-port", &port.to_string()])
            .args(["--bind", "127.0.0.1", "--tls-auth-clients", "no"])
            .arg("--tls-cert-file")
            .arg(&certificate)
            .arg("--tls-key-file")
            .arg(&key)
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(folder.join("redis.log")).expect("a log for redis-server"),
            )
            .spawn()
            .expect("redis-server starts (it is on the PATH)");
        // Built before the wait, so a server that never listens is stopped by the drop.
        let mut redis = TlsRedis {
            child,
            folder,
            url: format!("rediss://localhost:{port}"),
            authority,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            let ended = redis.child.try_wait().ok().flatten();
            assert!(
                ended.is_none() && Instant::now() < deadline,
                "the TLS redis-server on port {port} {} (is it built with TLS?): {}",
                ended.map_or("did not listen within 10 s".to_owned(), |s| format!(
                    "ended ({s})"
                )),
                std::fs::read_to_string(redis.folder.join("redis.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        redis
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// Numbers the folders of a process's [`TlsRedis`] servers.
static NEXT_FOLDER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The Python interpreter that runs moto (`SWITCHBOARD_TEST_PYTHON`, else `python3`).
pub fn python() -> String {
    env_flag_url("SWITCHBOARD_TEST_PYTHON", "python3")
}

/// S3, as moto's server, which each test starts from [`python`] on a free port.
pub static S3: Service = Service {
    name: "S3 (moto's server)",
    require_var: "SWITCHBOARD_TEST_REQUIRE_S3",
    how: "Run scripts/install-test-tools.sh (or point SWITCHBOARD_TEST_PYTHON at a Python \
          with moto[server]) to run them.",
    probe: probe_moto,
};

fn probe_moto() -> Result<(), String> {
    let python = python();
    let output = Command::new(&python)
        .args(["-c", "import moto.server"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("").to_owned();
        Err(format!("{python} cannot import moto.server: {last}"))
    }
}

/// espeak-ng, the speech engine the text-to-speech tests render with (from the PATH).
pub static ESPEAK_NG: Service = Service {
    name: "espeak-ng",
    require_var: "SWITCHBOARD_TEST_REQUIRE_ESPEAK_NG",
    how: "Install espeak-ng (scripts/install-test-tools.sh does) to run them.",
    probe: probe_espeak_ng,
};

fn probe_espeak_ng() -> Result<(), String> {
    let output = Command::new("espeak-ng")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run espeak-ng: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("espeak-ng --version failed ({})", output.status))
    }
}

/// SoX, which decodes GSM voicemail into WAV (from the PATH), for the GSM voicemail tests.
pub static SOX: Service = Service {
    name: "SoX",
    require_var: "SWITCHBOARD_TEST_REQUIRE_SOX",
    how: "Install sox (scripts/install-test-tools.sh does) to run them.",
    probe: probe_sox,
};

fn probe_sox() -> Result<(), String> {
    let output = Command::new("sox")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run sox: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("sox --version failed ({})", output.status))
    }
}

/// opusdec (opus-tools), which decodes Ogg Opus uploads for their telephony renditions
/// (from the PATH), for the Opus rendition tests.
pub static OPUSDEC: Service = Service {
    name: "opusdec",
    require_var: "SWITCHBOARD_TEST_REQUIRE_OPUSDEC",
    how: "Install opus-tools (scripts/install-test-tools.sh does) to run them.",
    probe: probe_opusdec,
};

fn probe_opusdec() -> Result<(), String> {
    let output = Command::new("opusdec")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run opusdec: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("opusdec --version failed ({})", output.status))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_leave_out_the_crate() {
        assert_eq!(
            display_name("api::lists::sqlite::paging"),
            "lists::sqlite::paging"
        );
    }

    #[test]
    fn redis_addresses() {
        assert_eq!(redis_address("redis://127.0.0.1:1").unwrap(), "127.0.0.1:1");
        assert_eq!(redis_address("redis://host/2").unwrap(), "host:6379");
        assert_eq!(redis_address("redis://:pw@host:7/0").unwrap(), "host:7");
        assert!(redis_address("http://x").is_err());
    }

    #[test]
    fn selection_is_libtests() {
        let args = Arguments::from_iter(["t", "lists::", "--skip", "postgres"]);
        assert!(selected(&args, "lists::sqlite::a"));
        assert!(!selected(&args, "lists::postgres::a"));
        assert!(!selected(&args, "records::sqlite::a"));
        let args = Arguments::from_iter(["t", "--exact", "lists::sqlite::a"]);
        assert!(selected(&args, "lists::sqlite::a"));
        assert!(!selected(&args, "lists::sqlite::ab"));
    }
}
