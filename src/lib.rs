//! pitree: read, write and browse pi coding-agent sessions.

pub mod catalog;
pub mod cli;
pub mod display;
pub mod json_text;
pub mod manager;
pub mod memory;
pub mod session;
pub mod store;
pub mod tui;

pub use manager::SessionManager;
