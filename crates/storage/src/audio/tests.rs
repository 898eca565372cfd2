//! Audio inspection against real encoder output (tests/fixtures/audio, see its README for how each
//! file was made and its true duration) and hand-built edge cases.

#![allow(clippy::unwrap_used)]

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/audio/",
            $name
        ))
        .as_slice()
    };
}

const WAV: &[u8] = fixture!("tone.wav");
const MP3: &[u8] = fixture!("tone.mp3");
const MP3_VBR: &[u8] = fixture!("tone-vbr.mp3");
const MP3_NO_INFO: &[u8] = fixture!("tone-noinfo.mp3");
const VORBIS: &[u8] = fixture!("tone.ogg");
const OPUS: &[u8] = fixture!("tone.opus");
const TEXT: &[u8] = fixture!("not-audio.txt");

/// Each fixture, its format and its true duration (from the fixtures README).
const FIXTURES: [(&str, &[u8], AudioFormat, f64); 6] = [
    ("tone.wav", WAV, AudioFormat::Wav, 1.5),
    ("tone.mp3", MP3, AudioFormat::Mp3, 1.5),
    ("tone-vbr.mp3", MP3_VBR, AudioFormat::Mp3, 1.5),
    ("tone-noinfo.mp3", MP3_NO_INFO, AudioFormat::Mp3, 1.656),
    ("tone.ogg", VORBIS, AudioFormat::Ogg, 1.5),
    ("tone.opus", OPUS, AudioFormat::Ogg, 1.5),
];

const ALL_FORMATS: [AudioFormat; 3] = [AudioFormat::Wav, AudioFormat::Mp3, AudioFormat::Ogg];

#[test]
fn formats_name_their_mime_type_and_extension() {
    assert_eq!(AudioFormat::Wav.content_type(), "audio/wav");
    assert_eq!(AudioFormat::Mp3.content_type(), "audio/mpeg");
    assert_eq!(AudioFormat::Ogg.content_type(), "audio/ogg");
    assert_eq!(AudioFormat::Wav.extension(), "wav");
    assert_eq!(AudioFormat::Mp3.extension(), "mp3");
    assert_eq!(AudioFormat::Ogg.extension(), "ogg");
}

#[test]
fn fixtures_sniff_as_their_format() {
    for (name, bytes, format, _) in FIXTURES {
        assert_eq!(sniff(bytes), Some(format), "{name}");
    }
    assert_eq!(sniff(TEXT), None);
    assert_eq!(sniff(b""), None);
}

#[test]
fn fixture_durations_match_the_truth() {
    for (name, bytes, format, truth) in FIXTURES {
        let measured = duration_seconds(format, bytes).unwrap();
        assert!(
            (measured - truth).abs() < 0.05,
            "{name}: measured {measured}, true {truth}"
        );
    }
}

#[test]
fn exact_durations_of_the_header_driven_paths() {
    // 12000 samples at 8 kHz: WAV data size, LAME-trimmed Info/Xing counts, Vorbis and Opus granules.
    assert_eq!(duration_seconds(AudioFormat::Wav, WAV), Some(1.5));
    assert_eq!(duration_seconds(AudioFormat::Mp3, MP3), Some(1.5));
    assert_eq!(duration_seconds(AudioFormat::Mp3, MP3_VBR), Some(1.5));
    assert_eq!(duration_seconds(AudioFormat::Ogg, VORBIS), Some(1.5));
    assert_eq!(duration_seconds(AudioFormat::Ogg, OPUS), Some(1.5));
    // No Info header: 23 whole frames of 576 samples.
    assert_eq!(
        duration_seconds(AudioFormat::Mp3, MP3_NO_INFO),
        Some(23.0 * 576.0 / 8000.0)
    );
}

#[test]
fn the_name_is_irrelevant_only_bytes_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("greeting.wav");
    std::fs::write(&path, MP3).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(sniff(&bytes), Some(AudioFormat::Mp3));
}

