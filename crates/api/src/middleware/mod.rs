//! The layers every request passes through around its handler, and the listener that
//! closes stalled connections: what the server wraps the routes in (see
//! [`admission`] for their order).

pub mod admission;
pub mod drain;
pub mod guard;
pub mod linger;
pub mod rate_limit;
pub mod request_id;
pub mod slots;
pub mod stall;
