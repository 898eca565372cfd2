//! One refresh per refresh token across the deployment. The API's refresh tokens work
//! once, and a second use revokes the whole session (the refresh-token-family defence,
//! see docs/decisions.md). A browser sends several requests with one cookie at once — a
//! page and its picture, two tabs — and each would refresh an expired access token with
//! the same refresh token, so the second would sign the person out.
//!
//! Two levels keep it to one: in this process, the first request refreshes and every
//! other request presenting the same token waits for and shares its answer
//! ([`Refreshes`]); across the `serve` processes of a deployment (requests of one browser
//! landing on two of them), that first request claims the token in the database first
//! (`console_refreshes`): the process that wins spends it at the API and leaves the answer
//! there, sealed under the console's key, and a process that loses waits for it. Either
//! way the answer is kept for a short window ([`KEPT`]), for requests the browser sent
//! with the old cookie before the new one reached it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use switchboard_db::Db;
use switchboard_db::console_refreshes::{self, Claimed};
use switchboard_db::seal::Seat;
use tokio::sync::watch;

use crate::session::Keys;

/// How long a refresh's new tokens are handed to requests still carrying the old cookie
/// (the deployment's one window, [`console_refreshes::KEPT_MS`]).
const KEPT: Duration = Duration::from_millis(console_refreshes::KEPT_MS.unsigned_abs());

/// How long a process waits for another process's refresh of the same token: far longer
/// than a refresh takes (a few milliseconds), short enough that a process that died
/// mid-refresh costs a page one error, not a hang.
const WAIT: Duration = Duration::from_secs(5);

/// How often a waiting process looks for the answer.
const POLL: Duration = Duration::from_millis(20);

/// What a refresh answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Refreshed {
    /// New tokens: the access token, when the console stops using it, the refresh token.
    Tokens {
        access_token: String,
        access_until: i64,
        refresh_token: String,
    },
    /// The API refused the refresh token: the session has ended.
    Ended,
    /// The refresh failed for another reason (its status and message); the token may
    /// still be good, so the next request tries again.
    Failed(u16, String),
}

/// A refresh under way or done: its answer, once there is one.
type Slot = watch::Receiver<Option<Refreshed>>;

/// The refreshes of this process, by the SHA-256 of the refresh token they spent (the
/// token itself is not kept), and the deployment's shared claims.
pub(crate) struct Refreshes {
    slots: Mutex<HashMap<[u8; 32], (Instant, Slot)>>,
    /// The claims shared with the other processes; none in the unit tests.
    shared: Option<Shared>,
}

/// The database the processes share their refreshes through, and the key their answers
/// are sealed with.
#[derive(Clone)]
struct Shared {
    db: Db,
    keys: Arc<Keys>,
}

impl Refreshes {
    /// The refreshes of a process whose deployment shares `db`, answers sealed by `keys`.
    pub(crate) fn shared(db: Db, keys: Arc<Keys>) -> Refreshes {
        Refreshes {
            slots: Mutex::default(),
            shared: Some(Shared { db, keys }),
        }
    }

    /// The answer of refreshing `token`: `refresh` is run by the first caller only (in a
    /// task of its own, so a browser that goes away does not cancel it halfway), every
    /// other caller with the same token, at the same time or within [`KEPT`], gets its
    /// answer — in this process, and through the database in the others.
    pub(crate) async fn refresh<F>(&self, token: &str, refresh: F) -> Refreshed
    where
        F: Future<Output = Refreshed> + Send + 'static,
    {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            slots.retain(|_, (started, slot)| {
                now.duration_since(*started) < KEPT || slot.borrow().is_none()
            });
            match slots.get(&key) {
                Some((_, slot)) => slot.clone(),
                None => {
                    let (sender, slot) = watch::channel(None);
                    slots.insert(key, (now, slot.clone()));
                    let shared = self.shared.clone();
                    tokio::spawn(async move {
                        let answer = match shared {
                            Some(shared) => shared.refresh(key, refresh).await,
                            None => refresh.await,
                        };
                        let _ = sender.send(Some(answer));
                    });
                    slot
                }
            }
        };
        let answer = match slot.wait_for(Option::is_some).await {
            Ok(answer) => answer.clone().unwrap_or(Refreshed::Ended),
            // The refreshing task ended without an answer (it panicked).
            Err(_) => Refreshed::Failed(500, "the refresh did not finish".to_owned()),
        };
        if matches!(answer, Refreshed::Failed(..)) {
            // Not kept: the next request tries again.
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            if slots
                .get(&key)
                .is_some_and(|(_, kept)| kept.same_channel(&slot))
            {
                slots.remove(&key);
            }
        }
        answer
    }
}

