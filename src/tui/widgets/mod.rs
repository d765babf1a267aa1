//! Small reusable pieces of the screens.

pub mod input;
