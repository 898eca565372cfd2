//! Switchboard's text-to-speech: one small [`Engine`] interface (so a hosted engine can be
//! added by configuration later), espeak-ng behind it, the voice [`Catalogue`] built from
//! what the installed engine reports, and [`Speech`], which renders prompts off the
//! request threads through a bounded queue and answers telephony audio (8 kHz 16-bit mono
//! WAV).

pub mod espeak;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_storage::audio::rendition::{self, Pcm, RenditionError, TELEPHONY_RATE};
use tokio::sync::Semaphore;

/// Ids of custom voices start with this; the catalogue drops any engine voice whose id
/// would (so the two can never collide).
pub const CUSTOM_PREFIX: &str = "custom-";

/// One voice an engine offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Voice {
    /// Stable id, used in `/text-to-speech/voices/{id}/tts`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The engine that speaks it (`espeak-ng`).
    pub engine: &'static str,
    /// BCP-47 tags of the languages it speaks, its own first, each with the engine's
    /// priority for that language (lower is preferred).
    pub languages: Vec<(String, u32)>,
    /// `male`, `female`, or unknown.
    pub gender: Option<&'static str>,
    /// The rate the engine renders it at, in Hz.
    pub sample_rate_hz: u32,
    /// What the engine itself calls it (espeak-ng: the voice file, `gmw/en-US`).
    pub engine_name: String,
}

impl Voice {
    /// Whether it speaks `tag` (compared without case, as BCP-47 tags are).
    pub fn speaks(&self, tag: &str) -> bool {
        self.languages
            .iter()
            .any(|(language, _)| language.eq_ignore_ascii_case(tag))
    }

    /// Its own language, the one it speaks when asked for none.
    pub fn language(&self) -> &str {
        self.languages.first().map_or("", |(tag, _)| tag)
    }
}

/// A language of the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Language {
    /// BCP-47 tag (`en-GB`).
    pub tag: String,
    /// Display name (`English (Great Britain)`).
    pub name: String,
    /// How many voices speak it.
    pub voices: usize,
}

/// The voices of an engine and the languages they speak.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    voices: Vec<Voice>,
    languages: Vec<Language>,
}

impl Catalogue {
    /// The catalogue of `voices` (languages and their names derived from them); a voice
    /// whose id is taken, or would collide with custom voices, is left out.
    pub fn new(voices: Vec<Voice>) -> Catalogue {
        let mut seen = std::collections::HashSet::new();
        let voices: Vec<Voice> = voices
            .into_iter()
            .filter(|voice| {
                let keep = !voice.id.starts_with(CUSTOM_PREFIX) && seen.insert(voice.id.clone());
                if !keep {
                    tracing::warn!(id = voice.id, "an engine voice left out: its id is taken");
                }
                keep
            })
            .collect();
        let mut languages: BTreeMap<String, Language> = BTreeMap::new();
        for voice in &voices {
            for (index, (tag, _)) in voice.languages.iter().enumerate() {
                let entry = languages
                    .entry(tag.to_ascii_lowercase())
                    .or_insert_with(|| Language {
                        tag: tag.clone(),
                        name: String::new(),
                        voices: 0,
                    });
                entry.voices += 1;
                // A voice's own language is named after it; a language only others list
                // takes the name of its preferred voice, less its variety.
                if index == 0 {
                    entry.name = voice.name.clone();
                }
            }
        }
        let catalogue = Catalogue {
            voices,
            languages: Vec::new(),
        };
        let languages = languages
            .into_values()
            .map(|mut language| {
                if language.name.is_empty() {
                    language.name = catalogue
                        .preferred(&language.tag)
                        .map(|voice| general_name(&voice.name))
                        .unwrap_or_else(|| language.tag.clone());
                }
                language
            })
            .collect();
        Catalogue {
            languages,
            ..catalogue
        }
    }

    /// Every voice, or those speaking `language`.
    pub fn voices(&self, language: Option<&str>) -> Vec<&Voice> {
        self.voices
            .iter()
            .filter(|voice| language.is_none_or(|tag| voice.speaks(tag)))
            .collect()
    }

    /// The voice of `id`.
    pub fn voice(&self, id: &str) -> Option<&Voice> {
        self.voices.iter().find(|voice| voice.id == id)
    }

    /// Every language, by tag.
    pub fn languages(&self) -> &[Language] {
        &self.languages
    }

