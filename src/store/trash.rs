//! Deleting a session = moving it to the system trash (never unlinking), and undoing that where the
//! platform can list the trash (Linux/BSD freedesktop trash and Windows).

use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};

/// What is needed to put a trashed session back.
#[derive(Debug, Clone, PartialEq)]
pub struct Trashed {
    pub original: PathBuf,
}

/// Move `path` to the trash. It must be a `.jsonl` file inside `root`.
pub fn delete(path: &Path, root: &Path) -> Result<Trashed> {
    // The folder is resolved, not the file: a symlinked session goes to the trash as the link,
    // and the file it points to stays where it is.
    let original = super::migrate::entry_inside_root(path, root)?;
    if !original.is_file() {
        bail!("{} is not a file", original.display());
    }
    if original.extension().is_none_or(|e| e != "jsonl") {
        bail!("{} is not a session file (.jsonl)", original.display());
    }
    trash::delete(&original).map_err(|e| eyre!("{e}")).wrap_err_with(|| {
        format!("could not move {} to the trash; the file is unchanged", original.display())
    })?;
    Ok(Trashed { original })
}

/// Whether this platform can restore from the trash.
pub const CAN_UNDO: bool = cfg!(any(
    target_os = "windows",
    all(unix, not(target_os = "macos"), not(target_os = "ios"), not(target_os = "android"))
));

/// Put a trashed session back where it was (the newest trash item with that original path).
#[cfg(any(
    target_os = "windows",
    all(unix, not(target_os = "macos"), not(target_os = "ios"), not(target_os = "android"))
))]
pub fn undo(trashed: &Trashed) -> Result<()> {
    use trash::os_limited;
    if trashed.original.exists() {
        bail!("{} exists again, so the trashed copy was left in the trash", trashed.original.display());
    }
    let items = os_limited::list().map_err(|e| eyre!("{e}")).wrap_err("cannot list the trash")?;
    let item = items
        .into_iter()
        .filter(|i| i.original_path() == trashed.original)
        .max_by_key(|i| i.time_deleted)
        .ok_or_else(|| eyre!("{} is no longer in the trash", trashed.original.display()))?;
    os_limited::restore_all([item])
        .map_err(|e| eyre!("{e}"))
        .wrap_err_with(|| format!("could not restore {}", trashed.original.display()))
}

#[cfg(not(any(
    target_os = "windows",
    all(unix, not(target_os = "macos"), not(target_os = "ios"), not(target_os = "android"))
)))]
pub fn undo(trashed: &Trashed) -> Result<()> {
    bail!(
        "this platform cannot restore from the trash; {} is in the system trash",
        trashed.original.display()
    )
}
