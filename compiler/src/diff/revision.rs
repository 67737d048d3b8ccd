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

use super::{ClaimState, LockClaim, Side};
use crate::model::Lock;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One side, read.
#[derive(Debug)]
pub struct Loaded {
    pub lock: Lock,
    pub side: Side,
    /// The texts of its instruction files, read while the side was at hand (none for a lock
    /// file, which holds only their hashes).
    pub texts: super::text::Texts,
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
pub fn load(arg: &str, folder: &Path, scopes: &Scopes) -> Result<Loaded, String> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{arg}`: {e}"))?;
        // The reader's message may span lines (a TOML excerpt); its first line says what failed.
        let lock = crate::lock::write::decode(&text).map_err(|e| {
            format!("`{arg}` is not a lock capc can read: {}", e.lines().next().unwrap_or("unreadable"))
        })?;
        return Ok(Loaded { lock, side: side(arg, "lock", None, 0), texts: super::text::Texts::new() });
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
    texts: super::text::Texts,
}

impl Resolved {
    fn loaded(self, arg: &str, read_as: &str, commit: Option<String>) -> Loaded {
        let side = Side { hidden: self.hidden, committed_lock: self.claim, ..side(arg, read_as, commit, self.errors) };
        Loaded { lock: self.lock, side, texts: self.texts }
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
    let claim = match crate::lock::write::read_file(&root.join(crate::lock::write::FILE_NAME)) {
        Ok(None) => None,
        Ok(Some(text)) => Some(match crate::lock::write::decode(&text) {
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

/// Configuration keys set on every git call, over whatever the repository's own
/// `.git/config` (or an included file) says: a repository is untrusted, and each of these names
/// a program git would start, or a way to fetch (which starts `ssh` or a credential helper).
/// `-c` outranks every configuration file.
const GIT_OVERRIDES: &[&str] = &[
    // The file-system monitor hook (run when git reads the index).
    "core.fsmonitor=false",
    // Hooks (none of capc's calls runs one; a later git might).
    "core.hooksPath=/dev/null",
    // No transport at all: a partial clone's promisor would otherwise fetch a missing blob
    // with `core.sshCommand`, `remote.*.uploadpack`, a `ext::` URL or a proxy command.
    "protocol.allow=never",
    "core.sshCommand=false",
    "core.gitProxy=false",
    "core.askPass=false",
    "credential.helper=",
    // Pagers and editors, should any call ever want one.
    "core.pager=cat",
    "core.editor=false",
    // Replacement objects (`refs/replace/`) would show another tree than the commit holds.
    "core.useReplaceRefs=false",
    // Signature checks run `gpg.program`.
    "log.showSignature=false",
];

/// Environment variables removed from every git call: those that point git at another
/// repository, index, object store or configuration than the folder's own (`git rev-parse
/// --local-env-vars`), and those that name programs.
const GIT_ENV_REMOVED: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_TRACE",
    "GIT_TRACE_PACKET",
    "GIT_TRACE_SETUP",
];

/// A git command in `dir` that no repository configuration can make start a program, fetch,
/// or read another repository: the keys of [`GIT_OVERRIDES`], the variables of
/// [`GIT_ENV_REMOVED`] unset, and
/// - `GIT_NO_LAZY_FETCH=1`: a partial clone's missing object is an error, not a fetch;
/// - `GIT_PROTOCOL_FROM_USER=0` and `GIT_TERMINAL_PROMPT=0`: no transport `protocol.allow`
///   left open, no password prompt;
/// - `--no-replace-objects` and `GIT_OPTIONAL_LOCKS=0`: objects as stored, nothing written
///   back into the repository (an index refresh).
///
/// The system and global configuration stay: they are the user's and their machine's, not the
/// repository's (`safe.directory`, which refuses a repository another user owns, lives there).
///
/// `top` is the folder holding the repository's `.git` (see [`locate`]); it is named to git as
/// both the repository (`--git-dir`) and its work tree (`--work-tree`), so the repository's
/// `core.worktree` or `core.bare` cannot make git answer for another folder or repository.
fn git_command(top: &Path) -> Command {
    let mut command = git_found(top);
    command.arg(git_flag("--git-dir", &top.join(".git"))).arg(git_flag("--work-tree", top));
    command
}

