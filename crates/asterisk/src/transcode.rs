//! Recordings to MP3 for storage: PCM WAV is encoded with LAME, MP3 passes through, anything else
//! (GSM, wav49, µ-law, …) is refused with an error naming what it is.
//!
//! Output: constant bitrate, one channel (a stereo recording is mixed down; telephone audio has
//! nothing in the second channel worth twice the size), at the input's sample rate, 32 kbit/s up to
//! 24 kHz (8 kHz telephone audio, wideband) and 64 kbit/s above, which keeps speech clear at
//! 4-8 KB per second. A LAME "Info" tag records the encoder delay and padding, so players and
//! [`switchboard_storage::audio::duration_seconds`] give the exact length.
//!
//! This is CPU work (about real time / 100 in a release build): async callers run it in
//! `spawn_blocking`.

use std::num::NonZeroU32;

use mp3lame_encoder::{Bitrate, Builder, DualPcm, FlushGap, Mode, MonoPcm, Quality, VbrMode};
use switchboard_storage::audio;

/// Sample rates MP3 can carry (MPEG-1, 2 and 2.5), the only ones accepted: no resampling here.
pub const SAMPLE_RATES: [u32; 9] = [
    8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000,
];

/// Samples per channel given to LAME at a time, to bound the output buffer.
const CHUNK: usize = 8192;

/// An MP3 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mp3 {
    /// The whole file.
    pub bytes: Vec<u8>,
    /// Its playing time in seconds: the WAV's sample count over its rate when encoded here, the MP3's
    /// own measure when it passed through.
    pub duration_seconds: f64,
}

/// Why audio could not be made into MP3.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranscodeError {
    /// The audio is in a format this converter does not decode; the text names it.
    #[error("cannot convert {0} to MP3: only PCM WAV is converted (and MP3 passes through)")]
    Unsupported(String),
    /// The bytes claim a format but break its rules.
    #[error("malformed audio: {0}")]
    Malformed(String),
    /// LAME refused the settings or failed.
    #[error("MP3 encoder: {0}")]
    Encoder(String),
}

/// Makes `bytes` into an MP3: PCM WAV (8, 16 or 24 bits, mono or stereo, one of [`SAMPLE_RATES`]) is
/// encoded; an MP3 is returned unchanged with its measured duration; anything else is refused,
/// naming the format (GSM 6.10 raw or in WAV, A-law, µ-law, ADPCM, float WAV, Ogg, …).
pub fn to_mp3(bytes: &[u8]) -> Result<Mp3, TranscodeError> {
    if is_riff_wave(bytes) {
        let wav = parse_wav(bytes)?;
        return encode(&wav);
    }
    match audio::sniff(bytes) {
        Some(audio::AudioFormat::Mp3) => {
            let duration_seconds = audio::duration_seconds(audio::AudioFormat::Mp3, bytes)
                .ok_or_else(|| {
                    TranscodeError::Malformed("an MP3 whose length cannot be measured".into())
                })?;
            Ok(Mp3 {
                bytes: bytes.to_vec(),
                duration_seconds,
            })
        }
        Some(audio::AudioFormat::Ogg) => Err(TranscodeError::Unsupported("Ogg audio".into())),
        _ if is_raw_gsm(bytes) => Err(TranscodeError::Unsupported(
            "raw GSM 6.10 audio (Asterisk's .gsm)".into(),
        )),
        _ => Err(TranscodeError::Unsupported(
            "unrecognised data (neither WAV nor MP3)".into(),
        )),
    }
}

fn is_riff_wave(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WAVE"
}

/// Raw GSM 6.10: whole 33-byte frames, each starting with the 0xD magic nibble.
fn is_raw_gsm(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.len().is_multiple_of(33)
        && bytes.chunks(33).all(|frame| frame[0] >> 4 == 0xD)
}

/// PCM samples of a WAV, 16-bit, one Vec per channel.
#[derive(Debug)]
struct Pcm {
    sample_rate: u32,
    channels: Vec<Vec<i16>>,
}

