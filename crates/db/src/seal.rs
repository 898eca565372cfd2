//! Secrets at rest (TOTP secrets, webhook credentials and signing secrets): sealed with
//! XChaCha20-Poly1305 under a key derived from the master key, so a database dump alone
//! does not reveal them, and bound to their place — table, column and row id as the
//! AEAD's associated data ([`Seat`]) — so a sealed value copied into another row (another
//! user's TOTP secret, another webhook's credentials) does not open there.
//!
//! Values sealed before the binding (`xc1:`) are re-sealed in place, bound to the row
//! that holds them, when the service starts ([`reseal_unbound`]); after that only bound
//! values (`xc2:`) open.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use switchboard_declare::boxed;

/// Seals and opens secrets.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(***)")
    }
}

/// The prefix of sealed values, naming the scheme: `xc2:` binds the value's [`Seat`].
const PREFIX: &str = "xc2:";

/// The prefix of the values sealed without a seat, before `xc2:`.
const UNBOUND: &str = "xc1:";

/// Where a sealed value is kept: it opens there and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The table.
    pub table: &'static str,
    /// The column (or the role of the value where it moves between columns: a webhook's
    /// signing secret stays one when rotation makes it the previous one).
    pub column: &'static str,
    /// The row's id.
    pub id: i64,
}

impl Seat {
    /// The associated data naming the seat.
    fn associated_data(&self) -> Vec<u8> {
        format!("switchboard:{}.{}#{}", self.table, self.column, self.id).into_bytes()
    }
}

/// A user's confirmed TOTP secret.
pub fn totp_secret(user: i64) -> Seat {
    Seat {
        table: "users",
        column: "mfa_secret",
        id: user,
    }
}

/// A user's TOTP secret awaiting confirmation.
pub fn pending_totp_secret(user: i64) -> Seat {
    Seat {
        table: "users",
        column: "mfa_pending_secret",
        id: user,
    }
}

/// A webhook's signing secret, current or previous (rotation moves the one to the other).
pub fn webhook_signing_secret(webhook: i64) -> Seat {
    Seat {
        table: "webhooks",
        column: "signing_secret",
        id: webhook,
    }
}

/// A webhook's Basic password.
pub fn webhook_password(webhook: i64) -> Seat {
    Seat {
        table: "webhooks",
        column: "password_sealed",
        id: webhook,
    }
}

/// A webhook's bearer token.
pub fn webhook_authtoken(webhook: i64) -> Seat {
    Seat {
        table: "webhooks",
        column: "authtoken_sealed",
        id: webhook,
    }
}

/// A desk phone's provisioning Digest secret for MD5, H(username:realm:password).
pub fn device_digest_md5(device: i64) -> Seat {
    Seat {
        table: "devices",
        column: "provisioning_digest_md5_secret",
        id: device,
    }
}

/// A desk phone's provisioning Digest secret for SHA-256.
pub fn device_digest_sha256(device: i64) -> Seat {
    Seat {
        table: "devices",
        column: "provisioning_digest_sha256_secret",
        id: device,
    }
}

impl Sealer {
    /// A sealer with a 32-byte key.
    pub fn new(key: &[u8; 32]) -> Sealer {
        Sealer {
            cipher: XChaCha20Poly1305::new(&Key::from(*key)),
        }
    }