/// [`git_command`] with the repository left for git to find from `dir`: git then applies the
/// user's `safe.directory` (it checks who owns a repository only when it finds it itself).
fn git_found(dir: &Path) -> Command {
    let mut command = Command::new("git");
    for key in GIT_OVERRIDES {
        command.arg("-c").arg(key);
    }
    command.args(["--no-pager", "--no-replace-objects", "-C"]).arg(dir);
    for name in GIT_ENV_REMOVED {
        command.env_remove(name);
    }
    command
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .stdin(Stdio::null());
    command
}

/// Runs git in `dir`; its stdout, or why it failed (its first line of stderr).
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    run(git_command(dir).args(args))
}

/// Runs a git command; its stdout, or why it failed (its first line of stderr).
fn run(command: &mut Command) -> Result<Vec<u8>, String> {
    let mut child =
        command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| format!("cannot run git: {e}"))?;
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    // A call that never ends (git reading a configuration file that never ends, such as a named
    // pipe an `include.path` of the repository's own `.git/config` names) is stopped.
    let limit = git_timeout();
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if std::time::Instant::now() < deadline => std::thread::sleep(std::time::Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!(
                    "{TIMED_OUT} {} ms (CAPC_GIT_TIMEOUT_MS): a file its configuration names may never \
                     end, such as a named pipe",
                    limit.as_millis()
                ));
            }
            Err(e) => break Err(format!("cannot run git: {e}")),
        }
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    if status?.success() {
        Ok(stdout)
    } else {
        let stderr = String::from_utf8_lossy(&stderr);
        Err(stderr.lines().next().unwrap_or("git failed").trim().to_string())
    }
}

/// How [`run`]'s answer starts when git was stopped at [`git_timeout`].
const TIMED_OUT: &str = "git did not answer within";

/// Checks, before git is given the repository at `top`, that the files git opens first in its
/// `.git` (a folder, or a worktree's `gitdir:` file and the folders it names) are plain files
/// or absent: a named pipe or a device there would make git wait or read for ever. Its type is
/// looked at (links followed), never its contents but a `gitdir:`/`commondir` file's, which is
/// then a plain file.
fn plain_repository(top: &Path) -> Result<(), String> {
    let dot_git = top.join(".git");
    let meta = std::fs::metadata(&dot_git).map_err(|e| format!("cannot read {}: {e}", dot_git.display()))?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        // A worktree: `gitdir: PATH`, relative to `top` or absolute.
        let text = read_small(&dot_git)?;
        let named = text
            .strip_prefix("gitdir:")
            .map(str::trim)
            .ok_or_else(|| format!("{} is neither a repository folder nor a `gitdir:` file", dot_git.display()))?;
        top.join(named)
    } else {
        return Err(format!("{} is neither a folder nor a file", dot_git.display()));
    };
    let mut dirs = vec![git_dir.clone()];
    // A worktree's shared repository: `commondir`, relative to its own folder.
    let commondir = git_dir.join("commondir");
    if std::fs::symlink_metadata(&commondir).is_ok() {
        plain_file(&commondir)?;
        dirs.push(git_dir.join(read_small(&commondir)?.trim()));
    }
    for dir in dirs {
        match std::fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            _ => return Err(format!("{} is not a folder", dir.display())),
        }
        for name in ["HEAD", "config", "index", "commondir", "packed-refs", "shallow", "objects/info/alternates"] {
            let path = dir.join(name);
            if std::fs::symlink_metadata(&path).is_ok() {
                plain_file(&path)?;
            }
        }
    }
    Ok(())
}

/// `path`, when it (or what it links to) is a regular file; why not otherwise.
fn plain_file(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => Err(format!("{} is not a regular file (a named pipe or a device is never read)", path.display())),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The text of a small plain file of a repository (`gitdir:`, `commondir`), checked to be one.
fn read_small(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    plain_file(path)?;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_string(&mut text))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text)
}

