//! The deployment's signing key (tokens are signed with it; the keys of sealed secrets and
//! signed links are derived from it): its one written form — the same in
//! `SWITCHBOARD_JWT_SECRET`, in the data folder's key file, and in what `export-key`
//! prints and `import-key` reads — and where an installation keeps it.
//!
//! The written form is text taken byte for byte, except that `hex:` followed by hex
//! digits stands for the bytes those digits spell: the form of a key generated from random
//! bytes, which are not text. A key is never in a backup (docs/decisions.md, "Key
//! material"): it travels by `export-key` and `import-key`.

mod signing_key;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

pub use signing_key::{HEX, SigningKey};

use crate::Config;

/// The key file in the data folder, holding the key in its written form.
pub const KEY_FILE: &str = "signing-key";

/// The key file of releases before the written form was one: the hex digits of the key's
/// bytes, without `hex:`. Still read (and copied into [`KEY_FILE`]); never written.
pub const OLD_KEY_FILE: &str = "jwt-secret";

/// Where an installation's key comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// `SWITCHBOARD_JWT_SECRET`.
    Variable,
    /// A key file of the data folder.
    File(PathBuf),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Variable => f.write_str("SWITCHBOARD_JWT_SECRET"),
            KeySource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The key an installation has, and where it comes from: `SWITCHBOARD_JWT_SECRET` when
/// set, else the data folder's [`KEY_FILE`], else its [`OLD_KEY_FILE`]; `None` when it has
/// none yet (`serve` generates one on first start).
pub fn installed(config: &Config) -> anyhow::Result<Option<(SigningKey, KeySource)>> {
    if let Some(secret) = &config.jwt_secret {
        let key = SigningKey::parse(&secret.0).context("SWITCHBOARD_JWT_SECRET")?;
        return Ok(Some((key, KeySource::Variable)));
    }
    let path = config.data_dir.join(KEY_FILE);
    if let Some(text) = read_if_there(&path)? {
        let key = SigningKey::parse(text.trim_end_matches(['\r', '\n']))
            .with_context(|| format!("reading the signing key in {}", path.display()))?;
        return Ok(Some((key, KeySource::File(path))));
    }
    let old = config.data_dir.join(OLD_KEY_FILE);
    if let Some(text) = read_if_there(&old)? {
        let key = SigningKey::parse(&format!("{HEX}{}", text.trim()))
            .with_context(|| format!("reading the signing key in {}", old.display()))?;
        return Ok(Some((key, KeySource::File(old))));
    }
    Ok(None)
}

/// The key `serve` and the other commands use: the installed one, or one generated now
/// and kept in the data folder. A key found only in the old key file is written into
/// [`KEY_FILE`] as well (the old file stays, for a release before this one).
pub fn in_use(config: &Config) -> anyhow::Result<(SigningKey, KeySource)> {
    match installed(config)? {
        Some((key, KeySource::File(path))) if path.ends_with(OLD_KEY_FILE) => {
            let path = config.data_dir.join(KEY_FILE);
            write_private(&path, key.written())?;
            Ok((key, KeySource::File(path)))
        }
        Some(found) => Ok(found),
        None => {
            std::fs::create_dir_all(&config.data_dir)
                .with_context(|| format!("creating {}", config.data_dir.display()))?;
            let key = SigningKey::generate();
            let path = config.data_dir.join(KEY_FILE);
            write_private(&path, key.written())?;
            Ok((key, KeySource::File(path)))
        }
    }
}

