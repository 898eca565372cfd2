//! RIFF/WAVE: chunk walking for the format and data chunks.

use super::bytes::{u16_le, u32_le};

/// WAVE format tags whose byte rate must equal sample rate × block align.
const WAVE_FORMAT_PCM: u16 = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT: u16 = 0x0003;
const WAVE_FORMAT_EXTENSIBLE: u16 = 0xFFFE;

pub(super) fn sniff(bytes: &[u8]) -> bool {
    bytes.get(0..4) == Some(b"RIFF") && bytes.get(8..12) == Some(b"WAVE")
}

pub(super) fn duration(bytes: &[u8]) -> Option<f64> {
    if !sniff(bytes) {
        return None;
    }
    let mut byte_rate = None;
    let mut data_len = None;
    let mut pos: usize = 12;
    // The RIFF size field is ignored: streaming writers leave it wrong, and the chunks say the same.
    while byte_rate.is_none() || data_len.is_none() {
        let id = bytes.get(pos..pos.checked_add(4)?)?;
        let size = usize::try_from(u32_le(bytes, pos + 4)?).ok()?;
        let body = pos + 8;
        let available = bytes.len().checked_sub(body)?;
        match id {
            b"fmt " => byte_rate = Some(parse_fmt(bytes.get(body..body.checked_add(size)?)?)?),
            b"data" => {
                // A data size past the end is a header written before the length was known (or a cut
                // file): what is there is what plays.
                data_len = Some(size.min(available));
                if size > available {
                    break;
                }
            }
            _ => {}
        }
        // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
        pos = body.checked_add(size)?.checked_add(size & 1)?;
    }
    Some(data_len? as f64 / f64::from(byte_rate?))
}

/// The format tag of a RIFF/WAVE's fmt chunk (0x0031: GSM 6.10, Asterisk's wav49).
pub(super) fn format_tag(bytes: &[u8]) -> Option<u16> {
    if !sniff(bytes) {
        return None;
    }
    let mut pos: usize = 12;
    loop {
        let id = bytes.get(pos..pos.checked_add(4)?)?;
        let size = usize::try_from(u32_le(bytes, pos + 4)?).ok()?;
        let body = pos + 8;
        if id == b"fmt " {
            return u16_le(bytes, body);
        }
        pos = body.checked_add(size)?.checked_add(size & 1)?;
    }
}

/// The byte rate of a valid fmt chunk body.
fn parse_fmt(fmt: &[u8]) -> Option<u32> {
    let format = u16_le(fmt, 0)?;
    let channels = u16_le(fmt, 2)?;
    let sample_rate = u32_le(fmt, 4)?;
    let byte_rate = u32_le(fmt, 8)?;
    let block_align = u16_le(fmt, 12)?;
    if channels == 0 || sample_rate == 0 || byte_rate == 0 || block_align == 0 {
        return None;
    }
    let format = if format == WAVE_FORMAT_EXTENSIBLE {
        // cbSize (22), valid bits, channel mask, then the sub-format GUID whose first two bytes are the
        // real format tag.
        let extension = u16_le(fmt, 16)?;
        if extension < 22 || fmt.len() < 40 {
            return None;
        }
        u16_le(fmt, 24)?
    } else {
        format
    };
    let uncompressed = matches!(format, WAVE_FORMAT_PCM | WAVE_FORMAT_IEEE_FLOAT);
    if uncompressed && u64::from(byte_rate) != u64::from(sample_rate) * u64::from(block_align) {
        return None;
    }
    Some(byte_rate)
}
