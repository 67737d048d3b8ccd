//! The two sides of `capc diff`: a lock file, a folder (checked and resolved as `capc lock`
//! would, nothing written), or a git revision: the folder as it was there, extracted into a
//! temporary folder and resolved. A folder's or revision's own `capabilities.lock` is a claim
//! its author made: it is compared with its sources, never read in their place.
//!
//! Revisions are read with the `git` command-line tool (`rev-parse`, `cat-file`, `ls-tree`),
//! not a library: no C library (libgit2) to build, and git runs with the user's own
//! configuration (safe directories, alternates, partial-clone promisors, credentials). This is
//! the one place the compiler starts a process; what it extracts is then read through `walk`
//! like any folder.

mod process;
mod tree;

use super::{ClaimState, LockClaim, Side};
use crate::model::Lock;
use process::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tree::*;

/// One side, read.
#[derive(Debug)]
pub struct ReadSide {
    pub lock: Lock,
    pub side: Side,
    /// The texts of its instruction files, read while the side was at hand (none for a lock
    /// file, which holds only their hashes).
    pub texts: super::text::RedactedTexts,
}

/// The scope folders a resolved side is read with, as `capc lock` takes them (`--user-dir`,
/// `--managed-dir`, `--add-dir`, `--plugin-dir`). A lock file stands for itself and ignores
/// them. For a git revision, a folder inside the compared folder (a plugin developed in the
/// repository) is read as it was at that revision; one outside is read as it is.
#[derive(Debug, Clone, Default)]
pub struct Scopes {
    pub user_dir: Option<PathBuf>,
    pub managed_dir: Option<PathBuf>,
    pub add_dirs: Vec<PathBuf>,
    pub plugin_dirs: Vec<PathBuf>,
}

impl Scopes {
    /// These scopes for a revision of `folder` extracted to `root`: every folder inside
    /// `folder` is its counterpart in `root`.
    fn at_revision(&self, folder: &Path, root: &Path) -> Scopes {
        let folder = folder.canonicalize().ok();
        let map = |dir: &PathBuf| -> PathBuf {
            let inside =
                folder.as_ref().and_then(|f| dir.canonicalize().ok()?.strip_prefix(f).ok().map(Path::to_path_buf));
            match inside {
                Some(rel) if rel.as_os_str().is_empty() => root.to_path_buf(),
                Some(rel) => root.join(rel),
                None => dir.clone(),
            }
        };
        Scopes {
            user_dir: self.user_dir.as_ref().map(map),
            managed_dir: self.managed_dir.as_ref().map(map),
            add_dirs: self.add_dirs.iter().map(map).collect(),
            plugin_dirs: self.plugin_dirs.iter().map(map).collect(),
        }
    }
}

