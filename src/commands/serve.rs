//! `capc serve`.

use crate::args::SessionFrom;
use crate::commands::session::{load_session, load_tree, lock_of};
use crate::output::shown;
use std::path::PathBuf;
use std::process::ExitCode;

/// Serves `lock` (else PATH when it is a file, else PATH/capabilities.lock) or, with `tree` or
/// when there is no such lock, the files of `path` as Claude Code loads them, followed live.
/// `options.token` is read here, from the variable `token_env` names.
pub(crate) fn serve(
    path: PathBuf,
    lock: Option<PathBuf>,
    tree: bool,
    mut options: capc_runtime::serve::Options,
    token_env: Option<&str>,
    from: SessionFrom,
) -> ExitCode {
    let lock = (!tree).then(|| lock_of(path.clone(), lock)).filter(|lock| lock.symlink_metadata().is_ok());
    if let Some(addr) = options.http {
        if let Err(e) = capc_runtime::serve::http::check_address(addr, options.allow_remote) {
            eprintln!("error: {}", shown(&e));
            return ExitCode::from(2);
        }
    }
    let token = match token_env.map(|name| (name, std::env::var(name))) {
        None => None,
        Some((_, Ok(token))) if !token.is_empty() => Some(token),
        Some((name, _)) => {
            eprintln!("error: --token-env {name}: the environment variable {name} is not set (or is empty)");
            return ExitCode::from(2);
        }
    };
    if lock.is_none() && from.verify {
        let folder = capc_compiler::printable::escape(&path.display().to_string()).into_owned();
        eprintln!(
            "error: --verify checks a lock, and `{folder}` has none (its files are served as they are without it)"
        );
        return ExitCode::from(2);
    }
    // The files are the truth without a lock: they are followed as they are saved.
    options.watch |= lock.is_none();
    crate::alloc::without_huge_pages_until_a_process_starts();
    let loaded = match &lock {
        Some(lock) => load_session(lock, from),
        None => load_tree(&path, from),
    };
    let session = match loaded {
        Ok(session) => session,
        Err(code) => return code,
    };
    options.token = token;
    match capc_runtime::serve::run(session, options) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            eprintln!("error: {}", shown(&e));
            ExitCode::from(2)
        }
    }
}