/// `switchboard import-key`: keeps `key` in the data folder's key file. Refused while
/// `SWITCHBOARD_JWT_SECRET` is set (it would not be used), and over a different key
/// already there unless `force` (then that file is moved aside, never deleted).
pub fn import(config: &Config, key: &SigningKey, force: bool) -> anyhow::Result<serde_json::Value> {
    if config.jwt_secret.is_some() {
        bail!(
            "SWITCHBOARD_JWT_SECRET is set, and a process uses it rather than a key file: set it to the key instead"
        );
    }
    let mut moved = None;
    if let Some((present, source)) = installed(config)? {
        if present.bytes() == key.bytes() {
            return Ok(serde_json::json!({
                "imported": false,
                "why": format!("{source} already holds this key"),
                "fingerprint": key.fingerprint(),
            }));
        }
        if !force {
            bail!(
                "the data folder already has another signing key ({source}, fingerprint {}): secrets sealed under it would no longer open; pass --force to replace it (it is moved aside, not deleted)",
                present.fingerprint()
            );
        }
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        for name in [KEY_FILE, OLD_KEY_FILE] {
            let path = config.data_dir.join(name);
            if path.exists() {
                let aside = config
                    .data_dir
                    .join(format!("{name}.before-import-{stamp}"));
                std::fs::rename(&path, &aside)
                    .with_context(|| format!("moving {} aside", path.display()))?;
                moved = Some(aside.display().to_string());
            }
        }
    }
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("creating {}", config.data_dir.display()))?;
    let path = config.data_dir.join(KEY_FILE);
    write_private(&path, key.written())?;
    Ok(serde_json::json!({
        "imported": path.display().to_string(),
        "fingerprint": key.fingerprint(),
        "movedAside": moved,
    }))
}

/// The contents of `path`, `None` when there is no such file.
fn read_if_there(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}

/// Writes `contents` and a line ending into the new file `path`, readable by the owner
/// only.
fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    writeln!(file, "{contents}")?;
    file.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_key_is_its_text_or_the_bytes_its_hex_spells() {
        let text = SigningKey::parse("a-signing-key-of-32-bytes-at-least!!").ok();
        assert_eq!(
            text.as_ref().map(SigningKey::bytes),
            Some(&b"a-signing-key-of-32-bytes-at-least!!"[..])
        );
        let digits = "00ff".repeat(16);
        let bytes = SigningKey::parse(&format!("hex:{digits}")).ok();
        assert_eq!(
            bytes.as_ref().map(SigningKey::bytes),
            Some(&[0x00, 0xff].repeat(16)[..])
        );
        // The same digits without `hex:` are text: another key.
        let as_text = SigningKey::parse(&digits).ok();
        assert_eq!(as_text.as_ref().map(|k| k.bytes().len()), Some(64));
        assert!(SigningKey::parse("too short").is_err());
        assert!(SigningKey::parse(&format!("hex:{}", "00".repeat(31))).is_err());
        assert!(SigningKey::parse(&format!("hex:{}zz", "00".repeat(32))).is_err());
    }

    #[test]
    fn a_generated_key_reads_back_as_itself() {
        let key = SigningKey::generate();
        assert!(key.written().starts_with(HEX));
        let again = SigningKey::parse(key.written()).ok();
        assert_eq!(again.as_ref().map(SigningKey::bytes), Some(key.bytes()));
        assert_eq!(again.map(|k| k.fingerprint()), Some(key.fingerprint()));
        assert_ne!(key.fingerprint(), SigningKey::generate().fingerprint());
    }

    #[test]
    fn an_old_key_file_is_the_same_key_in_the_new_one() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let config = Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        let digits = "5a".repeat(32);
        std::fs::write(dir.path().join(OLD_KEY_FILE), format!("{digits}\n")).expect("written");
        let (key, source) = in_use(&config).expect("the old key is read");
        assert_eq!(key.bytes(), &[0x5a; 32][..]);
        assert_eq!(source, KeySource::File(dir.path().join(KEY_FILE)));
        let written = std::fs::read_to_string(dir.path().join(KEY_FILE)).expect("the new file");
        assert_eq!(written, format!("hex:{digits}\n"), "the one written form");
        assert!(
            dir.path().join(OLD_KEY_FILE).exists(),
            "kept for an older release"
        );
        let (again, _) = in_use(&config).expect("read again");
        assert_eq!(again.bytes(), key.bytes());
    }
}
