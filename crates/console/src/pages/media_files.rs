//! Media files: listed with the API's paging, each with a player of its telephony
//! rendition; uploaded (the browser's multipart form passed on to the API's upload), or
//! made by having a text spoken by one of the API's voices (the API's text-to-speech,
//! then its upload of the spoken audio with the voice and the text); renamed and deleted.
//!
//! The player plays `/console/media-files/{id}/audio`: the file's telephony rendition
//! (the 8 kHz WAV the engine plays; the file as uploaded when the API answers no
//! rendition), read through the API as the person and streamed with byte ranges from
//! either store ([`Visit::play`]).

use askama::Template;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{DefaultBodyLimit, Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::check_post;
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, query, record_id,
    records, tenant_pair,
};
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The largest upload the console passes on: the API's own limit (20 MiB) and room for
/// the form's other fields.
const UPLOAD_LIMIT: usize = 20 * 1024 * 1024 + 256 * 1024;

/// The fields of the upload form, by their API names.
const UPLOAD_FIELDS: [&str; 4] = ["file", "name", "language", "text"];

/// The fields of the spoken-text form, by their API names.
const SPEAK_FIELDS: [&str; 4] = ["voiceId", "name", "language", "text"];

/// The media files' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/media-files", get(list))
        .route(
            "/console/media-files/upload",
            get(upload_form)
                .post(upload)
                .layer(DefaultBodyLimit::max(UPLOAD_LIMIT)),
        )
        .route("/console/media-files/speak", get(speak_form).post(speak))
        .route("/console/media-files/{id}", get(edit_form).post(rename))
        .route("/console/media-files/{id}/delete", post(delete))
        .route("/console/media-files/{id}/audio", get(audio))
}

/// A media file as the pages show it.
struct Row {
    id: i64,
    name: String,
    /// Playing time, `1.5 s`.
    length: String,
    /// `Recorded` or `Spoken by en-us`.
    kind: String,
    text: String,
    /// What the player plays.
    play: String,
    /// Why the file has no telephony rendition, if the API says.
    rendition_error: String,
}

impl Row {
    fn of(record: &Value) -> Row {
        let id = record["id"].as_i64().unwrap_or(0);
        let text = |key: &str| record[key].as_str().unwrap_or_default().to_owned();
        Row {
            id,
            name: text("name"),
            length: format!("{:.1} s", record["duration"].as_f64().unwrap_or(0.0)),
            kind: match record["voiceId"].as_str() {
                Some(voice) => format!("Spoken by {voice}"),
                None => "Recorded".to_owned(),
            },
            text: text("text"),
            play: format!("/console/media-files/{id}/audio"),
            rendition_error: text("renditionError"),
        }
    }
}

#[derive(Template)]
#[template(path = "media_files.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "media_file.html")]
struct EditPage {
    chrome: Chrome,
    file: Row,
    /// The name shown in the field: the saved one, or what was typed.
    name: String,
    problems: Problems,
    note: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "media_file_upload.html")]
struct UploadPage {
    chrome: Chrome,
    name: String,
    language: String,
    text: String,
    problems: Problems,
}

/// A voice to pick.
struct VoiceOption {
    id: String,
    label: String,
}

#[derive(Template)]
#[template(path = "media_file_speak.html")]
struct SpeakPage {
    chrome: Chrome,
    /// The API's voices; empty with `unavailable` when it has no speech engine.
    voices: Vec<VoiceOption>,
    /// Why no text can be spoken now (the API's words).
    unavailable: Option<String>,
    voice_id: String,
    name: String,
    language: String,
    text: String,
    problems: Problems,
}

/// Whether a refusal of the API is shown on the form it came from (what was typed is
/// wrong), rather than as the page of its refusal (no such record, not allowed, a
/// failure).
pub(crate) fn on_the_form(status: StatusCode) -> bool {
    status.is_client_error() && !matches!(status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN)
}

