//! Ogg pages (with their CRC) and the Vorbis and Opus identification headers.

use super::bytes::{u16_le, u32_le, u64_le};

/// Fixed part of a page header; the segment table follows.
const PAGE_HEADER_LEN: usize = 27;
/// Header-type flag of a stream's first page.
const BEGINNING_OF_STREAM: u8 = 0x02;
/// Granule position of a page on which no packet ends.
const NO_GRANULE: u64 = u64::MAX;

/// One complete, checksum-verified page.
struct Page<'a> {
    header_type: u8,
    granule: u64,
    serial: u32,
    segments: &'a [u8],
    body: &'a [u8],
    /// Bytes the whole page takes.
    len: usize,
}

/// The codec of the logical stream, from its identification header.
#[derive(Clone, Copy)]
enum Codec {
    Vorbis { sample_rate: u32 },
    Opus { pre_skip: u16 },
}

fn parse_page(bytes: &[u8]) -> Option<Page<'_>> {
    if bytes.get(0..4)? != b"OggS" || *bytes.get(4)? != 0 {
        return None;
    }
    let segment_count = usize::from(*bytes.get(26)?);
    let segments = bytes.get(PAGE_HEADER_LEN..PAGE_HEADER_LEN + segment_count)?;
    let body_start = PAGE_HEADER_LEN + segment_count;
    let body_len: usize = segments.iter().map(|&s| usize::from(s)).sum();
    let len = body_start + body_len;
    let page = bytes.get(..len)?;
    if crc32(page) != u32_le(page, 22)? {
        return None;
    }
    Some(Page {
        header_type: page[5],
        granule: u64_le(page, 6)?,
        serial: u32_le(page, 14)?,
        segments,
        body: &page[body_start..],
        len,
    })
}

/// The codec announced by a beginning-of-stream page's first packet.
fn identify(page: &Page<'_>) -> Option<Codec> {
    if page.header_type & BEGINNING_OF_STREAM == 0 {
        return None;
    }
    // The first packet runs until a lacing value below 255.
    let mut packet_len = 0usize;
    for &lacing in page.segments {
        packet_len += usize::from(lacing);
        if lacing < 255 {
            break;
        }
    }
    let packet = page.body.get(..packet_len)?;
    if packet.starts_with(b"\x01vorbis") {
        // version (must be 0), channels, sample rate, three bit rates, block sizes, framing bit.
        let version = u32_le(packet, 7)?;
        let channels = *packet.get(11)?;
        let sample_rate = u32_le(packet, 12)?;
        let framing = *packet.get(29)?;
        (version == 0 && channels > 0 && sample_rate > 0 && framing & 1 == 1)
            .then_some(Codec::Vorbis { sample_rate })
    } else if packet.starts_with(b"OpusHead") {
        // Major version 0 (upper nibble), channels, pre-skip, input rate, gain, mapping family.
        let version = *packet.get(8)?;
        let channels = *packet.get(9)?;
        let pre_skip = u16_le(packet, 10)?;
        (packet.len() >= 19 && version & 0xF0 == 0 && channels > 0)
            .then_some(Codec::Opus { pre_skip })
    } else {
        None
    }
}

pub(super) fn sniff(bytes: &[u8]) -> bool {
    parse_page(bytes).as_ref().and_then(identify).is_some()
}

pub(super) fn is_opus(bytes: &[u8]) -> bool {
    matches!(
        parse_page(bytes).as_ref().and_then(identify),
        Some(Codec::Opus { .. })
    )
}

pub(super) fn duration(bytes: &[u8]) -> Option<f64> {
    let first = parse_page(bytes)?;
    let codec = identify(&first)?;
    let serial = first.serial;
    // Walks forward rather than searching backwards for "OggS" so that every page counted is verified;
    // a cut or corrupt page ends the walk, and what came before it is what plays.
    let mut pos = first.len;
    let mut granule = 0u64;
    while let Some(page) = bytes.get(pos..).and_then(parse_page) {
        if page.serial == serial && page.granule != NO_GRANULE && page.granule <= i64::MAX as u64 {
            granule = page.granule;
        }
        pos += page.len;
    }
    if granule == 0 {
        return None; // headers only: no audio
    }
    Some(match codec {
        Codec::Vorbis { sample_rate } => granule as f64 / f64::from(sample_rate),
        Codec::Opus { pre_skip } => granule.saturating_sub(u64::from(pre_skip)) as f64 / 48_000.0,
    })
}

/// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, zero start, computed with the CRC field zeroed.
fn crc32(page: &[u8]) -> u32 {
    let mut crc = 0u32;
    for (i, &byte) in page.iter().enumerate() {
        let byte = if (22..26).contains(&i) { 0 } else { byte };
        crc = (crc << 8) ^ CRC_TABLE[usize::from((crc >> 24) as u8 ^ byte)];
    }
    crc
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut r = (i as u32) << 24;
        let mut bit = 0;
        while bit < 8 {
            r = if r & 0x8000_0000 != 0 {
                (r << 1) ^ 0x04C1_1DB7
            } else {
                r << 1
            };
            bit += 1;
        }
        table[i] = r;
        i += 1;
    }
    table
};