    /// The engine's preferred voice for `language` (the lowest priority for it).
    pub fn preferred(&self, language: &str) -> Option<&Voice> {
        self.voices
            .iter()
            .filter_map(|voice| {
                voice
                    .languages
                    .iter()
                    .find(|(tag, _)| tag.eq_ignore_ascii_case(language))
                    .map(|(_, priority)| (*priority, voice))
            })
            .min_by_key(|(priority, _)| *priority)
            .map(|(_, voice)| voice)
    }

    /// Whether some voice speaks `language`.
    pub fn supports(&self, language: &str) -> bool {
        self.preferred(language).is_some()
    }
}

/// `English (Great Britain)` → `English`.
fn general_name(name: &str) -> String {
    name.split(" (").next().unwrap_or(name).to_owned()
}

/// How a voice is spoken: each `None` leaves the engine's default.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prosody {
    /// Words per minute (80–450).
    pub rate: Option<u32>,
    /// Pitch, 0–99 (50 is the voice's own).
    pub pitch: Option<u32>,
    /// Volume, 0–200 (100 is the voice's own).
    pub volume: Option<u32>,
}

/// One piece of a prompt: text spoken by a voice in a language, then silence.
#[derive(Debug, Clone)]
pub struct Piece {
    /// The voice.
    pub voice: Voice,
    /// The text.
    pub text: String,
    /// Silence after it, in milliseconds.
    pub pause_ms: u32,
}

/// A text-to-speech engine.
pub trait Engine: Send + Sync + fmt::Debug {
    /// Its name (`espeak-ng`).
    fn name(&self) -> &'static str;
    /// The voices it offers, asked of the engine itself.
    fn voices(&self) -> BoxFuture<'_, Result<Vec<Voice>, String>>;
    /// `text` spoken by `voice` as mono audio at the voice's rate, at most `max_seconds`
    /// long: the engine stops when its audio would pass that, answering
    /// [`SpeechError::TooLong`] (the request's budget left, shared by its segments).
    fn render<'a>(
        &'a self,
        voice: &'a Voice,
        text: &'a str,
        prosody: Prosody,
        max_seconds: f64,
    ) -> BoxFuture<'a, Result<Pcm, SpeechError>>;
}

/// Why speech could not be rendered.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpeechError {
    /// No engine can be used here (not installed, failed to start); the text says why.
    #[error("text-to-speech is unavailable: {0}")]
    Unavailable(String),
    /// The queue is full.
    #[error("text-to-speech is busy: {0} prompts are already queued")]
    Busy(usize),
    /// The engine failed on this text.
    #[error("the speech engine failed: {0}")]
    Engine(String),
    /// Spoken, the request's text is longer than its audio may be (the bound is per
    /// request, its segments together, so one prompt cannot take the memory of every
    /// other); the figure is that bound in seconds.
    #[error("is too long when spoken: more than {0} seconds of audio")]
    TooLong(u64),
    /// Its audio could not be converted.
    #[error(transparent)]
    Audio(#[from] RenditionError),
}

/// Rendering settings.
#[derive(Debug, Clone, Copy)]
pub struct QueueSettings {
    /// Prompts rendered at once.
    pub workers: usize,
    /// Prompts that may wait for a worker; the next is refused with [`SpeechError::Busy`].
    pub queue: usize,
    /// The longest audio one request may become, its segments and pauses together, in
    /// seconds; a longer one is [`SpeechError::TooLong`].
    pub max_audio_seconds: u64,
}

/// The text-to-speech service: an engine, its catalogue, and the bounded rendering queue.
#[derive(Clone, Debug)]
pub struct Speech {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    engine: Option<Arc<dyn Engine>>,
    catalogue: Result<Catalogue, String>,
    /// Workers plus queue places: a render holds one from arrival to answer.
    admitted: Arc<Semaphore>,
    workers: Semaphore,
    queue: usize,
    max_audio_seconds: u64,
}

impl Speech {
    /// The service over `engine`, its catalogue read from it now; when the engine cannot
    /// answer, the service still exists and every use says why it is unavailable.
    pub async fn new(engine: Arc<dyn Engine>, settings: QueueSettings) -> Speech {
        let catalogue = engine.voices().await.map(Catalogue::new);
        if let Err(why) = &catalogue {
            tracing::warn!(
                engine = engine.name(),
                "text-to-speech is unavailable: {why}"
            );
        }
        Speech::with(Some(engine), catalogue, settings)
    }