/// Reads `arg`: an existing file is a lock, an existing folder is resolved, anything else is
/// a git revision of the repository holding `folder` (whose tree is read and resolved, at the
/// same place in the repository as `folder`). Folders and trees are resolved with `scopes`.
pub fn load(arg: &str, folder: &Path, scopes: &Scopes) -> Result<ReadSide, String> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{arg}`: {e}"))?;
        // The reader's message may span lines (a TOML excerpt); its first line says what failed.
        let lock = crate::lock::write::decode(&text).map_err(|e| {
            format!("`{arg}` is not a lock capc can read: {}", e.lines().next().unwrap_or("unreadable"))
        })?;
        return Ok(ReadSide { lock, side: side(arg, "lock", None, 0), texts: super::text::RedactedTexts::new() });
    }
    if path.is_dir() {
        return resolve(path, Local::Tracked, scopes).map(|r| r.loaded(arg, "tree", None));
    }
    revision(arg, folder, scopes)
}

fn side(arg: &str, read_as: &str, commit: Option<String>, errors: usize) -> Side {
    Side {
        arg: arg.to_string(),
        read_as: read_as.to_string(),
        commit,
        errors,
        hidden: Vec::new(),
        committed_lock: None,
    }
}

/// Which local settings files (`settings.local.json`) a resolved side reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Local {
    /// Every one: a revision's tree holds only what was committed.
    All,
    /// Those git tracks, when the folder is in a git repository (the others are the user's
    /// own, not part of any commit); every one outside a repository, or when git cannot say.
    Tracked,
}

/// A folder, resolved.
struct Resolved {
    lock: Lock,
    errors: usize,
    hidden: Vec<String>,
    claim: Option<LockClaim>,
    texts: super::text::RedactedTexts,
}

impl Resolved {
    fn loaded(self, arg: &str, read_as: &str, commit: Option<String>) -> ReadSide {
        let side = Side { hidden: self.hidden, committed_lock: self.claim, ..side(arg, read_as, commit, self.errors) };
        ReadSide { lock: self.lock, side, texts: self.texts }
    }
}

/// A folder checked and resolved from its sources, with its sources hashed; how many errors the
/// check found; the files of that lock that its ignore files and `exclude` hide; and what the
/// folder's own `capabilities.lock` claims against those sources. As `capc lock`: its
/// capc.toml (found from the folder upwards, or for a tree extracted from git, in its root
/// only) applies; but no ignore file and no `exclude` leaves a path out: they are the
/// repository's own, and Claude Code loads what they name all the same (a plugin below an
/// ignored folder, a nested `.claude/`). What they would hide from `capc check` and `capc lock`
/// is returned instead, so the diff reports a change that hides more as an escalation. Local
/// settings are read as `local` says: a committed `settings.local.json` is loaded by Claude Code
/// like any other settings file, so it is part of what a commit changes.
///
/// The folder's `capabilities.lock` is never read in place of its sources: whoever wrote the
/// change wrote it too. It is compared with what `capc lock` would write from the sources, and
/// the answer is reported beside the diff ([`LockClaim`]).
fn resolve(root: &Path, local: Local, scopes: &Scopes) -> Result<Resolved, String> {
    let extracted = local == Local::All;
    let config = if extracted {
        crate::config::find_in(root).and_then(|file| match file {
            Some(file) => crate::config::Config::read_found(root, &file),
            None => Ok(crate::config::Config::defaults(root)),
        })
    } else {
        crate::config::Config::load(root, None)
    }
    .map_err(|e| e.to_string())?;
    // Left out: none (`All`, or outside a repository), or those git does not track.
    let (leave_out_local, local_kept) = match local {
        Local::All => (false, Vec::new()),
        Local::Tracked => local_files_kept(root),
    };
    let policy = std::sync::Arc::new(config.policy());
    let recorded = crate::surface::Recorded::read(&root.join(crate::lock::write::FILE_NAME));
    let locked = |filter: crate::walk::Filter, leave_out_local: bool, local_kept: Vec<String>| {
        let options = crate::Options {
            root: root.to_path_buf(),
            user_dir: scopes.user_dir.clone(),
            managed_dir: scopes.managed_dir.clone(),
            add_dirs: scopes.add_dirs.clone(),
            plugin_dirs: scopes.plugin_dirs.clone(),
            skip_hashes: false,
            leave_out_local,
            local_kept,
            filter,
            policy: Some(policy.clone()),
            keeps: crate::check::Keeps::Lock,
            ..crate::Options::default()
        };
        crate::check(&options).map_err(|e| e.to_string())
    };
    let mut checked = locked(crate::walk::Filter::default(), leave_out_local, local_kept.clone())?;
    let errors = checked.blocking_errors().count();
    let mut lock = checked.take_lock();
    // The MCP tool surface is what the folder's own lock recorded (`capc lock --connect`), as
    // `capc lock` keeps it: a tree cannot list its servers, and no surface is not none offered.
    crate::surface::keep(&mut lock, &recorded);
    let filter = config.filter();
    let mut hidden = Vec::new();
    if filter.ignore_files || filter.exclude.is_some() {
        let filtered = locked(filter.clone(), leave_out_local, local_kept)?.take_lock();
        let kept: std::collections::BTreeSet<&str> = filtered.sources.iter().map(|s| s.path.as_str()).collect();
        hidden = lock.sources.iter().map(|s| s.path.clone()).filter(|p| !kept.contains(p.as_str())).collect();
        hidden.sort();
    }
    let claim = match crate::lock::write::read_decoded(&root.join(crate::lock::write::FILE_NAME)) {
        Ok(None) => None,
        Ok(Some(decoded)) => Some(match decoded {
            Err(_) => LockClaim { state: ClaimState::Unreadable, differences: 0 },
            Ok(committed) => {
                // What `capc lock` writes there: ignore files and `exclude` applied, local
                // settings as the committed lock has them (`--include-local` or not).
                let tracked = tracked_local_files(root);
                let include_local = crate::lock::write::includes_untracked_local(&committed, tracked.as_deref());
                let (leave_out, kept) = match (include_local, tracked) {
                    (false, Some(kept)) => (true, kept),
                    _ => (false, Vec::new()),
                };
                let mut sources = locked(filter, leave_out, kept)?.take_lock();
                crate::surface::keep(&mut sources, &recorded);
                let plain = |arg: &str| side(arg, "lock", None, 0);
                let differences = super::diff(&committed, &sources, plain("lock"), plain("sources")).changes.len();
                let state = if differences == 0 { ClaimState::Matches } else { ClaimState::Stale };
                LockClaim { state, differences }
            }
        }),
        // A lock that is no regular file (a link, a pipe) is none `capc lock` wrote.
        Err(_) => Some(LockClaim { state: ClaimState::Unreadable, differences: 0 }),
    };
    let texts = super::text::read(root, &lock);
    Ok(Resolved { lock, errors, hidden, claim, texts })
}

/// What a lock of `folder` leaves out of its local files (`settings.local.json`,
/// `CLAUDE.local.md`) unless `--include-local` asks for them, as [`crate::Options`]'
/// `leave_out_local` and `local_kept`: in a git work tree, those git does not track; outside
/// one, none (a copy of the folder gives them to whoever has it).
pub fn local_files_kept(folder: &Path) -> (bool, Vec<String>) {
    match tracked_local_files(folder) {
        Some(tracked) => (true, tracked),
        None => (false, Vec::new()),
    }
}

/// The local files below `folder` (`settings.local.json`, `CLAUDE.local.md`) that the git
/// repository holding it tracks (in its index: committed or staged), as paths relative to
/// `folder`; `None` when `folder` is in no repository git reads (not one, or one the user's
/// `safe.directory` refuses), and then which files are the user's own cannot be told: a
/// lock keeps them all, as a copy of the folder gives them to whoever has it.
///
/// A repository is untrusted: one whose `.git` holds something other than plain files where
/// git reads them (a named pipe as `HEAD`, which git would wait on) is not given to git, and it,
/// like one git does not answer for in time, tracks nothing here: its untracked local files
/// stay out as in any repository, never in as if there were none.
pub fn tracked_local_files(folder: &Path) -> Option<Vec<String>> {
    let (top, prefix) = find_top(folder).ok()?;
    if plain_repository(&top).is_err() {
        return Some(Vec::new());
    }
    if let Err(why) = run(git_found(&top).args(["rev-parse", "--git-dir"])) {
        return why.starts_with(TIMED_OUT).then(Vec::new);
    }
    // The folder's path as a glob pattern, its own glob characters escaped.
    let mut pattern = String::from(":(glob)");
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    let (settings, instructions) = (format!("{pattern}**/settings.local.json"), format!("{pattern}**/CLAUDE.local.md"));
    // A repository git reads, whose index it cannot list: nothing is known to be tracked.
    let Ok(listed) = git(&top, &["ls-files", "-z", "--cached", "--full-name", "--", &settings, &instructions]) else {
        return Some(Vec::new());
    };
    let mut tracked: Vec<String> = listed
        .split(|b| *b == 0)
        .filter_map(|path| String::from_utf8_lossy(path).strip_prefix(prefix.as_str()).map(str::to_string))
        .filter(|path| crate::lock::write::is_local_file(path))
        .collect();
    tracked.sort();
    tracked.dedup();
    Some(tracked)
}

/// A revision's tree of a folder, extracted (as `capc diff` extracts it) for a check; the
/// temporary folder is removed when this is dropped.
#[derive(Debug)]
pub struct Extracted {
    scratch: Scratch,
    /// Where the folder is in it.
    pub root: PathBuf,
    /// The commit read.
    pub commit: String,
}

impl Extracted {
    /// The temporary folder `root` was placed in (at the relative path given to [`extract_at`]).
    pub fn scratch(&self) -> &Path {
        &self.scratch.0
    }
}

/// Extracts `folder` as it was at the git revision `arg` of its repository into a temporary
/// folder, at the relative path `at` in it (whose last part should be `folder`'s name: a plugin
/// without a manifest is named after its folder). An empty `.git` folder at the temporary
/// folder's top makes the tree's `.gitignore` files count, as in the repository. For `capc
/// check --new-since`.
pub fn extract_at(arg: &str, folder: &Path, at: &Path) -> Result<Extracted, String> {
    let (top, prefix, commit) = locate(arg, folder, "a git revision")?;
    let scratch = Scratch::new()?;
    std::fs::create_dir(scratch.0.join(".git")).map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let plain = at.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain || at.as_os_str().is_empty() {
        return Err(format!("cannot extract into `{}`", at.display()));
    }
    let root = scratch.0.join(at);
    extract(&top, &commit, &prefix, &root)?;
    Ok(Extracted { scratch, root, commit })
}

fn revision(arg: &str, folder: &Path, scopes: &Scopes) -> Result<ReadSide, String> {
    let (top, prefix, commit) = locate(arg, folder, "a file, a folder or a git revision")?;
    // The folder as it was, resolved from its sources (its committed lock is only compared
    // with them). Named as the folder is, since a plugin at the root without a manifest is
    // named after its folder.
    let name = folder
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "tree".to_string());
    let scratch = Scratch::new()?;
    let root = scratch.0.join(name);
    extract(&top, &commit, &prefix, &root)?;
    // A checkout's `.gitignore` files are git's: an empty `.git` makes the walk read them as
    // in one, so the files they would hide from `capc lock` there are known (`resolve`).
    std::fs::create_dir(root.join(".git")).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let resolved = resolve(&root, Local::All, &scopes.at_revision(folder, &root))?;
    Ok(resolved.loaded(arg, "revision-tree", Some(commit)))
}

/// A temporary folder, removed when dropped.
#[derive(Debug)]
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        for attempt in 0..100u32 {
            let dir = base.join(format!("capc-diff-{}-{nanos}-{attempt}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create a temporary folder in {}: {e}", base.display())),
            }
        }
        Err(format!("cannot create a temporary folder in {}", base.display()))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
