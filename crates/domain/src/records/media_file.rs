//! Media files: uploaded audio (WAV, MP3, OGG) played by paging groups, announcements and
//! holidays, with an optional spoken text in one or several languages.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::{MediaFileId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    Broken, Chars, FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader, Text, text,
};

/// Longest `text` (release notes: 5,000 characters).
pub const TEXT: Text = text(1, 5000);

/// The pattern of a language tag (`en`, `en-US`, `pt-BR`).
pub const LANGUAGE_PATTERN: &str = "^[A-Za-z0-9-]+$";

/// A language tag: 2 to 35 letters, digits and hyphens.
pub const LANGUAGE: Chars = Chars {
    min: 2,
    max: 35,
    pattern: LANGUAGE_PATTERN,
    allowed: |c| c.is_ascii_alphanumeric() || c == '-',
};

/// Text in one language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LanguageText {
    /// The language tag.
    #[schema(min_length = 2, max_length = 35, pattern = "^[A-Za-z0-9-]+$")]
    pub language: String,
    /// The text, at most 5,000 characters.
    #[schema(min_length = 1, max_length = 5000)]
    pub text: String,
}

/// A media file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
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
    pub size: i64,
    /// Playing time in seconds, measured from the audio.
    pub duration: f64,
    /// The language of its text.
    pub language: Option<String>,
    /// What the audio says.
    pub text: Option<String>,
    /// What the audio says, per language.
    pub multilingual_text: Option<Vec<LanguageText>>,
    /// The text-to-speech voice it was made with; null for uploaded audio.
    pub voice_id: Option<String>,
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

/// The multipart form of `POST /v2/admin/media-files/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct MediaFileUpload {
    /// The audio: WAV, MP3 or OGG (Vorbis or Opus), decided from the bytes.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// Display name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, pattern = "^[1-9][0-9]*$")]
    pub tenant_id: Option<String>,
    /// Language tag of `text`.
    #[schema(
        nullable = false,
        min_length = 2,
        max_length = 35,
        pattern = "^[A-Za-z0-9-]+$"
    )]
    pub language: Option<String>,
    /// What the audio says; not together with `multilingualText`.
    #[schema(nullable = false, min_length = 1, max_length = 5000)]
    pub text: Option<String>,
    /// A JSON array of `{language, text}`; not together with `text`.
    #[schema(nullable = false)]
    pub multilingual_text: Option<String>,
}

/// The body of `PATCH /v2/admin/media-files/{id}`, as documented (the audio itself is
/// replaced by a new upload, not patched).
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdateMediaFileBody {
    /// Display name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// Language tag, or null.
    #[schema(min_length = 2, max_length = 35, pattern = "^[A-Za-z0-9-]+$")]
    pub language: Option<Option<String>>,
    /// What the audio says, or null; not together with `multilingualText`.
    #[schema(min_length = 1, max_length = 5000)]
    pub text: Option<Option<String>>,
    /// What the audio says per language, or null; not together with `text`.
    pub multilingual_text: Option<Option<Vec<LanguageText>>>,
}

/// The parsed body of `PATCH /v2/admin/media-files/{id}`.
#[derive(Clone, Debug, Default)]
pub struct UpdateMediaFile(pub MediaFileFields);

documented_as!(UpdateMediaFileBody => UpdateMediaFile);

/// Reads `multilingualText` items: each `{language, text}`.
fn read_languages(
    r: &mut ObjectReader<'_>,
    key: &str,
) -> Result<Option<Option<Vec<LanguageText>>>, Broken> {
    if r.is_null(key) {
        return Ok(Some(None));
    }
    r.objects(key, |item| {
        let language = item.required("language", &LANGUAGE);
        let text = item.required("text", &TEXT);
        Some(LanguageText {
            language: language?,
            text: text?,
        })
    })
    .map(|list| list.map(Some))
}

/// Rejects `text` together with `multilingualText` (release notes: mutually exclusive).
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

impl FromBody for UpdateMediaFile {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.optional("name", &NAME),
                r.nullable("language", &LANGUAGE),
                r.nullable("text", &TEXT),
                read_languages(&mut r, "multilingualText"),
            )
        });
        let fields = fields.and_then(|(name, language, text, multi)| {
            Some(MediaFileFields {
                name: name.ok()?,
                language: language.ok()?,
                text: text.ok()?,
                multilingual_text: multi.ok()?,
            })
        });
        if let Some(fields) = &fields {
            check_exclusive(fields, &mut problems, crate::Location::Body);
        }
        problems.finish(|| Some(UpdateMediaFile(fields?)))
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
    read_languages(&mut r, "multilingualText")
        .ok()
        .flatten()
        .flatten()
}

/// Filters of the media file list.
#[derive(Clone, Debug, Default)]
pub struct MediaFileFilter {
    /// Only the media files of this tenant.
    pub tenant_id: Option<TenantId>,
}

impl FromQuery for MediaFileFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let tenant_id = QueryReader::new(params, &mut problems).optional("tenantId", &ID);
        problems.finish(|| {
            Some(MediaFileFilter {
                tenant_id: tenant_id.map(TenantId),
            })
        })
    }
}

/// Sorting and search of the media file list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "id",
        },
        SortField {
            name: "name",
            column: "name",
        },
        SortField {
            name: "duration",
            column: "duration_seconds",
        },
        SortField {
            name: "size",
            column: "size_bytes",
        },
        SortField {
            name: "tenantId",
            column: "tenant_id",
        },
    ],
    search_columns: &["name", "text"],
    search_index: None,
};

impl crate::list::ListFilter for MediaFileFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[FilterDoc {
        name: "tenantId",
        description: "Only the media files of this tenant.",
        kind: FilterKind::Id,
    }];
}
