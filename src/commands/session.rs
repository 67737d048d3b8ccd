//! `capc session`, and the lock it (and `capc serve`) runs.

use crate::args::SessionFrom;
use crate::output::{plugin_dirs_shown, shown};
use capc_compiler::lock::write;
use capc_compiler::printable;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// The lock `capc session` and `capc serve` run: `--lock FILE`, else PATH when it is a file,
/// else PATH/capabilities.lock.
pub(crate) fn lock_of(path: PathBuf, lock: Option<PathBuf>) -> PathBuf {
    match lock {
        Some(lock) => lock,
        None if path.is_file() => path,
        // `capabilities.lock`, not `./capabilities.lock`, in messages.
        None if path == std::path::Path::new(".") => PathBuf::from(write::FILE_NAME),
        None => path.join(write::FILE_NAME),
    }
}

/// The session `capc session` and `capc serve` run: the lock loaded (and verified when asked),
/// trusted only as the user said. Says why not on stderr.
pub(crate) fn load_session(
    lock: &std::path::Path,
    from: SessionFrom,
) -> Result<capc_runtime::session::Session, ExitCode> {
    use capc_runtime::loaded::{Loaded, Roots};
    let SessionFrom { verify, no_shell, trust, untrusted_injections, cwd, scopes } = from;
    let run_untrusted = untrusted_injections == crate::args::UntrustedInjections::Run;
    let root =
        lock.parent().filter(|p| !p.as_os_str().is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    if lock.symlink_metadata().is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        let folder = printable::escape(&root.display().to_string()).into_owned();
        eprintln!("error: no lock at `{}`", printable::escape(&lock.display().to_string()));
        if lock.file_name().is_some_and(|n| n == write::FILE_NAME) && root.is_dir() {
            eprintln!(
                "help: run `capc lock {folder}` to write it (a session runs from the lock, not from the files), \
                 or give another with `--lock FILE`"
            );
        }
        return Err(ExitCode::from(2));
    }
    // Absolute, as the paths a turn sends are (`Base directory for this skill: …`).
    let root = std::path::absolute(&root).unwrap_or(root);
    let roots = Roots {
        root,
        user_dir: scopes.user_dir,
        managed_dir: scopes.managed_dir,
        add_dirs: scopes.add_dir,
        plugin_dirs: scopes.plugin_dir,
        add_dir_instructions: crate::args::add_dir_instructions(),
    };
    let start = start_folder(&roots.root, cwd.as_deref())?;
    // Errors name a `--plugin-dir` folder by its path, as `ls` and `diff` do; the lock's
    // `<plugin-dir N>/` is its own notation.
    let plugin_dirs = roots.plugin_dirs.clone();
    let shown_error = |e: &dyn std::fmt::Display| {
        plugin_dirs_shown(&plugin_dirs, printable::escape_lines(&e.to_string()).into_owned())
    };
    let loaded = match Loaded::from_file(lock, roots) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}", shown_error(&e));
            return Err(ExitCode::from(2));
        }
    };
    let loaded = match loaded.start_in(start) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {}", shown_error(&e));
            if matches!(e, capc_runtime::loaded::LoadError::Stale { .. }) {
                eprintln!("help: run `capc lock` again: the lock no longer covers what a session started there loads");
            }
            return Err(ExitCode::from(2));
        }
    };
    if verify {
        if let Err(e) = loaded.verify() {
            eprintln!("error: {}", shown_error(&e));
            return Err(ExitCode::from(1));
        }
    }
    for note in &loaded.unvouched {
        say!("capc: {}", shown(note));
    }
    Ok(started(loaded, trust, no_shell, run_untrusted))
}

/// `--cwd`: the folder of `root` a session starts in, relative and normalized (`a/b`; empty
/// for the root itself); a path that leaves the project or names no folder in it is refused
/// (exit 2), so a session never reads outside it.
fn start_folder(root: &std::path::Path, cwd: Option<&std::path::Path>) -> Result<String, ExitCode> {
    let Some(cwd) = cwd else { return Ok(String::new()) };
    let refuse = |why: &str| {
        eprintln!("error: `--cwd {}` {why}", printable::escape(&cwd.display().to_string()));
        ExitCode::from(2)
    };
    let mut parts: Vec<String> = Vec::new();
    for part in cwd.components() {
        match part {
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            std::path::Component::CurDir => {}
            _ => return Err(refuse("must be a folder inside the project, relative to it, without `..`")),
        }
    }
    let rel = parts.join("/");
    let (Ok(real_root), Ok(real)) = (root.canonicalize(), root.join(&rel).canonicalize()) else {
        return Err(refuse("names no folder in the project"));
    };
    if !real.starts_with(&real_root) || !real.is_dir() {
        return Err(refuse("names no folder in the project (a link that leaves it is not followed)"));
    }
    Ok(rel)
}

