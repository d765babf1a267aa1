//! pi's `SessionManager` as a Rust library: create, open, append to, branch and fork the JSONL
//! session files of the [pi coding agent](https://github.com/earendil-works/pi), the way pi 1.6.0
//! does, with typed entries that serialize byte for byte as pi writes them.
//!
//! # A session in five steps
//!
//! ```
//! use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
//!
//! let dir = tempfile::tempdir()?;
//! // 1. A new session for a working directory; its file goes in `dir`.
//! let mut sm = SessionManager::create("/home/me/proj", Some(dir.path()), NewSessionOptions::default())?;
//! sm.append_model_change("anthropic", "claude-sonnet-4-5")?;
//! assert!(!sm.session_file().unwrap().exists()); // no conversation yet, no file
//!
//! // 2. Append the conversation; each append returns the new entry's id and moves the leaf.
//! let question = sm.append_message(AgentMessage::user("Why is the build slow?"))?;
//! let answer = sm.append_message(AgentMessage::assistant(
//!     "anthropic-messages", "anthropic", "claude-sonnet-4-5", "The linker.",
//! ))?;
//! sm.append_label_change(&question, Some("build"))?;
//!
//! // 3. Branch: move the leaf back and continue from there (the old branch stays in the file).
//! sm.branch(&question)?;
//! sm.append_message(AgentMessage::assistant(
//!     "anthropic-messages", "anthropic", "claude-sonnet-4-5", "Too many crates.",
//! ))?;
//! assert_eq!(sm.children(&question).len(), 2);
//!
//! // 4. What the model sees at the leaf.
//! let context = sm.build_session_context();
//! assert_eq!(context.messages.len(), 2);
//! assert_eq!(context.model.unwrap().model_id, "claude-sonnet-4-5");
//!
//! // 5. pi (or this library) opens the file again where the last entry is.
//! let reopened = SessionManager::open(sm.session_file().unwrap(), None, None)?;
//! assert_eq!(reopened.leaf_id(), sm.leaf_id());
//! assert_eq!(reopened.label(&question), Some("build"));
//! # let _ = answer;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The model
//!
//! A session file is a header line ([`SessionHeader`]) followed by entries ([`SessionEntry`]),
//! one JSON object per line. Entries form a tree through `id` / `parentId`; the **leaf** is where
//! the next entry goes. On open, the leaf is the last entry in the file; [`branch`] and
//! [`reset_leaf`] move it in memory only (pi does not persist a move either: the next append makes
//! it durable). [`tree`] gives the whole tree (children oldest first), [`branch_path`] the path
//! root → leaf, [`build_context_entries`] and [`build_session_context`] what the model sees
//! (compaction summaries, the kept range, branch summaries, custom messages, context edits).
//!
//! Every `append_*` method mirrors pi's: a fresh 8-hex-digit id, the leaf as parent, the current
//! time, then the new entry is the leaf. Writing follows pi 1.6.0:
//!
//! - **Deferred creation.** A new session writes nothing until it holds a user or assistant
//!   message; then the header and every entry are written at once, with an exclusive create (the
//!   file must not exist). Later appends are one line each.
//! - **Safe appends** go through [`crate::store`]: the file must still be the one that was read
//!   (else [`Error::FileChanged`] and nothing is written), a missing final newline is repaired,
//!   the line is written with one `write` and `fsync`ed. If a write fails, the entry is taken
//!   back out of memory.
//!
//! # Typed entries, lossless
//!
//! [`SessionEntry`], [`AgentMessage`] and [`ContentBlock`] type everything pi 1.6.0 writes. Fields
//! are declared in pi's order, optional fields are omitted when absent (never `null`), fields pi
//! adds later are kept in `extra`, and [`to_json_string`] formats numbers like JavaScript, so an
//! entry read from a pi file serializes to the same bytes (tests/manager_roundtrip.rs checks every
//! line of the fixtures). An entry, message or block of an unknown type or an unexpected shape is
//! kept verbatim in an `Other` variant instead of failing.
//!
//! # pi's names
//!
//! | pi (`SessionManager.*`) | here |
//! |---|---|
//! | `create`, `open`, `continueRecent`, `inMemory`, `forkFrom` | [`create`], [`open`], [`continue_recent`], [`in_memory`], [`fork_from`] |
//! | `findById`, `list`, `listAll` | [`find_by_id`], [`list`], [`list_all`] (returning [`SessionSummary`]) |
//! | `newSession`, `setSessionFile`, `createBranchedSession` | [`new_session`], [`set_session_file`], [`create_branched_session`] |
//! | `appendMessage`, `appendThinkingLevelChange`, `appendModelChange`, `appendCompaction`, `appendCustomEntry`, `appendSessionInfo`, `appendCustomMessageEntry`, `appendLabelChange`, `appendUsage`, `appendContextEdit` | `append_*` (each returns the id; `append_usage` too, where pi returns the entry) |
//! | `getLeafId`, `getLeafEntry`, `getEntry`, `getBranch`, `getTree`, `getChildren`, `getLabel` | [`leaf_id`], [`leaf_entry`], [`entry`], [`branch_path`], [`tree`], [`children`], [`label`] |
//! | `branch`, `resetLeaf`, `branchWithSummary` | [`branch`], [`reset_leaf`], [`branch_with_summary`] |
//! | `buildContextEntries`, `buildSessionContext`, `getEntries`, `getHeader`, `getSessionName` | [`build_context_entries`], [`build_session_context`], [`entries`], [`header`], [`session_name`] |
//! | `getCwd`, `getSessionDir`, `getSessionId`, `getSessionFile`, `isPersisted` | [`cwd`], [`session_dir`], [`session_id`], [`session_file`], [`is_persisted`] |
//!
//! # Where this library deliberately differs from pi
//!
//! - **Corrupt files** are refused ([`Error::NotASession`]) and never touched; pi 1.6.0 refuses
//!   too, older pi truncated them. Unreadable lines inside a session are skipped like pi skips
//!   them, and reported by [`damage`]; they stay in the file.
//! - **Legacy (v1/v2) files** are migrated in memory on open; on disk only before the first write,
//!   through [`crate::store::migrate`]: the original is kept as `<file>.v<N>.bak` and unreadable
//!   lines are kept verbatim ([`migration_backup`]). pi rewrites the file on open, without a
//!   backup, dropping unreadable lines. The migrated ids are derived from the file, so they are the
//!   same on every open (pi draws random ones).
//! - **Cycles and self-parents** in `parentId`, on which pi loops forever, are broken as the reader
//!   ([`crate::session::graph`]) breaks them: the member first in the file becomes a root.
//!   Duplicate ids: the first line wins (pi: the last). Lines that are not objects with a string
//!   `id` never become the leaf.
//! - **Concurrent writers.** pi appends blindly; this library refuses to append to a file that
//!   changed since it was read ([`Error::FileChanged`]): open it again.
//! - **Opening** does not append the missing final newline pi adds on open; the first append
//!   repairs it.
//! - **`fork_from`** migrates a legacy source first (pi's later fix) and copies the source's
//!   entries, not its unreadable lines.
//! - **Listing** uses pitree's catalog ([`crate::catalog`]): the header-`cwd` filter applies in the
//!   default folder too (two cwds can share one), a given folder's `--<cwd>--` subfolder and
//!   `list_all(Some(dir))`'s subfolders are listed as well, and nothing is created.
//! - **The default session folder** is `<agent dir>/sessions/--<cwd>--` with the agent dir from
//!   `PI_CODING_AGENT_DIR` (as pi's `SessionManager`); `PI_CODING_AGENT_SESSION_DIR` is for
//!   callers to honor, as pi's CLI does, by passing `session_dir`.
//!
//! [`branch`]: SessionManager::branch
//! [`reset_leaf`]: SessionManager::reset_leaf
//! [`tree`]: SessionManager::tree
//! [`branch_path`]: SessionManager::branch_path
//! [`build_context_entries`]: SessionManager::build_context_entries
//! [`build_session_context`]: SessionManager::build_session_context
//! [`create`]: SessionManager::create
//! [`open`]: SessionManager::open
//! [`continue_recent`]: SessionManager::continue_recent
//! [`in_memory`]: SessionManager::in_memory
//! [`fork_from`]: SessionManager::fork_from
//! [`find_by_id`]: SessionManager::find_by_id
//! [`list`]: SessionManager::list
//! [`list_all`]: SessionManager::list_all
//! [`SessionSummary`]: crate::catalog::SessionSummary
//! [`new_session`]: SessionManager::new_session
//! [`set_session_file`]: SessionManager::set_session_file
//! [`create_branched_session`]: SessionManager::create_branched_session
//! [`leaf_id`]: SessionManager::leaf_id
//! [`leaf_entry`]: SessionManager::leaf_entry
//! [`entry`]: SessionManager::entry
//! [`children`]: SessionManager::children
//! [`label`]: SessionManager::label
//! [`branch_with_summary`]: SessionManager::branch_with_summary
//! [`entries`]: SessionManager::entries
//! [`header`]: SessionManager::header
//! [`session_name`]: SessionManager::session_name
//! [`cwd`]: SessionManager::cwd
//! [`session_dir`]: SessionManager::session_dir
//! [`session_id`]: SessionManager::session_id
//! [`session_file`]: SessionManager::session_file
//! [`is_persisted`]: SessionManager::is_persisted
//! [`damage`]: SessionManager::damage
//! [`migration_backup`]: SessionManager::migration_backup

mod append;
mod branch;
mod build;
mod error;
mod json;
mod list;
mod load;
mod message;
mod open;
mod paths;
mod persist;
mod state;
mod tree;
mod types;

pub use build::{ModelRef, SessionContext};
pub use error::{Error, Result};
pub use json::to_json_string;
pub use message::*;
pub use open::NewSessionOptions;
pub use paths::{default_session_dir, resolve_path};
pub use state::SessionManager;
pub use tree::{SessionTree, TreeNode};
pub use types::*;
