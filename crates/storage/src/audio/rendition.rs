//! Telephony renditions: any audio the decoders know (PCM/ADPCM WAV, MP3, Ogg Vorbis) made
//! into what the telephony engine plays without converting, 8 kHz 16-bit mono WAV.
//!
//! Decoding is symphonia's, resampling rubato's (its FFT resampler, which band-limits
//! before it drops the rate, so 22 kHz speech does not alias into the telephone band), and
//! writing hound's: no hand-written DSP. This is CPU work: async callers run it in
//! `spawn_blocking`.

use std::io::Cursor;

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Fft, FixedSync, Resampler};
use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;

/// The sample rate of a telephony rendition (G.711's, what every SIP phone speaks).
pub const TELEPHONY_RATE: u32 = 8_000;

/// The most samples decoded (2^26: 256 MiB as f32; 23 minutes at 48 kHz, over two hours
/// at 8 kHz): a media file is at most 20 MiB, but compressed silence could otherwise
/// unpack into gigabytes, whatever the rate its header claims.
pub const MAX_SAMPLES: usize = 1 << 26;

/// The sample rates decoded: a header may claim any rate, and the resampler's buffers grow
/// with it (a claimed 4 GHz would ask for tens of gigabytes).
pub const SOURCE_RATES: std::ops::RangeInclusive<u32> = 4_000..=192_000;

/// Mono audio as 32-bit float samples in [-1, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct Pcm {
    /// Samples per second.
    pub sample_rate: u32,
    /// The samples, one channel.
    pub samples: Vec<f32>,
}

impl Pcm {
    /// Its playing time in seconds.
    pub fn duration_seconds(&self) -> f64 {
        self.samples.len() as f64 / f64::from(self.sample_rate.max(1))
    }
}

/// An 8 kHz 16-bit mono WAV file.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendition {
    /// The whole file.
    pub bytes: Vec<u8>,
    /// Its playing time in seconds.
    pub duration_seconds: f64,
}

/// Why audio could not be made into a rendition; the text is fit for the uploader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenditionError {
    /// The bytes are not audio the decoders know, or break their format's rules.
    #[error("the audio cannot be decoded: {0}")]
    Undecodable(String),
    /// Decoded, but longer than [`MAX_SAMPLES`].
    #[error(
        "the audio is too long to convert: more than {MAX_SAMPLES} samples (23 minutes at 48 kHz)"
    )]
    TooLong,
    /// The resampler or the WAV writer failed.
    #[error("the audio cannot be converted: {0}")]
    Conversion(String),
}

/// Decodes `bytes` (WAV, MP3 or Ogg Vorbis, found from the bytes) to mono: channels are
/// averaged.
pub fn decode(bytes: &[u8]) -> Result<Pcm, RenditionError> {
    let undecodable = |e: SymphoniaError| RenditionError::Undecodable(e.to_string());
    let source = MediaSourceStream::new(Box::new(Cursor::new(bytes.to_vec())), Default::default());
    let mut format = symphonia::default::get_probe()
        .probe(
            &Hint::new(),
            source,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(undecodable)?;
    let track = format
        .default_track(TrackType::Audio)
        .ok_or_else(|| RenditionError::Undecodable("it holds no audio track".into()))?;
    let track_id = track.id;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|p| p.audio())
        .ok_or_else(|| RenditionError::Undecodable("its audio track has no parameters".into()))?
        .clone();
    let mut decoder = symphonia::default::get_codecs()
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(undecodable)?;
    let mut sample_rate = params.sample_rate.unwrap_or(0);
    check_rate(sample_rate)?;
    let mut samples = Vec::new();
    let mut interleaved: Vec<f32> = Vec::new();
    loop {
        let packet = match format.next_packet() {
            Ok(Some(packet)) => packet,
            Ok(None) => break,
            // A file cut short ends where its last whole packet does.
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                break;
            }
            Err(e) => return Err(undecodable(e)),
        };
        if packet.track_id != track_id {
            continue;
        }
        let buffer = match decoder.decode(&packet) {
            Ok(buffer) => buffer,
            // One corrupt packet is skipped, as players do; a file of nothing else is
            // refused below for holding no audio.
            Err(SymphoniaError::DecodeError(_)) => continue,
            Err(e) => return Err(undecodable(e)),
        };
        sample_rate = buffer.spec().rate();
        check_rate(sample_rate)?;
        let channels = buffer.spec().channels().count().max(1);
        interleaved.resize(buffer.samples_interleaved(), 0.0);
        buffer.copy_to_slice_interleaved(&mut interleaved);
        samples.extend(
            interleaved
                .chunks_exact(channels)
                .map(|frame| frame.iter().sum::<f32>() / channels as f32),
        );
        if samples.len() > MAX_SAMPLES {
            return Err(RenditionError::TooLong);
        }
    }
    if sample_rate == 0 || samples.is_empty() {
        return Err(RenditionError::Undecodable("it holds no audio".into()));
    }
    Ok(Pcm {
        sample_rate,
        samples,
    })
}