/// The WAVE format tags with a name worth telling the user.
fn format_name(tag: u16) -> String {
    match tag {
        0x0002 => "Microsoft ADPCM WAV".into(),
        0x0003 => "floating-point WAV".into(),
        0x0006 => "A-law WAV".into(),
        0x0007 => "µ-law WAV".into(),
        0x0011 => "IMA ADPCM WAV".into(),
        0x0031 => "GSM 6.10 in WAV (Asterisk's wav49, .WAV)".into(),
        0x0055 => "MP3 in a WAV container".into(),
        0x0064 | 0x0065 => "G.721/G.723 ADPCM WAV".into(),
        other => format!("WAV with format tag 0x{other:04x}"),
    }
}

fn le16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// Reads the `fmt ` and `data` chunks of a RIFF/WAVE file. A `data` size past the end of the file
/// (a recording Asterisk did not close, or a 0/0xFFFFFFFF placeholder) is read as "to the end".
fn parse_wav(bytes: &[u8]) -> Result<Pcm, TranscodeError> {
    let malformed = |what: &str| TranscodeError::Malformed(format!("WAV: {what}"));
    let mut at = 12;
    let mut format: Option<(u16, u16, u32, u16, u16)> = None;
    let mut data: Option<&[u8]> = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let declared =
            le32(bytes, at + 4).ok_or_else(|| malformed("truncated chunk header"))? as usize;
        let body_start = at + 8;
        let body_end = body_start.saturating_add(declared);
        if id == b"data" {
            let end = if declared == 0 || body_end > bytes.len() {
                bytes.len()
            } else {
                body_end
            };
            data = Some(&bytes[body_start..end]);
            // The data chunk comes after fmt in every writer we know; stop before any trailing junk.
            if format.is_some() {
                break;
            }
        } else if id == b"fmt " {
            let body = bytes
                .get(body_start..body_end)
                .ok_or_else(|| malformed("truncated fmt chunk"))?;
            if body.len() < 16 {
                return Err(malformed("fmt chunk shorter than 16 bytes"));
            }
            let mut tag = le16(body, 0).unwrap_or_default();
            let channels = le16(body, 2).unwrap_or_default();
            let rate = le32(body, 4).unwrap_or_default();
            let block_align = le16(body, 12).unwrap_or_default();
            let bits = le16(body, 14).unwrap_or_default();
            if tag == 0xFFFE {
                // WAVE_FORMAT_EXTENSIBLE: the real tag leads the sub-format GUID.
                tag = le16(body, 24)
                    .ok_or_else(|| malformed("extensible fmt chunk without a sub-format"))?;
            }
            format = Some((tag, channels, rate, block_align, bits));
        }
        // Chunks are padded to an even length.
        at = body_end.saturating_add(declared & 1);
    }
    let (tag, channels, rate, block_align, bits) =
        format.ok_or_else(|| malformed("no fmt chunk"))?;
    if tag != 1 {
        return Err(TranscodeError::Unsupported(format_name(tag)));
    }
    let data = data.ok_or_else(|| malformed("no data chunk"))?;
    if !(1..=2).contains(&channels) {
        return Err(TranscodeError::Unsupported(format!(
            "PCM WAV with {channels} channels"
        )));
    }
    if !SAMPLE_RATES.contains(&rate) {
        return Err(TranscodeError::Unsupported(format!(
            "PCM WAV at {rate} Hz (MP3 takes {SAMPLE_RATES:?})"
        )));
    }
    let width = match bits {
        8 | 16 | 24 => usize::from(bits / 8),
        other => return Err(TranscodeError::Unsupported(format!("{other}-bit PCM WAV"))),
    };
    let frame = width * usize::from(channels);
    if usize::from(block_align) != frame {
        return Err(malformed(&format!(
            "block align {block_align} for {channels} channels of {bits} bits"
        )));
    }
    // A trailing partial frame (a recording cut mid-write) is dropped.
    let frames = data.len() / frame;
    if frames == 0 {
        return Err(malformed("no audio samples"));
    }
    let mut out = vec![Vec::with_capacity(frames); usize::from(channels)];
    for frame_bytes in data.chunks_exact(frame).take(frames) {
        for (channel, sample) in out.iter_mut().zip(frame_bytes.chunks_exact(width)) {
            channel.push(match sample {
                // 8-bit WAV is unsigned, centred on 128.
                [b] => (i16::from(*b) - 128) << 8,
                [lo, hi] => i16::from_le_bytes([*lo, *hi]),
                // 24-bit: keep the top 16 bits.
                [_, lo, hi] => i16::from_le_bytes([*lo, *hi]),
                _ => 0,
            });
        }
    }
    Ok(Pcm {
        sample_rate: rate,
        channels: out,
    })
}

