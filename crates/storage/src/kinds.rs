//! What a file is, decided from its first bytes (never its name or a client's content
//! type): the kinds carriers accept in MMS messages, and the names of common kinds they
//! do not, so a refusal can say what was sent.

use crate::audio::{self, AudioFormat};

/// A kind of file carriers accept in MMS messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmsKind {
    /// JPEG image.
    Jpeg,
    /// PNG image.
    Png,
    /// GIF image.
    Gif,
    /// WebP image.
    Webp,
    /// MP4 video.
    Mp4,
    /// 3GPP video.
    ThreeGpp,
    /// MP3 audio.
    Mp3,
    /// AMR narrow-band audio.
    Amr,
    /// AMR wide-band audio.
    AmrWb,
    /// WAV audio.
    Wav,
    /// vCard contact.
    VCard,
    /// PDF document.
    Pdf,
}

impl MmsKind {
    /// The MIME type served with the file.
    pub fn content_type(self) -> &'static str {
        match self {
            MmsKind::Jpeg => "image/jpeg",
            MmsKind::Png => "image/png",
            MmsKind::Gif => "image/gif",
            MmsKind::Webp => "image/webp",
            MmsKind::Mp4 => "video/mp4",
            MmsKind::ThreeGpp => "video/3gpp",
            MmsKind::Mp3 => "audio/mpeg",
            MmsKind::Amr => "audio/amr",
            MmsKind::AmrWb => "audio/amr-wb",
            MmsKind::Wav => "audio/wav",
            MmsKind::VCard => "text/vcard",
            MmsKind::Pdf => "application/pdf",
        }
    }

    /// The file extension of stored files.
    pub fn extension(self) -> &'static str {
        match self {
            MmsKind::Jpeg => "jpg",
            MmsKind::Png => "png",
            MmsKind::Gif => "gif",
            MmsKind::Webp => "webp",
            MmsKind::Mp4 => "mp4",
            MmsKind::ThreeGpp => "3gp",
            MmsKind::Mp3 => "mp3",
            MmsKind::Amr => "amr",
            MmsKind::AmrWb => "awb",
            MmsKind::Wav => "wav",
            MmsKind::VCard => "vcf",
            MmsKind::Pdf => "pdf",
        }
    }
}

/// Bytes to read before deciding: every signature fits, and so does a large ID3 tag
/// in front of MP3 audio.
pub const SNIFF_BYTES: usize = 64 * 1024;

fn is_iso_media(head: &[u8]) -> Option<&[u8]> {
    (head.len() >= 12 && &head[4..8] == b"ftyp").then(|| &head[8..12])
}

/// The MMS kind of a file starting with `head`, or the MIME type found when carriers do
/// not take it (`application/octet-stream` when nothing is recognised).
pub fn mms_kind(head: &[u8]) -> Result<MmsKind, &'static str> {
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(MmsKind::Jpeg);
    }
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(MmsKind::Png);
    }
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        return Ok(MmsKind::Gif);
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        return Ok(MmsKind::Webp);
    }
    if let Some(brand) = is_iso_media(head) {
        return Ok(if brand.starts_with(b"3g") {
            MmsKind::ThreeGpp
        } else {
            MmsKind::Mp4
        });
    }
    if head.starts_with(b"#!AMR-WB\n") {
        return Ok(MmsKind::AmrWb);
    }
    if head.starts_with(b"#!AMR\n") {
        return Ok(MmsKind::Amr);
    }
    if head.starts_with(b"%PDF-") {
        return Ok(MmsKind::Pdf);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let trimmed = text.trim_ascii_start();
    if trimmed.len() >= 11 && trimmed[..11].eq_ignore_ascii_case(b"BEGIN:VCARD") {
        return Ok(MmsKind::VCard);
    }
    match audio::sniff(head) {
        Some(AudioFormat::Mp3) => return Ok(MmsKind::Mp3),
        Some(AudioFormat::Wav) => return Ok(MmsKind::Wav),
        Some(AudioFormat::Ogg) => return Err("audio/ogg"),
        None => {}
    }
    Err(other_kind(head))
}

/// Names the kinds carriers do not take: by their signature, from the `infer` crate's
/// table of some two hundred (archives, executables, other images, audio and documents),
/// else by the text they start with.
fn other_kind(head: &[u8]) -> &'static str {
    if let Some(found) = infer::get(head) {
        return found.mime_type();
    }
    let lower: Vec<u8> = head.iter().take(64).map(u8::to_ascii_lowercase).collect();
    let trimmed = lower.trim_ascii_start();
    if trimmed.starts_with(b"<!doctype html") || trimmed.starts_with(b"<html") {
        "text/html"
    } else if trimmed.starts_with(b"<?xml") || trimmed.starts_with(b"<svg") {
        "application/xml"
    } else if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        "application/json"
    } else if !head.is_empty() && std::str::from_utf8(head).is_ok() {
        "text/plain"
    } else {
        "application/octet-stream"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_what_carriers_take() {
        let mp4 = b"\0\0\0\x18ftypisom\0\0\x02\0isomiso2";
        let three_gp = b"\0\0\0\x14ftyp3gp5\0\0\0\x003gp5";
        for (bytes, kind) in [
            (&b"\xFF\xD8\xFF\xE0\0\x10JFIF"[..], MmsKind::Jpeg),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", MmsKind::Png),
            (b"GIF89a\x01\0\x01\0", MmsKind::Gif),
            (b"RIFF\x24\0\0\0WEBPVP8 ", MmsKind::Webp),
            (mp4, MmsKind::Mp4),
            (three_gp, MmsKind::ThreeGpp),
            (b"#!AMR\n<", MmsKind::Amr),
            (b"#!AMR-WB\n<", MmsKind::AmrWb),
            (b"%PDF-1.7\n", MmsKind::Pdf),
            (b"\xEF\xBB\xBF  begin:vcard\r\nVERSION:3.0", MmsKind::VCard),
        ] {
            assert_eq!(mms_kind(bytes), Ok(kind));
        }
    }

    #[test]
    fn names_what_they_do_not() {
        assert_eq!(mms_kind(b"hello world"), Err("text/plain"));
        assert_eq!(mms_kind(b"<!DOCTYPE html><html>"), Err("text/html"));
        assert_eq!(mms_kind(b"PK\x03\x04\x14\0"), Err("application/zip"));
        assert_eq!(
            mms_kind(b"MZ\x90\0"),
            Err("application/vnd.microsoft.portable-executable")
        );
        let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
        elf.resize(64, 0);
        assert_eq!(mms_kind(&elf), Err("application/x-executable"));
        assert_eq!(mms_kind(b"II*\0\x08\0\0\0\x0e\0"), Err("image/tiff"));
        assert_eq!(
            mms_kind(&[0, 159, 146, 150]),
            Err("application/octet-stream")
        );
        assert_eq!(mms_kind(b""), Err("application/octet-stream"));
    }
}
