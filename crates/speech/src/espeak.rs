//! espeak-ng as an [`Engine`]: the voices are what `espeak-ng --voices` lists, the text goes
//! to `espeak-ng --stdin` (never through a shell, never as an argument), and the audio
//! comes back as WAV on its stdout.

use std::path::PathBuf;
use std::process::Stdio;

use futures::FutureExt;
use futures::future::BoxFuture;
use switchboard_storage::audio::rendition::{self, Pcm};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::{Engine, Prosody, SpeechError, Voice};

/// The engine's name in the catalogue.
pub const ENGINE: &str = "espeak-ng";

/// The bytes a second of espeak-ng's audio takes (22,050 Hz, 16-bit mono WAV).
const BYTES_PER_SECOND: u64 = 2 * 22_050;

/// The audio the catalogue's probe render may make (one letter).
const PROBE_SECONDS: f64 = 30.0;

/// espeak-ng, run as the program at `program` (`espeak-ng` from the PATH by default).
/// Each render is bounded by the audio budget its caller gives ([`Engine::render`]).
#[derive(Debug, Clone)]
pub struct EspeakNg {
    program: PathBuf,
}

impl Default for EspeakNg {
    fn default() -> Self {
        EspeakNg::new("espeak-ng")
    }
}

impl EspeakNg {
    /// espeak-ng run as `program`.
    pub fn new(program: impl Into<PathBuf>) -> EspeakNg {
        EspeakNg {
            program: program.into(),
        }
    }

    /// Runs espeak-ng with `args`, `stdin` its input; its output past `max_output_bytes`
    /// stops it (a text spoken at length cannot fill the memory).
    async fn run(
        &self,
        args: &[&str],
        stdin: &[u8],
        max_output_bytes: u64,
    ) -> Result<Vec<u8>, SpeechError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            SpeechError::Engine(format!("{what} {}: {e}", self.program.display()))
        };
        let mut child = Command::new(&self.program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A request given up on (a client gone, a timeout) stops its render.
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed("cannot run", &e))?;
        if let Some(mut input) = child.stdin.take() {
            input
                .write_all(stdin)
                .await
                .map_err(|e| failed("writing to", &e))?;
        }
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(failed("no pipes to", &"stdout or stderr"));
        };
        // One byte past the bound tells that the audio would have gone on.
        let (mut out, mut err) = (out.take(max_output_bytes + 1), err.take(64 << 10));
        let limit = max_output_bytes;
        let reading = async {
            let read = out.read_to_end(&mut stdout).await;
            if stdout.len() as u64 > limit {
                // Stopped now: blocked on the pipe, it would never close its stderr.
                let _ = child.start_kill();
            }
            read
        };
        let (read_out, read_err) = tokio::join!(reading, err.read_to_end(&mut stderr));
        read_out.map_err(|e| failed("reading from", &e))?;
        read_err.map_err(|e| failed("reading from", &e))?;
        if stdout.len() as u64 > max_output_bytes {
            // Killed above; dropped here, it is reaped (`kill_on_drop`).
            return Err(SpeechError::TooLong(max_output_bytes / BYTES_PER_SECOND));
        }
        let status = child.wait().await.map_err(|e| failed("waiting for", &e))?;
        let stderr = String::from_utf8_lossy(&stderr);
        if !status.success() || stdout.is_empty() {
            return Err(SpeechError::Engine(format!(
                "{} {} ({status}): {}",
                self.program.display(),
                args.join(" "),
                stderr.trim()
            )));
        }
        Ok(stdout)
    }

    async fn synthesise(
        &self,
        voice: &str,
        text: &str,
        prosody: Prosody,
        max_seconds: f64,
    ) -> Result<Pcm, SpeechError> {
        let (rate, pitch, volume) = (
            prosody.rate.map(|v| v.to_string()),
            prosody.pitch.map(|v| v.to_string()),
            prosody.volume.map(|v| v.to_string()),
        );
        let mut args = vec!["--stdin", "--stdout", "-v", voice];
        for (flag, value) in [("-s", &rate), ("-p", &pitch), ("-a", &volume)] {
            if let Some(value) = value {
                args.extend([flag, value.as_str()]);
            }
        }
        // The WAV header's 44 bytes are not audio.
        let max_output_bytes = (max_seconds.max(0.0) * BYTES_PER_SECOND as f64) as u64 + 44;
        let wav = self.run(&args, text.as_bytes(), max_output_bytes).await?;
        // Decoding is CPU work: the blocking pool, not a request thread.
        tokio::task::spawn_blocking(move || rendition::decode(&wav))
            .await
            .map_err(|e| SpeechError::Engine(format!("the decoding task failed: {e}")))?
            .map_err(SpeechError::from)
    }
}