fn encode(pcm: &Pcm) -> Result<Mp3, TranscodeError> {
    let lame = |error: &dyn std::fmt::Display| TranscodeError::Encoder(error.to_string());
    let channels = u8::try_from(pcm.channels.len()).map_err(|_| lame(&"too many channels"))?;
    let bitrate = if pcm.sample_rate <= 24_000 {
        Bitrate::Kbps32
    } else {
        Bitrate::Kbps64
    };
    let mut builder = Builder::new().ok_or_else(|| lame(&"cannot allocate the LAME encoder"))?;
    builder.set_num_channels(channels).map_err(|e| lame(&e))?;
    builder
        .set_sample_rate(pcm.sample_rate)
        .map_err(|e| lame(&e))?;
    builder
        .set_output_sample_rate(NonZeroU32::new(pcm.sample_rate))
        .map_err(|e| lame(&e))?;
    builder.set_mode(Mode::Mono).map_err(|e| lame(&e))?;
    builder.set_vbr_mode(VbrMode::Off).map_err(|e| lame(&e))?;
    builder.set_brate(bitrate).map_err(|e| lame(&e))?;
    builder.set_quality(Quality::Good).map_err(|e| lame(&e))?;
    builder.set_to_write_vbr_tag(true).map_err(|e| lame(&e))?;
    let mut encoder = builder.build().map_err(|e| lame(&e))?;

    let samples = pcm.channels[0].len();
    let mut out = Vec::new();
    for start in (0..samples).step_by(CHUNK) {
        let end = (start + CHUNK).min(samples);
        out.reserve(mp3lame_encoder::max_required_buffer_size(end - start));
        let written = match pcm.channels.as_slice() {
            [mono] => encoder.encode_to_vec(MonoPcm(&mono[start..end]), &mut out),
            [left, right] => encoder.encode_to_vec(
                DualPcm {
                    left: &left[start..end],
                    right: &right[start..end],
                },
                &mut out,
            ),
            _ => return Err(lame(&"unsupported channel count")),
        };
        written.map_err(|e| lame(&e))?;
    }
    // lame_encode_flush: encodes what LAME still buffers, the last frame padded with silence (the
    // padding goes into the Info tag). The "no gap" flush would keep the tail back for a next file.
    out.reserve(mp3lame_encoder::max_required_buffer_size(0));
    encoder
        .flush_to_vec::<FlushGap>(&mut out)
        .map_err(|e| lame(&e))?;

    // LAME began the stream with an empty frame held for the Info tag (encoder delay, padding,
    // frame count), which only now is known: overwrite it (lame.h, lame_get_lametag_frame).
    let mut tag = Vec::with_capacity(encoder.lame_tag_size());
    if encoder.lame_tag_encode_to_vec(&mut tag).is_some() {
        let placeholder = out
            .get_mut(..tag.len())
            .ok_or_else(|| lame(&"the Info tag is longer than the stream"))?;
        placeholder.copy_from_slice(&tag);
    }

    #[expect(
        clippy::cast_precision_loss,
        reason = "sample counts stay far below 2^52"
    )]
    let duration_seconds = samples as f64 / f64::from(pcm.sample_rate);
    Ok(Mp3 {
        bytes: out,
        duration_seconds,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A WAV file from its parts (for malformed and unusual inputs).
    fn wav(tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        let block_align = channels * bits.div_ceil(8);
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        out.extend_from_slice(b"WAVEfmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&channels.to_le_bytes());
        out.extend_from_slice(&rate.to_le_bytes());
        out.extend_from_slice(&(rate * u32::from(block_align)).to_le_bytes());
        out.extend_from_slice(&block_align.to_le_bytes());
        out.extend_from_slice(&bits.to_le_bytes());
        out.extend_from_slice(b"data");
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn sample_widths_decode_to_16_bits() {
        let eight = parse_wav(&wav(1, 1, 8000, 8, &[0, 128, 255])).unwrap();
        assert_eq!(eight.channels, [vec![-32768, 0, 32512]]);
        let sixteen = parse_wav(&wav(
            1,
            2,
            8000,
            16,
            &[1, 0, 0xff, 0xff, 0, 0x80, 0xff, 0x7f],
        ))
        .unwrap();
        assert_eq!(sixteen.channels, [vec![1, i16::MIN], vec![-1, i16::MAX]]);
        let twenty_four = parse_wav(&wav(1, 1, 8000, 24, &[0xaa, 0x34, 0x12])).unwrap();
        assert_eq!(twenty_four.channels, [vec![0x1234]]);
    }

    #[test]
    fn a_truncated_data_chunk_reads_to_the_end() {
        let mut bytes = wav(1, 1, 8000, 16, &[1, 0, 2, 0, 3]);
        // Declared 5 bytes: two samples and half of one.
        assert_eq!(parse_wav(&bytes).unwrap().channels, [vec![1, 2]]);
        // A size Asterisk never filled in.
        let at = bytes.len() - 9;
        bytes[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(parse_wav(&bytes).unwrap().channels, [vec![1, 2]]);
    }

    #[test]
    fn unsupported_formats_are_named() {
        let cases = [
            (wav(0x31, 1, 8000, 0, &[0; 65]), "GSM 6.10 in WAV"),
            (wav(7, 1, 8000, 8, &[0; 8]), "µ-law WAV"),
            (wav(6, 1, 8000, 8, &[0; 8]), "A-law WAV"),
            (wav(3, 1, 8000, 32, &[0; 8]), "floating-point WAV"),
            (wav(0x1234, 1, 8000, 16, &[0; 8]), "format tag 0x1234"),
            (wav(1, 3, 8000, 16, &[0; 12]), "3 channels"),
            (wav(1, 1, 96_000, 16, &[0; 8]), "96000 Hz"),
            (wav(1, 1, 8000, 32, &[0; 8]), "32-bit PCM"),
            ([0xD8u8; 66].to_vec(), "raw GSM 6.10"),
            (b"OggS\0\0\0\0".to_vec(), "unrecognised"),
            (b"hello".to_vec(), "unrecognised"),
            (Vec::new(), "unrecognised"),
        ];
        for (bytes, name) in cases {
            let error = to_mp3(&bytes).unwrap_err();
            assert!(
                matches!(&error, TranscodeError::Unsupported(text) if text.contains(name)),
                "{name}: {error}"
            );
            assert!(error.to_string().starts_with("cannot convert "), "{error}");
        }
    }

    #[test]
    fn malformed_wavs_are_refused() {
        let no_samples = wav(1, 1, 8000, 16, &[]);
        let mut bad_align = wav(1, 1, 8000, 16, &[0; 4]);
        bad_align[32] = 3;
        let no_data = wav(1, 1, 8000, 16, &[])[..36].to_vec();
        let short_fmt = {
            let mut bytes = wav(1, 1, 8000, 16, &[0; 4]);
            bytes[16] = 8;
            bytes
        };
        for (bytes, text) in [
            (no_samples, "no audio samples"),
            (bad_align, "block align 3"),
            (no_data, "no data chunk"),
            (short_fmt, "shorter than 16"),
            (b"RIFF\0\0\0\0WAVE".to_vec(), "no fmt chunk"),
        ] {
            let error = to_mp3(&bytes).unwrap_err();
            assert!(
                matches!(&error, TranscodeError::Malformed(message) if message.contains(text)),
                "{text}: {error}"
            );
        }
    }
}
