//! Call recordings (MixMonitor, Monitor) matched to calls by the uniqueid in their file names.
//!
//! Asterisk leaves the naming to the dialplan, so no one pattern fits: FreePBX writes
//! `monitor/YYYY/MM/DD/in-<from>-<to>-<date>-<time>-<uniqueid>.wav`, plain dialplans often
//! `<uniqueid>.wav`, Monitor `<uniqueid>-in.wav`. A recording belongs to a call when its file name
//! (extension removed) holds the call's uniqueid as a whole *token*: not directly next to another
//! letter, digit or `.`, so `1700000000.12` does not match `…-1700000000.123.wav`, and
//! `1700000000.1` does not match `21700000000.1.wav`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::ImportError;

/// File extensions indexed, most preferred first: PCM `.wav` (transcodes to MP3), `.mp3` (stored as is),
/// then formats that need another tool (`.WAV` is wav49 GSM, `.gsm`, `.ogg`). Other files are ignored.
pub const EXTENSIONS: [&str; 5] = ["wav", "mp3", "WAV", "gsm", "ogg"];

/// Every recording under a folder (searched recursively), by the tokens of its file name.
#[derive(Debug, Clone, Default)]
pub struct RecordingIndex {
    /// Each recording's path with its file stem, sorted by preference (extension rank, then path).
    files: Vec<Recording>,
    /// Token → indexes into `files`, ascending (so the first is the preferred one).
    by_token: HashMap<String, Vec<usize>>,
}

#[derive(Debug, Clone)]
struct Recording {
    path: PathBuf,
    stem: String,
    rank: usize,
}

impl RecordingIndex {
    /// Indexes every file with one of [`EXTENSIONS`] under `dir` and its subfolders (symbolic links to
    /// folders are not followed, hidden files and folders are skipped). Fails on an unreadable folder.
    pub fn scan(dir: &Path) -> Result<Self, ImportError> {
        let mut files = Vec::new();
        walk(dir, &mut files)?;
        files.sort_by(|a, b| (a.rank, &a.path).cmp(&(b.rank, &b.path)));
        let mut by_token: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, file) in files.iter().enumerate() {
            for token in tokens(&file.stem) {
                let indexes = by_token.entry(token.to_owned()).or_default();
                if indexes.last() != Some(&index) {
                    indexes.push(index);
                }
            }
        }
        Ok(RecordingIndex { files, by_token })
    }

    /// The recording of the call `unique_id`: of the files whose name holds it as a whole token, the
    /// one with the most preferred extension ([`EXTENSIONS`]: `.wav` before `.mp3` before the rest),
    /// then the first by path (so `…-in.wav` before `…-out.wav`, and the answer never varies).
    pub fn find(&self, unique_id: &str) -> Option<&Path> {
        self.find_all(unique_id).into_iter().next()
    }

    /// Every recording of the call `unique_id`, most preferred first (see [`RecordingIndex::find`]).
    pub fn find_all(&self, unique_id: &str) -> Vec<&Path> {
        if unique_id.is_empty() {
            return Vec::new();
        }
        if unique_id.bytes().all(is_token_byte) {
            self.by_token
                .get(unique_id)
                .map_or_else(Vec::new, |indexes| {
                    indexes
                        .iter()
                        .map(|&index| self.files[index].path.as_path())
                        .collect()
                })
        } else {
            // A uniqueid with a separator in it (`systemname-1700000000.12` when Asterisk's
            // systemname is set) spans several tokens: search each name for it.
            self.files
                .iter()
                .filter(|file| holds_token(&file.stem, unique_id))
                .map(|file| file.path.as_path())
                .collect()
        }
    }

    /// How many recordings were found.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no recording was found.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Bytes that continue a token: letters, digits and `.` (uniqueids are `<epoch>.<sequence>`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.'
}

/// The maximal runs of token bytes in `stem`.
fn tokens(stem: &str) -> impl Iterator<Item = &str> {
    stem.split(|c: char| !c.is_ascii() || !is_token_byte(c as u8))
        .filter(|token| !token.is_empty())
}

/// Whether `needle` occurs in `stem` with no token byte right before or after it.
fn holds_token(stem: &str, needle: &str) -> bool {
    let bytes = stem.as_bytes();
    stem.match_indices(needle).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + needle.len()).copied();
        !before.is_some_and(is_token_byte) && !after.is_some_and(is_token_byte)
    })
}

fn walk(dir: &Path, out: &mut Vec<Recording>) -> Result<(), ImportError> {
    let read_error = |error: std::io::Error| {
        ImportError::new(dir, None, format!("cannot read the folder: {error}"))
    };
    for entry in fs::read_dir(dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry
            .file_type()
            .map_err(|error| ImportError::new(&path, None, format!("cannot read: {error}")))?;
        if file_type.is_dir() {
            walk(&path, out)?;
            continue;
        }
        // Regular files, and links to them.
        if !path.is_file() {
            continue;
        }
        let Some((stem, extension)) = name.rsplit_once('.') else {
            continue;
        };
        if let Some(rank) = EXTENSIONS.iter().position(|ext| *ext == extension) {
            out.push(Recording {
                stem: stem.to_owned(),
                path,
                rank,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn tokens_split_on_anything_but_letters_digits_and_dots() {
        let found: Vec<_> = tokens("in-5551234567-101-20231113-091502-1699884902.1").collect();
        assert_eq!(
            found,
            [
                "in",
                "5551234567",
                "101",
                "20231113",
                "091502",
                "1699884902.1"
            ]
        );
        let found: Vec<_> = tokens("1699884902.1_in ü x").collect();
        assert_eq!(found, ["1699884902.1", "in", "x"]);
    }

    #[test]
    fn whole_tokens_only() {
        assert!(holds_token("out-1700000000.12", "1700000000.12"));
        assert!(holds_token("1700000000.12", "1700000000.12"));
        assert!(holds_token("1700000000.12-in", "1700000000.12"));
        assert!(!holds_token("out-1700000000.123", "1700000000.12"));
        assert!(!holds_token("out-21700000000.12", "1700000000.12"));
        assert!(!holds_token("1700000000.12.5", "1700000000.12"));
        assert!(holds_token("x-pbx1-1700000000.12", "pbx1-1700000000.12"));
        assert!(!holds_token("x-apbx1-1700000000.12", "pbx1-1700000000.12"));
        // A later occurrence counts when an earlier one is glued to something.
        assert!(holds_token("1700000000.123-1700000000.12", "1700000000.12"));
    }
}