/// Why the engine cannot serve, said once: an engine failure's own words (the catalogue's
/// error adds "unavailable" itself).
fn reason(error: SpeechError) -> String {
    match error {
        SpeechError::Engine(why) => why,
        other => other.to_string(),
    }
}

impl Engine for EspeakNg {
    fn name(&self) -> &'static str {
        ENGINE
    }

    fn voices(&self) -> BoxFuture<'_, Result<Vec<Voice>, String>> {
        async move {
            let listing = self
                .run(&["--voices"], b"", 1 << 20)
                .await
                .map_err(reason)?;
            let mut voices = parse_voices(&String::from_utf8_lossy(&listing));
            if voices.is_empty() {
                return Err(format!(
                    "{} --voices lists no voice",
                    self.program.display()
                ));
            }
            // The rate is the engine's to say: one short render tells it.
            let probe = self
                .synthesise(
                    &voices[0].engine_name,
                    "a",
                    Prosody::default(),
                    PROBE_SECONDS,
                )
                .await
                .map_err(reason)?;
            for voice in &mut voices {
                voice.sample_rate_hz = probe.sample_rate;
            }
            Ok(voices)
        }
        .boxed()
    }

    fn render<'a>(
        &'a self,
        voice: &'a Voice,
        text: &'a str,
        prosody: Prosody,
        max_seconds: f64,
    ) -> BoxFuture<'a, Result<Pcm, SpeechError>> {
        async move {
            self.synthesise(&voice.engine_name, text, prosody, max_seconds)
                .await
        }
        .boxed()
    }
}

/// The voices of `espeak-ng --voices` output:
///
/// ```text
/// Pty Language       Age/Gender VoiceName          File                 Other Languages
///  2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)
/// ```
///
/// Columns are split on white space (names spell their spaces `_`, and a long name pushes
/// the later columns right); "other languages" are `(tag priority)` groups. The id is the
/// language column, or the file's name when two voices share a language.
pub fn parse_voices(listing: &str) -> Vec<Voice> {
    let mut voices: Vec<Voice> = Vec::new();
    for line in listing
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Pty"))
        .skip(1)
    {
        let mut columns = line.split_whitespace();
        let (Some(priority), Some(language), Some(age_gender), Some(name), Some(file)) = (
            columns.next().and_then(|p| p.parse::<u32>().ok()),
            columns.next(),
            columns.next(),
            columns.next(),
            columns.next(),
        ) else {
            continue;
        };
        let others = columns.collect::<Vec<_>>().join(" ");
        let mut languages = vec![(bcp47(language), priority)];
        for group in others.split('(').filter_map(|g| g.split(')').next()) {
            let mut parts = group.split_whitespace();
            if let (Some(tag), Some(p)) = (parts.next(), parts.next().and_then(|p| p.parse().ok()))
                && !languages.iter().any(|(t, _)| t.eq_ignore_ascii_case(tag))
            {
                languages.push((bcp47(tag), p));
            }
        }
        let id = if voices.iter().any(|v| v.id == language.to_ascii_lowercase()) {
            file.rsplit('/').next().unwrap_or(file).to_ascii_lowercase()
        } else {
            language.to_ascii_lowercase()
        };
        voices.push(Voice {
            id,
            name: name.replace('_', " "),
            engine: ENGINE,
            languages,
            gender: match age_gender.rsplit('/').next() {
                Some("M") => Some("male"),
                Some("F") => Some("female"),
                _ => None,
            },
            sample_rate_hz: 0,
            engine_name: file.to_owned(),
        });
    }
    voices
}