#[test]
fn wrong_format_or_non_audio_gives_none() {
    for (name, bytes, format, _) in FIXTURES {
        for other in ALL_FORMATS.into_iter().filter(|&f| f != format) {
            assert_eq!(duration_seconds(other, bytes), None, "{name} as {other:?}");
        }
    }
    for format in ALL_FORMATS {
        assert_eq!(duration_seconds(format, TEXT), None);
        assert_eq!(duration_seconds(format, b""), None);
    }
}

#[test]
fn truncated_headers_give_none() {
    assert_eq!(duration_seconds(AudioFormat::Wav, &WAV[..30]), None); // cut inside fmt
    assert_eq!(duration_seconds(AudioFormat::Mp3, &MP3[..60]), None); // cut inside ID3v2
    assert_eq!(sniff(&MP3[..60]), None);
    assert_eq!(duration_seconds(AudioFormat::Ogg, &OPUS[..40]), None); // cut inside the first page
    assert_eq!(sniff(&VORBIS[..40]), None);
    // Only the two header pages (OpusHead, OpusTags): no audio yet.
    let page_len = |at: usize| {
        let segments = usize::from(OPUS[at + 26]);
        let body: usize = OPUS[at + 27..at + 27 + segments]
            .iter()
            .map(|&s| usize::from(s))
            .sum();
        27 + segments + body
    };
    let first = page_len(0);
    let headers = first + page_len(first);
    assert_eq!(sniff(&OPUS[..headers]), Some(AudioFormat::Ogg));
    assert_eq!(duration_seconds(AudioFormat::Ogg, &OPUS[..headers]), None);
}

#[test]
fn cut_audio_plays_for_what_is_left() {
    // A WAV cut in its data keeps the samples present.
    let half = duration_seconds(AudioFormat::Wav, &WAV[..44 + 6_000]).unwrap();
    assert!((half - 0.75).abs() < 1e-9, "{half}");
    // An MP3 without an Info header counts its complete frames only.
    let cut = duration_seconds(AudioFormat::Mp3, &MP3_NO_INFO[..MP3_NO_INFO.len() - 10]).unwrap();
    assert!((cut - 22.0 * 0.072).abs() < 1e-9, "{cut}");
}

/// Every prefix of every fixture, through every parser: nothing may panic.
#[test]
fn prefixes_never_panic() {
    for (_, bytes, _, _) in FIXTURES
        .iter()
        .chain([&("text", TEXT, AudioFormat::Wav, 0.0)])
    {
        for end in 0..=bytes.len() {
            let prefix = &bytes[..end];
            let _ = sniff(prefix);
            for format in ALL_FORMATS {
                if let Some(seconds) = duration_seconds(format, prefix) {
                    assert!(seconds.is_finite() && seconds >= 0.0);
                }
            }
        }
    }
}

/// Byte corruptions and random garbage behind each format's magic: nothing may panic.
#[test]
fn corruption_and_garbage_never_panic() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for (_, bytes, _, _) in FIXTURES {
        for (i, mask) in (0..bytes.len())
            .step_by(7)
            .zip([0xFFu8, 0x01, 0x80, 0x10].iter().cycle())
        {
            let mut corrupt = bytes.to_vec();
            corrupt[i] ^= mask;
            let _ = sniff(&corrupt);
            for format in ALL_FORMATS {
                let _ = duration_seconds(format, &corrupt);
            }
        }
    }
    let magics: [&[u8]; 7] = [
        b"",
        b"RIFF\xff\xff\xff\xffWAVE",
        b"RIFF\x00\x00\x00\x00WAVEfmt ",
        b"OggS\x00\x02",
        b"ID3\x04\x00\x10",
        b"\xff\xfb",
        b"\xff\xe3",
    ];
    for magic in magics {
        for len in 0..300 {
            let mut garbage = magic.to_vec();
            garbage.extend((0..len).map(|_| next() as u8));
            let _ = sniff(&garbage);
            for format in ALL_FORMATS {
                let _ = duration_seconds(format, &garbage);
            }
        }
    }
}

