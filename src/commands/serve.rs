//! `capc serve`.

use crate::args::SessionFrom;
use crate::commands::session::load_session;
use crate::output::shown;
use std::process::ExitCode;

/// `options.token` is read here, from the variable `token_env` names.
pub(crate) fn serve(
    lock: &std::path::Path,
    mut options: capc_runtime::serve::Options,
    token_env: Option<&str>,
    from: SessionFrom,
) -> ExitCode {
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
    let session = match load_session(lock, from) {
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