/// An espeak-ng language name in BCP-47's conventional case: `en-gb-x-rp` → `en-GB-x-rp`,
/// `cmn-latn-pinyin` → `cmn-Latn-pinyin` (language lower, script title, region upper,
/// private use lower).
pub fn bcp47(tag: &str) -> String {
    let mut private = false;
    tag.split('-')
        .enumerate()
        .map(|(index, part)| {
            let lower = part.to_ascii_lowercase();
            if index == 0 || private {
                return lower;
            }
            if lower == "x" {
                private = true;
                return lower;
            }
            let alphabetic = part.chars().all(|c| c.is_ascii_alphabetic());
            match part.len() {
                2 if alphabetic => part.to_ascii_uppercase(),
                4 if alphabetic => {
                    let mut chars = lower.chars();
                    chars.next().map_or(String::new(), |first| {
                        first.to_ascii_uppercase().to_string() + chars.as_str()
                    })
                }
                _ => lower,
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Catalogue;

    const LISTING: &str = "\
Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  af              --/M      Afrikaans          gmw/af
 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)
 2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)
 2  en-us           --/F      English_(America)  gmw/en-US            (en 3)
 5  yue             --/M      Chinese_(Cantonese) sit/yue              (zh-yue 5)(zh 8)
 5  yue             --/M      Chinese_(Cantonese,_latin_as_Jyutping) sit/yue-Latn-jyutping (zh-yue 5)(zh 8)
";

    #[test]
    fn the_listing_makes_voices() {
        let voices = parse_voices(LISTING);
        assert_eq!(voices.len(), 6);
        let cmn = &voices[1];
        assert_eq!(cmn.id, "cmn");
        assert_eq!(cmn.name, "Chinese (Mandarin, latin as English)");
        assert_eq!(cmn.engine_name, "sit/cmn");
        assert_eq!(
            cmn.languages,
            vec![("cmn".into(), 5), ("zh-cmn".into(), 5), ("zh".into(), 5)]
        );
        assert_eq!(voices[3].gender, Some("female"));
        assert_eq!(voices[3].languages[0].0, "en-US");
        // Two voices of one language: the second is named by its file.
        assert_eq!(voices[4].id, "yue");
        assert_eq!(voices[5].id, "yue-latn-jyutping");
    }

    #[test]
    fn languages_come_from_the_voices() {
        let catalogue = Catalogue::new(parse_voices(LISTING));
        let en = catalogue
            .languages()
            .iter()
            .find(|l| l.tag == "en")
            .unwrap();
        assert_eq!((en.name.as_str(), en.voices), ("English", 2));
        // en-gb has the lower priority for `en`: espeak's own choice.
        assert_eq!(catalogue.preferred("EN").unwrap().id, "en-gb");
        assert_eq!(catalogue.voices(Some("zh")).len(), 3);
        assert!(catalogue.voice("en-us").unwrap().speaks("en"));
        assert!(!catalogue.supports("fr"));
    }

    #[test]
    fn tags_take_bcp47_case() {
        assert_eq!(bcp47("en-gb-x-rp"), "en-GB-x-rp");
        assert_eq!(bcp47("cmn-latn-pinyin"), "cmn-Latn-pinyin");
        assert_eq!(bcp47("es-419"), "es-419");
        assert_eq!(bcp47("chr-US-Qaaa-x-west"), "chr-US-Qaaa-x-west");
    }
}