// ---- hand-built WAV ----

fn chunk(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = id.to_vec();
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(body);
    if body.len() % 2 == 1 {
        out.push(0);
    }
    out
}

fn riff(chunks: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = chunks.concat();
    let mut out = b"RIFF".to_vec();
    out.extend((body.len() as u32 + 4).to_le_bytes());
    out.extend(b"WAVE");
    out.extend(body);
    out
}

fn fmt_body(format: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
    let align = channels * bits / 8;
    let mut out = Vec::new();
    out.extend(format.to_le_bytes());
    out.extend(channels.to_le_bytes());
    out.extend(rate.to_le_bytes());
    out.extend((rate * u32::from(align)).to_le_bytes());
    out.extend(align.to_le_bytes());
    out.extend(bits.to_le_bytes());
    out
}

#[test]
fn wav_extensible_with_extra_and_odd_chunks() {
    let mut fmt = fmt_body(0xFFFE, 2, 48_000, 24);
    fmt.extend(22u16.to_le_bytes()); // cbSize
    fmt.extend(24u16.to_le_bytes()); // valid bits
    fmt.extend(3u32.to_le_bytes()); // channel mask
    fmt.extend(1u16.to_le_bytes()); // PCM sub-format GUID…
    fmt.extend(b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xAA\x00\x38\x9B\x71");
    let data = vec![0u8; 48_000 * 6 / 4]; // a quarter second of 24-bit stereo
    let wav = riff(&[
        chunk(b"JUNK", b"odd"), // odd size: one pad byte follows
        chunk(b"fmt ", &fmt),
        chunk(b"LIST", b"INFOISFT\x05\x00\x00\x00sox!\x00"),
        chunk(b"data", &data),
        chunk(b"id3 ", b"trailing"),
    ]);
    assert_eq!(sniff(&wav), Some(AudioFormat::Wav));
    assert_eq!(duration_seconds(AudioFormat::Wav, &wav), Some(0.25));
}

#[test]
fn wav_with_unknown_data_size_uses_what_is_there() {
    let mut wav = riff(&[chunk(b"fmt ", &fmt_body(1, 1, 8_000, 16))]);
    wav.extend(b"data");
    wav.extend(u32::MAX.to_le_bytes());
    wav.extend(vec![0u8; 8_000]);
    assert_eq!(duration_seconds(AudioFormat::Wav, &wav), Some(0.5));
}

#[test]
fn wav_with_inconsistent_or_missing_fmt_is_refused() {
    let data = chunk(b"data", &[0u8; 100]);
    let mut bad_rate = fmt_body(1, 1, 8_000, 16);
    bad_rate[8..12].copy_from_slice(&12_345u32.to_le_bytes());
    assert_eq!(
        duration_seconds(
            AudioFormat::Wav,
            &riff(&[chunk(b"fmt ", &bad_rate), data.clone()])
        ),
        None
    );
    assert_eq!(
        duration_seconds(
            AudioFormat::Wav,
            &riff(&[chunk(b"fmt ", &fmt_body(1, 0, 8_000, 16)), data.clone()])
        ),
        None
    );
    assert_eq!(
        duration_seconds(AudioFormat::Wav, &riff(std::slice::from_ref(&data))),
        None
    );
    assert_eq!(
        duration_seconds(
            AudioFormat::Wav,
            &riff(&[chunk(b"fmt ", &fmt_body(1, 1, 8_000, 16))])
        ),
        None
    );
    // A compressed format (GSM 6.10) is measured by its declared byte rate.
    let mut gsm = fmt_body(0x31, 1, 8_000, 0);
    gsm[8..12].copy_from_slice(&1_625u32.to_le_bytes());
    gsm[12..14].copy_from_slice(&65u16.to_le_bytes());
    let wav = riff(&[chunk(b"fmt ", &gsm), chunk(b"data", &[0u8; 3_250])]);
    assert_eq!(duration_seconds(AudioFormat::Wav, &wav), Some(2.0));
}

// ---- hand-built MP3 ----

/// One silent Layer III frame: `version` bits (3 = MPEG1, 2 = MPEG2, 0 = MPEG2.5).
fn mpeg_frame(
    version: u8,
    bitrate_index: u8,
    rate_index: u8,
    mono: bool,
    padding: bool,
) -> Vec<u8> {
    let header = [
        0xFF,
        0xE0 | version << 3 | 0b01 << 1 | 1,
        bitrate_index << 4 | rate_index << 2 | u8::from(padding) << 1,
        if mono { 0xC0 } else { 0x00 },
    ];
    let mut out = header.to_vec();
    out.resize(super::mp3::frame_len(&header).unwrap(), 0);
    out
}

#[test]
fn mp3_frame_walk_for_each_mpeg_version() {
    // MPEG1 44.1 kHz 128 kbit/s stereo, alternating padding (417/418-byte frames).
    let mpeg1: Vec<u8> = (0..40)
        .flat_map(|i| mpeg_frame(3, 9, 0, false, i % 2 == 0))
        .collect();
    assert_eq!(sniff(&mpeg1), Some(AudioFormat::Mp3));
    let seconds = duration_seconds(AudioFormat::Mp3, &mpeg1).unwrap();
    assert!(
        (seconds - 40.0 * 1152.0 / 44_100.0).abs() < 1e-9,
        "{seconds}"
    );
    // MPEG2 22.05 kHz 32 kbit/s mono.
    let mpeg2: Vec<u8> = (0..25)
        .flat_map(|_| mpeg_frame(2, 4, 0, true, false))
        .collect();
    let seconds = duration_seconds(AudioFormat::Mp3, &mpeg2).unwrap();
    assert!(
        (seconds - 25.0 * 576.0 / 22_050.0).abs() < 1e-9,
        "{seconds}"
    );
    // MPEG2.5 12 kHz, bit rate changing between frames, junk in the middle and an ID3v1 tag at the end.
    let mut mpeg25: Vec<u8> = (0..10)
        .flat_map(|i| mpeg_frame(0, 1 + i % 5, 1, true, false))
        .collect();
    mpeg25.extend(b"junk between frames");
    mpeg25.extend((0..10).flat_map(|_| mpeg_frame(0, 2, 1, true, false)));
    mpeg25.extend(b"TAG");
    mpeg25.extend([b' '; 125]);
    let seconds = duration_seconds(AudioFormat::Mp3, &mpeg25).unwrap();
    assert!(
        (seconds - 20.0 * 576.0 / 12_000.0).abs() < 1e-9,
        "{seconds}"
    );
}

#[test]
fn mp3_behind_id3v24_tag_with_footer() {
    let mut tagged = b"ID3\x04\x00\x10\x00\x00\x01\x00".to_vec(); // 128-byte tag, footer present
    tagged.extend([0u8; 128]);
    tagged.extend(b"3DI\x04\x00\x10\x00\x00\x01\x00");
    tagged.extend([0u8; 3]); // stray padding outside the tag
    tagged.extend((0..5).flat_map(|_| mpeg_frame(3, 9, 1, false, false)));
    assert_eq!(sniff(&tagged), Some(AudioFormat::Mp3));
    let seconds = duration_seconds(AudioFormat::Mp3, &tagged).unwrap();
    assert!(
        (seconds - 5.0 * 1152.0 / 48_000.0).abs() < 1e-9,
        "{seconds}"
    );
}

#[test]
fn mp3_vbri_header_gives_the_frame_count() {
    let mut first = mpeg_frame(3, 9, 0, false, false);
    first[36..40].copy_from_slice(b"VBRI");
    first[40..42].copy_from_slice(&1u16.to_be_bytes());
    first[50..54].copy_from_slice(&1_000u32.to_be_bytes());
    let mut stream = first;
    stream.extend(mpeg_frame(3, 9, 0, false, false));
    let seconds = duration_seconds(AudioFormat::Mp3, &stream).unwrap();
    assert!(
        (seconds - 1_000.0 * 1152.0 / 44_100.0).abs() < 1e-9,
        "{seconds}"
    );
}

#[test]
fn mp3_false_positives_are_refused() {
    // A lone valid header followed by something else.
    let mut lone = mpeg_frame(3, 9, 0, false, false);
    lone.extend(b"not a frame at all");
    assert_eq!(sniff(&lone), None);
    // Layer I/II, free format, bad bit rate, reserved sample rate, reserved version.
    for header in [
        [0xFF, 0xFF, 0x90, 0x00],
        [0xFF, 0xFD, 0x90, 0x00],
        [0xFF, 0xFB, 0x00, 0x00],
        [0xFF, 0xFB, 0xF0, 0x00],
        [0xFF, 0xFB, 0x9C, 0x00],
        [0xFF, 0xEB, 0x90, 0x00],
        [0xFF, 0xFB, 0x90, 0x02],
    ] {
        let mut bytes = header.to_vec();
        bytes.resize(2_000, 0);
        assert_eq!(sniff(&bytes), None, "{header:x?}");
        assert_eq!(
            duration_seconds(AudioFormat::Mp3, &bytes),
            None,
            "{header:x?}"
        );
    }
    // A sync later in the data does not make a file MP3.
    let mut late = b"hello".to_vec();
    late.extend((0..5).flat_map(|_| mpeg_frame(3, 9, 0, false, false)));
    assert_eq!(sniff(&late), None);
    // An ID3 tag in front of something else.
    let mut tag_only = b"ID3\x03\x00\x00\x00\x00\x00\x04abcd".to_vec();
    tag_only.extend(b"fLaC\x00\x00\x00\x22");
    assert_eq!(sniff(&tag_only), None);
}

#[test]
fn whole_seconds_measures_known_formats_and_raw_gsm() {
    // 50 frames of 20 ms, each opening with GSM 06.10's signature nibble.
    let mut gsm = Vec::new();
    for _ in 0..50 {
        gsm.push(0xD8);
        gsm.extend_from_slice(&[0u8; 32]);
    }
    assert_eq!(super::whole_seconds(&gsm), Some(1));
    // Not whole frames, or not GSM's signature: not measurable.
    assert_eq!(super::whole_seconds(&gsm[..40]), None);
    assert_eq!(super::whole_seconds(&[0u8; 66]), None);
    assert_eq!(super::whole_seconds(b""), None);
    // 1.5 s of WAV rounds to 2.
    let wav = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/audio/tone.wav"
    ))
    .unwrap();
    assert_eq!(super::whole_seconds(&wav), Some(2));
}

#[test]
fn gsm_is_told_from_its_bytes() {
    let wav49 = fixture!("tone-wav49.WAV");
    let raw = fixture!("tone.gsm");
    assert_eq!(gsm(wav49), Some(Gsm::Wav49));
    assert_eq!(gsm(raw), Some(Gsm::Raw));
    // Both last 1.5 s (75 frames of 20 ms; the wav49 by its byte rate).
    assert_eq!(whole_seconds(raw), Some(2));
    assert!((duration_seconds(AudioFormat::Wav, wav49).unwrap() - 1.5).abs() < 0.05);
    for other in [WAV, MP3, VORBIS, OPUS, TEXT] {
        assert_eq!(gsm(other), None);
    }
    // A cut raw file is not whole frames; a cut header has no fmt chunk.
    assert_eq!(gsm(&raw[..40]), None);
    assert_eq!(gsm(&wav49[..16]), None);
}
