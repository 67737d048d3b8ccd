//! `capc serve`.

use crate::args::SessionFrom;
use crate::commands::session::load_session;
use crate::output::shown;
use std::process::ExitCode;

pub(crate) fn serve(
    lock: &std::path::Path,
    http: Option<std::net::SocketAddr>,
    allow_remote: bool,
    token_env: Option<&str>,
    watch: bool,
    from: SessionFrom,
) -> ExitCode {
    if let Some(addr) = http {
        if let Err(e) = capc_runtime::serve::http::check_address(addr, allow_remote) {
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
    let options = capc_runtime::serve::Options { http, allow_remote, token, watch };
    match capc_runtime::serve::run(session, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", shown(&e));
            ExitCode::from(2)
        }
    }
}
