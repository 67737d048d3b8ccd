//! What every subcommand's output goes through.

use std::io::Write;

/// `-q/--quiet` was given: [`say!`] prints nothing.
pub(crate) static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(crate) fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Writes to stdout; a closed pipe (`capc check | head`) is not an error worth a panic.
pub(crate) fn write_stdout(text: &str) -> std::io::Result<()> {
    write_stdout_with(|out| out.write_all(text.as_bytes()))
}

/// Writes to stdout through `write`, for output made as it is written (a report too large to
/// hold), buffered; a closed pipe is not an error, as for [`write_stdout`].
pub(crate) fn write_stdout_with(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// An error or a note as the terminal gets it: text that may quote a repository, a lock, a
/// revision or a server (a path, a name, a line of git's or of a server's stderr) with every
/// control character escaped, as `check` and `ls` escape what they show.
pub(crate) fn shown(text: &dyn std::fmt::Display) -> String {
    capc_compiler::printable::escape_lines(&text.to_string()).into_owned()
}

/// `capc check` of `options`; when it cannot run, its error on stderr and exit code 2.
pub(crate) fn run_check(options: &capc_compiler::Options) -> Result<capc_compiler::Checked, std::process::ExitCode> {
    capc_compiler::check(options).map_err(|e| {
        eprintln!("error: {}", shown(&e));
        std::process::ExitCode::from(2)
    })
}

/// A human report of `ls`, `explain` or `diff` with each `<plugin-dir N>/` (the lock's name for a
/// `--plugin-dir` folder outside the checked one) as that folder's path, as `capc check` shows
/// it: relative to the current folder when below it, else absolute, so a terminal and an
/// editor open it. The lock and the JSON formats keep the placeholders.
pub(crate) fn plugin_dirs_shown(plugin_dirs: &[std::path::PathBuf], mut text: String) -> String {
    if !text.contains("<plugin-dir ") {
        return text;
    }
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
    for (i, dir) in plugin_dirs.iter().enumerate() {
        let placeholder = format!("<plugin-dir {}>/", i + 1);
        if !text.contains(&placeholder) {
            continue;
        }
        let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        let shown = match cwd.as_ref().and_then(|c| real.strip_prefix(c).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            _ => real,
        };
        let shown = format!("{}/", capc_compiler::printable::escape(&shown.to_string_lossy().replace('\\', "/")));
        text = text.replace(&placeholder, &shown);
    }
    text
}
