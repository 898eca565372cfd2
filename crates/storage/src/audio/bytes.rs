//! Bounds-checked little- and big-endian reads of a file's bytes: what the exact
//! duration walkers (MP3, Ogg, WAV) read headers with.

/// The `N` bytes at `at`; `None` past the end (so is every read here).
pub(super) fn array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// The little-endian `u16` at `at`.
pub(super) fn u16_le(bytes: &[u8], at: usize) -> Option<u16> {
    array(bytes, at).map(u16::from_le_bytes)
}

/// The little-endian `u32` at `at`.
pub(super) fn u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    array(bytes, at).map(u32::from_le_bytes)
}

/// The little-endian `u64` at `at`.
pub(super) fn u64_le(bytes: &[u8], at: usize) -> Option<u64> {
    array(bytes, at).map(u64::from_le_bytes)
}

/// The big-endian `u16` at `at`.
pub(super) fn u16_be(bytes: &[u8], at: usize) -> Option<u16> {
    array(bytes, at).map(u16::from_be_bytes)
}

/// The big-endian `u32` at `at`.
pub(super) fn u32_be(bytes: &[u8], at: usize) -> Option<u32> {
    array(bytes, at).map(u32::from_be_bytes)
}
