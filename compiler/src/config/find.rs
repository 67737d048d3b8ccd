//! Where the configuration file is looked for: the checked folder and those above it, up to
//! the repository's top, or through what the user owns outside a repository.

use super::file::FILE_NAMES;
use super::ConfigError;
use std::path::{Path, PathBuf};

/// The configuration file that applies to `start` (a folder): the first `capc.toml` or
/// `.capc.toml` in it or a folder above it, up to the repository's top. Two in one folder is
/// an error: which one counts would be a guess.
///
/// Outside a git repository the folders above `start` are anyone's: the search looks only in
/// those the user owns, up to their home folder (`$HOME`, looked in, not past), and takes there
/// only a file the user owns (on Unix; elsewhere it stops at the home folder).
/// [`outside_repository`] says when a file found is above the checked folder with no
/// repository around it, for the CLI to name it.
pub fn find(start: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    find_below(start, home.as_deref())
}

/// [`find`], with `home` as the user's home folder.
pub(super) fn find_below(start: &Path, home: Option<&Path>) -> Result<Option<PathBuf>, ConfigError> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    let in_repository = repository_top(&start).is_some();
    let home = home.map(|home| home.canonicalize().unwrap_or_else(|_| home.to_path_buf()));
    for dir in start.ancestors() {
        let above = dir != start;
        if above && !in_repository && !owned_by_user(dir) {
            break;
        }
        if let Some(found) = find_in(dir)? {
            if !above || in_repository || owned_by_user(&found) {
                return Ok(Some(found));
            }
        }
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() || (!in_repository && home.as_deref() == Some(dir)) {
            break;
        }
    }
    Ok(None)
}

/// The folder holding the git repository `dir` is in (the first at or above it with a `.git`).
fn repository_top(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

/// Whether `file`, a configuration [`find`] found for the checked folder `root`, is in a folder
/// above `root` with no git repository around `root`: a file the user may not know applies.
pub fn outside_repository(root: &Path, file: &Path) -> bool {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    file.parent().is_some_and(|dir| dir != root) && repository_top(&root).is_none()
}

/// Whether the user running capc owns `path` (not followed if a link).
#[cfg(unix)]
fn owned_by_user(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.uid() == nix::unistd::geteuid().as_raw())
}

#[cfg(not(unix))]
fn owned_by_user(_: &Path) -> bool {
    true
}

/// The configuration file in `dir` itself, if any (both names at once is an error).
pub fn find_in(dir: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let found: Vec<PathBuf> = FILE_NAMES.iter().map(|n| dir.join(n)).filter(|p| p.is_file()).collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        _ => Err(ConfigError(format!("{} holds both capc.toml and .capc.toml; keep one", dir.display()))),
    }
}
