//! Media files: uploaded audio (WAV, MP3, OGG) played by paging groups, announcements and
//! holidays, with an optional spoken text in one or several languages.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use super::NAME;
use super::speech::{LANGUAGE, TEXT, VOICE_ID};
use crate::declare::{self, Body, Listed};
use crate::ids::{MediaFileId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{Field, ID, ListOf, Nested, ObjectReader, Problems, Rule, list_of, nested};

/// Texts in several languages.
pub const MULTILINGUAL: ListOf<Nested<LanguageText>> = list_of(nested::<LanguageText>(), 0, 100);

/// Text in one language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Body)]
pub struct LanguageText {
    /// The language tag.
    #[field(rule = LANGUAGE)]
    pub language: String,
    /// The text, at most 5,000 characters.
    #[field(rule = TEXT)]
    pub text: String,
}

/// A media file.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, duration, size, tenant_id), filter = TenantFilter, search("name", "text"))]
pub struct MediaFile {
    /// The media file's id.
    pub id: MediaFileId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its display name.
    pub name: String,
    /// The audio's type, decided from its bytes: `audio/wav`, `audio/mpeg` or `audio/ogg`.
    pub content_type: String,
    /// Size in bytes.
    #[list(column = "size_bytes")]
    pub size: i64,
    /// Playing time in seconds, measured from the audio.
    #[list(column = "duration_seconds")]
    pub duration: f64,
    /// The language of its text.
    pub language: Option<String>,
    /// What the audio says.
    pub text: Option<String>,
    /// What the audio says, per language.
    pub multilingual_text: Option<Vec<LanguageText>>,
    /// The text-to-speech voice it was made with (an engine voice's id or `custom-{n}`);
    /// null for recorded audio.
    pub voice_id: Option<String>,
    /// A short-lived signed URL of its telephony rendition: 8 kHz 16-bit mono WAV, made
    /// once at upload, what the telephony engine plays. Null for a file stored before
    /// renditions until the background work makes its own (moments after the upgrade),
    /// and for one whose audio could not be converted (`renditionError`).
    pub rendition_url: Option<String>,
    /// Why the file has no telephony rendition: the reason its audio could not be
    /// converted when the background work tried (a file stored before renditions); null
    /// otherwise. Such a file is played as it is.
    pub rendition_error: Option<String>,
    /// A short-lived signed URL that fetches the audio.
    pub url: String,
    /// When `url` stops working (RFC 3339).
    pub url_expires_at: String,
}

/// The fields of a media file besides its audio, as sent in the upload form or a patch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MediaFileFields {
    /// Display name.
    pub name: Option<String>,
    /// Language tag; `Some(None)` clears it.
    pub language: Option<Option<String>>,
    /// Text; `Some(None)` clears it.
    pub text: Option<Option<String>>,
    /// Text per language; `Some(None)` clears it.
    pub multilingual_text: Option<Option<Vec<LanguageText>>>,
}

/// The multipart form of `POST /v2/admin/media-files/`: `file` and `name`, optional
/// `tenantId`, `voiceId`, `language`, and `text` or `multilingualText` (a JSON array of
/// `{language, text}`). Its schema is built from the same rules the form is read with.
#[derive(Clone, Debug)]
pub struct MediaFileUpload;

