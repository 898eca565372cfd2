//! MPEG audio Layer III: ID3v2 skipping, frame headers, Xing/Info (with the LAME tag) and VBRI headers.

use super::bytes::{array, u16_be, u32_be};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    Mpeg1,
    Mpeg2,
    Mpeg25,
}

/// What one frame header says.
#[derive(Clone, Copy, Debug)]
struct Frame {
    version: Version,
    sample_rate: u32,
    /// Samples per channel in the frame.
    samples: u32,
    /// Whole frame length in bytes, header included.
    len: usize,
    mono: bool,
    /// A 16-bit CRC follows the header.
    crc: bool,
}

impl Frame {
    /// Whether `other` can belong to the same stream (bit rate and mode may change between frames).
    fn same_stream(&self, other: &Frame) -> bool {
        self.version == other.version && self.sample_rate == other.sample_rate
    }

    /// Offset of a Xing/Info header from the frame start: header, CRC, then the side information.
    fn xing_offset(&self) -> usize {
        let side_info = match (self.version, self.mono) {
            (Version::Mpeg1, false) => 32,
            (Version::Mpeg1, true) | (_, false) => 17,
            (_, true) => 9,
        };
        4 + if self.crc { 2 } else { 0 } + side_info
    }
}

/// Layer III bit rates in kbit/s by index; 0 (free format) and 15 are refused.
const BITRATES_V1: [u32; 15] = [
    0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
];
const BITRATES_V2: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

/// Parses the frame header at the start of `bytes` (Layer III only).
fn parse_frame(bytes: &[u8]) -> Option<Frame> {
    let [b0, b1, b2, b3] = array::<4>(bytes, 0)?;
    // 11-bit frame sync.
    if b0 != 0xFF || b1 & 0xE0 != 0xE0 {
        return None;
    }
    let version = match (b1 >> 3) & 0b11 {
        0b00 => Version::Mpeg25,
        0b10 => Version::Mpeg2,
        0b11 => Version::Mpeg1,
        _ => return None,
    };
    if (b1 >> 1) & 0b11 != 0b01 {
        return None; // not Layer III
    }
    let crc = b1 & 1 == 0;
    let bitrate_index = usize::from(b2 >> 4);
    let bitrate = match version {
        Version::Mpeg1 => BITRATES_V1.get(bitrate_index)?,
        _ => BITRATES_V2.get(bitrate_index)?,
    } * 1000;
    if bitrate == 0 {
        return None;
    }
    let base_rate = match (b2 >> 2) & 0b11 {
        0 => 44_100,
        1 => 48_000,
        2 => 32_000,
        _ => return None,
    };
    let sample_rate = match version {
        Version::Mpeg1 => base_rate,
        Version::Mpeg2 => base_rate / 2,
        Version::Mpeg25 => base_rate / 4,
    };
    if b3 & 0b11 == 0b10 {
        return None; // reserved emphasis
    }
    let padding = u32::from((b2 >> 1) & 1);
    let samples = if version == Version::Mpeg1 { 1152 } else { 576 };
    // samples / 8 bytes per (bit/s ÷ sample rate), plus the padding byte.
    let len = samples / 8 * bitrate / sample_rate + padding;
    Some(Frame {
        version,
        sample_rate,
        samples,
        len: usize::try_from(len).ok()?,
        mono: b3 >> 6 == 0b11,
        crc,
    })
}

/// Offset of the first byte after any ID3v2 tags (and zero padding after them); `None` when a tag is
/// malformed or runs past the end.
fn audio_start(bytes: &[u8]) -> Option<usize> {
    let mut pos: usize = 0;
    while bytes.get(pos..pos.checked_add(3)?) == Some(b"ID3") {
        let header: [u8; 10] = array(bytes, pos)?;
        let (major, revision, flags) = (header[3], header[4], header[5]);
        if major == 0xFF || revision == 0xFF {
            return None;
        }
        // Sizes are "syncsafe": 4 × 7 bits.
        let mut size = 0usize;
        for &b in &header[6..10] {
            if b & 0x80 != 0 {
                return None;
            }
            size = (size << 7) | usize::from(b);
        }
        let footer = if major >= 4 && flags & 0x10 != 0 {
            10
        } else {
            0
        };
        pos = pos.checked_add(10 + size + footer)?;
        if pos > bytes.len() {
            return None;
        }
    }
    // Some taggers pad with zeros outside the tag.
    while bytes.get(pos) == Some(&0) {
        pos += 1;
    }
    Some(pos)
}

