//! Small documents of each kind the service tells by its first bytes (faxes' PDFs and
//! TIFFs, MMS pictures, Asterisk's WAVs): for the tests that send them.

/// A one-page PDF, its cross-reference table computed so a real parser accepts it.
pub fn pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A TIFF: its magic, then some bytes.
pub fn tiff() -> Vec<u8> {
    let mut tiff = b"II*\0".to_vec();
    tiff.extend_from_slice(&[0; 64]);
    tiff
}

/// A JPEG of exactly `size` bytes (a JPEG header, then padding).
pub fn jpeg(size: usize) -> Vec<u8> {
    let mut bytes = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00".to_vec();
    bytes.resize(size, 0x20);
    bytes
}

/// A PNG of 300 bytes (its signature and header chunk's start, then padding).
pub fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    bytes.resize(300, 0);
    bytes
}

/// A PCM WAV of `seconds` of silence (8 kHz, mono, 16-bit), as Asterisk writes one.
pub fn wav(seconds: i64) -> Vec<u8> {
    let data = u32::try_from(seconds * 8000 * 2).expect("a short WAV");
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16_000u32.to_le_bytes()); // byte rate
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    out.resize(out.len() + data as usize, 0);
    out
}
