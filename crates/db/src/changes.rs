//! What a write sets: the columns and their values, as [`crate::crud`] writes them and
//! the checks it runs (dial plan, in use) read them; below them all.

use sea_query::Expr;

/// Column values to write.
pub type Changes = Vec<(&'static str, Expr)>;