/// How long one short git call (`rev-parse`, `ls-files`) may take: `CAPC_GIT_TIMEOUT_MS`, else a
/// minute. Every use of a repository starts with one, and git reads the repository's whole
/// configuration for each, so a configuration that never ends stops capc there.
fn git_timeout() -> std::time::Duration {
    std::env::var("CAPC_GIT_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(std::time::Duration::from_secs(60), std::time::Duration::from_millis)
}

/// `--name=path`, one argument (a path may start with `-`).
fn git_flag(name: &str, path: &Path) -> std::ffi::OsString {
    let mut flag = std::ffi::OsString::from(format!("{name}="));
    flag.push(path);
    flag
}

/// The folder holding the repository `folder` belongs to (the nearest folder at or above it
/// with a `.git`, a folder or a worktree's `gitdir:` file, as git finds it), and `folder`'s
/// path inside it (`a/b/`, empty at the top). Found here rather than asked of `git rev-parse
/// --show-toplevel`, which answers what the repository's own `core.worktree` says: a hostile
/// configuration could name another repository (the user's home), whose revisions would then be
/// read in place of this one's.
fn find_top(folder: &Path) -> Result<(PathBuf, String), String> {
    let canonical = folder.canonicalize().map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let top = canonical
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .ok_or_else(|| "not in a git repository".to_string())?;
    let inside = canonical.strip_prefix(top).unwrap_or(Path::new(""));
    let mut prefix = String::new();
    for part in inside.components() {
        prefix.push_str(&part.as_os_str().to_string_lossy());
        prefix.push('/');
    }
    Ok((top.to_path_buf(), prefix))
}

/// The repository holding `folder`: its top, `folder`'s place in it (`a/b/` or empty) and the
/// commit `arg` names there.
fn locate(arg: &str, folder: &Path, what: &str) -> Result<(PathBuf, String, String), String> {
    let not_found = |why: String| format!("`{arg}` is not {what} ({why})");
    let (top, prefix) = find_top(folder).map_err(not_found)?;
    plain_repository(&top).map_err(not_found)?;
    // git finds the same `.git` and refuses it when it is no repository or when the user's
    // `safe.directory` does not admit it.
    run(git_found(&top).args(["rev-parse", "--git-dir"])).map_err(not_found)?;
    let spec = format!("{arg}^{{commit}}");
    let commit = git(&top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])
        .map_err(|_| not_found(format!("no commit `{arg}` in {}", top.display())))?;
    let commit = String::from_utf8_lossy(&commit).trim().to_string();
    Ok((top, prefix, commit))
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

fn revision(arg: &str, folder: &Path, scopes: &Scopes) -> Result<Loaded, String> {
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

/// At most this many bytes of file content are written when a revision is extracted: past it
/// the revision is refused rather than half read. Files over the walk's own cap do not count
/// (they are not written, see [`write_blob`]).
pub const MAX_EXTRACT_BYTES: u64 = 1024 * 1024 * 1024;

/// A link's target longer than this is not a path (Linux's own limit is 4096 bytes).
const MAX_LINK_BYTES: u64 = 4096;

/// One blob of the tree to extract.
struct Entry {
    oid: String,
    /// Relative to the extraction root, `/`-separated, each part a plain name.
    rel: String,
    link: bool,
}

/// Writes the files under `prefix` at `commit` into `root` (`prefix` removed): `ls-tree`
/// lists them, one `cat-file --batch` process streams them all. Folders capc never reads
/// (`node_modules`, `target`, `.git`) are skipped; so are submodules.
///
/// The tree is hostile (git accepts on fetch a tree holding a link and a folder of the same
/// name), so nothing is written through anything but a folder this extraction made: every
/// parent is checked without following links, files are created new and never through a link,
/// and links are created only once every file is written, so no write can pass through one.
/// The walk then treats them as it treats links in a checkout (followed only inside the root).
/// A path whose parent is a file or a link, or that two entries claim, refuses the revision.
fn extract(top: &Path, commit: &str, prefix: &str, root: &Path) -> Result<(), String> {
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let entries = list_tree(top, commit, prefix)?;
    if entries.is_empty() {
        return Ok(());
    }
    let mut child = git_command(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
    let oids: String = entries.iter().map(|entry| format!("{}\n", entry.oid)).collect();
    // Written from another thread: git answers while it reads, and both pipes are bounded.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(oids.as_bytes());
    });
    let mut stdout = BufReader::new(child.stdout.take().ok_or("git cat-file has no stdout")?);
    let result = write_entries(&entries, &mut stdout, root);
    // Whatever stopped the writing, git is not left blocked on a full pipe.
    drop(stdout);
    let _ = child.kill();
    let _ = writer.join();
    let _ = child.wait();
    result
}

/// The blobs under `prefix` at `commit`, paths made relative to it.
fn list_tree(top: &Path, commit: &str, prefix: &str) -> Result<Vec<Entry>, String> {
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", commit];
    if !prefix.is_empty() {
        args.extend(["--", prefix]);
    }
    // Streamed record by record and bounded, never read whole: a hostile tree may list
    // millions of entries or paths of any length.
    let mut child = git_command(top)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let stdout = child.stdout.take().ok_or("git ls-tree has no stdout")?;
    let listed = read_listing(BufReader::new(stdout), commit, prefix);
    if listed.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| format!("cannot run git: {e}"))?;
    let entries = listed?;
    if !status.success() {
        return Err(format!("git cannot list the tree at {commit} ({status})"));
    }
    Ok(entries)
}