impl Shared {
    /// The answer of refreshing the token whose SHA-256 is `key`, once in the deployment:
    /// claimed here, `refresh` runs and its answer is left for the others; claimed by
    /// another process, its answer is awaited — and when that refresh failed and let its
    /// claim go, this process claims the token in turn.
    async fn refresh<F>(&self, key: [u8; 32], refresh: F) -> Refreshed
    where
        F: Future<Output = Refreshed>,
    {
        let hash = hex::encode(key);
        let seat = Seat {
            table: "console_refreshes",
            column: "answer",
            id: i64::from_be_bytes(key[..8].try_into().unwrap_or_default()),
        };
        let unavailable = |error: switchboard_db::Error| {
            tracing::warn!(%error, "the console's shared refresh failed");
            Refreshed::Failed(503, "the database is unavailable".to_owned())
        };
        let mut refresh = Some(refresh);
        let started = Instant::now();
        while started.elapsed() < WAIT {
            let won = console_refreshes::claim(&self.db, &hash, now_ms())
                .await
                .map_err(unavailable);
            match won {
                Err(failed) => return failed,
                Ok(true) => {
                    let Some(refresh) = refresh.take() else { break };
                    let answer = refresh.await;
                    let left = match &answer {
                        Refreshed::Failed(..) => console_refreshes::release(&self.db, &hash).await,
                        kept => {
                            let json = serde_json::to_vec(kept).unwrap_or_default();
                            let sealed = self.keys.seal_at(seat, &json);
                            console_refreshes::answer(&self.db, &hash, &sealed).await
                        }
                    };
                    if let Err(error) = left {
                        // The others wait out WAIT and fail once; this request has its answer.
                        tracing::warn!(%error, "a console refresh's answer was not shared");
                    }
                    return answer;
                }
                Ok(false) => match self.answer_of(&hash, seat, started).await {
                    Ok(Some(answer)) => return answer,
                    // Let go (its refresh failed): claim it in turn.
                    Ok(None) => continue,
                    Err(failed) => return failed,
                },
            }
        }
        Refreshed::Failed(
            503,
            "the session is being refreshed by another process; try again".to_owned(),
        )
    }

    /// Another process's answer for `hash`, once there is one (`None` when its claim was
    /// let go, or [`WAIT`] since `started` ran out).
    async fn answer_of(
        &self,
        hash: &str,
        seat: Seat,
        started: Instant,
    ) -> Result<Option<Refreshed>, Refreshed> {
        while started.elapsed() < WAIT {
            let claimed = console_refreshes::get(&self.db, hash)
                .await
                .map_err(|error| {
                    tracing::warn!(%error, "the console's shared refresh failed");
                    Refreshed::Failed(503, "the database is unavailable".to_owned())
                })?;
            match claimed {
                Claimed::Answered(sealed) => {
                    let answer = self
                        .keys
                        .open_at(seat, &sealed)
                        .and_then(|json| serde_json::from_slice(&json).ok());
                    // An answer that does not open was not sealed by this deployment.
                    return Ok(Some(answer.unwrap_or(Refreshed::Ended)));
                }
                Claimed::Free => return Ok(None),
                Claimed::UnderWay => tokio::time::sleep(POLL).await,
            }
        }
        Ok(None)
    }
}

/// The time now in Unix milliseconds.
fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn tokens(n: usize) -> Refreshed {
        Refreshed::Tokens {
            access_token: format!("access-{n}"),
            access_until: 0,
            refresh_token: format!("refresh-{n}"),
        }
    }

    /// This process's refreshes only (the database's part is tested over HTTP with two
    /// processes, `console::…::refreshes_are_shared_between_processes`).
    fn in_process() -> Refreshes {
        Refreshes {
            slots: Mutex::default(),
            shared: None,
        }
    }

    #[tokio::test]
    async fn concurrent_refreshes_of_one_token_refresh_once() {
        let refreshes = Arc::new(in_process());
        let runs = Arc::new(AtomicUsize::new(0));
        let mut waiting = Vec::new();
        for _ in 0..8 {
            let refreshes = refreshes.clone();
            let runs = runs.clone();
            waiting.push(tokio::spawn(async move {
                refreshes
                    .refresh("sbr_one", async move {
                        let n = runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        tokens(n)
                    })
                    .await
            }));
        }
        for answer in futures::future::join_all(waiting).await {
            match answer.expect("a refresh") {
                Refreshed::Tokens { refresh_token, .. } => assert_eq!(refresh_token, "refresh-0"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Later, with the old token: the same answer, no second refresh.
        let again = refreshes.refresh("sbr_one", async { tokens(9) }).await;
        assert!(
            matches!(again, Refreshed::Tokens { refresh_token, .. } if refresh_token == "refresh-0")
        );
        // Another token refreshes on its own.
        let other = refreshes.refresh("sbr_two", async { tokens(2) }).await;
        assert!(
            matches!(other, Refreshed::Tokens { refresh_token, .. } if refresh_token == "refresh-2")
        );
    }

    #[tokio::test]
    async fn a_failed_refresh_is_tried_again() {
        let refreshes = in_process();
        let failed = refreshes
            .refresh("sbr_x", async { Refreshed::Failed(503, "busy".to_owned()) })
            .await;
        assert!(matches!(failed, Refreshed::Failed(503, _)));
        let next = refreshes.refresh("sbr_x", async { tokens(1) }).await;
        assert!(matches!(next, Refreshed::Tokens { .. }));
    }
}
