//! The keys a transaction locks ([`crate::Tx::lock_keys`]) where no one row stands for
//! what it guards: shared by the modules on both sides of the race, below them both.

/// The key a transaction locks (`Tx::lock_keys`) to check or change which model layout
/// `id` is for against the devices using it.
pub fn layout_key(id: i64) -> String {
    format!("button-layout:{id}")
}
