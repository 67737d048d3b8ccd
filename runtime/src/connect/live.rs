//! Which servers a session starts, and [`Live`]: their supervisors on a runtime of their own,
//! with the signal handling that ends them (and running `!` injections) before `capc session`
//! exits.

use super::supervise::{Servers, Stopper};
use super::{Caller, Settings};
use crate::batch::Batcher;
use crate::launch::{Launch, LaunchError};
use crate::mcp::{Status, Update};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The servers of a lock that a session connects: Claude Code's choice (not hidden by another
/// server, not disabled or denied), each ready to start or with the reason it cannot be. A
/// project server that is neither approved nor turned off starts in a headless session
/// (`claude -p` approves it, trusted folder or not); an interactive one leaves it `pending`,
/// as Claude Code asks first.
pub fn launches(
    lock: &capc_compiler::model::Lock,
    lookup: impl Fn(&str) -> Option<String>,
    entry: crate::context::Entry,
    trusted: bool,
) -> Vec<(String, Result<Launch, LaunchError>)> {
    candidates(lock, entry)
        .filter(|s| trusted || !crate::trust::server_needs_trust(s))
        .map(|s| (s.name.clone(), crate::launch::prepare(s, &lookup)))
        .collect()
}

/// The servers [`launches`] would start in a trusted folder but leaves alone in an untrusted
/// one: the repository's own.
pub(crate) fn held_back(lock: &capc_compiler::model::Lock, entry: crate::context::Entry) -> Vec<String> {
    candidates(lock, entry).filter(|s| crate::trust::server_needs_trust(s)).map(|s| s.name.clone()).collect()
}

/// The servers Claude Code would connect, trust aside.
fn candidates(
    lock: &capc_compiler::model::Lock,
    entry: crate::context::Entry,
) -> impl Iterator<Item = &capc_compiler::model::McpServer> {
    use capc_compiler::model::{Approval, Scope};
    let headless = entry == crate::context::Entry::Headless;
    lock.mcp_servers
        .iter()
        .filter(|s| s.shadowed_by.is_none() && s.denied_by.is_none() && s.blocked_by.is_none())
        .filter(|s| s.approval != Some(Approval::Disabled))
        .filter(move |s| s.scope != Scope::Project || headless || s.approval == Some(Approval::Approved))
}

/// A session's live connections, on their own tokio runtime (the session itself is
/// synchronous).
pub struct Live {
    runtime: tokio::runtime::Runtime,
    servers: Servers,
    shared: crate::batch::Shared,
}

impl Live {
    /// Connects a session's servers (see [`launches`]), starting from its MCP state `state`;
    /// SSE and WebSocket servers and entries holding hashed secrets are `failed` with the
    /// reason. `Session::connect` hands the session [`Live::state`] and [`Live::caller`].
    pub fn start(
        lock: &capc_compiler::model::Lock,
        state: crate::mcp::McpState,
        trusted: bool,
        settings: Settings,
        entry: crate::context::Entry,
    ) -> std::io::Result<Live> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let shared: crate::batch::Shared =
            Arc::new(Mutex::new(crate::batch::Versioned { state, ..Default::default() }));
        let servers = runtime.block_on(async {
            let batcher = Batcher::spawn(shared.clone(), crate::batch::WINDOW);
            let mut ready = Vec::new();
            for (name, launch) in launches(lock, |name| std::env::var(name).ok(), entry, trusted) {
                match launch {
                    Ok(launch) => ready.push((name, launch)),
                    Err(e) => {
                        batcher.send(Update {
                            server: name,
                            status: Some(Status::Failed),
                            error: Some(e.to_string()),
                            ..Update::default()
                        });
                    }
                }
            }
            if !trusted {
                for name in held_back(lock, entry) {
                    batcher.send(Update {
                        server: name,
                        error: Some(
                            "not started: the folder is not trusted (pass --trust, or accept the folder in Claude Code)"
                                .to_string(),
                        ),
                        ..Update::default()
                    });
                }
            }
            Servers::start(ready, settings, &batcher)
        });
        end_on_signals(&runtime, Some(servers.stopper()));
        Ok(Live { runtime, servers, shared })
    }

    /// The state the connections update, for the session to copy before each request.
    pub fn state(&self) -> crate::batch::Shared {
        self.shared.clone()
    }

    /// Calls the connected servers' tools.
    pub fn caller(&self) -> Caller {
        self.servers.caller(self.runtime.handle().clone())
    }

    /// Closes every connection (each server's process group ends) and stops the runtime.
    pub fn shutdown(self) {
        let Live { runtime, servers, .. } = self;
        runtime.block_on(servers.shutdown());
        runtime.shutdown_timeout(Duration::from_secs(2));
    }
}

