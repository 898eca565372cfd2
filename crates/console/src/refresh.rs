//! One refresh per refresh token in this process. The API's refresh tokens work once, and
//! a second use revokes the whole session (the refresh-token-family defence, see
//! docs/decisions.md). A browser sends several requests with one cookie at once — a page
//! and its picture, two tabs — and each would refresh an expired access token with the
//! same refresh token, so the second would sign the person out. Here the first request
//! refreshes and every other request presenting the same token waits for and shares its
//! answer; the answer is kept for a short while, for requests the browser sent with the
//! old cookie before the new one reached it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::watch;

/// How long a refresh's new tokens are handed to requests still carrying the old cookie:
/// longer than a page and its pictures take to load, and no longer — within it, the old
/// cookie replayed is not caught by the API's reuse detection.
const KEPT: Duration = Duration::from_secs(10);

/// What a refresh answered.
#[derive(Clone, Debug)]
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
/// token itself is not kept).
#[derive(Default)]
pub(crate) struct Refreshes {
    slots: Mutex<HashMap<[u8; 32], (Instant, Slot)>>,
}

impl Refreshes {
    /// The answer of refreshing `token`: `refresh` is run by the first caller only (in a
    /// task of its own, so a browser that goes away does not cancel it halfway), every
    /// other caller with the same token, at the same time or within [`KEPT`], gets its
    /// answer.
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
                    tokio::spawn(async move {
                        let _ = sender.send(Some(refresh.await));
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn tokens(n: usize) -> Refreshed {
        Refreshed::Tokens {
            access_token: format!("access-{n}"),
            access_until: 0,
            refresh_token: format!("refresh-{n}"),
        }
    }

    #[tokio::test]
    async fn concurrent_refreshes_of_one_token_refresh_once() {
        let refreshes = Arc::new(Refreshes::default());
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
        let refreshes = Refreshes::default();
        let failed = refreshes
            .refresh("sbr_x", async { Refreshed::Failed(503, "busy".to_owned()) })
            .await;
        assert!(matches!(failed, Refreshed::Failed(503, _)));
        let next = refreshes.refresh("sbr_x", async { tokens(1) }).await;
        assert!(matches!(next, Refreshed::Tokens { .. }));
    }
}