/// The frame at `pos` when it is complete and followed by a frame of the same stream or by the end.
fn confirmed_frame(bytes: &[u8], pos: usize) -> Option<Frame> {
    let frame = parse_frame(bytes.get(pos..)?)?;
    let next = pos.checked_add(frame.len)?;
    if next == bytes.len() {
        return Some(frame);
    }
    let following = parse_frame(bytes.get(next..)?)?;
    frame.same_stream(&following).then_some(frame)
}

pub(super) fn sniff(bytes: &[u8]) -> bool {
    // The first frame must start right after the tags: scanning for a sync would find one in almost any
    // large binary file.
    audio_start(bytes).is_some_and(|start| confirmed_frame(bytes, start).is_some())
}

pub(super) fn duration(bytes: &[u8]) -> Option<f64> {
    let start = audio_start(bytes)?;
    let first = confirmed_frame(bytes, start)?;
    if let Some(samples) =
        xing_samples(bytes, start, &first).or_else(|| vbri_samples(bytes, start, &first))
    {
        return Some(samples as f64 / f64::from(first.sample_rate));
    }
    Some(walk_samples(bytes, start, &first)? as f64 / f64::from(first.sample_rate))
}

/// Samples of the stream per its Xing/Info header, less the LAME tag's encoder delay and padding.
fn xing_samples(bytes: &[u8], start: usize, first: &Frame) -> Option<u64> {
    let at = start.checked_add(first.xing_offset())?;
    let tag = bytes.get(at..at.checked_add(4)?)?;
    if tag != b"Xing" && tag != b"Info" {
        return None;
    }
    let flags = u32_be(bytes, at + 4)?;
    let mut pos = at + 8;
    // Without a frame count the header does not say the length: the caller walks the frames instead.
    if flags & 0x1 == 0 {
        return None;
    }
    let frames = u64::from(u32_be(bytes, pos)?);
    pos += 4;
    if flags & 0x2 != 0 {
        pos += 4; // byte count
    }
    if flags & 0x4 != 0 {
        pos += 100; // seek table
    }
    if flags & 0x8 != 0 {
        pos += 4; // quality
    }
    if frames == 0 {
        return None;
    }
    let total = frames * u64::from(first.samples);
    Some(
        total.saturating_sub(
            lame_trim(bytes, pos)
                .filter(|&trim| trim < total)
                .unwrap_or(0),
        ),
    )
}

/// Encoder delay plus end padding, in samples, from a LAME-style tag starting at `at`: encoder name (9),
/// revision, low-pass, peak (4), two replay gains (2 + 2), flags, bit rate, then 12 + 12 bits.
fn lame_trim(bytes: &[u8], at: usize) -> Option<u64> {
    let encoder = bytes.get(at..at.checked_add(4)?)?;
    if !matches!(encoder, b"LAME" | b"Lavf" | b"Lavc" | b"L3.9") {
        return None;
    }
    let [a, b, c] = array::<3>(bytes, at + 21)?;
    let delay = (u64::from(a) << 4) | u64::from(b >> 4);
    let padding = (u64::from(b & 0x0F) << 8) | u64::from(c);
    Some(delay + padding)
}

/// Samples of the stream per a Fraunhofer VBRI header (always 32 bytes after the frame header).
fn vbri_samples(bytes: &[u8], start: usize, first: &Frame) -> Option<u64> {
    let at = start.checked_add(36)?;
    if bytes.get(at..at.checked_add(4)?)? != b"VBRI" || u16_be(bytes, at + 4)? != 1 {
        return None;
    }
    let frames = u64::from(u32_be(bytes, at + 14)?);
    (frames > 0).then(|| frames * u64::from(first.samples))
}

/// Samples of every complete frame from `start`, skipping junk between frames by resynchronising on
/// confirmed frames; trailing tags (ID3v1, APE) and a cut last frame end the walk.
fn walk_samples(bytes: &[u8], start: usize, first: &Frame) -> Option<u64> {
    let mut pos = start;
    let mut samples: u64 = 0;
    while pos < bytes.len() {
        match bytes.get(pos..).and_then(parse_frame) {
            Some(frame) if frame.same_stream(first) => {
                let Some(end) = pos.checked_add(frame.len).filter(|&end| end <= bytes.len()) else {
                    break;
                };
                samples += u64::from(frame.samples);
                pos = end;
            }
            _ => {
                let resync = (pos + 1..bytes.len())
                    .find(|&p| confirmed_frame(bytes, p).is_some_and(|f| f.same_stream(first)));
                match resync {
                    Some(p) => pos = p,
                    None => break,
                }
            }
        }
    }
    (samples > 0).then_some(samples)
}

/// The length of the frame whose header starts `header` (for building test streams).
#[cfg(test)]
pub(super) fn frame_len(header: &[u8]) -> Option<usize> {
    parse_frame(header).map(|frame| frame.len)
}