/// A path in a tree longer than this is refused (Linux's own limit on a path is 4096 bytes).
const MAX_TREE_PATH_BYTES: u64 = 4096;

/// Reads `ls-tree -r -z` records, at most [`crate::walk::MAX_ENTRIES`] of them, each at most
/// [`MAX_TREE_PATH_BYTES`] past its mode, type and id; paths made relative to `prefix`.
fn read_listing(mut listing: impl BufRead, commit: &str, prefix: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut records = 0usize;
    let mut record = Vec::new();
    loop {
        record.clear();
        let read = listing
            .by_ref()
            .take(MAX_TREE_PATH_BYTES + 128)
            .read_until(0, &mut record)
            .map_err(|e| format!("cannot read git ls-tree: {e}"))?;
        if read == 0 {
            break;
        }
        if record.last() != Some(&0) && read as u64 >= MAX_TREE_PATH_BYTES + 128 {
            return Err(format!("the tree at {commit} holds a path longer than {MAX_TREE_PATH_BYTES} bytes"));
        }
        if record.last() == Some(&0) {
            record.pop();
        }
        if record.is_empty() {
            continue;
        }
        records += 1;
        if records > crate::walk::MAX_ENTRIES {
            return Err(format!("the tree at {commit} holds more than {} files", crate::walk::MAX_ENTRIES));
        }
        let record = String::from_utf8_lossy(&record);
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let mut meta = meta.split(' ');
        let (mode, kind, oid) = (meta.next().unwrap_or(""), meta.next().unwrap_or(""), meta.next().unwrap_or(""));
        if kind != "blob" {
            continue;
        }
        let Some(rel) = path.strip_prefix(prefix) else { continue };
        let plain = rel.split('/').all(|p| {
            !(p.is_empty()
                || p == "."
                || p == ".."
                || p.contains('\\')
                || matches!(p, "node_modules" | "target" | ".git"))
        });
        if plain {
            entries.push(Entry { oid: oid.to_string(), rel: rel.to_string(), link: mode == "120000" });
        }
    }
    Ok(entries)
}

/// Reads each entry's blob from `cat-file --batch` output, in order, and writes it.
fn write_entries(entries: &[Entry], stdout: &mut impl BufRead, root: &Path) -> Result<(), String> {
    let mut folders = Folders::new(root);
    let mut written: u64 = 0;
    let mut links: Vec<(&Entry, PathBuf, String)> = Vec::new();
    for entry in entries {
        let size = read_header(stdout, &entry.oid)?;
        let target = folders.parent_of(&entry.rel)?;
        if entry.link {
            let to = read_bounded(stdout, size, MAX_LINK_BYTES)?;
            if !folders.taken.insert(entry.rel.clone()) {
                return Err(clash(&entry.rel));
            }
            links.push((entry, target, String::from_utf8_lossy(&to).into_owned()));
            continue;
        }
        if size <= crate::walk::MAX_FILE_BYTES {
            written += size;
            if written > MAX_EXTRACT_BYTES {
                return Err(format!(
                    "the revision holds more than {MAX_EXTRACT_BYTES} bytes of files; compare a checkout of it instead"
                ));
            }
        }
        write_blob(stdout, size, &target, &entry.rel)?;
        folders.taken.insert(entry.rel.clone());
    }
    for (entry, target, to) in links {
        if folders.made.contains(&entry.rel) {
            return Err(clash(&entry.rel));
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&to, &target).map_err(|e| format!("cannot create the link {}: {e}", entry.rel))?;
        #[cfg(not(unix))]
        let _ = (target, to);
    }
    Ok(())
}

fn clash(rel: &str) -> String {
    format!("the revision's tree holds `{rel}` twice, or below a file or link of the same name; git cannot check it out either")
}

