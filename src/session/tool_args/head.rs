//! How much of a call's arguments a [`ToolArgs`](crate::session::entry::ToolArgs) keeps: the
//! length of its compact JSON head and the cap on the strings it does not read whole (cut with
//! [`crate::display::char_end`]). Both readers (the streamed pass and the one through a JSON
//! tree) take their limits from here.

/// How many characters of the compact JSON a [`ToolArgs`](crate::session::entry::ToolArgs) keeps.
pub const JSON_HEAD_CHARS: usize = 64;

/// Strings anywhere else are cut to this many characters: one more than the JSON head, so the
/// head is exact and a cut string always makes the JSON longer than the head.
pub(super) const STRING_CAP: usize = JSON_HEAD_CHARS + 1;
