//! The demo's audio, made rather than shipped: tunes of pure tones as 8 kHz 16-bit mono
//! WAV, the telephony format, so every recording and hold tune is real, measurable audio
//! of a known length.

/// The samples per second of the WAV files made here.
const RATE: f64 = 8000.0;

/// A WAV playing `notes` one after the other, each a frequency in Hz (0 for silence) and
/// a length in seconds, at a quiet level, with a short fade at each end of a note so
/// the joins do not click.
pub fn tune(notes: &[(f64, f64)]) -> Vec<u8> {
    let mut pcm = Vec::new();
    for &(frequency, seconds) in notes {
        let samples = (seconds * RATE).round() as usize;
        let fade = (0.01 * RATE) as usize;
        for n in 0..samples {
            let envelope = (n.min(samples - n) as f64 / fade as f64).min(1.0);
            let value = if frequency > 0.0 {
                (2.0 * std::f64::consts::PI * frequency * n as f64 / RATE).sin() * 6000.0 * envelope
            } else {
                0.0
            };
            pcm.extend_from_slice(&(value as i16).to_le_bytes());
        }
    }
    switchboard_app::engine::pcm_wav(&pcm)
}

/// A hold tune of about `seconds` seconds: a slow arpeggio, repeated.
pub fn hold_music(seconds: f64) -> Vec<u8> {
    let phrase = [(261.63, 0.5), (329.63, 0.5), (392.0, 0.5), (523.25, 0.5)];
    let repeats = (seconds / 2.0).ceil().max(1.0) as usize;
    let notes: Vec<(f64, f64)> = phrase.iter().copied().cycle().take(4 * repeats).collect();
    tune(&notes)
}

/// A call's recording of `seconds` seconds: two voices' pitches taking turns, as a
/// conversation's two sides would.
pub fn conversation(seconds: i64) -> Vec<u8> {
    let turns = seconds.max(1) as usize;
    let notes: Vec<(f64, f64)> = (0..turns)
        .map(|turn| (if turn % 2 == 0 { 220.0 } else { 330.0 }, 1.0))
        .collect();
    tune(&notes)
}

#[cfg(test)]
mod tests {
    /// The tune's length is what it was asked for, measured by the storage's own reader.
    #[test]
    fn a_conversation_lasts_as_long_as_asked() {
        let wav = super::conversation(7);
        let format = switchboard_storage::audio::sniff(&wav).expect("a WAV");
        let seconds = switchboard_storage::audio::duration_seconds(format, &wav).expect("measured");
        assert!((seconds - 7.0).abs() < 0.01, "{seconds}");
    }
}
