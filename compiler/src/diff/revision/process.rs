//! git, run as `capc diff` runs it: with the repository's configuration overridden where it
//! names a program to start or a way to fetch, an environment without what would redirect
//! it, a time limit; and the repository's top, a folder's place in it and a revision's commit.

use super::*;

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
pub(super) fn git_command(top: &Path) -> Command {
    let mut command = git_found(top);
    command.arg(git_flag("--git-dir", &top.join(".git"))).arg(git_flag("--work-tree", top));
    command
}

/// [`git_command`] with the repository left for git to find from `dir`: git then applies the
/// user's `safe.directory` (it checks who owns a repository only when it finds it itself).
pub(super) fn git_found(dir: &Path) -> Command {
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
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    run(git_command(dir).args(args))
}

/// Runs a git command; its stdout, or why it failed (its first line of stderr).
pub(super) fn run(command: &mut Command) -> Result<Vec<u8>, String> {
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
pub(super) const TIMED_OUT: &str = "git did not answer within";

/// Checks, before git is given the repository at `top`, that the files git opens first in its
/// `.git` (a folder, or a worktree's `gitdir:` file and the folders it names) are plain files
/// or absent: a named pipe or a device there would make git wait or read for ever. Its type is
/// looked at (links followed), never its contents but a `gitdir:`/`commondir` file's, which is
/// then a plain file.
pub(super) fn plain_repository(top: &Path) -> Result<(), String> {
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
pub(super) fn find_top(folder: &Path) -> Result<(PathBuf, String), String> {
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
pub(super) fn locate(arg: &str, folder: &Path, what: &str) -> Result<(PathBuf, String, String), String> {
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
