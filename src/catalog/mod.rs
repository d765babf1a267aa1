//! Many sessions: where they are, what each one is, how to find one.

pub mod summary;

pub use summary::SessionSummary;
