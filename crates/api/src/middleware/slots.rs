//! The cap on uploads in flight, shared fairly between tenants (see
//! [`crate::middleware::guard`], which takes a slot for each upload): kept apart from
//! the layer so the settings can hold it without importing the layer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The uploads that may run at once: `total` in all, at most `per_holder` of them for
/// one holder (a tenant).
#[derive(Debug)]
pub struct UploadSlots {
    total: usize,
    per_holder: usize,
    held: Mutex<HashMap<String, usize>>,
}

impl UploadSlots {
    /// `total` slots, a quarter of them (at least one) for any one holder.
    pub fn new(total: usize) -> Arc<UploadSlots> {
        let total = total.max(1);
        Arc::new(UploadSlots {
            total,
            per_holder: (total / 4).max(1),
            held: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for `holder` (`None`: bound by the whole cap alone), or `None` when every
    /// slot or the holder's share is taken.
    pub(crate) fn take(self: &Arc<Self>, holder: Option<String>) -> Option<UploadSlot> {
        let mut held = self.held.lock().ok()?;
        let in_use: usize = held.values().sum();
        let holder = holder.unwrap_or_default();
        let mine = held.get(&holder).copied().unwrap_or(0);
        let share = if holder.is_empty() {
            self.total
        } else {
            self.per_holder
        };
        if in_use >= self.total || mine >= share {
            return None;
        }
        held.insert(holder.clone(), mine + 1);
        Some(UploadSlot {
            slots: self.clone(),
            holder,
        })
    }
}

/// A taken upload slot, given back when dropped.
pub(crate) struct UploadSlot {
    slots: Arc<UploadSlots>,
    holder: String,
}

impl Drop for UploadSlot {
    fn drop(&mut self) {
        if let Ok(mut held) = self.slots.held.lock()
            && let Some(count) = held.get_mut(&self.holder)
        {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.holder);
            }
        }
    }
}
