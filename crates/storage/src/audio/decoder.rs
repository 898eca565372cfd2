//! Audio decoders run as external programs (SoX for GSM, opusdec for Ogg Opus), the one
//! way: without a shell, the audio on stdin (written while stdout is read, so neither pipe
//! stalls), the decoded audio on stdout, bounded in size and time, killed when dropped.

use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The program that decodes Ogg Opus: `opusdec` of opus-tools, a runtime dependency like
/// SoX and espeak-ng (Debian package `opus-tools`; `scripts/install-test-tools.sh`
/// installs it).
pub const OPUSDEC: &str = "opusdec";

/// The most decoded Opus audio kept: an hour of 8 kHz 16-bit stereo (opusdec keeps the
/// stream's channels; the rendition mixes them). Longer uploads are refused (415).
const MAX_OPUS_BYTES: usize = 3600 * 8000 * 2 * 2;

/// How long opusdec may take over one file (it decodes an hour in a few seconds).
const OPUS_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a decoder gave no audio.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecoderError {
    /// The program cannot be run here (not installed): the service's fault, not the file's.
    #[error("cannot run {program}: {reason}")]
    Missing {
        /// The program.
        program: &'static str,
        /// What the system said.
        reason: String,
    },
    /// The program ran and refused the audio, or the audio decoded too long; the text
    /// says which, fit for the uploader.
    #[error("{0}")]
    Failed(String),
    /// The program could not finish for the server's reasons, not the file's (no pipes,
    /// a read or wait error, its time limit on a loaded machine): worth trying again.
    #[error("{0}")]
    Interrupted(String),
}

/// Runs `program args…` with `input` on its stdin and answers its stdout: at most
/// `max_output` bytes (more is an error), within `timeout`.
pub async fn run(
    program: &'static str,
    args: &[&str],
    input: Bytes,
    max_output: usize,
    timeout: Duration,
) -> Result<Vec<u8>, DecoderError> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| DecoderError::Missing {
            program,
            reason: e.to_string(),
        })?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(DecoderError::Interrupted(format!("no pipes to {program}")));
    };
    let limit = max_output as u64;
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    // Written while the output is read: a large file would fill both pipes otherwise.
    let writing = async move {
        let written = stdin.write_all(&input).await;
        drop(stdin);
        written
    };
    let reading = async {
        stdout
            .take(limit + 1)
            .read_to_end(&mut output)
            .await
            .map(|_| ())
    };
    let complaining = async {
        stderr
            .take(16 << 10)
            .read_to_end(&mut errors)
            .await
            .map(|_| ())
    };
    let work = async { tokio::join!(writing, reading, complaining) };
    let (written, read, _) = tokio::time::timeout(timeout, work).await.map_err(|_| {
        DecoderError::Interrupted(format!(
            "{program} took longer than {} s",
            timeout.as_secs()
        ))
    })?;
    if output.len() as u64 > limit {
        // Dropped here, the child is killed (`kill_on_drop`).
        return Err(DecoderError::Failed(format!(
            "the decoded audio is longer than {program} may answer ({} MiB)",
            limit >> 20
        )));
    }
    read.map_err(|e| DecoderError::Interrupted(format!("reading from {program}: {e}")))?;
    let status = child
        .wait()
        .await
        .map_err(|e| DecoderError::Interrupted(format!("waiting for {program}: {e}")))?;
    if !status.success() || output.is_empty() {
        let said = String::from_utf8_lossy(&errors);
        // opusdec repeats its complaint per line; the last few lines say enough.
        let said: Vec<&str> = said
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let said = said[said.len().saturating_sub(3)..].join(" ");
        return Err(DecoderError::Failed(format!(
            "{program} could not decode it ({status}): {said}"
        )));
    }
    // A write cut short by the program exiting early is reported by its status above.
    drop(written);
    Ok(output)
}

