//! Text-to-speech: the voice catalogue as answered, what a prompt to render takes, and the
//! rules every spoken text, language tag and voice id follows (media files, custom voices
//! and reports name them from here).

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::declare::Body;
use crate::ids::TenantId;
use crate::validation::{
    Chars, Int, ListOf, Nested, ObjectReader, Text, int, list_of, nested, text,
};

/// Longest text to speak (release notes: 5,000 characters).
pub const TEXT: Text = text(1, 5000);

/// The pattern of a language tag (`en`, `en-US`, `pt-BR`).
pub const LANGUAGE_PATTERN: &str = "^[A-Za-z0-9-]+$";

/// A language tag: 2 to 35 letters, digits and hyphens.
pub const LANGUAGE: Chars = Chars {
    min: 2,
    max: 35,
    pattern: LANGUAGE_PATTERN,
    allowed: |c| c.is_ascii_alphanumeric() || c == '-',
    sample: "en-US",
};

/// An engine voice's id: lower-case letters, digits and hyphens.
pub const VOICE_ID: Chars = Chars {
    min: 1,
    max: 64,
    pattern: "^[a-z0-9-]+$",
    allowed: |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-',
    sample: "en-us",
};

/// A voice of the catalogue (an engine's, or a tenant's custom voice over one).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TtsVoice {
    /// Its id, for `/text-to-speech/voices/{id}/tts`: the engine's voice name (`en-us`),
    /// or `custom-{n}` for a custom voice.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The engine that speaks it (`espeak-ng`).
    pub engine: String,
    /// BCP-47 tags of the languages it speaks, its own first.
    pub languages: Vec<String>,
    /// `male`, `female`, or null when the engine does not say.
    pub gender: Option<String>,
    /// The rate the engine renders at, in Hz (answers are resampled to 8 kHz).
    pub sample_rate_hz: u32,
    /// For a custom voice (`custom-{n}`), the engine voice it speaks with; null for an
    /// engine voice.
    pub base_voice_id: Option<String>,
    /// For a custom voice, the tenant it belongs to; null for an engine voice.
    pub tenant_id: Option<TenantId>,
}

/// A language some voice speaks.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TtsLanguage {
    /// BCP-47 tag (`en-GB`).
    pub tag: String,
    /// Display name (`English (Great Britain)`).
    pub name: String,
    /// How many voices speak it.
    pub voice_count: usize,
}

/// Silence after a segment, in milliseconds.
pub const PAUSE: Int = int(0, 10_000);
/// The silence after a segment when none is asked.
pub const DEFAULT_PAUSE_MS: i64 = 300;
/// The most segments in one prompt.
pub const MAX_SEGMENTS: usize = 10;
/// Segments of a prompt.
pub const SEGMENTS: ListOf<Nested<Segment>> = list_of(nested::<Segment>(), 1, MAX_SEGMENTS);

/// One part of a prompt, in its language.
#[derive(Clone, Debug, PartialEq, Eq, Body)]
#[body(check = Segment::check)]
pub struct Segment {
    /// BCP-47 tag of the language it is spoken in.
    #[field(rule = LANGUAGE)]
    pub language: String,
    /// What is said, at most 5,000 characters.
    #[field(rule = TEXT)]
    pub text: String,
    /// Silence after it before the next segment, in milliseconds (default 300).
    #[field(rule = PAUSE)]
    pub pause_ms: Option<i64>,
}

impl Segment {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        not_blank(&self.text, "text", r)
    }
}

fn not_blank(text: &str, key: &str, r: &mut ObjectReader<'_>) -> bool {
    if text.trim().is_empty() {
        r.problem(key, "must hold something to say");
        return false;
    }
    true
}

/// The body of `POST /text-to-speech/voices/{id}/tts`: `text` (with an optional
/// `language`) or `segments`, exactly one of them.
#[derive(Clone, Debug, Body)]
#[body(check = SpeakRequest::check, example = SpeakRequest::example_body)]
pub struct SpeakRequest {
    /// What is said, at most 5,000 characters; not with `segments`.
    #[field(rule = TEXT)]
    pub text: Option<String>,
    /// BCP-47 tag of the language `text` is in; one the voice speaks (default: the
    /// voice's own). Not with `segments`, which name theirs.
    #[field(rule = LANGUAGE)]
    pub language: Option<String>,
    /// 1 to 10 parts, each in its language, spoken in order; not with `text`.
    #[field(rule = SEGMENTS)]
    pub segments: Option<Vec<Segment>>,
}

impl SpeakRequest {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        let before = r.problem_count();
        match (&self.text, &self.segments) {
            (Some(_), Some(_)) => {
                r.problem("text", "cannot be sent with segments");
                r.problem("segments", "cannot be sent with text");
            }
            (None, None) => {
                r.problem("text", "is required unless segments are sent");
                r.problem("segments", "are required unless text is sent");
            }
            (Some(text), None) => {
                not_blank(text, "text", r);
            }
            (None, Some(_)) => {
                if self.language.is_some() {
                    r.problem(
                        "language",
                        "cannot be sent with segments (each segment names its own)",
                    );
                }
            }
        }
        r.problem_count() == before
    }

    fn example_body() -> Value {
        json!({"text": "Thank you for calling. Please hold.", "language": "en-US"})
    }
}
