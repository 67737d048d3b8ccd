//! The two sides of `capc diff`: a lock file, a folder (checked and resolved as `capc lock`
//! would, nothing written), or a git revision: the `capabilities.lock` committed there, else
//! the folder as it was there, extracted into a temporary folder and resolved.
//!
//! Revisions are read with the `git` command-line tool (`rev-parse`, `cat-file`, `ls-tree`),
//! not a library: no C library (libgit2) to build, and git runs with the user's own
//! configuration (safe directories, alternates, partial-clone promisors, credentials). This is
//! the one place the compiler starts a process; what it extracts is then read through `walk`
//! like any folder.

use super::Side;
use crate::model::Lock;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One side, read.
#[derive(Debug)]
pub struct Loaded {
    pub lock: Lock,
    pub side: Side,
}

/// Reads `arg`: an existing file is a lock, an existing folder is resolved, anything else is
/// a git revision of the repository holding `folder` (whose lock or tree is read, at the same
/// place in the repository as `folder`).
pub fn load(arg: &str, folder: &Path) -> Result<Loaded, String> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{arg}`: {e}"))?;
        // The reader's message may span lines (a TOML excerpt); its first line says what failed.
        let lock = crate::lock::write::decode(&text).map_err(|e| {
            format!("`{arg}` is not a lock capc can read: {}", e.lines().next().unwrap_or("unreadable"))
        })?;
        return Ok(Loaded { lock, side: side(arg, "lock", None, 0) });
    }
    if path.is_dir() {
        let (lock, errors) = resolve(path, false)?;
        return Ok(Loaded { lock, side: side(arg, "tree", None, errors) });
    }
    revision(arg, folder)
}

fn side(arg: &str, read_as: &str, commit: Option<String>, errors: usize) -> Side {
    Side { arg: arg.to_string(), read_as: read_as.to_string(), commit, errors }
}

/// A folder checked and resolved as `capc lock` would, with its sources hashed; and how many
/// errors the check found. As `capc lock`: its capc.toml (found from the folder upwards, or for a
/// tree extracted from git, in its root only) applies, ignore files and `exclude` leave paths
/// out, and `settings.local.json` stays out of the lock.
fn resolve(root: &Path, extracted: bool) -> Result<(Lock, usize), String> {
    let config = if extracted {
        crate::config::find_in(root).and_then(|file| crate::config::Config::load(root, file.as_deref()))
    } else {
        crate::config::Config::load(root, None)
    }
    .map_err(|e| e.to_string())?;
    let options = crate::Options {
        root: root.to_path_buf(),
        skip_hashes: false,
        leave_out_local: true,
        filter: config.filter(),
        policy: Some(std::sync::Arc::new(config.policy())),
        ..crate::Options::default()
    };
    let mut checked = crate::check(&options).map_err(|e| e.to_string())?;
    let errors = checked.blocking_errors().count();
    Ok((checked.take_lock(), errors))
}

/// Runs git in `dir`; its stdout, or why it failed (its first line of stderr).
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr.lines().next().unwrap_or("git failed").trim().to_string())
    }
}

fn revision(arg: &str, folder: &Path) -> Result<Loaded, String> {
    let not_found = |why: String| format!("`{arg}` is not a file, a folder or a git revision ({why})");
    let located = git(folder, &["rev-parse", "--show-toplevel", "--show-prefix"]).map_err(not_found)?;
    let located = String::from_utf8_lossy(&located).into_owned();
    let mut lines = located.lines();
    let top = PathBuf::from(lines.next().unwrap_or_default());
    let prefix = lines.next().unwrap_or_default().to_string();
    let spec = format!("{arg}^{{commit}}");
    let commit = git(&top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])
        .map_err(|_| not_found(format!("no commit `{arg}` in {}", top.display())))?;
    let commit = String::from_utf8_lossy(&commit).trim().to_string();
    // The lock committed at that revision, when there is one this capc reads.
    let lock_path = format!("{commit}:{prefix}{}", crate::lock::write::FILE_NAME);
    if let Ok(bytes) = git(&top, &["cat-file", "blob", &lock_path]) {
        if let Ok(lock) = crate::lock::write::decode(&String::from_utf8_lossy(&bytes)) {
            return Ok(Loaded { lock, side: side(arg, "revision-lock", Some(commit), 0) });
        }
    }
    // Else the folder as it was, resolved. Named as the folder is, since a plugin at the root
    // without a manifest is named after its folder.
    let name = folder
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "tree".to_string());
    let scratch = Scratch::new()?;
    let root = scratch.0.join(name);
    extract(&top, &commit, &prefix, &root)?;
    let (lock, errors) = resolve(&root, true)?;
    Ok(Loaded { lock, side: side(arg, "revision-tree", Some(commit), errors) })
}

/// A temporary folder, removed when dropped.
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

/// Writes the files under `prefix` at `commit` into `root` (`prefix` removed): `ls-tree`
/// lists them, one `cat-file --batch` process reads them all. Folders capc never reads
/// (`node_modules`, `target`, `.git`) are skipped; so are submodules.
fn extract(top: &Path, commit: &str, prefix: &str, root: &Path) -> Result<(), String> {
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", commit];
    if !prefix.is_empty() {
        args.extend(["--", prefix]);
    }
    let listing = git(top, &args)?;
    let mut files: Vec<(String, PathBuf, bool)> = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let mut meta = meta.split(' ');
        let (mode, kind, oid) = (meta.next().unwrap_or(""), meta.next().unwrap_or(""), meta.next().unwrap_or(""));
        if kind != "blob" {
            continue;
        }
        let Some(rel) = path.strip_prefix(prefix) else { continue };
        let parts: Vec<&str> = rel.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == ".." || matches!(*p, "node_modules" | "target" | ".git"))
        {
            continue;
        }
        files.push((oid.to_string(), root.join(rel), mode == "120000"));
    }
    if files.is_empty() {
        return Ok(());
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
    let oids: String = files.iter().map(|(oid, _, _)| format!("{oid}\n")).collect();
    // Written from another thread: git answers while it reads, and both pipes are bounded.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(oids.as_bytes());
    });
    let mut stdout = BufReader::new(child.stdout.take().ok_or("git cat-file has no stdout")?);
    let mut result = Ok(());
    for (oid, target, link) in &files {
        let mut header = String::new();
        if stdout.read_line(&mut header).map_err(|e| e.to_string())? == 0 {
            result = Err(format!("git cat-file stopped before {oid}"));
            break;
        }
        let size: usize = header
            .trim_end()
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("git cat-file answered `{}` for {oid}", header.trim_end()))?;
        let mut content = vec![0; size + 1];
        stdout.read_exact(&mut content).map_err(|e| format!("reading {oid} from git: {e}"))?;
        content.truncate(size);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        if *link {
            #[cfg(unix)]
            {
                let to = String::from_utf8_lossy(&content).into_owned();
                let _ = std::os::unix::fs::symlink(to, target);
            }
        } else {
            std::fs::write(target, &content).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    result
}
