//! pitree: read, write and browse pi coding-agent sessions.

pub mod catalog;
pub mod session;
pub mod store;