impl PartialSchema for MediaFileUpload {
    fn schema() -> RefOr<Schema> {
        let mut form =
            declare::object(Some("The multipart form of `POST /v2/admin/media-files/`."));
        let binary = ObjectBuilder::new().schema_type(Type::String).format(Some(
            utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Binary),
        ));
        declare::property(
            &mut form,
            "file",
            RefOr::T(binary.into()),
            Value::Null,
            Some("The audio: WAV, MP3 or OGG (Vorbis or Opus), decided from the bytes."),
            true,
            false,
        );
        declare::property(
            &mut form,
            "name",
            Field::field_schema(&NAME),
            Value::Null,
            Some("Display name."),
            true,
            false,
        );
        declare::property(
            &mut form,
            "tenantId",
            RefOr::T(ID.query_schema()),
            Value::Null,
            Some("The owning tenant; tenant-scoped callers may omit it."),
            false,
            false,
        );
        declare::property(
            &mut form,
            "voiceId",
            Field::field_schema(&VOICE_ID),
            Value::Null,
            Some(
                "The text-to-speech voice that rendered the file (a voice of \
                 /text-to-speech/voices, or a custom voice `custom-{n}` of the same tenant); \
                 omitted for recorded audio.",
            ),
            false,
            false,
        );
        declare::property(
            &mut form,
            "language",
            Field::field_schema(&LANGUAGE),
            Value::Null,
            Some("Language tag of `text`."),
            false,
            false,
        );
        declare::property(
            &mut form,
            "text",
            Field::field_schema(&TEXT),
            Value::Null,
            Some("What the audio says; not together with `multilingualText`."),
            false,
            false,
        );
        declare::property(
            &mut form,
            "multilingualText",
            // A form part is text: the array of `{language, text}` travels as JSON in it
            // (read by the same rule as in JSON bodies), which the part's media type says.
            RefOr::T(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .content_media_type("application/json")
                    .into(),
            ),
            Value::Null,
            Some(
                "What the audio says per language: a JSON array of `{language, text}` (see \
                 LanguageText); not together with `text`.",
            ),
            false,
            false,
        );
        // `text` and `multilingualText` exclude each other here too (the descriptions say
        // so), but a `not` beside a binary part breaks form generators (schemathesis among
        // them), so the form states it in words only.
        RefOr::T(Schema::Object(form))
    }
}

impl ToSchema for MediaFileUpload {
    fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
        MULTILINGUAL.components(out);
    }
}

/// The body of `PATCH /v2/admin/media-files/{id}` (the audio itself is replaced by a new
/// upload, not patched): fields not sent stay unchanged.
#[derive(Clone, Debug, Default, Body)]
#[body(exclusive(text, multilingualText))]
pub struct UpdateMediaFile {
    /// Display name.
    #[field(rule = NAME)]
    pub name: Option<String>,
    /// Language tag, or null.
    #[field(rule = LANGUAGE)]
    pub language: Option<Option<String>>,
    /// What the audio says, or null; not together with `multilingualText`.
    #[field(rule = TEXT)]
    pub text: Option<Option<String>>,
    /// What the audio says per language, or null; not together with `text`.
    #[field(rule = MULTILINGUAL)]
    pub multilingual_text: Option<Option<Vec<LanguageText>>>,
}

impl From<UpdateMediaFile> for MediaFileFields {
    fn from(body: UpdateMediaFile) -> Self {
        MediaFileFields {
            name: body.name,
            language: body.language,
            text: body.text,
            multilingual_text: body.multilingual_text,
        }
    }
}

/// Rejects `text` together with `multilingualText` (release notes: mutually exclusive),
/// in the multipart form.
pub fn check_exclusive(
    fields: &MediaFileFields,
    problems: &mut Problems,
    location: crate::Location,
) {
    let has_text = matches!(fields.text, Some(Some(_)));
    let has_multi = matches!(fields.multilingual_text, Some(Some(_)));
    if has_text && has_multi {
        problems.add(
            location,
            "multilingualText",
            "must not be sent together with text",
        );
    }
}

/// Parses the `multilingualText` form field (a JSON array of `{language, text}`), adding
/// problems under `body/multilingualText`.
pub fn parse_multilingual_form(raw: &str, problems: &mut Problems) -> Option<Vec<LanguageText>> {
    let value: Value = match serde_json::from_str(raw) {
        Ok(value) => value,
        Err(_) => {
            problems.add(
                crate::Location::Body,
                "multilingualText",
                "must be a JSON array of {language, text}",
            );
            return None;
        }
    };
    let wrapped = serde_json::json!({ "multilingualText": value });
    let mut r = ObjectReader::body(&wrapped, problems)?;
    r.required("multilingualText", &MULTILINGUAL)
}
