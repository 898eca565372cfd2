//! Inspection of uploaded audio: which container the bytes hold (never trusting a file name) and how long
//! the audio plays, measured from the audio itself. Every parser is bounds-checked and answers `None` for
//! anything it does not understand, so hostile uploads cannot panic it.

mod bytes;
mod mp3;
mod ogg;
mod wav;

pub mod decoder;
pub mod rendition;
pub mod telephony;

#[cfg(test)]
mod tests;

/// Audio container kinds accepted for media files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AudioFormat {
    /// RIFF/WAVE.
    Wav,
    /// MPEG audio Layer III (MPEG 1, 2 or 2.5), optionally behind ID3v2 tags.
    Mp3,
    /// Ogg holding Vorbis or Opus.
    Ogg,
}

impl AudioFormat {
    /// MIME type: audio/wav, audio/mpeg, audio/ogg.
    pub fn content_type(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Ogg => "audio/ogg",
        }
    }

    /// File extension: wav, mp3, ogg.
    pub fn extension(self) -> &'static str {
        match self {
            AudioFormat::Wav => "wav",
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Ogg => "ogg",
        }
    }
}

/// Decides the format from the bytes alone (never the name): RIFF....WAVE; ID3v2 tags followed by, or
/// directly, an MPEG Layer III frame whose successor frame also parses (or which ends the data); an Ogg
/// page carrying a Vorbis or Opus identification header.
pub fn sniff(bytes: &[u8]) -> Option<AudioFormat> {
    if wav::sniff(bytes) {
        Some(AudioFormat::Wav)
    } else if ogg::sniff(bytes) {
        Some(AudioFormat::Ogg)
    } else if mp3::sniff(bytes) {
        Some(AudioFormat::Mp3)
    } else {
        None
    }
}

/// Whether `bytes` are Ogg holding Opus (which the rendition decoders cannot read).
pub fn is_opus(bytes: &[u8]) -> bool {
    ogg::is_opus(bytes)
}

/// The playing time in seconds, measured from the audio itself: WAV from the fmt chunk's byte rate and
/// the data chunk size; MP3 from a Xing/Info header (less the LAME encoder delay and padding when
/// recorded) or a VBRI header, else by summing every frame; Ogg from the last page's granule position
/// (Vorbis: over the sample rate; Opus: less the pre-skip, over 48 kHz).
/// None when the bytes are not a valid file of that format.
pub fn duration_seconds(format: AudioFormat, bytes: &[u8]) -> Option<f64> {
    let seconds = match format {
        AudioFormat::Wav => wav::duration(bytes),
        AudioFormat::Mp3 => mp3::duration(bytes),
        AudioFormat::Ogg => ogg::duration(bytes),
    }?;
    seconds.is_finite().then_some(seconds)
}

/// The playing time of `bytes` in whole seconds (rounded, at least 1), measured from the
/// audio: any format [`sniff`] knows (WAV49, GSM in a WAV, by its byte rate), or raw GSM
/// 06.10 (Asterisk's `.gsm`: 33-byte frames of 20 ms, each opening with the nibble
/// `0xD`). `None` when the bytes are none of these, so a caller keeps the length it was
/// told only where there is no measurable audio.
pub fn whole_seconds(bytes: &[u8]) -> Option<i64> {
    let seconds = match sniff(bytes) {
        Some(format) => duration_seconds(format, bytes)?,
        None => raw_gsm_seconds(bytes)?,
    };
    // At most a day of audio, so the cast cannot saturate.
    Some(seconds.round().clamp(1.0, 86_400.0) as i64)
}

/// GSM 06.10 audio as Asterisk writes voicemail, which no browser plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gsm {
    /// GSM 6.10 inside a Microsoft WAV (format tag 0x0031; Asterisk's `wav49`, `.WAV`).
    Wav49,
    /// Raw GSM 06.10 frames (Asterisk's `gsm`).
    Raw,
}

/// Whether `bytes` are GSM 06.10 audio, and in which container.
pub fn gsm(bytes: &[u8]) -> Option<Gsm> {
    const WAVE_FORMAT_GSM610: u16 = 0x0031;
    if wav::sniff(bytes) {
        return (wav::format_tag(bytes) == Some(WAVE_FORMAT_GSM610)).then_some(Gsm::Wav49);
    }
    (sniff(bytes).is_none() && raw_gsm_seconds(bytes).is_some()).then_some(Gsm::Raw)
}

/// Raw GSM 06.10's length: every 33-byte frame is 20 ms.
fn raw_gsm_seconds(bytes: &[u8]) -> Option<f64> {
    const FRAME: usize = 33;
    let whole = !bytes.is_empty() && bytes.len().is_multiple_of(FRAME);
    let framed = bytes.chunks(FRAME).all(|frame| frame[0] >> 4 == 0xD);
    (whole && framed).then_some((bytes.len() / FRAME) as f64 * 0.02)
}
