//! Repeated identical error lines, summarised: during an outage every request answers
//! the same 5xx, and one ERROR line each (1,361 in 10 s, issue 30) buries everything
//! else. The first line of a kind in a [`WINDOW`] is logged as it is; the others of that
//! window are only counted, and once the window ends one line says how many there were
//! ("N more like this in the last S seconds"). The next one after that opens a new
//! window, so a lasting outage writes two lines per kind per window.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// How long the repeats of a logged error line are counted before they are summarised.
pub const WINDOW: Duration = Duration::from_secs(10);

/// The most kinds counted at once: beyond them (a flood of errors each unlike the
/// others) a line is logged as it is, rather than the table growing without bound.
const MOST_KINDS: usize = 1024;

/// When each open window opened and the repeats counted in it so far, by kind of line.
fn open_windows() -> &'static Mutex<HashMap<String, (Instant, u64)>> {
    static OPEN: OnceLock<Mutex<HashMap<String, (Instant, u64)>>> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Whether a line of `kind` is to be logged now: `true` for the first of its window
/// (and then `summarise` is called with the number of repeats when the window ends, if
/// there were any), `false` for a repeat, which is counted instead. Outside a Tokio
/// runtime (no timer to end the window) every line is logged.
pub fn first_in_window(kind: String, summarise: impl FnOnce(u64) + Send + 'static) -> bool {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return true;
    };
    {
        let mut open = open_windows()
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // A window whose timer never ran (its runtime ended: tests) is over all the same.
        if let Some((opened, repeats)) = open.get_mut(&kind)
            && opened.elapsed() < WINDOW * 2
        {
            *repeats += 1;
            return false;
        }
        if open.len() >= MOST_KINDS {
            return true;
        }
        open.insert(kind.clone(), (Instant::now(), 0));
    }
    runtime.spawn(async move {
        tokio::time::sleep(WINDOW).await;
        let repeats = open_windows()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&kind)
            .map_or(0, |(_, repeats)| repeats);
        if repeats > 0 {
            summarise(repeats);
        }
    });
    true
}
