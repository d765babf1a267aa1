//! The only code that changes session files. Every rule of product.md §3 lives here: append one
//! complete line with a single `write` and `fsync`; re-check the file before writing; repair a torn
//! tail; migrate legacy files on disk only with a backup; move deleted files to the trash; refuse
//! paths outside the sessions root for anything but an append.

pub mod actions;
pub mod append;
pub mod ids;
pub mod live;
pub mod migrate;
pub mod trash;

pub use actions::{Action, Written, write_action};
pub use append::WriteError;