/// Refuses a sample rate outside [`SOURCE_RATES`] (0, unknown until the first packet,
/// passes: the packets then say).
fn check_rate(rate: u32) -> Result<(), RenditionError> {
    if rate == 0 || SOURCE_RATES.contains(&rate) {
        Ok(())
    } else {
        Err(RenditionError::Undecodable(format!(
            "its sample rate of {rate} Hz is outside {} to {} Hz",
            SOURCE_RATES.start(),
            SOURCE_RATES.end()
        )))
    }
}

/// `pcm` at `rate` samples per second (rubato's FFT resampler; the clip whole, its delay
/// trimmed, so the length is kept).
pub fn resample(pcm: &Pcm, rate: u32) -> Result<Pcm, RenditionError> {
    check_rate(pcm.sample_rate)?;
    if pcm.sample_rate == rate || pcm.samples.is_empty() {
        return Ok(Pcm {
            sample_rate: rate,
            samples: pcm.samples.clone(),
        });
    }
    let conversion = |e: &dyn std::fmt::Display| RenditionError::Conversion(e.to_string());
    let mut resampler = Fft::<f32>::new(
        pcm.sample_rate as usize,
        rate as usize,
        1024,
        1,
        FixedSync::Input,
    )
    .map_err(|e| conversion(&e))?;
    let frames = pcm.samples.len();
    let input = InterleavedSlice::new(&pcm.samples, 1, frames).map_err(|e| conversion(&e))?;
    let output = resampler
        .process_all(&input, frames, None)
        .map_err(|e| conversion(&e))?;
    Ok(Pcm {
        sample_rate: rate,
        samples: output.take_data(),
    })
}

/// `pcm` as a 16-bit mono WAV file (samples clipped to the 16-bit range).
pub fn wav(pcm: &Pcm) -> Result<Vec<u8>, RenditionError> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: pcm.sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = Cursor::new(Vec::with_capacity(44 + pcm.samples.len() * 2));
    let conversion = |e: hound::Error| RenditionError::Conversion(e.to_string());
    let mut writer = hound::WavWriter::new(&mut bytes, spec).map_err(conversion)?;
    for sample in &pcm.samples {
        // NOTE: `as` saturates, and the factor keeps +1.0 inside i16.
        writer
            .write_sample((sample.clamp(-1.0, 1.0) * 32767.0) as i16)
            .map_err(conversion)?;
    }
    writer.finalize().map_err(conversion)?;
    Ok(bytes.into_inner())
}

/// `pcm` made into a telephony rendition.
pub fn render(pcm: &Pcm) -> Result<Rendition, RenditionError> {
    let telephony = resample(pcm, TELEPHONY_RATE)?;
    Ok(Rendition {
        duration_seconds: telephony.duration_seconds(),
        bytes: wav(&telephony)?,
    })
}