    /// A service without an engine (every use answers [`SpeechError::Unavailable`]).
    pub fn unavailable(why: impl Into<String>) -> Speech {
        Speech::with(
            None,
            Err(why.into()),
            QueueSettings {
                workers: 1,
                queue: 0,
                max_audio_seconds: 1,
            },
        )
    }

    fn with(
        engine: Option<Arc<dyn Engine>>,
        catalogue: Result<Catalogue, String>,
        settings: QueueSettings,
    ) -> Speech {
        let workers = settings.workers.max(1);
        Speech {
            inner: Arc::new(Inner {
                engine,
                catalogue,
                admitted: Arc::new(Semaphore::new(workers + settings.queue)),
                workers: Semaphore::new(workers),
                queue: settings.queue,
                max_audio_seconds: settings.max_audio_seconds.max(1),
            }),
        }
    }

    /// The catalogue, or why there is none.
    pub fn catalogue(&self) -> Result<&Catalogue, SpeechError> {
        self.inner
            .catalogue
            .as_ref()
            .map_err(|why| SpeechError::Unavailable(why.clone()))
    }

    /// `pieces` spoken in order, each followed by its pause, as an 8 kHz 16-bit mono WAV
    /// file. Waits for a worker when all are busy; refused at once with
    /// [`SpeechError::Busy`] when the queue is full too. The pieces share one audio budget
    /// (`max_audio_seconds`, pauses included): each is rendered with what the ones before
    /// it left, so ten segments hold no more than one prompt may.
    pub async fn speak(&self, pieces: &[Piece], prosody: Prosody) -> Result<Vec<u8>, SpeechError> {
        let engine = match (&self.inner.engine, &self.inner.catalogue) {
            (Some(engine), Ok(_)) => engine,
            (_, Err(why)) => return Err(SpeechError::Unavailable(why.clone())),
            (None, Ok(_)) => return Err(SpeechError::Unavailable("no engine".into())),
        };
        let _admitted = Arc::clone(&self.inner.admitted)
            .try_acquire_owned()
            .map_err(|_| SpeechError::Busy(self.inner.queue))?;
        let _working = self
            .inner
            .workers
            .acquire()
            .await
            .map_err(|_| SpeechError::Unavailable("the queue is closed".into()))?;
        let total = self.inner.max_audio_seconds;
        let too_long = || SpeechError::TooLong(total);
        let mut left = total as f64;
        let mut spoken = Vec::with_capacity(pieces.len());
        for (index, piece) in pieces.iter().enumerate() {
            if left <= 0.0 {
                return Err(too_long());
            }
            let pcm = match engine
                .render(&piece.voice, &piece.text, prosody, left)
                .await
            {
                Ok(pcm) => pcm,
                // The engine knows only the budget it was given; the answer names the
                // request's.
                Err(SpeechError::TooLong(_)) => return Err(too_long()),
                Err(other) => return Err(other),
            };
            left -= pcm.duration_seconds();
            // A pause follows every piece but the last.
            if index + 1 < pieces.len() {
                left -= f64::from(piece.pause_ms) / 1000.0;
            }
            if left < 0.0 {
                return Err(too_long());
            }
            spoken.push((pcm, piece.pause_ms));
        }
        // Resampling and writing are CPU work: the blocking pool, not a request thread.
        tokio::task::spawn_blocking(move || join(spoken))
            .await
            .map_err(|e| SpeechError::Engine(format!("the audio task failed: {e}")))?
    }
}

/// The pieces at 8 kHz, each followed by its silence, as one WAV file.
fn join(pieces: Vec<(Pcm, u32)>) -> Result<Vec<u8>, SpeechError> {
    let mut samples = Vec::new();
    let count = pieces.len();
    for (index, (pcm, pause_ms)) in pieces.into_iter().enumerate() {
        samples.extend(rendition::resample(&pcm, TELEPHONY_RATE)?.samples);
        // No trailing silence after the last piece.
        if index + 1 < count {
            let pause = (u64::from(TELEPHONY_RATE) * u64::from(pause_ms) / 1000) as usize;
            samples.resize(samples.len() + pause, 0.0);
        }
    }
    Ok(rendition::wav(&Pcm {
        sample_rate: TELEPHONY_RATE,
        samples,
    })?)
}