/// The size `cat-file --batch` announces for `oid` (`<oid> blob <size>`).
fn read_header(stdout: &mut impl BufRead, oid: &str) -> Result<u64, String> {
    let mut header = Vec::new();
    // A header is a line of at most a hundred bytes; a longer one is not git's.
    (&mut *stdout).take(256).read_until(b'\n', &mut header).map_err(|e| e.to_string())?;
    let header = String::from_utf8_lossy(&header);
    let header = header.trim_end();
    if header.is_empty() {
        return Err(format!("git cat-file stopped before {oid}"));
    }
    let mut fields = header.split(' ');
    match (fields.next(), fields.next(), fields.next().and_then(|s| s.parse().ok())) {
        (Some(id), Some("blob"), Some(size)) if id == oid => Ok(size),
        _ if header.ends_with(" missing") => {
            Err(format!("the blob {oid} is missing from the repository (capc never fetches; run `git fetch` first)"))
        }
        _ => Err(format!("git cat-file answered `{header}` for {oid}")),
    }
}

/// The `size` bytes of a blob and the newline after them, when `size` is at most `limit`.
fn read_bounded(stdout: &mut impl BufRead, size: u64, limit: u64) -> Result<Vec<u8>, String> {
    if size > limit {
        return Err(format!("a link's target is {size} bytes long"));
    }
    let mut content = vec![0; size as usize + 1];
    stdout.read_exact(&mut content).map_err(|e| format!("reading from git: {e}"))?;
    content.truncate(size as usize);
    Ok(content)
}

/// Streams a blob of `size` bytes (and the newline after it) into a new file at `target`. A
/// blob over the walk's cap is not copied: the file is made that long but empty (sparse), so
/// the walk reports it as too large, as it would in a checkout, without it ever being stored.
fn write_blob(stdout: &mut impl BufRead, size: u64, target: &Path, rel: &str) -> Result<(), String> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(target).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => clash(rel),
        _ => format!("cannot write {}: {e}", target.display()),
    })?;
    let copied = if size > crate::walk::MAX_FILE_BYTES {
        file.set_len(size).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        std::io::copy(&mut (&mut *stdout).take(size), &mut std::io::sink())
    } else {
        std::io::copy(&mut (&mut *stdout).take(size), &mut file)
    }
    .map_err(|e| format!("reading {rel} from git: {e}"))?;
    let mut newline = [0u8; 1];
    if copied != size || stdout.read_exact(&mut newline).is_err() {
        return Err(format!("git cat-file stopped inside {rel}"));
    }
    Ok(())
}

/// The folders an extraction made, so a path's parents are checked once each, never through
/// a link: a parent that exists and is not one of them refuses the entry.
struct Folders<'a> {
    root: &'a Path,
    made: std::collections::HashSet<String>,
    /// Paths a file or link holds.
    taken: std::collections::HashSet<String>,
}

impl<'a> Folders<'a> {
    fn new(root: &'a Path) -> Folders<'a> {
        Folders { root, made: std::collections::HashSet::new(), taken: std::collections::HashSet::new() }
    }

    /// Makes the folders above `rel` (each a real folder made here) and returns its path.
    fn parent_of(&mut self, rel: &str) -> Result<PathBuf, String> {
        let mut at = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            if self.made.contains(&at) {
                continue;
            }
            if self.taken.contains(&at) {
                return Err(clash(rel));
            }
            let path = self.root.join(&at);
            // `create_dir` fails on anything already there, a link included: nothing followed.
            std::fs::create_dir(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => clash(rel),
                _ => format!("cannot create {}: {e}", path.display()),
            })?;
            self.made.insert(at.clone());
        }
        if self.made.contains(rel) {
            return Err(clash(rel));
        }
        Ok(self.root.join(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_is_read_record_by_record_and_bounded() {
        let oid = "0".repeat(40);
        let listing = format!(
            "100644 blob {oid}\tsub/a.md\0120000 blob {oid}\tsub/link\0040000 tree {oid}\tsub/t\0100644 blob {oid}\tother/b.md\0"
        );
        let entries = read_listing(listing.as_bytes(), "c", "sub/").expect("read");
        let read: Vec<(&str, bool)> = entries.iter().map(|e| (e.rel.as_str(), e.link)).collect();
        assert_eq!(read, [("a.md", false), ("link", true)]);
        // A path longer than any file system takes stops the listing, however it goes on.
        let long = format!("100644 blob {oid}\t{}", "x".repeat(1 << 20));
        let error = read_listing(long.as_bytes(), "c", "").err().expect("refused");
        assert!(error.contains("longer than 4096 bytes"), "{error}");
    }
}