/// The session of `loaded`, trusted only as the user said (`--trust`, or their own
/// `.claude.json`), saying on stderr what an untrusted folder keeps inert.
fn started(
    loaded: capc_runtime::loaded::Loaded,
    trust: bool,
    no_shell: bool,
    run_untrusted: bool,
) -> capc_runtime::session::Session {
    let trusted = trust || loaded.roots.user_trusts();
    if let Some(note) = capc_runtime::trust::untrusted_note(&loaded.lock, run_untrusted).filter(|_| !trusted) {
        say!("capc: {}", shown(&note));
    }
    let mut session = capc_runtime::session::Session::new(loaded);
    session.trusted = trusted;
    session.run_shell = !no_shell;
    session.run_untrusted = run_untrusted;
    session
}

/// The session `capc serve` runs without a lock: the files of `path` (and the scope folders
/// given) as Claude Code loads them, local settings included, trusted only as the user said.
/// Says why not on stderr: 2 when the folder cannot be read, 1 when what a session here loads
/// has errors (as `capc lock`).
pub(crate) fn load_tree(path: &std::path::Path, from: SessionFrom) -> Result<capc_runtime::session::Session, ExitCode> {
    use capc_runtime::loaded::{LoadError, Loaded, Roots};
    let SessionFrom { verify: _, no_shell, trust, untrusted_injections, cwd, scopes } = from;
    let run_untrusted = untrusted_injections == crate::args::UntrustedInjections::Run;
    let folder = printable::escape(&path.display().to_string()).into_owned();
    if !path.is_dir() {
        eprintln!("error: `{folder}` is not a folder (a lock file is served with `--lock FILE`)");
        return Err(ExitCode::from(2));
    }
    let root = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let roots = Roots {
        root,
        user_dir: scopes.user_dir,
        managed_dir: scopes.managed_dir,
        add_dirs: scopes.add_dir,
        plugin_dirs: scopes.plugin_dir,
        add_dir_instructions: crate::args::add_dir_instructions(),
    };
    let start = start_folder(&roots.root, cwd.as_deref())?;
    let loaded = match Loaded::from_tree(roots) {
        Ok(loaded) => loaded,
        Err(LoadError::Unchecked { first, errors }) => {
            eprintln!(
                "error: `{folder}` has {} in what a session here loads (the first: {first}); `capc check {folder}` shows them",
                capc_compiler::plural::count(errors, "error")
            );
            return Err(ExitCode::from(1));
        }
        Err(e) => {
            eprintln!("error: {}", printable::escape_lines(&e.to_string()));
            return Err(ExitCode::from(2));
        }
    };
    say!("capc: serving the files of `{folder}` as Claude Code loads them (no capabilities.lock is read or written), following saves");
    let loaded = match loaded.start_in(start) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {}", printable::escape_lines(&e.to_string()));
            return Err(ExitCode::from(2));
        }
    };
    Ok(started(loaded, trust, no_shell, run_untrusted))
}

pub(crate) fn session(lock: PathBuf, repl: bool, connect: bool, from: SessionFrom) -> ExitCode {
    crate::alloc::without_huge_pages_until_a_process_starts();
    let mut session = match load_session(&lock, from) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let live = if connect {
        match session.connect(
            capc_runtime::connect::Settings::from_env(|name| std::env::var(name).ok()),
            capc_runtime::turn::Entry::Headless,
        ) {
            Ok(live) => Some(live),
            Err(e) => {
                eprintln!("error: cannot start the MCP connections: {}", shown(&e));
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    // Without live connections, a signal still ends a running `!` injection's process group.
    let _signals = if live.is_none() { capc_runtime::connect::Signals::install().ok() } else { None };
    let result = if repl && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        // A person at a terminal: line editing and history.
        capc_runtime::repl::run_terminal(&mut session, std::io::stdout().lock())
    } else if repl {
        capc_runtime::repl::run(&mut session, std::io::stdin().lock(), std::io::stdout().lock())
    } else {
        capc_runtime::protocol::serve(&mut session, std::io::stdin().lock(), std::io::stdout().lock())
    };
    if let Some(live) = live {
        live.shutdown();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", shown(&e));
            ExitCode::from(2)
        }
    }
}