/// Ogg Opus decoded by opusdec at 8 kHz into a 16-bit PCM WAV (the stream's channels),
/// ready for `rendition::telephony_wav`. opusdec cannot seek back in a pipe to write its
/// header's sizes, so they are set here from what it wrote.
pub async fn opus_to_wav(bytes: Bytes) -> Result<Vec<u8>, DecoderError> {
    let args = ["--quiet", "--rate", "8000", "--force-wav", "-", "-"];
    let mut wav = run(OPUSDEC, &args, bytes, MAX_OPUS_BYTES, OPUS_TIMEOUT)
        .await
        .map_err(|error| match error {
            // opusdec's only words for a stream it cannot open name its input, `-`.
            DecoderError::Failed(text) if text.contains("Failed to open") => DecoderError::Failed(
                format!("{OPUSDEC} cannot open it: its Opus headers are invalid or unsupported"),
            ),
            other => other,
        })?;
    fix_wav_sizes(&mut wav)
        .ok_or_else(|| DecoderError::Failed(format!("{OPUSDEC} answered no WAV audio")))?;
    Ok(wav)
}

/// Sets the RIFF and `data` chunk sizes of a WAV written to a pipe (where the writer left
/// placeholders) to what follows them; `None` when it is not a RIFF/WAVE with a `data`
/// chunk.
fn fix_wav_sizes(wav: &mut [u8]) -> Option<()> {
    if wav.len() < 12 || &wav[..4] != b"RIFF" || &wav[8..12] != b"WAVE" {
        return None;
    }
    let total = u32::try_from(wav.len().checked_sub(8)?).ok()?;
    wav[4..8].copy_from_slice(&total.to_le_bytes());
    let mut at = 12usize;
    while at.checked_add(8)? <= wav.len() {
        let id = [wav[at], wav[at + 1], wav[at + 2], wav[at + 3]];
        let size_bytes: [u8; 4] = wav[at + 4..at + 8].try_into().ok()?;
        if &id == b"data" {
            let data = u32::try_from(wav.len() - (at + 8)).ok()?;
            wav[at + 4..at + 8].copy_from_slice(&data.to_le_bytes());
            return Some(());
        }
        let size = usize::try_from(u32::from_le_bytes(size_bytes)).ok()?;
        // Chunks are padded to an even length.
        at = at
            .checked_add(8)?
            .checked_add(size)?
            .checked_add(size % 2)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_sizes_are_set_from_what_follows() {
        let mut wav = b"RIFF\xff\xff\xff\x7fWAVEfmt \x10\0\0\0".to_vec();
        wav.extend([0u8; 16]);
        wav.extend(b"data\xff\xff\xff\x7f");
        wav.extend([1u8; 10]);
        assert_eq!(fix_wav_sizes(&mut wav), Some(()));
        assert_eq!(&wav[4..8], &(wav.len() as u32 - 8).to_le_bytes());
        assert_eq!(&wav[40..44], &10u32.to_le_bytes());
        assert_eq!(fix_wav_sizes(&mut b"not a wav at all".to_vec()), None);
        let mut no_data = b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0".to_vec();
        no_data.extend([0u8; 16]);
        assert_eq!(fix_wav_sizes(&mut no_data), None);
    }

    #[tokio::test]
    async fn a_program_that_refuses_is_the_files_fault_one_cut_short_is_not() {
        // `false` runs and fails: what a decoder refusing the audio looks like.
        let refused = run(
            "false",
            &[],
            Bytes::from_static(b"x"),
            16,
            Duration::from_secs(5),
        )
        .await;
        assert!(
            matches!(refused, Err(DecoderError::Failed(_))),
            "{refused:?}"
        );
        // `sleep` outlives the limit: the machine's trouble, worth another try.
        let slow = run(
            "sleep",
            &["5"],
            Bytes::new(),
            16,
            Duration::from_millis(100),
        )
        .await;
        assert!(
            matches!(slow, Err(DecoderError::Interrupted(_))),
            "{slow:?}"
        );
        let missing = run(
            "no-such-decoder",
            &[],
            Bytes::new(),
            16,
            Duration::from_secs(1),
        )
        .await;
        assert!(
            matches!(missing, Err(DecoderError::Missing { .. })),
            "{missing:?}"
        );
    }
}