/// A media file to pick (a paging group's intro message, a playlist's file).
pub(crate) struct MediaOption {
    /// Its id, as the form sends it.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// Every media file of the tenant acted on, as the API lists them to the person.
pub(crate) async fn options(visit: &mut Visit) -> Result<Vec<MediaOption>, PageError> {
    let person = visit.acting().await?;
    Ok(every(
        visit,
        &person,
        "/v2/admin/media-files/",
        &[("sortBy", "name")],
    )
    .await?
    .iter()
    .map(|record| MediaOption {
        id: record["id"].as_i64().unwrap_or(0).to_string(),
        name: record["name"].as_str().unwrap_or_default().to_owned(),
    })
    .collect())
}

/// `GET /console/media-files`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing =
        Listing::new("/console/media-files", params).with("query", field(params, "query"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "name".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/media-files/", order))
        .await?;
    let rows = records(&answer).iter().map(Row::of).collect();
    let note = match field(params, "done") {
        "uploaded" => Some("The media file is uploaded."),
        "spoken" => Some("The text is spoken and saved as a media file."),
        "renamed" => Some("The media file is renamed."),
        "deleted" => Some("The media file is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("media"),
        search: listing.filter("query").to_owned(),
        paging: listing.paging(&answer),
        rows,
        note,
    })
}

/// `GET /console/media-files/{id}`: the file, its player, the rename and delete forms.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let record = visit.get(&format!("/v2/admin/media-files/{id}")).await?;
        let file = Row::of(&record);
        html(&EditPage {
            chrome: visit.chrome("media"),
            name: file.name.clone(),
            file,
            problems: Problems::default(),
            note: None,
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/media-files/{id}`: renames the file.
async fn rename(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::PATCH,
                &format!("/v2/admin/media-files/{id}"),
                Some(json!({"name": field(&fields, "name").trim()})),
            )
            .await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/media-files?done=renamed").into_response());
        }
        if !on_the_form(answer.status) {
            return Err(refusal(&answer));
        }
        let record = visit.get(&format!("/v2/admin/media-files/{id}")).await?;
        html_as(
            &EditPage {
                chrome: visit.chrome("media"),
                file: Row::of(&record),
                name: field(&fields, "name").to_owned(),
                problems: Problems::of_refusal(&answer.json(), &["name"]),
                note: None,
            },
            answer.status,
        )
    }
    .await;
    visit.finish(page)
}

/// `POST /console/media-files/{id}/delete` (the API refuses a file something plays).
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/media-files/",
        "/console/media-files?done=deleted",
    )
    .await;
    visit.finish(page)
}

/// `GET /console/media-files/{id}/audio`: the file's telephony rendition (the file as
/// uploaded when it has none), read with the person's token, so only a file they may
/// see, and streamed with byte ranges ([`Visit::play`]).
async fn audio(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let record = visit.get(&format!("/v2/admin/media-files/{id}")).await?;
        let link = record["renditionUrl"]
            .as_str()
            .filter(|url| !url.is_empty())
            .or_else(|| record["url"].as_str())
            .unwrap_or_default()
            .to_owned();
        visit.play(&link).await
    }
    .await;
    visit.finish(page)
}

/// `GET /console/media-files/upload`.
async fn upload_form(mut visit: Visit) -> Response {
    let page = async {
        visit.acting().await?;
        html(&UploadPage {
            chrome: visit.chrome("media"),
            name: String::new(),
            language: String::new(),
            text: String::new(),
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// A file part of a form: its name and bytes.
struct FilePart {
    name: String,
    bytes: Vec<u8>,
}

/// The browser's multipart form: its text fields and its file, if one was chosen.
async fn read_form(multipart: &mut Multipart) -> Result<(Fields, Option<FilePart>), PageError> {
    let mut fields = Fields::new();
    let mut file = None;
    let unreadable = |error: axum::extract::multipart::MultipartError| {
        PageError::Refused(error.status(), error.body_text())
    };
    while let Some(part) = multipart.next_field().await.map_err(unreadable)? {
        let name = part.name().unwrap_or_default().to_owned();
        if name == "file" {
            let file_name = part.file_name().unwrap_or_default().to_owned();
            let bytes = part.bytes().await.map_err(unreadable)?;
            // A file input left empty sends a part with no name and no bytes.
            if !file_name.is_empty() || !bytes.is_empty() {
                file = Some(FilePart {
                    name: file_name,
                    bytes: bytes.to_vec(),
                });
            }
        } else {
            let text = part.text().await.map_err(unreadable)?;
            fields.insert(name, text);
        }
    }
    Ok((fields, file))
}

/// A `multipart/form-data` body of `fields` (empty ones left out) and `file`: its
/// content type (with the boundary) and its bytes.
fn multipart_body(fields: &[(&str, String)], file: Option<&FilePart>) -> (String, Vec<u8>) {
    let boundary = format!(
        "switchboard-console-{:016x}{:016x}",
        rand::random::<u64>(),
        rand::random::<u64>()
    );
    let mut body = Vec::new();
    for (name, value) in fields.iter().filter(|(_, value)| !value.is_empty()) {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    if let Some(file) = file {
        let file_name: String = file
            .name
            .chars()
            .filter(|c| !matches!(c, '"' | '\\' | '\r' | '\n'))
            .collect();
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(&file.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The problems of a refused upload: the API's validation errors by field, and a refusal
/// of the audio itself (not audio, too large) next to the file field.
fn upload_problems(status: StatusCode, body: &Value, shown: &[&str]) -> Problems {
    let mut problems = Problems::of_refusal(body, shown);
    if matches!(
        status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::PAYLOAD_TOO_LARGE
    ) {
        problems.general.clear();
        let message = body["message"].as_str().unwrap_or("the file was refused");
        problems
            .fields
            .entry("file".to_owned())
            .or_default()
            .push(message.to_owned());
    }
    problems
}

/// Posts the upload of `fields` and `file` to the API as the person: the new file's
/// record, or the refusal.
async fn send_upload(
    visit: &mut Visit,
    fields: &[(&str, String)],
    file: Option<&FilePart>,
) -> Result<crate::inprocess::Answer, PageError> {
    let person = visit.acting().await?;
    let mut parts = tenant_pair(&person)
        .into_iter()
        .collect::<Vec<(&str, String)>>();
    parts.extend(fields.iter().cloned());
    let (content_type, body) = multipart_body(&parts, file);
    visit
        .call_with(Method::POST, "/v2/admin/media-files/", &content_type, body)
        .await
}

/// `POST /console/media-files/upload`: passes the chosen file on to the API's upload.
async fn upload(mut visit: Visit, multipart: Result<Multipart, MultipartRejection>) -> Response {
    let page = async {
        let mut multipart = multipart.map_err(|_| PageError::Forged)?;
        let (fields, file) = read_form(&mut multipart).await?;
        check_post(&visit, &fields)?;
        let typed = |name: &str| field(&fields, name).trim().to_owned();
        let parts = [
            ("name", typed("name")),
            ("language", typed("language")),
            ("text", typed("text")),
        ];
        let answer = send_upload(&mut visit, &parts, file.as_ref()).await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/media-files?done=uploaded").into_response());
        }
        if !on_the_form(answer.status) {
            return Err(refusal(&answer));
        }
        html_as(
            &UploadPage {
                chrome: visit.chrome("media"),
                name: field(&fields, "name").to_owned(),
                language: field(&fields, "language").to_owned(),
                text: field(&fields, "text").to_owned(),
                problems: upload_problems(answer.status, &answer.json(), &UPLOAD_FIELDS),
            },
            answer.status,
        )
    }
    .await;
    visit.finish(page)
}

/// The API's voices, or why there are none (no speech engine: its message and status).
async fn voices(
    visit: &mut Visit,
) -> Result<Result<Vec<VoiceOption>, (StatusCode, String)>, PageError> {
    let person = visit.acting().await?;
    let pairs = tenant_pair(&person);
    let path = if pairs.is_empty() {
        "/v2/text-to-speech/voices".to_owned()
    } else {
        format!("/v2/text-to-speech/voices?{}", query(&pairs))
    };
    let answer = visit.call(Method::GET, &path, None).await?;
    if answer.status == StatusCode::SERVICE_UNAVAILABLE {
        let body = answer.json();
        let message = body["message"]
            .as_str()
            .unwrap_or("no speech engine is installed");
        return Ok(Err((answer.status, message.to_owned())));
    }
    let body = crate::visit::expect_success(answer)?;
    Ok(Ok(body
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|voice| {
            let id = voice["id"].as_str().unwrap_or_default().to_owned();
            let name = voice["name"].as_str().unwrap_or_default();
            let languages = voice["languages"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            VoiceOption {
                label: format!("{name} ({languages})"),
                id,
            }
        })
        .collect()))
}

/// The spoken-text page: the voices (or why none), and what the form holds.
async fn speak_page(
    visit: &mut Visit,
    fields: &Fields,
    problems: Problems,
) -> Result<(StatusCode, SpeakPage), PageError> {
    let (status, voices, unavailable) = match voices(visit).await? {
        Ok(voices) => (StatusCode::OK, voices, None),
        Err((status, message)) => (status, Vec::new(), Some(message)),
    };
    Ok((
        status,
        SpeakPage {
            chrome: visit.chrome("media"),
            voices,
            unavailable,
            voice_id: field(fields, "voiceId").to_owned(),
            name: field(fields, "name").to_owned(),
            language: field(fields, "language").to_owned(),
            text: field(fields, "text").to_owned(),
            problems,
        },
    ))
}

/// `GET /console/media-files/speak`: the form, or the API's word that no text can be
/// spoken on this server.
async fn speak_form(mut visit: Visit) -> Response {
    let page = async {
        let (status, page) = speak_page(&mut visit, &Fields::new(), Problems::default()).await?;
        html_as(&page, status)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/media-files/speak`: the API speaks the text with the picked voice, and
/// the spoken audio is uploaded as a media file with the voice and the text.
async fn speak(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = speak_and_save(&mut visit, &fields).await;
    visit.finish(page)
}

async fn speak_and_save(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    visit.acting().await?;
    let typed = |name: &str| field(fields, name).trim().to_owned();
    let (voice, language, text) = (typed("voiceId"), typed("language"), typed("text"));
    let mut request = json!({"text": text});
    if !language.is_empty() {
        request["language"] = json!(language);
    }
    let path = format!(
        "/v2/text-to-speech/voices/{}/tts",
        encode_segment(if voice.is_empty() { "-" } else { &voice })
    );
    let spoken = visit.call(Method::POST, &path, Some(request)).await?;
    let details = [
        ("name", typed("name")),
        ("voiceId", voice.clone()),
        ("language", language.clone()),
        ("text", text.clone()),
    ];
    let (status, problems) = if spoken.status.is_success() {
        let wav = FilePart {
            name: "spoken.wav".to_owned(),
            bytes: spoken.body.to_vec(),
        };
        let answer = send_upload(visit, &details, Some(&wav)).await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/media-files?done=spoken").into_response());
        }
        if !on_the_form(answer.status) {
            return Err(refusal(&answer));
        }
        (
            answer.status,
            Problems::of_refusal(&answer.json(), &SPEAK_FIELDS),
        )
    } else if on_the_form(spoken.status) || spoken.status == StatusCode::NOT_FOUND {
        // The speech was refused (the text, the language, no such voice): the upload's
        // rules are asked too, without audio (so nothing is stored), so every broken
        // field is named at once.
        // An unknown voice is a 404 there; the upload's rules name it next to its field.
        let mut problems = if spoken.status == StatusCode::NOT_FOUND {
            Problems::default()
        } else {
            Problems::of_refusal(&spoken.json(), &SPEAK_FIELDS)
        };
        let checked = send_upload(visit, &details, None).await?;
        let others = Problems::of_refusal(&checked.json(), &SPEAK_FIELDS);
        for (name, messages) in others.fields.into_iter().filter(|(n, _)| n != "file") {
            problems.fields.entry(name).or_insert(messages);
        }
        if !problems.any() {
            problems = Problems::of_refusal(&spoken.json(), &SPEAK_FIELDS);
        }
        let status = if spoken.status == StatusCode::NOT_FOUND && checked.status.is_client_error() {
            checked.status
        } else {
            spoken.status
        };
        (status, problems)
    } else {
        return Err(refusal(&spoken));
    };
    let (_, page) = speak_page(visit, fields, problems).await?;
    html_as(&page, status)
}

/// `text` as one path segment (a voice id is letters, digits, `-` and `+`).
fn encode_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multipart_body_carries_the_fields_and_the_file() {
        let file = FilePart {
            name: "hello \"there\".wav".to_owned(),
            bytes: b"RIFF....".to_vec(),
        };
        let (content_type, body) = multipart_body(
            &[("name", "Hello".to_owned()), ("text", String::new())],
            Some(&file),
        );
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .expect("a boundary");
        let body = String::from_utf8(body).expect("text");
        assert!(body.starts_with(&format!("--{boundary}\r\n")));
        assert!(body.contains("name=\"name\"\r\n\r\nHello\r\n"));
        assert!(!body.contains("name=\"text\""), "empty fields are left out");
        assert!(body.contains("filename=\"hello there.wav\""));
        assert!(body.ends_with(&format!("RIFF....\r\n--{boundary}--\r\n")));
    }

    #[test]
    fn a_refused_audio_is_named_next_to_the_file() {
        let body = json!({"message": "the file is not WAV, MP3 or OGG"});
        let problems = upload_problems(StatusCode::UNSUPPORTED_MEDIA_TYPE, &body, &UPLOAD_FIELDS);
        assert_eq!(
            problems.of("file").as_deref(),
            Some("the file is not WAV, MP3 or OGG")
        );
        assert!(problems.general.is_empty());
    }
}
