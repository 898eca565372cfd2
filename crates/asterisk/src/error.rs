//! The one error of the readers: what was wrong, in which file, on which line.

use std::fmt;
use std::path::PathBuf;

/// An input the readers refuse: displayed as `FILE:LINE: message` (or `FILE: message` without a line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The file (or folder) at fault; `<input>` for [`crate::cdr::read_cdr`] on an unnamed reader.
    pub file: PathBuf,
    /// 1-based line of `file` at fault, when the fault is on one line.
    pub line: Option<usize>,
    /// What is wrong, for a person.
    pub message: String,
}

impl ImportError {
    /// An error about `file` at `line` (1-based).
    pub fn new(file: impl Into<PathBuf>, line: Option<usize>, message: impl Into<String>) -> Self {
        ImportError {
            file: file.into(),
            line,
            message: message.into(),
        }
    }

    /// The same error said of another file name (e.g. the real path of a reader's input).
    pub fn in_file(self, file: impl Into<PathBuf>) -> Self {
        ImportError {
            file: file.into(),
            ..self
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ImportError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_file_line_message() {
        let error = ImportError::new("/spool/Master.csv", Some(4), "bad date");
        assert_eq!(error.to_string(), "/spool/Master.csv:4: bad date");
        let error = ImportError::new("/spool", None, "unreadable");
        assert_eq!(error.to_string(), "/spool: unreadable");
        assert_eq!(
            error.in_file("/elsewhere").to_string(),
            "/elsewhere: unreadable"
        );
    }
}