/// The telephony rendition of an audio file: decoded, mixed to mono, resampled to 8 kHz,
/// written as 16-bit WAV.
pub fn telephony_wav(bytes: &[u8]) -> Result<Rendition, RenditionError> {
    render(&decode(bytes)?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tone(rate: u32, seconds: f32, hz: f32) -> Pcm {
        let n = (rate as f32 * seconds) as usize;
        Pcm {
            sample_rate: rate,
            samples: (0..n)
                .map(|i| 0.5 * (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin())
                .collect(),
        }
    }

    fn rms(samples: &[f32]) -> f32 {
        (samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32).sqrt()
    }

    #[test]
    fn a_tone_keeps_its_length_and_level_at_8_khz() {
        let source = tone(22_050, 1.0, 440.0);
        let wav_bytes = wav(&source).unwrap();
        let rendition = telephony_wav(&wav_bytes).unwrap();
        assert!((rendition.duration_seconds - 1.0).abs() < 0.01);
        let back = decode(&rendition.bytes).unwrap();
        assert_eq!(back.sample_rate, 8_000);
        assert!((back.samples.len() as i64 - 8_000).abs() < 80);
        // A 440 Hz tone is inside the telephone band: its level survives (0.5/√2 ≈ 0.354).
        let level = rms(&back.samples[800..7_200]);
        assert!((level - 0.354).abs() < 0.02, "rms {level}");
    }

    #[test]
    fn what_is_above_4_khz_is_filtered_not_folded_back() {
        // 6 kHz cannot exist at 8 kHz: without the anti-aliasing filter it would fold
        // back to 2 kHz at full level.
        let source = tone(22_050, 1.0, 6_000.0);
        let out = resample(&source, 8_000).unwrap();
        let level = rms(&out.samples[800..7_200]);
        assert!(level < 0.01, "rms {level}");
    }

    #[test]
    fn stereo_is_mixed_to_mono() {
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: 8_000,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut bytes = Cursor::new(Vec::new());
        let mut writer = hound::WavWriter::new(&mut bytes, spec).unwrap();
        for _ in 0..800 {
            writer.write_sample(16_000i16).unwrap();
            writer.write_sample(0i16).unwrap();
        }
        writer.finalize().unwrap();
        let pcm = decode(&bytes.into_inner()).unwrap();
        assert_eq!(pcm.samples.len(), 800);
        assert!((pcm.samples[400] - 16_000.0 / 32_768.0 / 2.0).abs() < 0.001);
    }

    #[test]
    fn what_is_not_audio_is_refused_with_a_reason() {
        let error = telephony_wav(b"certainly not audio, just some text").unwrap_err();
        assert!(matches!(error, RenditionError::Undecodable(_)), "{error}");
        let mut header_only = wav(&tone(8_000, 0.0, 1.0)).unwrap();
        header_only.truncate(44);
        assert!(telephony_wav(&header_only).is_err());
    }

    /// A WAV of 8-bit samples whose header claims `rate` (and the byte rate to match).
    fn wav_claiming(rate: u32) -> Vec<u8> {
        let data = vec![128u8; 100];
        let mut bytes = b"RIFF".to_vec();
        bytes.extend(&(36 + data.len() as u32).to_le_bytes());
        bytes.extend(b"WAVEfmt ");
        bytes.extend(&16u32.to_le_bytes());
        bytes.extend(&1u16.to_le_bytes()); // PCM
        bytes.extend(&1u16.to_le_bytes()); // mono
        bytes.extend(&rate.to_le_bytes());
        bytes.extend(&rate.to_le_bytes()); // byte rate: one byte a sample
        bytes.extend(&1u16.to_le_bytes()); // block align
        bytes.extend(&8u16.to_le_bytes()); // bits
        bytes.extend(b"data");
        bytes.extend(&(data.len() as u32).to_le_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn a_claimed_rate_outside_the_range_is_refused_not_resampled() {
        // Resampling from a claimed 4 GHz would ask for tens of gigabytes of buffers.
        let error = telephony_wav(&wav_claiming(4_294_967_291)).unwrap_err();
        assert!(matches!(error, RenditionError::Undecodable(_)), "{error}");
        assert!(error.to_string().contains("sample rate"), "{error}");
        // The same file at a rate in the range is a rendition.
        let made = telephony_wav(&wav_claiming(16_000)).unwrap();
        assert!(made.duration_seconds > 0.0);
    }
}
