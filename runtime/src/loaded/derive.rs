//! A lock file against its sources: read, its claims narrowed to what the sources vouch for
//! (see [`crate::trust::vouch`]), compared whole by `--verify`, and the lock `capc lock` would
//! write now derived in memory (what `capc serve` serves after a save).

use super::{LoadError, Loaded, Rederive, Roots};
use capc_compiler::lock::{paths, write};
use capc_compiler::model::Lock;
use capc_compiler::surface::Recorded;
use capc_compiler::{printable, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl Loaded {
    /// Reads `path` (a capabilities.lock) with `roots` telling where its paths point; refuses
    /// a lock file that is not a regular file, and a lock whose paths leave its folders.
    pub fn from_file(path: &Path, roots: Roots) -> Result<Loaded, LoadError> {
        // The lock's text is not kept once it is read (a large tree's lock is tens of MB).
        let read = || -> Result<(Lock, ClaimedFile), LoadError> {
            // As a session holds it (`for_session`), read so: the lock file is read whole again
            // wherever it is compared.
            let lock = decoded(path, write::read_decoded_for_session(path))?;
            paths::check(&lock, roots.given()).map_err(|e| LoadError::Refused(path.to_path_buf(), e))?;
            let claimed = ClaimedFile {
                path: path.to_path_buf(),
                local: lock.sources.iter().filter(|s| write::is_local_file(&s.path)).map(|s| s.path.clone()).collect(),
                recorded: Arc::new(Recorded { tools: lock.mcp_tools.clone(), failed: lock.mcp_failed.clone() }),
            };
            Ok((lock, claimed))
        };
        let (lock, claimed) = read()?;
        // The decoded lock is not held while the sources are checked (a large tree's lock is a
        // fifth of that peak): what the check needs of it is kept, and the file read again.
        drop(lock);
        // The file is the repository's word: what runs (servers, allow rules, trust) is what the
        // sources and the user's own files say now, which the lock may only narrow.
        let mut fresh = claimed.derive(&roots, "");
        // Vouching reads neither the fresh lock's sources nor its marketplace entries (on a large
        // tree, most of it): freed before the lock file is decoded again beside it.
        if let Ok(fresh) = fresh.as_mut() {
            fresh.sources = Vec::new();
            fresh.marketplace_plugins = Vec::new();
        }
        // Read again (and its paths checked again): a lock changed meanwhile is narrowed the same.
        let (lock, claimed) = read()?;
        // The claimed lock becomes the vouched one: one lock is held, not two.
        let (vouched, mut unvouched) = crate::trust::vouch(lock, fresh.as_ref().ok());
        if let Err(e) = &fresh {
            unvouched.insert(
                0,
                format!(
                    "the lock's sources cannot be read as `capc lock` reads them ({e}): no MCP server, allow rule or setting of the lock is taken on its word"
                ),
            );
        }
        drop(fresh);
        let mut loaded = Loaded::new(vouched, roots);
        loaded.claimed = Some(claimed);
        loaded.unvouched = unvouched;
        Ok(loaded)
    }

    /// Re-derives the whole lock from its sources (the check `capc lock` runs, on the lock's
    /// folder and the scopes of this session, with local settings when the lock has them) and
    /// refuses any difference: a changed, missing or new source by name, and otherwise the
    /// entries that differ, as a diff. An edited lock (an added server, a widened rule) is
    /// refused even when every source still hashes as listed.
    pub fn verify(&self) -> Result<(), LoadError> {
        let mut fresh = self.derive()?;
        let read;
        let claimed: &Lock = match &self.claimed {
            None if self.from_tree => {
                super::for_session(&mut fresh);
                &self.lock
            }
            None => &self.lock,
            Some(file) => {
                read = read_lock(&file.path)?;
                &read
            }
        };
        if fresh == *claimed {
            return Ok(());
        }
        let stale = |path: &str, why: &str| LoadError::Stale { path: path.to_string(), why: why.to_string() };
        for source in &claimed.sources {
            match fresh.sources.iter().find(|s| s.path == source.path) {
                None => return Err(stale(&source.path, "is gone (or is no longer read as a declaration)")),
                Some(now) if now.sha256 != source.sha256 => return Err(stale(&source.path, "changed")),
                Some(_) => {}
            }
        }
        let claimed_paths: std::collections::HashSet<&str> = claimed.sources.iter().map(|s| s.path.as_str()).collect();
        if let Some(new) = fresh.sources.iter().find(|s| !claimed_paths.contains(s.path.as_str())) {
            return Err(stale(&new.path, "is new"));
        }
        Err(LoadError::Edited { diff: write::diff(&write::encode(claimed), &write::encode(&fresh), write::FILE_NAME) })
    }

    /// The lock `capc lock` would write now, from the lock's folder and the scopes of this
    /// session (with local settings when the lock has them), computed in memory: what
    /// `verify` compares with, and what `capc serve` serves after a save.
    pub fn derive(&self) -> Result<Lock, LoadError> {
        self.rederive().derive()
    }

    /// The lock `capc lock` would write now for a session started in `start` (see
    /// [`Loaded::start_in`]), and the lock file's claim it is compared with (the lock file read
    /// again, or the lock in memory when there is no file).
    pub(super) fn derive_started(&self, start: &str) -> Result<(Lock, Arc<Lock>), LoadError> {
        match &self.claimed {
            None => Ok((derive_started(&self.lock, &self.roots, start)?, self.lock.clone())),
            Some(file) => Ok((file.derive(&self.roots, start)?, Arc::new(read_lock(&file.path)?))),
        }
    }
}

impl Rederive {
    /// See [`Loaded::derive`].
    pub fn derive(&self) -> Result<Lock, LoadError> {
        match &self.claimed {
            None if self.from_tree => derive_from(&self.roots, true, Some(&recorded(&self.lock)), &self.start),
            None => derive(&self.lock, &self.roots),
            Some(claimed) => claimed.derive(&self.roots, ""),
        }
    }
}

/// What a lock file claimed, as far as deriving the lock again needs it: the file is read
/// again by [`Loaded::verify`], not held (a large tree's lock is hundreds of MB in memory).
#[derive(Debug, Clone)]
pub(super) struct ClaimedFile {
    path: PathBuf,
    /// Its local files' paths: whether it was written with `--include-local`.
    local: Vec<String>,
    /// The MCP tool surface it recorded.
    recorded: Arc<Recorded>,
}

impl ClaimedFile {
    /// The lock `capc lock` would write now for the claimed lock's folder and `roots`, for a
    /// session started in `start` (empty: the folder itself).
    fn derive(&self, roots: &Roots, start: &str) -> Result<Lock, LoadError> {
        let tracked = capc_compiler::diff::revision::tracked_local_files(&roots.root);
        let include_local = write::untracked_local_among(self.local.iter().map(String::as_str), tracked.as_deref());
        derive_from(roots, include_local, Some(&self.recorded), start)
    }
}

/// A lock file, decoded (what [`Loaded::verify`] compares).
fn read_lock(path: &Path) -> Result<Lock, LoadError> {
    decoded(path, write::read_decoded(path))
}

fn decoded(
    path: &Path,
    read: Result<Option<Result<Lock, String>>, capc_compiler::walk::ReadError>,
) -> Result<Lock, LoadError> {
    let unreadable = |e: String| LoadError::Unreadable(path.to_path_buf(), e);
    match read {
        Ok(Some(decoded)) => decoded.map_err(|e| LoadError::Invalid(path.to_path_buf(), e)),
        Ok(None) => Err(unreadable("no such file".to_string())),
        Err(e) => Err(unreadable(e.to_string())),
    }
}

/// The MCP tool surface `lock` recorded.
fn recorded(lock: &Lock) -> Recorded {
    Recorded { tools: lock.mcp_tools.clone(), failed: lock.mcp_failed.clone() }
}

/// The lock `capc lock` would write now for `lock`'s folder and `roots` (with local settings
/// when `lock` has them); see [`Loaded::derive`].
fn derive(lock: &Lock, roots: &Roots) -> Result<Lock, LoadError> {
    derive_started(lock, roots, "")
}

/// [`derive`] for a session started in `start`.
fn derive_started(lock: &Lock, roots: &Roots, start: &str) -> Result<Lock, LoadError> {
    let tracked = capc_compiler::diff::revision::tracked_local_files(&roots.root);
    derive_from(roots, write::includes_untracked_local(lock, tracked.as_deref()), Some(&recorded(lock)), start)
}

/// The lock `capc lock` would write now for `roots` (with the local settings when
/// `include_local`), keeping the MCP tool surface `recorded` holds, for a session started in
/// `start` (see [`Loaded::start_in`]).
pub(super) fn derive_from(
    roots: &Roots,
    include_local: bool,
    recorded: Option<&Recorded>,
    start: &str,
) -> Result<Lock, LoadError> {
    // Local files as `capc lock` takes them: those git tracks (all outside a repository), or
    // every one with `--include-local`.
    let (leave_out_local, local_kept) = match include_local {
        true => (false, Vec::new()),
        false => capc_compiler::diff::revision::local_files_kept(&roots.root),
    };
    let mut options = Options {
        skip_hashes: false,
        leave_out_local,
        local_kept,
        start: start.to_string(),
        keeps: capc_compiler::check::Keeps::Lock,
        ..roots.options()
    };
    // The folder is read as `capc lock` reads it: its capc.toml (excluded files, rules) and
    // its ignore files.
    let config = capc_compiler::config::Config::load(&roots.root, None).map_err(|e| LoadError::Stale {
        path: ".".to_string(),
        why: format!("its configuration cannot be used ({e})"),
    })?;
    options.filter = config.filter();
    options.policy = Some(std::sync::Arc::new(config.policy()));
    let mut checked = capc_compiler::check(&options)
        .map_err(|e| LoadError::Stale { path: ".".to_string(), why: format!("cannot be checked ({e})") })?;
    // Errors in what a session does not load (an unlisted plugin, a skill collection) do not
    // stop `capc lock`, so they do not stop a verified session either.
    if checked.blocking_errors().next().is_some() {
        let errors: Vec<_> = checked.blocking_errors().collect();
        let first = errors
            .first()
            .map(|d| format!("`{}` [{}] {}", printable::escape(&d.path), d.rule, printable::escape(&d.message)))
            .unwrap_or_default();
        return Err(LoadError::Unchecked { first, errors: errors.len() });
    }
    // The MCP tool surface is recorded by `capc lock --connect`, not read from the sources:
    // kept as the lock recorded it for the servers still declared, as `capc lock` keeps it.
    let mut fresh = checked.take_lock();
    if let Some(recorded) = recorded {
        capc_compiler::surface::keep(&mut fresh, recorded);
    }
    Ok(fresh)
}
