use std::fs;

use switchboard_asterisk::transcode::{TranscodeError, to_mp3};
use switchboard_storage::audio::{self, AudioFormat};

use crate::fixture;

/// Checks that `mp3` is an MP3 whose measured length is the WAV's within 0.1 s.
fn assert_same_length(wav: &[u8], mp3: &switchboard_asterisk::transcode::Mp3, what: &str) {
    let wav_seconds = audio::duration_seconds(AudioFormat::Wav, wav).unwrap();
    assert_eq!(audio::sniff(&mp3.bytes), Some(AudioFormat::Mp3), "{what}");
    let mp3_seconds = audio::duration_seconds(AudioFormat::Mp3, &mp3.bytes).unwrap();
    assert!(
        (mp3_seconds - wav_seconds).abs() < 0.1,
        "{what}: the MP3 plays {mp3_seconds} s, the WAV {wav_seconds} s"
    );
    assert!((mp3.duration_seconds - wav_seconds).abs() < 1e-9, "{what}");
}

#[test]
fn telephone_wavs_become_mp3s_of_the_same_length() {
    for relative in [
        "spool/default/101/INBOX/msg0000.wav",
        "spool/default/102/Urgent/msg0000.wav",
        "recordings/in-5551234567-101-20231113-091502-1699884902.1.wav",
        "recordings/out-5559876543-103-20231113-100245-1699887765.123.wav",
    ] {
        let wav = fs::read(fixture(relative)).unwrap();
        let mp3 = to_mp3(&wav).unwrap();
        assert_same_length(&wav, &mp3, relative);
        // 32 kbit/s: about 4 KB a second, a quarter of the 8 kHz 16-bit WAV.
        assert!(
            mp3.bytes.len() * 3 < wav.len(),
            "{relative}: {} bytes",
            mp3.bytes.len()
        );
    }
}

/// A PCM WAV of `seconds` of a 440 Hz tone.
fn tone(rate: u32, channels: u16, bits: u16, seconds: f64) -> Vec<u8> {
    let frames = (f64::from(rate) * seconds) as usize;
    let width = usize::from(bits / 8);
    let mut data = Vec::with_capacity(frames * width * usize::from(channels));
    for n in 0..frames {
        let value = (0.3
            * (2.0 * std::f64::consts::PI * 440.0 * n as f64 / f64::from(rate)).sin()
            * 8_388_607.0) as i32;
        for _ in 0..channels {
            match bits {
                8 => data.push(((value >> 16) + 128) as u8),
                16 => data.extend_from_slice(&((value >> 8) as i16).to_le_bytes()),
                _ => data.extend_from_slice(&value.to_le_bytes()[..3]),
            }
        }
    }
    let block_align = channels * bits / 8;
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&channels.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * u32::from(block_align)).to_le_bytes());
    out.extend_from_slice(&block_align.to_le_bytes());
    out.extend_from_slice(&bits.to_le_bytes());
    // A chunk writers add, to be skipped.
    out.extend_from_slice(b"LIST");
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(b"abc\0");
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

#[test]
fn every_width_channel_count_and_rate() {
    for (rate, channels, bits, seconds) in [
        (8_000, 1, 8, 1.0),
        (8_000, 2, 16, 0.7),
        (11_025, 1, 16, 1.3),
        (12_000, 1, 24, 1.0),
        (16_000, 1, 16, 2.0),
        (22_050, 2, 16, 1.0),
        (24_000, 1, 16, 0.5),
        (32_000, 1, 16, 1.0),
        (44_100, 2, 24, 1.5),
        (48_000, 1, 16, 1.0),
    ] {
        let wav = tone(rate, channels, bits, seconds);
        let mp3 = to_mp3(&wav).unwrap();
        assert_same_length(
            &wav,
            &mp3,
            &format!("{rate} Hz, {channels} ch, {bits} bits"),
        );
    }
}

#[test]
fn mp3_passes_through_unchanged() {
    let wav = fs::read(fixture("spool/default/101/Old/msg0000.wav")).unwrap();
    let mp3 = to_mp3(&wav).unwrap();
    let again = to_mp3(&mp3.bytes).unwrap();
    assert_eq!(again.bytes, mp3.bytes);
    assert!(
        (again.duration_seconds - 1.0).abs() < 0.1,
        "{}",
        again.duration_seconds
    );
}

#[test]
fn asterisk_gsm_formats_are_refused_by_name() {
    let wav49 = fs::read(fixture("spool/default/101/INBOX/msg0001.WAV")).unwrap();
    let error = to_mp3(&wav49).unwrap_err();
    assert_eq!(
        error,
        TranscodeError::Unsupported("GSM 6.10 in WAV (Asterisk's wav49, .WAV)".into())
    );
    assert_eq!(
        error.to_string(),
        "cannot convert GSM 6.10 in WAV (Asterisk's wav49, .WAV) to MP3: only PCM WAV is converted (and MP3 passes through)"
    );
    let gsm = fs::read(fixture("spool/default/102/INBOX/msg0000.gsm")).unwrap();
    assert_eq!(
        to_mp3(&gsm).unwrap_err(),
        TranscodeError::Unsupported("raw GSM 6.10 audio (Asterisk's .gsm)".into())
    );
}

#[test]
fn the_fixture_audio_is_what_asterisk_writes() {
    // 8 kHz 16-bit mono PCM, and small.
    for relative in [
        "spool/default/101/INBOX/msg0000.wav",
        "spool/default/101/unavail.wav",
        "recordings/2023/07/04/in-2125550147-s-20230704-162000-1688502000.66.wav",
    ] {
        let wav = fs::read(fixture(relative)).unwrap();
        assert!(wav.len() < 40 * 1024, "{relative}");
        assert_eq!(&wav[20..24], &[1, 0, 1, 0], "{relative}: PCM mono");
        assert_eq!(&wav[24..28], &8000u32.to_le_bytes(), "{relative}");
        assert_eq!(&wav[34..36], &16u16.to_le_bytes(), "{relative}");
    }
}
