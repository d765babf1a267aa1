//! The resume picker (product.md §4): [`state`] holds the reducer, [`draw`] draws it, [`keys`]
//! maps keys to its commands, [`source`] turns a scope's sessions into rows through the catalog's
//! search and thread tree, and [`preview`] builds the preview pane's transcript on a worker.

pub mod draw;
pub mod keys;
pub mod preview;
pub mod source;
pub mod state;