    /// Seals `plaintext` for `seat` under a fresh random nonce.
    pub fn seal(&self, seat: Seat, plaintext: &[u8]) -> String {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let aad = seat.associated_data();
        let payload = Payload {
            msg: plaintext,
            aad: &aad,
        };
        // Encryption with a valid key and nonce cannot fail for in-memory buffers.
        let sealed = self.cipher.encrypt(&nonce, payload).unwrap_or_default();
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Opens a value sealed for `seat`; `None` when it was tampered with, sealed under
    /// another key or for another seat.
    pub fn open(&self, seat: Seat, sealed: &str) -> Option<Vec<u8>> {
        let aad = seat.associated_data();
        self.decrypt(sealed.strip_prefix(PREFIX)?, &aad)
    }

    /// Opens a value sealed before seats were bound (`xc1:`), to re-seal it.
    fn open_unbound(&self, sealed: &str) -> Option<Vec<u8>> {
        self.decrypt(sealed.strip_prefix(UNBOUND)?, &[])
    }

    fn decrypt(&self, encoded: &str, aad: &[u8]) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(encoded).ok()?;
        if bytes.len() < 24 {
            return None;
        }
        let (nonce, body) = bytes.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().ok()?;
        let payload = Payload { msg: body, aad };
        self.cipher.decrypt(&XNonce::from(nonce), payload).ok()
    }
}

/// The seat of a row's value in one sealed column, by the row's id.
type SeatOf = fn(i64) -> Seat;

/// The sealed columns: table, column, and the seat of a row's value there.
const SEALED: &[(&str, &str, SeatOf)] = &[
    ("users", "mfa_secret", totp_secret),
    ("users", "mfa_pending_secret", pending_totp_secret),
    ("webhooks", "signing_secret_sealed", webhook_signing_secret),
    ("webhooks", "previous_secret_sealed", webhook_signing_secret),
    ("webhooks", "password_sealed", webhook_password),
    ("webhooks", "authtoken_sealed", webhook_authtoken),
];

/// The columns written in the clear before they were sealed: table, column, seat. Their
/// plain values (anything not `xc2:`) are sealed in place at start-up.
const SEALED_SINCE: &[(&str, &str, SeatOf)] = &[
    (
        "devices",
        "provisioning_digest_md5_secret",
        device_digest_md5,
    ),
    (
        "devices",
        "provisioning_digest_sha256_secret",
        device_digest_sha256,
    ),
];

/// The seat of a sealed value of `db` that `sealer` does not open, if there is one: the
/// newest value of each sealed column, bound or not yet, is tried. A key that opens
/// none of them is not the key they were sealed with; run it at start-up (and by a
/// restore, on the backup), so such a key is refused there rather than answered with a
/// 500 wherever a secret is needed. A database holding no sealed value has nothing to
/// check: `None`.
#[boxed]
pub async fn first_unopened(db: &crate::Db, sealer: &Sealer) -> crate::Result<Option<Seat>> {
    use sea_query::{Expr, ExprTrait, Order, Query};
    let columns = SEALED
        .iter()
        .map(|column| (column, true))
        .chain(SEALED_SINCE.iter().map(|column| (column, false)));
    for ((table, column, seat), may_be_unbound) in columns {
        let prefixes: &[&str] = if may_be_unbound {
            &[PREFIX, UNBOUND]
        } else {
            &[PREFIX]
        };
        for prefix in prefixes {
            let select = Query::select()
                .column("id")
                .column(*column)
                .from(*table)
                .and_where(Expr::col(*column).like(format!("{prefix}%")))
                .order_by("id", Order::Desc)
                .limit(1)
                .take();
            let Some((id, sealed)) = db.conn().fetch_optional::<(i64, String)>(&select).await?
            else {
                continue;
            };
            let opens = if *prefix == PREFIX {
                sealer.open(seat(id), &sealed).is_some()
            } else {
                sealer.open_unbound(&sealed).is_some()
            };
            if !opens {
                return Ok(Some(seat(id)));
            }
        }
    }
    Ok(None)
}

