//! moto's S3-compatible server for tests: started on a free loopback port as a child
//! process (`python3 -m moto.server`, installed by scripts/install-test-tools.sh), killed
//! on drop. Shared by the storage crate's S3 tests and the HTTP suite (through `#[path]`).

#![allow(dead_code)]

use std::fs::File;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_storage::Storage;

pub const ACCESS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";
pub const SECRET_KEY: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
pub const REGION: &str = "us-east-1";
pub const SIGNING_KEY: &[u8] = b"an-example-signing-key-of-32-bytes-or-more";

/// A moto S3 server, killed (and reaped) on drop.
pub struct Moto {
    child: Child,
    /// The server's base URL.
    pub endpoint: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Moto {
    /// Starts moto on a free loopback port and waits (up to 30 s) until it answers.
    pub async fn start() -> Result<Moto, String> {
        let python = switchboard_testing::python();
        // Port 0 picks a free port; it is released just before moto binds it.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|error| format!("no free port: {error}"))?
            .port();
        let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
        // moto logs every request: to a file, since an unread pipe would fill up and stall it.
        let log = dir.path().join("moto.log");
        let log_file = File::create(&log).map_err(|error| error.to_string())?;
        let child = Command::new(&python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().map_err(|error| error.to_string())?)
            .stderr(log_file)
            .spawn()
            .map_err(|error| format!("cannot run {python}: {error}"))?;
        let mut moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            log,
            _dir: dir,
        };
        let client = http_client();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = moto.child.try_wait() {
                return Err(format!(
                    "{python} -m moto.server exited ({status}): {}",
                    moto.log_tail()
                ));
            }
            if let Ok(response) = client.get(&moto.endpoint).send().await
                && response.status().is_success()
            {
                return Ok(moto);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "moto did not answer within 30 s: {}",
                    moto.log_tail()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(10)..].join("\n")
    }

    /// Creates `bucket` (moto takes an unsigned CreateBucket).
    pub async fn create_bucket(&self, bucket: &str) {
        let response = http_client()
            .put(format!("{}/{bucket}", self.endpoint))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }

    /// Storage over `s3://{bucket}{prefix}` at this server, with every S3 setting given explicitly so
    /// no AWS_* variable of the environment changes the test.
    pub fn storage(&self, url: &str) -> Storage {
        Storage::open_with_s3_options(
            url,
            SIGNING_KEY,
            "http://127.0.0.1:8080",
            &[
                ("aws_endpoint", &self.endpoint),
                ("aws_access_key_id", ACCESS_KEY),
                ("aws_secret_access_key", SECRET_KEY),
                ("aws_region", REGION),
                ("aws_allow_http", "true"),
                ("aws_virtual_hosted_style_request", "false"),
            ],
        )
        .unwrap()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running moto. The harness ran this test only after finding moto importable (or was
/// told to run it anyway): a moto that cannot start now fails the test.
pub async fn moto() -> Moto {
    match Moto::start().await {
        Ok(moto) => moto,
        Err(why) => {
            panic!("moto's S3 server could not start: {why} (run scripts/install-test-tools.sh)")
        }
    }
}

pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}