/// Killed by a signal, the session would leave its servers and a running `!` injection behind
/// (each sits in its own process group, out of the terminal's reach): at SIGINT, SIGTERM or
/// SIGHUP, end them first, then exit as killed (130, 143, 129).
fn end_on_signals(runtime: &tokio::runtime::Runtime, stopper: Option<Stopper>) {
    #[cfg(unix)]
    runtime.spawn(async move {
        let Some(code) = stop_signal().await else { return };
        crate::shell::end_all();
        if let Some(stopper) = stopper {
            stopper.stop().await;
        }
        std::process::exit(code.into());
    });
    #[cfg(not(unix))]
    let _ = (runtime, stopper);
}

/// The next SIGINT, SIGTERM or SIGHUP, as the exit status of a process it ended (130, 143,
/// 129); `None` at once when they cannot be watched. `capc session` and `capc serve --http`
/// stop on it.
#[cfg(unix)]
pub(crate) async fn stop_signal() -> Option<u8> {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) =
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()), signal(SignalKind::hangup()))
    else {
        return None;
    };
    Some(tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
        _ = hup.recv() => 129,
    })
}

/// The signal handling of a session without live connections ([`Live`] has its own): a `!`
/// injection running when the session is stopped is ended with it.
pub struct Signals {
    _runtime: tokio::runtime::Runtime,
}

impl Signals {
    pub fn install() -> std::io::Result<Signals> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
        end_on_signals(&runtime, None);
        Ok(Signals { _runtime: runtime })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Status;

    #[test]
    fn sessions_start_only_the_servers_claude_code_would() {
        use capc_compiler::model::{Approval, McpServer, Scope};
        let server = |name: &str, scope: Scope, approval: Option<Approval>| McpServer {
            name: name.into(),
            normalized: name.into(),
            scope,
            approval,
            path: ".mcp.json".into(),
            command: Some("x".into()),
            ..McpServer::default()
        };
        let mut lock = capc_compiler::lock::resolve::empty_lock();
        lock.mcp_servers = vec![
            server("approved", Scope::Project, Some(Approval::Approved)),
            server("waiting", Scope::Project, Some(Approval::Pending)),
            server("turned-off", Scope::User, Some(Approval::Disabled)),
            McpServer {
                blocked_by: Some("deniedMcpServers serverName `policy`".into()),
                ..server("policy", Scope::User, None)
            },
            McpServer { denied_by: Some("mcp__denied".into()), ..server("denied", Scope::User, None) },
            server("mine", Scope::Local, None),
        ];
        let names = |entry, trusted| {
            launches(&lock, |_| None, entry, trusted).into_iter().map(|(name, _)| name).collect::<Vec<_>>()
        };
        assert_eq!(names(crate::context::Entry::Interactive, true), ["approved", "mine"]);
        assert_eq!(
            names(crate::context::Entry::Headless, true),
            ["approved", "waiting", "mine"],
            "-p approves project servers"
        );
        assert_eq!(
            names(crate::context::Entry::Headless, false),
            ["mine"],
            "an untrusted folder's own servers never start; the user's do"
        );
        let state = crate::mcp::McpState::from_lock(&lock);
        let policy = state.servers().find(|s| s.name == "policy").expect("listed");
        assert_eq!(policy.status, Status::Disabled);
        assert_eq!(policy.error.as_deref(), Some("not loaded, MCP policy: deniedMcpServers serverName `policy`"));
        assert_eq!(state.servers().find(|s| s.name == "turned-off").map(|s| s.status), Some(Status::Disabled));
    }
}
