//! Authentication and authorization: passwords, access tokens, and the [`Caller`]
//! extractor that is the one place a request becomes a permission-checked principal.

pub mod caller;
pub mod lockout;
pub mod password;
pub mod token;
pub mod totp;
pub mod verified;

pub use caller::{Anyone, Caller, Requires};
