//! pitree: read, write and browse pi coding-agent sessions.

pub mod session;
