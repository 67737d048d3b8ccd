//! `capc verify [PATH]`: the user's installed plugins and known marketplaces against a lock.

use capc_compiler::lock::write;
use capc_compiler::printable::escape;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub(crate) fn run(path: &Path, user_dir: Option<PathBuf>) -> ExitCode {
    let file = if path.is_dir() { path.join(write::FILE_NAME) } else { path.to_path_buf() };
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && path.is_dir() => {
            let path = escape(&path.to_string_lossy()).into_owned();
            eprintln!("error: no {} in {path}; run `capc lock {path}` first", write::FILE_NAME);
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: cannot read {}: {}", escape(&file.to_string_lossy()), escape(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let lock = match write::decode(&text) {
        Ok(lock) => lock,
        Err(e) => {
            // The lock's own text may be quoted in the error.
            let first = e.lines().next().unwrap_or("unreadable");
            eprintln!("error: {}: {}", escape(&file.display().to_string()), escape(first));
            return ExitCode::from(2);
        }
    };
    let Some(home) = user_dir.or_else(|| std::env::var_os("HOME").map(PathBuf::from)) else {
        eprintln!("error: HOME is not set; name the home folder with --user-dir");
        return ExitCode::from(2);
    };
    if !home.is_dir() {
        eprintln!("error: `{}` is not a folder", escape(&home.to_string_lossy()));
        return ExitCode::from(2);
    }
    let report = match capc_compiler::verify::verify(&lock, &home) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {}", escape(&e));
            return ExitCode::from(2);
        }
    };
    let text = capc_compiler::verify::to_text(&report, &file.display().to_string());
    if crate::output::write_stdout(&text).is_err() {
        return ExitCode::from(2);
    }
    if report.drifts() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
