//! The demo's way into the API: requests sent to the application itself, in process, with
//! an account's token, so the demo is made by the same handlers, rules, audit trail and
//! webhook events as any client's requests (no listener, no network). The sending is the
//! console's ([`InProcess`]): one piece of code for one job.

use anyhow::{Context, bail};
use axum::http::{Method, header};
use serde_json::{Value, json};
use switchboard_api::AppState;
use switchboard_console::inprocess::{InProcess, Origin};

/// A client of the in-process API, logged in as one account.
#[derive(Clone)]
pub struct Api {
    app: InProcess,
    token: String,
}

/// One part of a multipart body: its name, file name (for a file) and content.
pub struct Part<'a> {
    /// The field name.
    pub name: &'a str,
    /// The file name, for a file part.
    pub file_name: Option<&'a str>,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl<'a> Part<'a> {
    /// A text field.
    pub fn text(name: &'a str, value: impl Into<String>) -> Part<'a> {
        Part {
            name,
            file_name: None,
            bytes: value.into().into_bytes(),
        }
    }

    /// A file.
    pub fn file(name: &'a str, file_name: &'a str, bytes: Vec<u8>) -> Part<'a> {
        Part {
            name,
            file_name: Some(file_name),
            bytes,
        }
    }
}

/// Separates the parts of the demo's multipart bodies (it never occurs in them: the
/// files are audio, images and documents the demo made, the fields JSON and names).
const BOUNDARY: &str = "switchboard-demo-7c1f4e2a9b";

impl Api {
    /// Logs in as `email` through `POST /v2/authentication/`.
    pub async fn login(state: &AppState, email: &str, password: &str) -> anyhow::Result<Api> {
        let mut api = Api {
            app: InProcess::new(switchboard_api::in_process(state.clone())),
            token: String::new(),
        };
        let answer = api
            .post(
                "/v2/authentication/",
                json!({"email": email, "password": password}),
            )
            .await
            .with_context(|| format!("logging in as {email}"))?;
        api.token = answer["accessToken"]
            .as_str()
            .context("the login answered no access token")?
            .to_owned();
        Ok(api)
    }

    /// Sends one request; answers the body of a 2xx answer, an error naming the
    /// request and the answer otherwise.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> anyhow::Result<(String, bytes::Bytes)> {
        let token = (!self.token.is_empty()).then_some(self.token.as_str());
        let answer = self
            .app
            .send(
                &Origin::local(),
                method.clone(),
                path,
                token,
                content_type,
                body,
            )
            .await?;
        let status = answer.status;
        let answered_type = answer
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let bytes = answer.body;
        if !status.is_success() {
            bail!(
                "{method} {path} answered {status}: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        Ok((answered_type, bytes))
    }

    /// Sends `body` as JSON with `method` and answers the JSON answer.
    pub async fn json(&self, method: Method, path: &str, body: Value) -> anyhow::Result<Value> {
        let (_, bytes) = self
            .send(
                method,
                path,
                Some("application/json"),
                serde_json::to_vec(&body)?,
            )
            .await?;
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// `POST` of a JSON body.
    pub async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        self.json(Method::POST, path, body).await
    }

    /// `PATCH` of a JSON body.
    pub async fn patch(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        self.json(Method::PATCH, path, body).await
    }

    /// `GET` of a JSON answer.
    pub async fn get(&self, path: &str) -> anyhow::Result<Value> {
        let (_, bytes) = self.send(Method::GET, path, None, Vec::new()).await?;
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// `POST` of a multipart body, answering the JSON answer.
    pub async fn post_parts(&self, path: &str, parts: Vec<Part<'_>>) -> anyhow::Result<Value> {
        let mut body = Vec::new();
        for part in parts {
            body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
            match part.file_name {
                Some(file_name) => body.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n",
                        part.name
                    )
                    .as_bytes(),
                ),
                None => body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{}\"\r\n\r\n", part.name)
                        .as_bytes(),
                ),
            }
            body.extend_from_slice(&part.bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
        let (_, bytes) = self
            .send(Method::POST, path, Some(&content_type), body)
            .await?;
        Ok(serde_json::from_slice(&bytes)?)
    }
}

/// The `id` of an answered record.
pub fn id(record: &Value) -> anyhow::Result<i64> {
    record["id"]
        .as_i64()
        .with_context(|| format!("the answer has no id: {record}"))
}
