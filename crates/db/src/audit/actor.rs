//! Who acts: the ambient actor of a request or a command, which every audited write
//! reads (see [`crate::audit`]); below the transaction, whose pending entries carry it.

use std::sync::Mutex;

use switchboard_domain::ids::UserId;

/// Who acts in the current request and from where.
#[derive(Clone, Debug, Default)]
pub struct Actor {
    /// The authenticated user (none for the command line, which acts as the operator).
    pub user_id: Option<UserId>,
    /// That user's e-mail address, or what names the actor without one (`cli:root`).
    pub user_email: String,
    /// The client address.
    pub client_address: String,
}

/// The acting context of one request: the address at once, the user once known.
#[derive(Debug)]
struct Acting {
    client_address: String,
    user: Option<(Option<UserId>, String)>,
}

tokio::task_local! {
    static ACTING: Mutex<Acting>;
}

/// Runs `work` (one request) with `client_address` as the acting address; writes made in
/// it are audited once [`identify`] has named the user.
pub async fn acting<F: std::future::Future>(client_address: String, work: F) -> F::Output {
    let acting = Mutex::new(Acting {
        client_address,
        user: None,
    });
    ACTING.scope(acting, work).await
}

/// Runs `work` (a command-line operation, say) as `actor`.
pub async fn acting_as<F: std::future::Future>(actor: Actor, work: F) -> F::Output {
    let acting = Mutex::new(Acting {
        client_address: actor.client_address,
        user: Some((actor.user_id, actor.user_email)),
    });
    ACTING.scope(acting, work).await
}

/// Names the authenticated user of the current request (nothing outside [`acting`]).
pub fn identify(user: UserId, email: &str) {
    let _ = ACTING.try_with(|acting| {
        if let Ok(mut acting) = acting.lock() {
            acting.user = Some((Some(user), email.to_owned()));
        }
    });
}

/// The current actor, when a user (or the command line) is known: writes without one
/// (the engine's reports pushed with its token, background work, seeding) are not
/// administrative changes and are not audited.
pub(crate) fn current() -> Option<Actor> {
    ACTING
        .try_with(|acting| {
            let acting = acting.lock().ok()?;
            let (id, email) = acting.user.clone()?;
            Some(Actor {
                user_id: id,
                user_email: email,
                client_address: acting.client_address.clone(),
            })
        })
        .ok()
        .flatten()
}