/// Re-seals every value still sealed without a seat (`xc1:`), bound to the row that
/// holds it, and seals every value of a column once kept in the clear
/// ([`SEALED_SINCE`]), answering how many; run at start-up, before anything opens a
/// secret. A value that does not open (another key) is left as it is, and stays
/// unopenable.
#[boxed]
pub async fn reseal_unbound(db: &crate::Db, sealer: &Sealer) -> crate::Result<u64> {
    use sea_query::{Expr, ExprTrait, Query};
    #[derive(switchboard_domain::declare::FromRow)]
    struct Row {
        id: i64,
        sealed: String,
    }
    let mut resealed = 0;
    for (table, column, seat) in SEALED {
        let mut tx = db.begin().await?;
        let select = Query::select()
            .column("id")
            .expr_as(Expr::col(*column), "sealed")
            .from(*table)
            .and_where(Expr::col(*column).like(format!("{UNBOUND}%")))
            // One order for every starting process, so two never lock rows crosswise.
            .order_by("id", sea_query::Order::Asc)
            .take();
        let rows: Vec<Row> = tx.fetch_all(&select).await?;
        for row in rows {
            let Some(plaintext) = sealer.open_unbound(&row.sealed) else {
                tracing::warn!(table, column, id = row.id, "a sealed value does not open");
                continue;
            };
            let update = Query::update()
                .table(*table)
                .value(*column, sealer.seal(seat(row.id), &plaintext))
                .and_where(Expr::col("id").eq(row.id))
                // Only the value read: a process that started first and has since served
                // a rotation or an enrolment is not undone by a late starter.
                .and_where(Expr::col(*column).eq(row.sealed.as_str()))
                .take();
            resealed += tx.execute(&update).await?;
        }
        tx.commit().await?;
    }
    for (table, column, seat) in SEALED_SINCE {
        let mut tx = db.begin().await?;
        let select = Query::select()
            .column("id")
            .expr_as(Expr::col(*column), "sealed")
            .from(*table)
            .and_where(Expr::col(*column).is_not_null())
            .and_where(Expr::col(*column).not_like(format!("{PREFIX}%")))
            .order_by("id", sea_query::Order::Asc)
            .take();
        let rows: Vec<Row> = tx.fetch_all(&select).await?;
        for row in rows {
            let update = Query::update()
                .table(*table)
                .value(*column, sealer.seal(seat(row.id), row.sealed.as_bytes()))
                .and_where(Expr::col("id").eq(row.id))
                .and_where(Expr::col(*column).eq(row.sealed.as_str()))
                .take();
            resealed += tx.execute(&update).await?;
        }
        tx.commit().await?;
    }
    Ok(resealed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn seals_and_opens_and_refuses_tampering() {
        let sealer = Sealer::new(&[7; 32]);
        let seat = totp_secret(1);
        let sealed = sealer.seal(seat, b"secret");
        assert_ne!(
            sealed,
            sealer.seal(seat, b"secret"),
            "fresh nonce each time"
        );
        assert_eq!(sealer.open(seat, &sealed).unwrap(), b"secret");
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(
            sealer
                .open(seat, std::str::from_utf8(&tampered).unwrap())
                .is_none()
        );
        assert!(Sealer::new(&[8; 32]).open(seat, &sealed).is_none());
    }

    #[test]
    fn a_value_opens_only_in_its_seat() {
        let sealer = Sealer::new(&[7; 32]);
        let sealed = sealer.seal(webhook_password(3), b"secret");
        assert!(sealer.open(webhook_password(4), &sealed).is_none());
        assert!(sealer.open(webhook_authtoken(3), &sealed).is_none());
        assert!(sealer.open(totp_secret(3), &sealed).is_none());
        assert_eq!(
            sealer.open(webhook_password(3), &sealed).unwrap(),
            b"secret"
        );
    }

    #[test]
    fn an_unbound_value_opens_only_to_be_resealed() {
        let sealer = Sealer::new(&[7; 32]);
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let mut bytes = nonce.to_vec();
        bytes.extend(sealer.cipher.encrypt(&nonce, &b"old"[..]).unwrap());
        let legacy = format!("{UNBOUND}{}", URL_SAFE_NO_PAD.encode(bytes));
        assert!(
            sealer.open(totp_secret(1), &legacy).is_none(),
            "only bound values open"
        );
        assert_eq!(sealer.open_unbound(&legacy).unwrap(), b"old");
    }
}
